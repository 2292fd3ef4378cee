"""The sync suite fails against servers that lose changes or deletions, or open the
deletion feed to any token.

One clean run, then one run per fault narrowed with `keyword` to the tests that look
at the rule the fault breaks; a failed test must name one of the fault's ids.
"""

import pytest

from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.suite_run import run_suite

KILLS = [
    # (fault, keyword of the tests that catch it)
    ("updated_since_exclusive", "updated_since_finds or edge"),
    ("deletion_feed_misses_adapter_deletes", "deletion_appears and contacts"),
    ("deleted_records_without_scope_check", "read_scope"),
    ("unknown_entity_lists_nothing", "unknown_entity"),
]


def test_passes_against_the_reference_server() -> None:
    run = run_suite(["test_sync.py"])
    assert run.exit_code == 0, run.output
    assert run.with_outcome("passed"), run.output


@pytest.mark.parametrize(("fault", "keyword"), KILLS, ids=[k[0] for k in KILLS])
def test_a_fault_is_killed(fault: str, keyword: str) -> None:
    run = run_suite(["test_sync.py"], faults={fault}, keyword=keyword)
    assert run.kills(FAULTS[fault].reqs), run.output


def test_a_list_ignoring_updated_since_is_charged_to_the_filter_alone() -> None:
    """The walks of the sort-order tests find their rows from `updated_since` on: a deal
    list ignoring it serves older rows first, which the walks charged to their order
    (QRY-002) and the sync walks to their paging (SYNC-003). Every page read with the
    filter now holds it first (`steps.pages.expect_since_held`)."""
    fault = "deals_list_ignores_updated_since"
    run = run_suite(["test_sort_order.py", "test_sync.py"], faults={fault}, keyword="deal")
    assert run.kills_alone(FAULTS[fault].reqs), run.output
