"""The outcome vocabulary: classification, charged requirements, the record stream."""

from pathlib import Path

import httpx
import pytest

from crm_conformance import (
    AdapterError,
    BudgetExhausted,
    ConformanceFailure,
    SetupFailed,
    TargetUnavailable,
    TargetUnreachable,
)
from crm_conformance.core.verdicts.outcomes import (
    TRANSPORT_ATTR,
    Outcome,
    OutcomeRecord,
    append_record,
    attribute_checks,
    cause_for,
    classify,
    failed_requirements,
    failure_causes,
    read_records,
)


def failure(req_id: str) -> ConformanceFailure:
    return ConformanceFailure(req_id, expected="x", got="y")


@pytest.mark.parametrize(
    ("exc", "outcome", "stops"),
    [
        (failure("PAG-004"), Outcome.FAILED, False),
        (SetupFailed("POST /v1/tags answered 404"), Outcome.BLOCKED, False),
        (AdapterError("adapter POST /v1/records answered 500"), Outcome.ERROR, False),
        (TargetUnreachable("circuit breaker open"), Outcome.ERROR, True),
        (BudgetExhausted("request budget spent"), Outcome.ERROR, True),
        (httpx.ReadTimeout("timed out"), Outcome.ERROR, False),
        (TargetUnavailable("GET /v1/me met 502 ×4"), Outcome.ERROR, False),
        (ExceptionGroup("flaky", [TargetUnavailable("502 ×4")]), Outcome.ERROR, False),
        # the target went away between Hypothesis's example and its replay
        (
            ExceptionGroup("gone", [TargetUnavailable("refused ×4"), TargetUnreachable("open")]),
            Outcome.ERROR,
            True,
        ),
    ],
)
def test_the_harness_classifies_its_own_exceptions(
    exc: BaseException, outcome: Outcome, stops: bool
) -> None:
    classified = classify(exc)
    assert classified is not None
    assert (classified.outcome, classified.stops_run) == (outcome, stops)


def test_an_exception_no_check_raised_is_a_suite_error() -> None:
    for exc in (
        AssertionError("plain"),
        KeyError("x"),
        ExceptionGroup("two", [TargetUnavailable("502"), AssertionError("broke")]),
    ):
        classified = classify(exc)
        assert classified is not None
        assert classified.outcome == Outcome.SUITE_ERROR
        assert classified.cause.startswith("suite error")
    # a check's failure is the target's: failed, charged to its requirement
    failure = ConformanceFailure("HDR-003", expected="a header", got="none")
    classified = classify(failure)
    assert classified is not None
    assert classified.outcome == Outcome.FAILED


def test_an_unavailable_target_is_named_in_the_cause() -> None:
    classified = classify(ExceptionGroup("flaky", [TargetUnavailable("GET /v1/me met 502 ×4")]))
    assert classified is not None
    assert classified.cause == "target unavailable: GET /v1/me met 502 ×4"


class CheckFailure(AssertionError):
    """Stands in for a schemathesis Failure: a code and the checks that raise it."""

    def __init__(self, code: str, checks: tuple[str, ...]) -> None:
        super().__init__(code)
        self.code = code
        self.checks = checks


class CustomFailure(AssertionError):
    """Stands in for schemathesis's CustomFailure: our check's failure inside."""

    def __init__(self, exception: BaseException) -> None:
        super().__init__(str(exception))
        self.exception = exception
        self.checks = ()


def test_a_failure_is_charged_to_the_requirement_whose_check_failed() -> None:
    attribute_checks({"unsupported_method": ("ERR-013",), "ST109": ("HDR-004",)})
    assert failed_requirements(failure("HDR-003")) == ["HDR-003"]
    assert failed_requirements(CustomFailure(failure("ERR-005"))) == ["ERR-005"]
    group = ExceptionGroup(
        "two checks failed",
        [
            CustomFailure(failure("ERR-005")),
            CheckFailure("ST204", ("unsupported_method",)),
            CheckFailure("ST109", ("response_schema_conformance",)),
        ],
    )
    assert failed_requirements(group) == ["ERR-005", "ERR-013", "HDR-004"]


def test_a_failure_that_does_not_say_charges_nothing_in_particular() -> None:
    assert failed_requirements(AssertionError("plain assert")) is None
    unknown = CheckFailure("ST999", ("a_check_added_later",))
    assert failed_requirements(unknown) is None
    assert failed_requirements(ExceptionGroup("g", [failure("ERR-005"), unknown])) is None


def test_a_transport_error_in_a_group_is_charged_to_none() -> None:
    """The issue's 502: what the transport did is not the service's answer. A member that
    is a dropped connection, a timeout or a gateway's answer adds no id; the others keep
    theirs; a group of nothing else is an error, not a failure."""
    timeout = httpx.ReadTimeout("timed out")
    dropped = ConnectionResetError("connection reset by peer")
    gateway = CustomFailure(failure("ERR-001"))
    setattr(gateway, TRANSPORT_ATTR, True)  # fuzz_charges.charge: a 502 without envelope
    group = ExceptionGroup("g", [CustomFailure(failure("ERR-005")), timeout, dropped])
    assert failed_requirements(group) == ["ERR-005"]
    assert classify(group) is None  # a real failure among them: pytest's verdict stands
    only_transport = ExceptionGroup("g", [timeout, gateway])
    assert failed_requirements(only_transport) == []
    classified = classify(only_transport)
    assert classified is not None
    assert classified.outcome == Outcome.ERROR
    assert classified.cause.startswith("transport error")


def test_each_member_of_a_group_is_told_on_its_own_line() -> None:
    attribute_checks({"unsupported_method": ("ERR-013",)})
    schemathesis_failure = CheckFailure("ST204", ("unsupported_method",))
    schemathesis_failure.crm_request = "DELETE /v1/users -> 200"  # type: ignore[attr-defined]  # what the harness attaches
    group = ExceptionGroup(
        "two checks failed",
        [
            CustomFailure(ConformanceFailure("HDR-003", expected="X-Request-ID", got="none")),
            schemathesis_failure,
            httpx.ConnectError("refused"),
        ],
    )
    lines = failure_causes(group)
    assert lines == [
        "HDR-003: expected X-Request-ID; got none",
        "ERR-013: ST204 (DELETE /v1/users -> 200)",
        "charged to none: transport error: ConnectError: refused",
    ]
    cause = "\n".join(lines)
    assert cause_for(cause, "ERR-013") == "ERR-013: ST204 (DELETE /v1/users -> 200)"
    assert cause_for(cause, "PAG-001") == cause


def test_records_round_trip_through_the_stream(tmp_path: Path) -> None:
    path = tmp_path / "outcomes.jsonl"
    record = OutcomeRecord(
        "suites/t.py::test_x",
        Outcome.FAILED,
        ["PAG-001", "HDR-003"],
        ["pagination", "core"],
        cause="HDR-003: expected X-Request-ID",
        failed_requirements=["HDR-003"],
        seeds=[42],
    )
    append_record(path, record)
    append_record(path, record)
    assert list(read_records(path)) == [record, record]
    assert list(read_records(tmp_path / "absent.jsonl")) == []
