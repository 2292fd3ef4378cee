"""The errors, headers and rate-limit suites fail against servers that get them wrong."""

import pytest

from crm_conformance.selftest.suite_run import run_suite

ERRORS = "test_errors_and_headers.py"
RATES = "test_rate_limits.py"


def test_passes_against_the_reference_server() -> None:
    run = run_suite([ERRORS, RATES])
    assert run.exit_code == 0, run.output
    assert run.with_outcome("passed"), run.output
    assert not run.with_outcome("skipped"), run.output  # the opt-in class runs here too


@pytest.mark.parametrize(
    ("module", "fault", "keyword", "reqs"),
    [
        (ERRORS, "query_errors_answer_422", "invalid_query_value or malformed_path", {"ERR-011"}),
        (ERRORS, "rate_limit_headers_missing_on_errors", "envelope_and_headers", {"HDR-001"}),
        (ERRORS, "missing_request_id_on_errors", "request_id_equals", {"ERR-005"}),
        (ERRORS, "error_type_wrong", "missing_record", {"ERR-004", "ERR-012"}),
        (ERRORS, "method_not_allowed_404", "unsupported_method", {"ERR-013"}),
        (ERRORS, "rate_remaining_counts_used", "remaining_counts_down", {"HDR-007"}),
        (ERRORS, "rate_remaining_frozen", "remaining_counts_down", {"HDR-007"}),
        (ERRORS, "param_names_the_location", "param_names", {"ERR-006"}),
        (RATES, "retry_after_missing_on_429", "retry_after", {"HDR-002"}),
        (RATES, "rate_limit_per_workspace", "another_token", {"RATE-001"}),
        (RATES, "rate_limit_never_refills", "refills", {"RATE-003"}),
        (RATES, "rate_reset_epoch", "counts_down", {"HDR-008"}),
    ],
)
def test_fails_under_the_fault(module: str, fault: str, keyword: str, reqs: set[str]) -> None:
    run = run_suite([module], faults={fault}, keyword=keyword)
    assert run.kills(reqs), run.output


def test_remaining_counting_down_is_checked_on_a_sliding_window_too() -> None:
    """Whatever the window's shape: the check reads "one window" from the first answer's
    Reset, not from the direction Reset moves in."""
    clean = run_suite([ERRORS], variants={"sliding_rate_limit"}, keyword="remaining_counts_down")
    assert clean.exit_code == 0 and clean.with_outcome("passed"), clean.output
    run = run_suite(
        [ERRORS],
        faults={"rate_remaining_frozen"},
        variants={"sliding_rate_limit"},
        keyword="remaining_counts_down",
    )
    assert run.kills({"HDR-007"}), run.output
