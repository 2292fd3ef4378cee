"""The record suites (contacts, deals, activities, tags) fail against servers with record bugs.

One clean run per module, then one run per fault, narrowed with `keyword` to the tests
that look at the rule the fault breaks.
"""

import pytest

from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.suite_run import run_suite

MODULES = ("test_contacts.py", "test_deals.py", "test_activities.py", "test_tags.py")

KILLS = [
    # (module, fault, keyword of the tests that catch it); the ids a failed test must
    # name are the fault's own (FAULTS[fault].reqs)
    ("test_contacts.py", "phone_not_normalized", "phone"),
    ("test_contacts.py", "custom_fields_omit_unset", "custom_field"),
    ("test_contacts.py", "organization_name_never_matched", "company_name"),
    ("test_contacts.py", "contact_updated_at_epoch", "renders_its_fields"),
    ("test_contacts.py", "organization_custom_fields_omit_unset", "embedded_org"),
    ("test_contacts.py", "contact_tags_without_color", "channels_and_tags"),
    ("test_contacts.py", "upsert_changes_phone", "upsert"),
    ("test_contacts.py", "upsert_takes_another_external_id", "upsert"),
    ("test_deals.py", "deal_custom_fields_omit_unset", "custom_field"),
    ("test_activities.py", "activity_assignee_unchecked", "no_teammate"),
    ("test_tags.py", "tag_conflict_without_id", "repeated_name"),
    ("test_tags.py", "tag_names_unique_across_catalogues", "another_catalogue"),
    ("test_tags.py", "tag_color_unchecked", "colour_not_matching"),
    ("test_tags.py", "tag_name_limit_off_by_one", "outside_1_to_100"),
    ("test_deals.py", "probability_not_inherited", "null_probability"),
    ("test_deals.py", "value_as_number", "value_sent"),
    ("test_deals.py", "stage_pipeline_unchecked", "another_pipeline"),
    ("test_deals.py", "record_not_found_without_param", "linked_record"),
    ("test_deals.py", "lost_justification_dropped", "created_lost"),
    ("test_deals.py", "unknown_pipeline_takes_the_stages", "unknown_pipeline"),
    ("test_activities.py", "resume_conversation_creatable", "resume_conversation"),
    ("test_activities.py", "activity_title_limit_off_by_one", "title_outside"),
]


@pytest.mark.parametrize("module", MODULES)
def test_passes_against_the_reference_server(module: str) -> None:
    run = run_suite([module])
    assert run.exit_code == 0, run.output
    assert run.with_outcome("passed"), run.output


@pytest.mark.parametrize(("module", "fault", "keyword"), KILLS, ids=[k[1] for k in KILLS])
def test_a_fault_is_killed(module: str, fault: str, keyword: str) -> None:
    run = run_suite([module], faults={fault}, keyword=keyword)
    assert run.kills(FAULTS[fault].reqs), run.output


def test_a_contact_link_dropped_on_create_is_charged_to_the_link() -> None:
    """Filter, expand and search tests link a contact to an organization to judge their
    own rules: a create ignoring `organization_id` was charged to each of them (CON-031,
    CON-035, QRY-006, SRCH-002, ...). The factory holds a contact to the links its create
    was given (`RecordFactory.linked`), charging the link's own rule."""
    fault = "contact_organization_id_ignored"
    modules = ["test_contact_filters.py", "test_query_parameters.py", "test_search.py"]
    run = run_suite(modules, faults={fault}, keyword="organization")
    assert run.kills_alone(FAULTS[fault].reqs), run.output
