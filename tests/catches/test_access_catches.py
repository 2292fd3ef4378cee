"""The access suites (scopes, OAuth visibility, tenancy, token lifecycle) fail against
servers that let the wrong token through or say too much.

One clean run per module, then one run per fault, narrowed with `keyword` to the tests
that look at the rule the fault breaks; a failed test must name one of the fault's ids.
"""

import pytest

from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.suite_run import run_suite

MODULES = ("test_scopes.py", "test_oauth.py", "test_tenancy.py", "test_token_lifecycle.py")

KILLS = [
    # (module, fault, keyword of the tests that catch it)
    ("test_scopes.py", "scope_check_resource_only", "every_scope_but or read_only"),
    ("test_scopes.py", "scope_message_generic", "every_scope_but and deals"),
    ("test_scopes.py", "policy_ignored_for_oauth", "mirrored and deals"),
    ("test_scopes.py", "capabilities_ignore_policy", "capabilities"),
    ("test_scopes.py", "capabilities_report_wrong_entity", "capabilities"),
    ("test_scopes.py", "me_lists_all_scopes", "me_lists"),
    ("test_scopes.py", "campaign_pause_needs_messages_write", "messages_write and pause"),
    ("test_scopes.py", "scope_param_names_resource", "every_scope_but and deals"),
    ("test_oauth.py", "private_visible_to_oauth", "person"),
    ("test_tenancy.py", "not_found_names_workspace", "as_a_missing_one and getContact"),
    ("test_tenancy.py", "cross_workspace_403", "as_a_missing_one and getContact"),
    ("test_tenancy.py", "deletion_feed_all_workspaces", "listDeletedRecords"),
    ("test_tenancy.py", "contact_organization_any_workspace", "organization"),
    ("test_tenancy.py", "search_q_all_workspaces", "searchContacts"),
    ("test_tenancy.py", "deal_contact_any_workspace", "Deal and contact_id"),
    ("test_tenancy.py", "email_filter_all_workspaces", "listContacts"),
    ("test_tenancy.py", "workspace_header_honoured", "header"),
    ("test_tenancy.py", "deal_external_id_unique_across_workspaces", "external_id"),
    ("test_tenancy.py", "campaign_stats_any_workspace", "getCampaignStats"),
    ("test_tenancy.py", "stage_any_workspace", "stage_id"),
    ("test_token_lifecycle.py", "revoked_token_accepted", "revocation_is_immediate"),
    ("test_authentication.py", "expired_workspace_token_accepted", "expired and workspace"),
    ("test_authentication.py", "expired_oauth_unauthorized", "expired and oauth"),
    (
        "test_authentication.py",
        "expired_oauth_unauthorized_on_writes",
        "every_operation and expired and oauth and createDeal",
    ),
    ("test_scopes.py", "deleted_deals_need_contacts_read", "alone and deleted and deals"),
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


def test_a_wrong_scope_guard_is_charged_to_the_guard_alone() -> None:
    """A call guarded by another scope than the document's fails where the guard lives:
    the call's scope row and the refusal rule (SCOPE-021 and its 403 row), never the
    `param` of a refusal that never came (SCOPE-022), nor the mirror policy of a write
    its own scope check refused before the policy was reached (SCOPE-025, -029, -024)."""
    fault = "activity_create_guarded_by_contacts_write"
    run = run_suite(["test_scopes.py"], faults={fault}, keyword="createActivity")
    assert run.kills_alone(FAULTS[fault].reqs, also={"SCOPE-021", "SCOPE-028"}), run.output


@pytest.mark.parametrize(
    "fault", ["missing_scope_forbidden", "scope_param_names_resource", "scope_message_generic"]
)
def test_a_wrong_scope_refusal_is_charged_to_its_own_sentence(fault: str) -> None:
    """Each part of the scope refusal is its own sentence, wherever a suite meets it: the
    handoff and the deletion feed charged a wrong code, `param` or message to the guard
    of the call (SCOPE-018, SCOPE-020), which held (`steps.expect_insufficient_scope`)."""
    run = run_suite(
        ["test_conversations.py", "test_sync.py"],
        faults={fault},
        keyword="handoff_without_conversations_write or deletion_feed_needs_the_read_scope",
    )
    assert run.kills_alone(FAULTS[fault].reqs), run.output
