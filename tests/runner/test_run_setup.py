"""What a newcomer meets first: a relative target file from any folder, a wrong token
stopped before any test, usage errors that leave no report, and Ctrl-C that stops a run
cleanly (exit 130, a summary marked interrupted, the sweep command printed)."""

import json
import os
import signal
import subprocess
import textwrap
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result
from support.fake_target import error_body, rate_headers, serve
from support.interrupting import run_until

from crm_conformance.cli import main
from crm_conformance.core.model import paths


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(autouse=True)
def fake_suites(monkeypatch: pytest.MonkeyPatch, suites: Path, tmp_path: Path) -> Path:
    """The fake suites stand in for suites/; commands run from a folder of their own."""
    monkeypatch.setattr(paths, "SUITES_DIR", suites)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return suites


def test_a_relative_target_file_works_from_any_folder(target_file: Path, tmp_path: Path) -> None:
    relative = os.path.relpath(target_file, Path.cwd())
    assert not Path(relative).is_absolute()
    assert relative.startswith("..")
    result = invoke("run", "--target", relative, "--report-dir", "report")
    assert result.exit_code == 1, result.output  # the fake suites fail one requirement
    assert "NOT CONFORMANT" in result.output
    assert (Path.cwd() / "report" / "summary.md").is_file()


def test_a_wrong_token_is_one_setup_error_before_any_test(
    target_file: Path, token: str, tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(target_file.read_text().replace(token, "sk_test_wrong.wrongVerifier123"))
    result = invoke("run", "--target", str(wrong), "--report-dir", str(tmp_path / "r"))
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert lines[0].startswith("Error: tokens.full is not accepted: GET ")
    assert lines[1:] == ["Try 'crm-conformance run --help'."]
    assert not (tmp_path / "r").exists()


def test_smoke_calls_a_403_a_token_without_scopes(token: str, tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        body = error_body("permission_error", "insufficient_scope", request_id="req_1")
        return httpx.Response(403, json=body, headers=rate_headers("req_1"))

    with serve(refuse) as url:
        target = tmp_path / "scoped.toml"
        target.write_text(f'base_url = "{url}"\n[tokens.full]\nvalue = "{token}"\n')
        result = invoke("smoke", "--target", str(target))
    assert result.exit_code == 2
    assert (
        "tokens.full is accepted but may not list contacts: GET "
        f"{url}/v1/contacts -> 403 (insufficient_scope); tokens.full needs every scope"
    ) in result.output
    assert "authenticate" not in result.output


def test_a_usage_error_found_by_pytest_leaves_no_report(target_file: Path, tmp_path: Path) -> None:
    report = tmp_path / "r"
    result = invoke(
        "run",
        "--target",
        str(target_file),
        "--report-dir",
        str(report),
        "--",
        "-k",
        "nothing_matches",
    )
    assert result.exit_code == 2, result.output
    assert "no test was selected" in result.output
    assert not report.exists()


SLOW_SUITE = """
import time

import pytest


@pytest.mark.req("HDR-001")
@pytest.mark.parametrize("n", range(60))
def test_slow(api, n):
    assert api.get("/v1/contacts").status_code == 200
    time.sleep(0.5)
"""

HOOKWRAPPER_TEARDOWN = """
import time
from pathlib import Path

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_logfinish(nodeid, location):
    yield
    marker = Path({marker!r})
    if not marker.exists():
        marker.write_text(nodeid)
        time.sleep(2)  # the test's Ctrl-C lands here, as it did in allure-pytest's teardown
"""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_ctrl_c_stops_the_run_and_says_how_to_sweep(
    suites: Path, target_file: Path, tmp_path: Path, workers: str
) -> None:
    """The Ctrl-C lands inside an old-style hookwrapper's teardown, where allure-pytest
    writes each result: pytest's own KeyboardInterrupt there put pluggy's warning over
    the report (`reporting.graceful_stop`)."""
    (suites / "test_fake.py").write_text(textwrap.dedent(SLOW_SUITE), encoding="utf-8")
    marker = tmp_path / "in-teardown"
    conftest = HOOKWRAPPER_TEARDOWN.format(marker=str(marker))
    (suites / "conftest.py").write_text(conftest, encoding="utf-8")
    report = tmp_path / "report"
    run = run_until(marker, suites, target_file, "-n", workers, "--report-dir", str(report))
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=120)
    assert run.returncode == 130, out + err
    assert "crm-conformance: INTERRUPTED" in out
    assert "Interrupted (Ctrl-C) after " in out
    sweep = next(line.strip() for line in out.splitlines() if "crm-conformance sweep" in line)
    assert sweep.startswith(f"crm-conformance sweep --target {target_file} --prefix cc-")
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    assert summary["interrupted"] is True
    assert 0 < sum(summary["tests"].values()) < 60
    assert "**Interrupted**" in (report / "summary.md").read_text(encoding="utf-8")
    log = (report / "pytest.log").read_text(encoding="utf-8")
    assert "PluggyTeardownRaisedWarning" not in err + log
    assert "stopping after the running tests" in err


ONE_LONG_TEST = """
import time
from pathlib import Path

import pytest


@pytest.mark.req("HDR-001")
def test_waits_out_a_long_retry_after(api):
    Path({marker!r}).write_text("running")
    time.sleep(120)
"""


def test_a_second_ctrl_c_stops_a_test_that_is_still_running(
    suites: Path, target_file: Path, tmp_path: Path
) -> None:
    """The first Ctrl-C waits for the running test; a test sleeping out a long wait is
    stopped by the second, and the run still ends as interrupted (exit 130)."""
    marker = tmp_path / "running"
    test = ONE_LONG_TEST.format(marker=str(marker))
    (suites / "test_fake.py").write_text(test, encoding="utf-8")
    run = run_until(marker, suites, target_file, "--report-dir", str(tmp_path / "report"))
    os.killpg(run.pid, signal.SIGINT)
    with pytest.raises(subprocess.TimeoutExpired):
        run.wait(timeout=1.5)  # the first Ctrl-C lets the running test go on
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, out + err
    assert "crm-conformance: INTERRUPTED" in out
    assert "Ctrl-C again stops at once" in err
