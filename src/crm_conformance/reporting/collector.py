"""The runner's pytest plugin: outcome records, progress, waivers and Allure labels.

Loaded by `crm-conformance run` with `-p crm_conformance.reporting.collector`, beside
the harness plugin, so plain `pytest suites` stays as the harness defines it. The
controller (the only process on `-n 0`) turns each test's reports, whose
`user_properties` travel across xdist, into one `OutcomeRecord` in `outcomes.jsonl`.
Workers label Allure results and attach a failing test's exchanges (already redacted
by the client).
"""

import json
import sys
from collections.abc import Generator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from crm_conformance import profiles
from crm_conformance.reporting.allure_labels import HISTORY_LABEL
from crm_conformance.reporting.records import OutcomeRecord

PROP_REQUIREMENT = "requirement"
PROP_CLASS = "class"
PROP_OBSERVATION = "observation"
PROP_OUTCOME = "crm_outcome"
PROP_CAUSE = "crm_cause"
"""Keys the harness plugin puts in user_properties (crm_conformance.plugin)."""

_RECORDS = pytest.StashKey["Collector"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crm-conformance-run", "options set by crm-conformance run")
    group.addoption("--crm-outcomes", metavar="FILE", help="write outcome records (JSONL) here")
    group.addoption(
        "--crm-waivers",
        metavar="FILE",
        help="JSON list of {id, reason, link, expires}: strict expected failures",
    )
    group.addoption("--crm-list", metavar="FILE", help="write the collected tests (JSON) here")
    group.addoption("--crm-progress", action="store_true", help="print a progress line to stderr")
    group.addoption(
        "--profile",
        dest="crm_profile",
        choices=profiles.NAMES,
        default=profiles.DEFAULT,
        help="quick, full or deep: how many generated cases the fuzz tests run "
        "(deep: rounds until --fuzz-minutes are spent)",
    )
    group.addoption(
        "--fuzz-minutes",
        dest="crm_fuzz_minutes",
        type=float,
        metavar="M",
        help=f"the deep profile's time budget for all fuzz tests "
        f"(default $CRM_FUZZ_MINUTES, else {profiles.DEFAULT_FUZZ_MINUTES:g})",
    )


class Collector:
    """Gathers the reports of each test into one outcome record (controller only)."""

    def __init__(self, path: Path | None, progress: bool, waived: dict[str, dict[str, str]]):
        self.path = path
        self.progress = progress
        self.waived = waived
        self.total = 0
        self.done = 0
        self.failures = 0
        self.pending: dict[str, list[pytest.TestReport]] = {}
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("", encoding="utf-8")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Every report of every worker arrives here, on the controller."""
        self.pending.setdefault(report.nodeid, []).append(report)
        if report.when != "teardown":
            return
        record = outcome_record(self.pending.pop(report.nodeid), self.waived)
        self.done += 1
        if record.outcome in ("failed", "error", "blocked"):
            self.failures += 1
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(record.to_json() + "\n")
        if self.progress:
            sys.stderr.write(f"\r{self.done}/{self.total} tests, {self.failures} failing   ")
            sys.stderr.flush()


def _values(reports: list[pytest.TestReport], key: str) -> list[Any]:
    found: list[Any] = []
    for report in reports:
        for name, value in report.user_properties:
            if name == key and value not in found:
                found.append(value)
    return found


def outcome_record(
    reports: list[pytest.TestReport], waived: dict[str, dict[str, str]]
) -> OutcomeRecord:
    """The outcome of one test from its setup/call/teardown reports.

    Harness-classified outcomes (blocked, error) win; a skip is `not_applicable`
    with its reason; a failure outside the call phase is a setup `error`.
    """
    ids = [str(v) for v in _values(reports, PROP_REQUIREMENT)]
    classes = [str(v) for v in _values(reports, PROP_CLASS)]
    observations = [v for v in _values(reports, PROP_OBSERVATION) if isinstance(v, dict)]
    classified = _values(reports, PROP_OUTCOME)
    causes = _values(reports, PROP_CAUSE)
    outcome, cause = "passed", ""
    for report in reports:
        if report.skipped and not hasattr(report, "wasxfail"):
            outcome, cause = "not_applicable", _skip_reason(report)
            break
        if hasattr(report, "wasxfail"):
            outcome, cause = "expected_failure", str(report.wasxfail)
            break
        if report.failed:
            if report.when == "call":
                outcome = str(classified[0]) if classified else "failed"
            else:
                outcome = "error"
            cause = str(causes[0]) if causes else _first_line(report)
            break
    if outcome == "failed" and any(i in waived for i in ids) and "XPASS" in cause:
        cause = "waived requirement passed: remove its waiver (strict expected failure)"
    return OutcomeRecord(
        nodeid=reports[0].nodeid,
        outcome=outcome,
        requirements=ids,
        classes=classes,
        cause=cause,
        duration=round(sum(r.duration for r in reports), 4),
        observations=observations,
    )


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return _first_line(report)


def _first_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message).splitlines()[0] if crash.message else ""
    text = str(report.longrepr or "").strip()
    return text.splitlines()[-1] if text else ""


def load_waivers(path: Path, today: date) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Waivers still in force, by requirement id, and a warning per expired one."""
    entries = json.loads(path.read_text(encoding="utf-8"))
    active: dict[str, dict[str, str]] = {}
    warnings: list[str] = []
    for entry in entries:
        expires = entry.get("expires")
        if expires and date.fromisoformat(str(expires)) < today:
            warnings.append(f"waiver for {entry['id']} expired on {expires}; ignored")
            continue
        active[str(entry["id"])] = {k: str(v) for k, v in entry.items()}
    return active, warnings


def pytest_configure(config: pytest.Config) -> None:
    waivers_path = config.getoption("crm_waivers")
    waived: dict[str, dict[str, str]] = {}
    if waivers_path:
        waived, warnings = load_waivers(Path(waivers_path), date.today())
        for warning in warnings:
            if not hasattr(config, "workerinput"):
                sys.stderr.write(f"warning: {warning}\n")
    outcomes = config.getoption("crm_outcomes")
    is_worker = hasattr(config, "workerinput")
    collector = Collector(
        Path(outcomes) if outcomes and not is_worker else None,
        bool(config.getoption("crm_progress")) and not is_worker,
        waived,
    )
    config.stash[_RECORDS] = collector
    if not is_worker:
        config.pluginmanager.register(collector, "crm-conformance-collector")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Waived requirements become strict xfails: a waived test that passes fails the run."""
    collector = config.stash[_RECORDS]
    for item in items:
        for req_id in _item_ids(item):
            waiver = collector.waived.get(req_id)
            if waiver is not None:
                reason = f"waived {req_id}: {waiver.get('reason', '')} {waiver.get('link', '')}"
                item.add_marker(pytest.mark.xfail(reason=reason.strip(), strict=True))
                break


def _item_ids(item: pytest.Item) -> list[str]:
    return [str(a) for marker in item.iter_markers("req") for a in marker.args]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    collector = node.config.stash[_RECORDS]
    collector.total = max(collector.total, len(ids))


def pytest_collection_finish(session: pytest.Session) -> None:
    collector = session.config.stash[_RECORDS]
    collector.total = len(session.items)
    listing = session.config.getoption("crm_list")
    if listing and not hasattr(session.config, "workerinput"):
        tests = [
            {
                "nodeid": item.nodeid,
                "requirements": [str(v) for k, v in item.user_properties if k == PROP_REQUIREMENT],
                "classes": [str(v) for k, v in item.user_properties if k == PROP_CLASS],
            }
            for item in session.items
        ]
        Path(listing).write_text(json.dumps(tests, indent=2), encoding="utf-8")


def pytest_sessionfinish(session: pytest.Session) -> None:
    collector = session.config.stash.get(_RECORDS, None)
    if collector is not None and collector.progress and collector.done:
        sys.stderr.write("\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Label the Allure result: class as epic, section as feature, ids as stories."""
    if item.config.getoption("allure_report_dir", None):
        _label_allure(item)
    return (yield)


def _label_allure(item: pytest.Item) -> None:
    import allure as allure_module

    allure: Any = allure_module  # allure-pytest ships no type hints

    from crm_conformance.reporting.allure_labels import labels_for

    ids = _item_ids(item)
    if not ids:
        return
    labels = labels_for(item.nodeid, ids)
    for epic in labels.epics:
        allure.dynamic.epic(epic)
    for feature in labels.features:
        allure.dynamic.feature(feature)
    for story in ids:
        allure.dynamic.story(story)
    allure.dynamic.label(HISTORY_LABEL, labels.history_id)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Attach a failing test's exchanges (redacted by the client) to its Allure result."""
    report = yield
    if call.when == "call" and report.failed and item.config.getoption("allure_report_dir", None):
        _attach_exchanges(item)
    return report


def _attach_exchanges(item: pytest.Item) -> None:
    import allure

    from crm_conformance.plugin import EXCHANGE_MARK, STATE

    state = item.config.stash.get(STATE, None)
    if state is None or state.log is None:
        return
    start, _ = item.stash.get(EXCHANGE_MARK, (0, 0))
    for number, exchange in enumerate(state.log.since(start), 1):
        body = json.dumps(exchange.as_dict(), indent=2)
        if state.redactor is not None:
            body = state.redactor.text(body)
        name = f"exchange {number}: {exchange.method} {exchange.url} -> {exchange.status}"
        allure.attach(body, name=name, attachment_type=allure.attachment_type.JSON)
