"""The list suites (pagination, query parameters, search) fail against broken lists."""

import pytest

from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.suite_run import run_suite

SUITES = [
    "test_pagination.py",
    "test_query_parameters.py",
    "test_query_validation.py",
    "test_sort_order.py",
    "test_search.py",
]


def test_passes_against_the_reference_server() -> None:
    run = run_suite(SUITES)
    assert run.exit_code == 0, run.output
    assert run.with_outcome("passed"), run.output


@pytest.mark.parametrize(
    ("module", "fault", "keyword"),
    [
        ("test_pagination.py", "has_more_wrong_on_last_page", "ending_at_the_last_row"),
        ("test_pagination.py", "cursor_repeats_row_on_insert", "records_change"),
        ("test_pagination.py", "limit_200_rejected", "limit_bounds"),
        ("test_pagination.py", "cursor_not_bound_to_query", "another_contact_query"),
        ("test_query_parameters.py", "filter_values_anded", "ors_its_values"),
        ("test_query_parameters.py", "fields_ignored", "only_the_named"),
        ("test_query_parameters.py", "fields_drops_id", "only_the_named"),
        ("test_query_validation.py", "unknown_sort_key_ignored", "sort and unknown"),
        ("test_query_validation.py", "status_filter_unvalidated", "status and unknown"),
        ("test_sort_order.py", "sort_without_tie_breaker", "status"),
        ("test_pagination.py", "meta_limit_reports_default", "limit_bounds_are"),
        ("test_pagination.py", "users_newest_first", "order_they_joined"),
        ("test_pagination.py", "audiences_oldest_first", "audiences_are_listed"),
        ("test_pagination.py", "user_name_dropped", "new_member"),
        ("test_pagination.py", "user_role_dropped", "documented_fields"),
        ("test_pagination.py", "audience_status_null", "documented_fields"),
        ("test_query_parameters.py", "updated_since_exclusive", "updated_since_includes"),
        ("test_search.py", "search_unknown_keys_ignored", "unknown_body_key"),
        ("test_search.py", "limit_200_rejected", "limit_of_1_or_200"),
    ],
)
def test_fails_under_the_fault(module: str, fault: str, keyword: str) -> None:
    run = run_suite([module], faults={fault}, keyword=keyword)
    assert run.kills(FAULTS[fault].reqs), run.output


def test_a_list_refusing_its_largest_page_is_charged_to_the_bound_alone() -> None:
    """The walks of the sync, tenancy and pagination suites read at `limit=200` to judge
    their own rules: an organization list refusing that size was charged to each of them
    (SYNC-001, TEN-001, PAG-005, ...). A page size within the bounds refused, naming
    `limit`, now fails the bound (`checks.limit_refused`)."""
    fault = "organizations_list_refuses_limit_200"
    modules = ["test_pagination.py", "test_sync.py", "test_tenancy.py"]
    run = run_suite(modules, faults={fault}, keyword="organization or Organization")
    assert run.kills_alone(FAULTS[fault].reqs), run.output
