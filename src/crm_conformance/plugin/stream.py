"""The outcome stream: one `OutcomeRecord` per finished test, in `--crm-outcomes FILE`.

The controller (the only process on `-n 0`) turns the setup, call and teardown reports
of each test, whose `user_properties` travel across xdist, into one record, appends it
to the file as the test finishes, and hands it to `pytest_crm_outcome` implementations.
Every reader of a run (runner, summaries, certificate, self-test) reads this stream.
"""

from collections.abc import Mapping
from typing import Any

import pytest

from crm_conformance.core.verdicts.evidence import PROP_CHECKED
from crm_conformance.core.verdicts.outcomes import (
    PROP_CAUSE,
    PROP_CLASS,
    PROP_DETAILS,
    PROP_FAILED,
    PROP_FAULTS,
    PROP_FUZZ,
    PROP_OBSERVATION,
    PROP_OUTCOME,
    PROP_RATE_WAIT,
    PROP_REQUESTS,
    PROP_REQUIREMENT,
    PROP_TOKEN,
    Outcome,
    OutcomeRecord,
    append_record,
)
from crm_conformance.core.verdicts.waivers import Waiver
from crm_conformance.plugin.state import is_worker, state_of


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from crm_conformance.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


class OutcomeStream:
    """Gathers the reports of each test into one outcome record (controller only)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.options = state_of(config).options
        self.pending: dict[str, list[pytest.TestReport]] = {}
        if self.options.outcomes is not None:
            self.options.outcomes.parent.mkdir(parents=True, exist_ok=True)
            self.options.outcomes.write_text("", encoding="utf-8")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Every report of every worker arrives here, on the controller."""
        self.pending.setdefault(report.nodeid, []).append(report)
        if report.when != "teardown":
            return
        record = outcome_record(self.pending.pop(report.nodeid), self.options.waived)
        if self.options.outcomes is not None:
            append_record(self.options.outcomes, record)
        self.config.hook.pytest_crm_outcome(config=self.config, record=record)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Start the stream on the controller, after the run state exists."""
    if not is_worker(config):
        config.pluginmanager.register(OutcomeStream(config), "crm-conformance-outcomes")


def _values(reports: list[pytest.TestReport], key: str) -> list[Any]:
    found: list[Any] = []
    for report in reports:
        for name, value in report.user_properties:
            if name == key and value not in found:
                found.append(value)
    return found


def outcome_record(reports: list[pytest.TestReport], waived: Mapping[str, Waiver]) -> OutcomeRecord:
    """The outcome of one test from its setup/call/teardown reports.

    Harness-classified outcomes (blocked, error, suite error) win; a skip is
    `not_applicable` with its reason; a failure outside the call phase is a setup
    `error`, unless it is the suite's own.
    """
    ids = [str(v) for v in _values(reports, PROP_REQUIREMENT)]
    classes = [str(v) for v in _values(reports, PROP_CLASS)]
    observations = [v for v in _values(reports, PROP_OBSERVATION) if isinstance(v, dict)]
    classified = _values(reports, PROP_OUTCOME)
    causes = _values(reports, PROP_CAUSE)
    rate_waits = [v for v in _values(reports, PROP_RATE_WAIT) if isinstance(v, dict)]
    faults = [v for v in _values(reports, PROP_FAULTS) if isinstance(v, dict)]
    details = _values(reports, PROP_DETAILS)
    outcome, cause = Outcome.PASSED, ""
    for report in reports:
        if report.skipped and not hasattr(report, "wasxfail"):
            outcome, cause = Outcome.NOT_APPLICABLE, _skip_reason(report)
            break
        if hasattr(report, "wasxfail"):
            outcome, cause = Outcome.EXPECTED_FAILURE, str(report.wasxfail)
            break
        if report.failed:
            if report.when == "call" or Outcome.SUITE_ERROR in classified:
                outcome = Outcome(classified[0]) if classified else Outcome.FAILED
            else:
                outcome = Outcome.ERROR
            cause = str(causes[0]) if causes else _first_line(report)
            break
    xpassed = outcome == Outcome.FAILED and any(i in waived for i in ids) and "XPASS" in cause
    if xpassed:
        cause = "waived requirement passed: remove its waiver (strict expected failure)"
    attributed = [str(v) for v in _values(reports, PROP_FAILED)]
    if xpassed:  # what fails is the waiver of each waived id the test names
        attributed = [i for i in ids if i in waived]
    charged = attributed if outcome in (Outcome.FAILED, Outcome.EXPECTED_FAILURE) else []
    unwaived = [i for i in attributed if i not in waived]
    if outcome == Outcome.EXPECTED_FAILURE and unwaived:
        # Waived for one requirement, it broke another: a waiver never hides that.
        outcome = Outcome.FAILED
        cause = f"failed on {', '.join(unwaived)}, which no waiver covers: {cause}"
    return OutcomeRecord(
        nodeid=reports[0].nodeid,
        outcome=outcome,
        requirements=ids,
        classes=classes,
        cause=cause,
        duration=round(sum(r.duration for r in reports), 4),
        observations=observations,
        failed_requirements=charged,
        seeds=[int(v["seed"]) for v in _values(reports, PROP_FUZZ) if isinstance(v, dict)],
        rounds=next(
            (
                int(v["rounds"])
                for v in _values(reports, PROP_FUZZ)
                if isinstance(v, dict) and "rounds" in v
            ),
            None,
        ),
        rate_wait=rate_waits[0] if rate_waits else {},
        faults=faults[0] if faults else {},
        details=str(details[0]) if details and outcome == Outcome.FAILED else "",
        requests=sum(int(v) for v in _values(reports, PROP_REQUESTS)[:1]),
        token=str(next(iter(_values(reports, PROP_TOKEN)), "")),
        checked=_checked(reports),
    )


def _checked(reports: list[pytest.TestReport]) -> dict[str, list[str]]:
    """`{requirement: [check, ...]}`: the checks of the test that ran and passed."""
    merged: dict[str, list[str]] = {}
    for said in _values(reports, PROP_CHECKED):
        for req_id, names in dict(said).items():
            known = merged.setdefault(str(req_id), [])
            known += [str(n) for n in names if str(n) not in known]
    return dict(sorted(merged.items()))


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
