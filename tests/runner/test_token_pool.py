"""A run's token pool (issue 22): each forked worker sends its own minted token, no
pool token reaches the report folder, and the minted tokens are revoked when the run
ends, after Ctrl-C too."""

import json
import os
import signal
import textwrap
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from support.interrupting import run_until

from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.cli import main
from crm_conformance.core.model import paths
from crm_conformance.core.transport.ledger import LEDGER_FILE
from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE, read_records
from crm_conformance.reference import running_server

POOL_SUITE = """
import time
from pathlib import Path

import pytest


@pytest.mark.req("HDR-001")
@pytest.mark.parametrize("n", range({tests}))
def test_sends_its_pool_token(api, configured_api, adapter, n):
    assert adapter.has("tokens")  # the adapter's requests are not the API's
    with open({seen!r}, "a") as seen:
        seen.write(api.token + "\\n")
    tag = {{"name": f"cc-pool-{{n}}-{{time.time_ns()}}", "kind": "contact"}}
    made = api.post("/v1/tags", json=tag)
    with open({made!r}, "a") as noted:
        noted.write(made.json()["id"] + "\\n")
    assert configured_api.get("/v1/me").status_code == 200
    assert configured_api.token != api.token  # tokens.full stays the configured one
    Path({marker!r}).write_text("sent")
    time.sleep({pause})
    raise AssertionError(f"a message quoting the pool token {{api.token}}")
"""


def write_suite(suites: Path, tmp_path: Path, *, tests: int, pause: float) -> tuple[Path, Path]:
    seen, marker = tmp_path / "seen.txt", tmp_path / "marker"
    made = tmp_path / "made.txt"
    text = POOL_SUITE.format(
        tests=tests, seen=str(seen), marker=str(marker), pause=pause, made=str(made)
    )
    (suites / "test_fake.py").write_text(textwrap.dedent(text), encoding="utf-8")
    return seen, marker


def refused(base_url: str, token: str) -> bool:
    """Whether the server refuses `token` (401): revoked."""
    answer = httpx.get(f"{base_url}/v1/me", headers={"Authorization": f"Bearer {token}"})
    return answer.status_code == 401


def test_each_worker_sends_its_own_minted_token_kept_out_of_the_report_and_revoked(
    suites: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen, _ = write_suite(suites, tmp_path, tests=6, pause=0.2)
    monkeypatch.setattr(paths, "SUITES_DIR", suites)
    report = tmp_path / "report"
    with running_server() as served:
        target = served.write_target_file(tmp_path / "target.toml")
        args = ["run", "--target", str(target), "-n", "2", "--token-pool", "2"]
        ran = CliRunner().invoke(main, [*args, "--report-dir", str(report)])
        pool = set(seen.read_text(encoding="utf-8").split())
        assert len(pool) == 2, ran.output
        assert served.tokens["full"] not in pool, ran.output
        assert all(refused(served.base_url, token) for token in pool)  # revoked at the end
        assert not refused(served.base_url, served.tokens["full"])
    assert ran.exit_code == 1, ran.output  # every fake test fails, quoting its token
    assert "2 tokens of the token pool carried the run" in (report / "summary.md").read_text()
    records = list(read_records(report / OUTCOMES_FILE))
    assert {record.token for record in records} == {"pool 1", "pool 2"}
    # POST /v1/tags and GET /v1/me; not the adapter's GET /v1/health (under base_url).
    assert {record.requests for record in records} == {2}
    made = set((tmp_path / "made.txt").read_text(encoding="utf-8").split())
    ledger = {
        entry["id"]: entry["workspace"]
        for entry in map(json.loads, (report / LEDGER_FILE).read_text().splitlines())
    }
    assert len(made) == 6
    assert all(ledger.get(i) == "primary" for i in made)
    for path in (p for p in report.rglob("*") if p.is_file()):
        content = path.read_bytes()
        assert not any(token.encode() in content for token in pool), path


def test_the_minted_tokens_are_revoked_after_ctrl_c(
    suites: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen, marker = write_suite(suites, tmp_path, tests=40, pause=0.3)
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "report"
    with running_server() as served:
        target = served.write_target_file(tmp_path / "target.toml")
        run = run_until(
            marker, suites, target, "-n", "2", "--token-pool", "2", "--report-dir", str(report)
        )
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=120)
        assert run.returncode == 130, out + err
        pool = set(seen.read_text(encoding="utf-8").split())
        assert pool
        assert served.tokens["full"] not in pool
        assert all(refused(served.base_url, token) for token in pool)


def test_a_shard_sends_its_own_tokens_of_the_target_files_pool(
    suites: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`[tokens.full] values_env`: shard 2 of 2 with `-n 2` takes the pool's third and
    fourth tokens (shard 1 the first two), keeps them out of its report, and leaves them
    alive: they are the vendor's, not the run's to revoke."""
    seen, _ = write_suite(suites, tmp_path, tests=4, pause=0.1)
    (suites / "test_fake_too.py").write_text((suites / "test_fake.py").read_text())
    monkeypatch.setattr(paths, "SUITES_DIR", suites)
    report = tmp_path / "report"
    with running_server() as served:
        assert served.adapter_url is not None
        adapter = AdapterClient(adapter_url=served.adapter_url)
        pool = [adapter.create_token().token for _ in range(4)]
        adapter.close()
        for number, token in enumerate(pool, start=1):
            monkeypatch.setenv(f"CRM_POOL_{number}", token)
        names = ", ".join(f'"CRM_POOL_{number}"' for number in range(1, 5))
        text = served.target_file_text().replace(
            "[tokens.full]\n", f"[tokens.full]\nvalues_env = [{names}]\n"
        )
        target = tmp_path / "target.toml"
        target.write_text(text, encoding="utf-8")
        args = ["run", "--target", str(target), "-n", "2", "--shard", "2/2", "--seed", "7"]
        ran = CliRunner().invoke(main, [*args, "--report-dir", str(report)])
        sent = set(seen.read_text(encoding="utf-8").split())
        assert sent, ran.output
        assert sent <= set(pool[2:]), ran.output
        assert not any(refused(served.base_url, token) for token in pool)
    for path in (p for p in report.rglob("*") if p.is_file()):
        content = path.read_bytes()
        assert not any(token.encode() in content for token in pool), path


def test_a_pool_to_mint_without_an_adapter_is_one_usage_error(tmp_path: Path) -> None:
    with running_server() as served:
        target = served.write_target_file(tmp_path / "target.toml")
        lines = target.read_text(encoding="utf-8").splitlines()
        target.write_text("\n".join(x for x in lines if not x.startswith("adapter_url")))
        args = ["run", "--target", str(target), "--token-pool", "2"]
        ran = CliRunner().invoke(main, [*args, "--report-dir", str(tmp_path / "report")])
    assert ran.exit_code == 2
    assert ran.output.splitlines()[0] == (
        "Error: a token pool of 2 is minted through the adapter (feature tokens), and the "
        "target names no adapter_url: add it, or list the tokens in [tokens.full] values_env"
    )
    assert not (tmp_path / "report").exists()
