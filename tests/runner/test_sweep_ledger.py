"""`sweep --run`: a run's ledger (`created.jsonl`) names every record it made, and the sweep
deletes exactly those through the adapter, on a server that offers none of the lists the
document does not show (variant `no_unshown_lists`), where the prefix sweep cannot search."""

import json
import os
import re
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.interrupting import run_until

from crm_conformance import AdapterError
from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.cli import main
from crm_conformance.core.transport.ledger import LEDGER_FILE, read
from crm_conformance.reference import running_server
from crm_conformance.reference.settings import ServerSettings

UNSHOWN = ("organizations", "deals", "activities", "tags", "campaigns")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def gone(adapter: AdapterClient, record_id: str) -> bool:
    """Whether the server no longer has `record_id` (the adapter's delete answers 404)."""
    try:
        adapter.delete_record(record_id)
    except AdapterError as exc:
        return exc.status == 404
    return False


def test_sweep_run_leaves_nothing_of_a_run_on_a_server_without_the_unshown_lists(
    tmp_path: Path,
) -> None:
    settings = ServerSettings(variants=frozenset({"no_unshown_lists"}))
    report = tmp_path / "report"
    with running_server(settings) as served:
        assert served.adapter_url is not None
        target = served.write_target_file(tmp_path / "target.toml")
        ran = invoke(
            "run", "--target", str(target), "--classes", "contacts,deals,tags",
            "--report-dir", str(report), "--",
            "-k", "test_contacts or test_deals or test_tags",
        )  # fmt: skip
        assert ran.exit_code == 0, ran.output
        text = (report / LEDGER_FILE).read_text(encoding="utf-8")
        entries = list(read(report / LEDGER_FILE))
        swept = invoke("sweep", "--run", str(report), "--target", str(target))
        again = invoke("sweep", "--run", str(report))  # the adapter the summary names
        by_prefix = invoke("sweep", "--target", str(target))
        adapter = AdapterClient(adapter_url=served.adapter_url)
        try:
            left = [entry.id for entry in entries if not gone(adapter, entry.id)]
        finally:
            adapter.close()
    assert {"contact", "deal", "tag"} <= {entry.kind for entry in entries}
    assert len(text.splitlines()) == len(entries)  # each id once, every line whole
    assert all(token not in text for token in served.tokens.values())
    assert swept.exit_code == 0, swept.output
    counted = re.search(
        r"(\d+) records in \S+, (\d+) deleted .*?, (\d+) already gone", swept.output
    )
    assert counted is not None, swept.output
    listed, deleted, already = map(int, counted.groups())
    # the run's own deletion tests delete a few records it made (a deleted record's id
    # is a missing one): the sweep finds those already gone, and deletes all the rest
    assert listed == len(entries)
    assert deleted + already == listed
    assert deleted > already
    assert left == []
    assert again.exit_code == 0, again.output
    assert f"0 deleted, 0 already gone, {len(entries)} swept before" in again.output
    assert by_prefix.exit_code == 1
    assert "could not search 5 lists (records may remain):" in by_prefix.output
    assert all(f"  {name}: GET /v1/{name} -> " in by_prefix.output for name in UNSHOWN)


def test_a_record_that_cannot_be_deleted_is_named_exits_1_and_is_tried_again(
    tmp_path: Path,
) -> None:
    """The adapter refuses a malformed id (400): it remains, and the next sweep tries it
    again; an unknown one (404) is already gone, and swept for good."""
    dead = "con_0000000000000000000000000000dead"
    with running_server() as served:
        target = served.write_target_file(tmp_path / "target.toml")
        (tmp_path / LEDGER_FILE).write_text(
            f'{{"id": "{dead}", "kind": "contact", "workspace": "primary", "via": "api"}}\n'
            '{"id": "usr_notmade", "kind": "user", "workspace": "primary", "via": "api"}\n'
            '{"id": "con_torn", "kind": "con',  # a line cut short: passed over
            encoding="utf-8",
        )
        first = invoke("sweep", "--run", str(tmp_path), "--target", str(target), "--json")
        second = invoke("sweep", "--run", str(tmp_path), "--target", str(target))
    result = json.loads(first.output)
    assert first.exit_code == 1
    assert result["listed"] == 2
    assert result["already_gone"] == [dead]
    assert [r["id"] for r in result["remaining"]] == ["usr_notmade"]
    assert second.exit_code == 1
    assert "0 deleted, 0 already gone, 1 swept before" in second.output
    assert "could not delete 1:\n  usr_notmade  user: adapter DELETE" in second.output


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [
        (("sweep",), "give --target FILE (or --run RUN_DIR)", 2),
        (("sweep", "--run", "nowhere"), "--run=nowhere: no such folder", 2),
    ],
)
def test_usage_errors_are_one_message(args: tuple[str, ...], message: str, code: int) -> None:
    result = invoke(*args)
    assert result.exit_code == code
    assert message in result.output


def test_a_folder_without_a_ledger_says_so(tmp_path: Path) -> None:
    result = invoke("sweep", "--run", str(tmp_path))
    assert result.exit_code == 2
    assert f"no {LEDGER_FILE} there" in result.output


def test_an_unreachable_adapter_exits_3(tmp_path: Path) -> None:
    (tmp_path / LEDGER_FILE).write_text(
        '{"id": "con_1", "kind": "contact", "workspace": "primary", "via": "api"}\n'
    )
    (tmp_path / "summary.json").write_text('{"target": {"adapter_url": "http://127.0.0.1:9"}}')
    result = invoke("sweep", "--run", str(tmp_path))
    assert result.exit_code == 3, result.output


CREATING_SUITE = """
import time
from pathlib import Path

import pytest


@pytest.mark.req("HDR-001")
@pytest.mark.parametrize("n", range(60))
def test_creating(api, run_prefix, n):
    answer = api.post("/v1/tags", json={{"name": f"{{run_prefix}}t{{n}}", "kind": "contact"}})
    assert answer.status_code in (200, 201)
    with open({made!r}, "a") as made:
        made.write(answer.json()["id"] + "\\n")
    if n == 2:
        Path({marker!r}).write_text("three made")
    time.sleep(0.3)
"""


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_ledger_is_whole_after_ctrl_c(
    suites: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """Ctrl-C mid-run (forked workers too): every line of the ledger parses, and every
    record a test saw created before the interrupt is in it."""
    made, marker = tmp_path / "made.txt", tmp_path / "marker"
    (suites / "test_fake.py").write_text(
        CREATING_SUITE.format(made=str(made), marker=str(marker)), encoding="utf-8"
    )
    report = tmp_path / "report"
    monkeypatch.chdir(tmp_path)
    with running_server() as served:
        target = served.write_target_file(tmp_path / "target.toml")
        run = run_until(marker, suites, target, "-n", workers, "--report-dir", str(report))
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=120)
    assert run.returncode == 130, out + err
    lines = (report / LEDGER_FILE).read_text(encoding="utf-8").splitlines()
    ledger = [json.loads(line) for line in lines]  # every line whole
    created = set(made.read_text(encoding="utf-8").split())
    assert created  # at least the record the marking test made
    assert created <= {entry["id"] for entry in ledger}
    assert {entry["kind"] for entry in ledger} == {"tag"}
    assert f"crm-conformance sweep --run {report}" in out
