"""The errors, headers and rate-limit suites fail against servers that get them wrong."""

import pytest

from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.suite_run import run_suite

ERRORS = "test_errors_and_headers.py"
RATES = "test_rate_limits.py"


def test_passes_against_the_reference_server() -> None:
    run = run_suite([ERRORS, RATES])
    assert run.exit_code == 0, run.output
    assert run.with_outcome("passed"), run.output
    assert not run.with_outcome("skipped"), run.output  # the opt-in class runs here too


@pytest.mark.parametrize(
    ("module", "fault", "keyword"),
    [
        (ERRORS, "query_errors_answer_422", "invalid_query_value or malformed_path"),
        (ERRORS, "rate_limit_headers_missing_on_errors", "envelope_and_headers"),
        (ERRORS, "missing_request_id_on_errors", "request_id_equals"),
        (ERRORS, "error_type_wrong", "missing_record"),
        (ERRORS, "method_not_allowed_404", "no_operation_takes"),
        (ERRORS, "rate_remaining_counts_used", "remaining_counts_down"),
        (ERRORS, "rate_remaining_frozen", "remaining_counts_down"),
        (ERRORS, "param_names_the_location", "param_names"),
        (RATES, "retry_after_missing_on_429", "retry_after"),
        (RATES, "rate_limit_per_workspace", "another_token"),
        (RATES, "rate_limit_never_refills", "refills"),
        (RATES, "rate_reset_epoch", "counts_down"),
    ],
)
def test_fails_under_the_fault(module: str, fault: str, keyword: str) -> None:
    run = run_suite([module], faults={fault}, keyword=keyword)
    assert run.kills(FAULTS[fault].reqs), run.output


def test_remaining_counting_down_is_checked_on_a_sliding_window_too() -> None:
    """Whatever the window's shape: the check reads "one window" from the first answer's
    Reset, not from the direction Reset moves in."""
    clean = run_suite([ERRORS], variants={"sliding_rate_limit"}, keyword="remaining_counts_down")
    assert clean.exit_code == 0, clean.output
    assert clean.with_outcome("passed"), clean.output
    run = run_suite(
        [ERRORS],
        faults={"rate_remaining_frozen"},
        variants={"sliding_rate_limit"},
        keyword="remaining_counts_down",
    )
    assert run.kills(FAULTS["rate_remaining_frozen"].reqs), run.output
