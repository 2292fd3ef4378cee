"""`crm-conformance serve --adapter-token-env NAME`: the reference's adapter requires the
secret in `$NAME`, the target file names the variable, and a whole run through it keeps
the value out of every output: stdout, stderr and every file of the report folder."""

import os
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from crm_conformance.cli import main

VARIABLE = "CC_TEST_ADAPTER_SECRET"
SECRET = "adapter-secret-9b2f61d4"
ADAPTER_HEAVY = "token_lifecycle or rate_limits or test_conversations"
"""Suites that mint tokens and make conversations through the adapter (the whole run
takes minutes on a loaded machine; these about ten seconds)."""
CLI = [sys.executable, "-c", "from crm_conformance.cli import main; main()"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Path]:
    """`serve --adapter-token-env` in a child process, its target file; its stdout and
    stderr (files: a pipe nobody reads would fill with its log and stall it) must never
    show the secret."""
    target = tmp_path / "t.toml"
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(
            [*CLI, "serve", "--adapter-token-env", VARIABLE, "--target-out", str(target)],
            stdout=stdout, stderr=stderr, text=True,
            env={**os.environ, VARIABLE: SECRET, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
    try:
        for _ in range(400):  # bounded: about 20 s of polls
            if target.exists() and target.stat().st_size:
                break
            assert process.poll() is None, err.read_text()
            time.sleep(0.05)
        yield target
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
    shown = out.read_text() + err.read_text()
    assert process.returncode == 0, shown[-2000:]
    assert f"(requires the secret in ${VARIABLE})" in shown
    assert SECRET not in shown


def test_serve_requires_the_secret_and_names_only_its_variable(
    served: Path,
) -> None:
    target = served
    text = target.read_text(encoding="utf-8")
    assert SECRET not in text
    data = tomllib.loads(text)
    assert data["adapter_token"] == {"value_env": VARIABLE}
    health = f"{data['adapter_url']}/v1/health"
    assert httpx.get(health).status_code == 401
    wrong = httpx.get(health, headers={"Authorization": "Bearer not-the-secret"})
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == "unauthorized"
    right = httpx.get(health, headers={"Authorization": f"Bearer {SECRET}"})
    assert right.status_code == 200
    assert right.json()["ok"] is True
    # The public API is untouched: its tokens, not the adapter's secret, open it.
    token = data["tokens"]["full"]["value"]
    users = httpx.get(f"{data['base_url']}/v1/users", headers={"Authorization": f"Bearer {token}"})
    assert users.status_code == 200


def test_a_run_through_the_guarded_adapter_passes_and_never_shows_the_secret(
    served: Path, tmp_path: Path
) -> None:
    target = served
    report = tmp_path / "report"
    done = subprocess.run(
        [*CLI, "run", "--target", str(target), "--classes", "all", "-n", "2",
         "--report-dir", str(report), "--", "-k", ADAPTER_HEAVY],
        capture_output=True, text=True, check=False, cwd=tmp_path,
        env={**os.environ, VARIABLE: SECRET},
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "nothing failed" in done.stdout.lower()
    assert SECRET not in done.stdout + done.stderr
    files = [path for path in report.rglob("*") if path.is_file()]
    assert any(path.parent.name == "allure-results" for path in files), "Allure results written"
    assert len(files) > 10
    leaking = [str(path) for path in files if SECRET.encode() in path.read_bytes()]
    assert not leaking


def test_serve_refuses_an_unset_variable_or_no_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    runner = CliRunner()
    unset = runner.invoke(main, ["serve", "--adapter-token-env", VARIABLE])
    assert unset.exit_code == 2
    assert f"the environment variable {VARIABLE} is not set" in unset.output
    monkeypatch.setenv(VARIABLE, SECRET)
    no_adapter = runner.invoke(main, ["serve", "--adapter-token-env", VARIABLE, "--no-adapter"])
    assert no_adapter.exit_code == 2
    assert "there is no adapter to protect" in no_adapter.output
