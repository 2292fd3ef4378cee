"""The errors and headers suite fails against servers that get errors or headers wrong."""

import pytest

from crm_conformance.suite_run import run_suite

SUITE = ["test_errors_and_headers.py"]


def test_passes_against_the_reference_server() -> None:
    run = run_suite(SUITE)
    assert run.exit_code == 0, run.output
    assert run.with_outcome("passed"), run.output


@pytest.mark.parametrize(
    ("fault", "keyword", "reqs"),
    [
        ("query_errors_answer_422", "invalid_query_value or malformed_path", {"ERR-011"}),
        ("rate_limit_headers_missing_on_errors", "envelope_and_headers", {"HDR-001"}),
        ("missing_request_id_on_errors", "request_id_equals", {"ERR-005"}),
        ("error_type_wrong", "missing_record", {"ERR-004", "ERR-012"}),
        ("method_not_allowed_404", "unsupported_method", {"ERR-013"}),
        ("rate_remaining_counts_used", "remaining_counts_down", {"HDR-007"}),
    ],
)
def test_fails_under_the_fault(fault: str, keyword: str, reqs: set[str]) -> None:
    run = run_suite(SUITE, faults={fault}, keyword=keyword)
    assert run.kills(reqs), run.output
