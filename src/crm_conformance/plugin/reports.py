"""Each test's reports: the harness's classification, charged requirements, redaction.

A failed call raising one of the harness's own exception types is classified
(`outcomes.classify`): the outcome and its one-line cause go in `user_properties`, our
failure type prints in its fixed format instead of a traceback, and a setup problem
reads as an error, not a failure. A failure is charged to the requirement whose check
failed, not to every id the test names. No token value reaches a report (DESIGN.md
principle 4).
"""

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from crm_conformance.core.hygiene.inert import inert, inert_lines
from crm_conformance.core.model.paths import in_suites
from crm_conformance.core.verdicts import evidence
from crm_conformance.core.verdicts.evidence import PROP_CHECKED
from crm_conformance.core.verdicts.outcomes import (
    PROP_CAUSE,
    PROP_CLASS,
    PROP_DETAILS,
    PROP_FAILED,
    PROP_FAULTS,
    PROP_OBSERVATION,
    PROP_OUTCOME,
    PROP_RATE_WAIT,
    PROP_REQUESTS,
    PROP_REQUIREMENT,
    PROP_TOKEN,
    Classified,
    Outcome,
    classify,
    failed_requirements,
    failure_causes,
    failure_members,
)
from crm_conformance.plugin.session import jsonable
from crm_conformance.plugin.state import STATE

if TYPE_CHECKING:
    from crm_conformance.core.hygiene.redaction import Redactor
    from crm_conformance.core.transport.exchanges import Wait
    from crm_conformance.core.transport.retries import Fault
    from crm_conformance.plugin.state import RunState

_EXCHANGE_MARK = pytest.StashKey[tuple[int, int]]()
"""Where the log stood when a test started: (exchanges, 429s without Retry-After)."""
_WAIT_MARK = pytest.StashKey[int]()
"""Where the log's waits for the rate allowance stood when a test started."""
_FAULT_MARK = pytest.StashKey[int]()
"""Where the log's transport faults stood when a test started."""


def pytest_runtest_setup(item: pytest.Item) -> None:
    evidence.begin()  # the checks of this test's setup and call count, none before
    state = item.config.stash.get(STATE, None)
    if state is not None:
        state.testing = item
    if state is not None and state.wiring is not None:
        log = state.wiring.log
        item.stash[_EXCHANGE_MARK] = (log.mark(), len(log.missing_retry_after))
        item.stash[_WAIT_MARK] = len(log.waits)
        item.stash[_FAULT_MARK] = len(log.faults)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A suite test's kept predicate failures (`evidence.checks_predicate`) fail it when
    its call ends, each charged to its own requirement, with the check that stopped it
    (if any). An exception that is no check's failure after one was kept is its
    consequence (the test went on past a broken rule), not a suite error; a skip after
    one does not hide it."""
    if not in_suites(item.path):  # the project's own tests: every failure raises
        return (yield)
    evidence.keep_failures(True)
    try:
        result = yield
    except (Exception, pytest.skip.Exception, pytest.fail.Exception) as exc:
        evidence.keep_failures(False)
        kept = evidence.take_failed()
        if not kept:
            raise
        raise together(kept, exc) from None
    evidence.keep_failures(False)
    kept = evidence.take_failed()
    if kept:
        raise together(kept, None)
    return result


def together(kept: list[AssertionError], stopped: BaseException | None) -> BaseException:
    """The kept failures and the check failure that stopped the test, as one failure
    (a group when several); another exception is noted as what followed."""
    members: list[Exception] = list(kept)
    follows = ""
    if stopped is not None:
        if isinstance(stopped, AssertionError) and failed_requirements(stopped):
            members.append(stopped)
        else:
            follows = f"then, as a consequence: {type(stopped).__name__}: {stopped}"
    failure = (
        members[0]
        if len(members) == 1
        else ExceptionGroup(f"{len(members)} checks failed", members)
    )
    if follows:
        failure.add_note(follows[:300])
    return failure


OTHER_TOKENS = "other tokens"
"""Where the waits of the tokens a test issued for itself are summed (scopes, rate limits)."""


def _waited(waits: "list[Wait]", labels: dict[str, str]) -> dict[str, Any]:
    """`{seconds, 429s, tokens: {name: seconds}}` of a test's waits for the allowance."""
    by_token: dict[str, float] = {}
    for wait in waits:
        name = labels.get(wait.key, OTHER_TOKENS)
        by_token[name] = round(by_token.get(name, 0.0) + wait.seconds, 3)
    return {
        "seconds": round(sum(wait.seconds for wait in waits), 3),
        "429s": sum(wait.after_429 for wait in waits),
        "tokens": by_token,
    }


def _api_requests(state: "RunState", mark: int) -> int:
    """The exchanges since `mark` with the API, not with the adapter (which may live under
    the API's base URL, as the reference's `/_adapter` does)."""
    assert state.target is not None
    assert state.wiring is not None
    api, adapter = state.target.base_url + "/", state.target.adapter_url
    return sum(
        e.url.startswith(api) and not (adapter and e.url.startswith(adapter + "/"))
        for e in state.wiring.log.since(mark)
    )


def _name_of(state: "RunState") -> str:
    """The name of the token the process's `api` sends (never its value)."""
    from crm_conformance.adapter.token_pool import CONFIGURED, label

    return label(state.pool_index) if state.pool is not None else CONFIGURED


def exchanges_of(item: pytest.Item) -> list[dict[str, Any]]:
    """The exchanges `item` has sent so far, as redacted JSON data (for reporters)."""
    state = item.config.stash.get(STATE, None)
    if state is None or state.wiring is None:
        return []
    start, _ = item.stash.get(_EXCHANGE_MARK, (0, 0))
    since = state.wiring.log.since(start)
    return [jsonable(item.config, exchange.as_dict()) for exchange in since]


def _charged(item: pytest.Item, exc: BaseException) -> list[tuple[str, Any]]:
    """The requirements a failure is charged to, as user_properties.

    A failure lands on the requirement whose check failed (`outcomes.failed_requirements`):
    a test that calls `run_checks`, or a fuzz test running a dozen checks, fails only the
    requirement of the check that broke, and its other ids are neither verified nor
    broken by it. A requirement the test's markers do not name joins its ids and
    classes, so the report shows it on that requirement's row. A failure that does not
    say which requirement it breaks (a plain assert) is charged to none: it is a suite
    error (`outcomes.classify`).
    """
    from crm_conformance.core.model.catalogue import load_catalogue

    named = [str(value) for name, value in item.user_properties if name == PROP_REQUIREMENT]
    charged = failed_requirements(exc) or []
    properties: list[tuple[str, Any]] = [(PROP_FAILED, req_id) for req_id in charged]
    catalogue = load_catalogue()
    classes = {value for name, value in item.user_properties if name == PROP_CLASS}
    for req_id in charged:
        if req_id in named:
            continue
        properties.append((PROP_REQUIREMENT, req_id))
        cls = catalogue.class_of(req_id)
        if cls is not None and cls not in classes:
            classes.add(cls)
            properties.append((PROP_CLASS, cls))
    return properties


def _says_per_failure(exc: BaseException) -> bool:
    """Whether a failure is better told one line per member (`outcomes.failure_causes`)
    than by pytest's first line: a group (whose first line is its traceback's border), or
    a schemathesis failure that names its requirement."""
    return isinstance(exc, BaseExceptionGroup) or failed_requirements(exc) is not None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    state = item.config.stash.get(STATE, None)
    if state is not None and state.pending_observations:
        item.user_properties.extend(
            (PROP_OBSERVATION, {"key": key, "value": jsonable(item.config, value)})
            for key, value in state.pending_observations
        )
        state.pending_observations.clear()
    # A test skipped before its setup (a skip marker: an unclaimed opt-in class) sent
    # nothing and waited for nothing: counted from log position 0, it would carry every
    # earlier test's requests, waits and faults into its record and the summary's sums.
    if call.when == "teardown":
        checked = evidence.end()
        if checked:  # what the test's checks found held: its ids' verdicts come from this
            item.user_properties.append((PROP_CHECKED, checked))
    if call.when == "teardown" and state is not None and _EXCHANGE_MARK in item.stash:
        assert state.wiring is not None
        log = state.wiring.log
        _, throttled_from = item.stash[_EXCHANGE_MARK]
        unannounced = log.missing_retry_after[throttled_from:]
        if unannounced:
            # Retried so the test could go on, but not hidden: the report shows each one.
            item.user_properties.append(
                (
                    PROP_OBSERVATION,
                    {
                        "key": "429 without an integer Retry-After (retried)",
                        "value": [f"{e.method} {e.url}" for e in unannounced],
                    },
                )
            )
        waits = log.waits[item.stash[_WAIT_MARK] :]
        if waits:  # how long this test waited for the allowance (summed in the summary)
            item.user_properties.append((PROP_RATE_WAIT, _waited(waits, state.token_labels())))
        mark, _ = item.stash[_EXCHANGE_MARK]
        item.user_properties.append((PROP_REQUESTS, _api_requests(state, mark)))
        item.user_properties.append((PROP_TOKEN, _name_of(state)))
        faults = log.faults[item.stash[_FAULT_MARK] :]
        if faults:  # the transport faults this test met (summed in the summary)
            item.user_properties.append((PROP_FAULTS, _tallied(faults)))
    report = yield
    if call.excinfo is not None and (report.failed or hasattr(report, "wasxfail")):
        exc = call.excinfo.value
        classified = classify(exc) if report.failed else None
        if classified and classified.outcome == Outcome.SUITE_ERROR and not in_suites(item.path):
            classified = None  # the project's own tests: a plain assert is their failure
        properties: list[tuple[str, Any]] = []
        if classified is not None:
            if classified.outcome != Outcome.SUITE_ERROR:  # a suite error keeps its traceback
                report.longrepr = classified.cause
            properties += [
                (PROP_OUTCOME, str(classified.outcome)),
                (PROP_CAUSE, _cause_lines(exc, classified, state)),
            ]
            if classified.outcome == Outcome.FAILED:
                _add_details(report, classified.cause, state)
            if classified.stops_run:
                item.session.shouldstop = classified.cause
        if call.when == "call" and (classified is None or classified.outcome == Outcome.FAILED):
            properties += _charged(item, exc)
        if call.when == "call" and classified is None and _says_per_failure(exc):
            causes = failure_causes(exc)
            properties.append((PROP_CAUSE, _per_failure(causes, state)))
            _add_details(report, "\n".join([*causes, *_reproductions(exc)]), state)
        # On the item too: JUnit writes the teardown report's properties only.
        item.user_properties.extend(properties)
        report.user_properties = [*report.user_properties, *properties]
    _clean_report(report, _redactor(state))
    return report


def _add_details(report: pytest.TestReport, details: str, state: "RunState | None") -> None:
    """A failure's report for `requirements.html` (`PROP_DETAILS`), redacted, then inert;
    on the call report only: JUnit has it already as the failure's text."""
    clean = inert_lines(_redactor(state).text(details))
    report.user_properties = [*report.user_properties, (PROP_DETAILS, clean)]


def _reproductions(exc: BaseException) -> list[str]:
    """The "Reproduce with:" notes schemathesis adds to a failure (its curl line), of the
    failure and of each member of a group."""
    failures = [exc, *failure_members(exc)]
    notes = [note for member in failures for note in getattr(member, "__notes__", ())]
    return list(dict.fromkeys(note.strip() for note in notes if "Reproduce with:" in note))


def _tallied(faults: "list[Fault]") -> dict[str, dict[str, int]]:
    """`{retried: {reason: n}, given_up: {reason: n}}` of `faults`."""
    tally: dict[str, dict[str, int]] = {"retried": {}, "given_up": {}}
    for fault in faults:
        counts = tally["retried" if fault.retried else "given_up"]
        counts[fault.reason] = counts.get(fault.reason, 0) + 1
    return tally


def redacted(config: pytest.Config, text: str) -> str:
    """`text` through the run's redactor as it stands now (it learns the tokens minted
    for a pool and those the adapter issues), for writers outside the harness's reports."""
    return _redactor(config.stash.get(STATE, None)).text(text)


def _redactor(state: "RunState | None") -> "Redactor":
    """The run's redactor; outside a run, one filtering token shapes only."""
    from crm_conformance.core.hygiene.redaction import Redactor

    return state.wiring.redactor if state is not None and state.wiring is not None else Redactor()


def _cause_lines(exc: BaseException, classified: Classified, state: "RunState | None") -> str:
    """The cause a record keeps: for several failed checks of one test, one line each,
    charged to its own ids (`outcomes.cause_for` gives each requirement its own line, not
    the first failure's), else the first line of the classified cause."""
    if classified.outcome == Outcome.FAILED and isinstance(exc, BaseExceptionGroup):
        return _per_failure(failure_causes(exc), state)
    return _one_line(classified.cause, state)


def _per_failure(causes: list[str], state: "RunState | None") -> str:
    """The lines of `outcomes.failure_causes`, one per failure with its own ids, each
    redacted, then inert: a waived failure's cause quotes the target as a failed one's."""
    return "\n".join(_one_line(line, state) for line in causes)


def _one_line(cause: str, state: "RunState | None") -> str:
    """The first line of a cause, redacted, then inert (it may quote the target)."""
    lines = cause.splitlines()
    return inert(_redactor(state).text(lines[0] if lines else ""))


def _clean_report(report: pytest.TestReport, redactor: "Redactor") -> None:
    """What reaches the terminal, JUnit or a worker's report: no token value (DESIGN.md
    principle 4), and the target's text inert (`crm_conformance.core.hygiene.inert`).

    Redacted first, so a cut never leaves half a secret; each line cut on its own, so a
    target's 1 MB message leaves the traceback around it readable.
    """
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, reason)
        path, line, reason = longrepr
        report.longrepr = (path, line, inert(redactor.text(str(reason))))
    elif longrepr is not None:
        text = str(longrepr)
        clean = inert_lines(redactor.text(text))
        if clean != text:
            report.longrepr = clean
    report.sections = [
        (title, inert_lines(redactor.text(content))) for title, content in report.sections
    ]


def _property(report: pytest.TestReport, key: str) -> Any:
    return next((value for name, value in report.user_properties if name == key), None)


def pytest_report_teststatus(
    report: pytest.CollectReport | pytest.TestReport, config: pytest.Config
) -> tuple[str, str, str | tuple[str, dict[str, bool]]] | None:
    """A call that failed for harness or setup reasons reads as an error, not a failure."""
    if not isinstance(report, pytest.TestReport) or report.when != "call" or not report.failed:
        return None
    outcome = _property(report, PROP_OUTCOME)
    if outcome == Outcome.ERROR:
        return "error", "E", ("ERROR", {"red": True})
    if outcome == Outcome.SUITE_ERROR:
        return "error", "S", ("SUITE ERROR", {"red": True})
    if outcome == Outcome.BLOCKED:
        return "error", "B", ("BLOCKED", {"yellow": True})
    return None
