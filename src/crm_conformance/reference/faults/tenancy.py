"""Faults of tenancy: bugs whose first requirement is of the `tenancy` class (Isolation between
workspaces; needs a token of a second workspace)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "not_found_names_workspace",
        ("TEN-003",),
        "a contact id of another workspace answers 404 saying it belongs to another workspace",
    ),
    Fault(
        "cross_workspace_403",
        ("TEN-003",),
        "a contact id of another workspace answers 403 forbidden instead of the missing 404",
    ),
    Fault(
        "deletion_feed_all_workspaces",
        ("TEN-001",),
        "the deletion feed forgets the workspace: every workspace's deletions are listed",
    ),
    Fault(
        "contact_organization_any_workspace",
        ("TEN-001", "TEN-003", "TEN-004"),
        "an organization is looked up by its id alone (ids are unique across workspaces), so "
        "a contact takes another workspace's organization_id and expand=organization shows it",
    ),
    Fault(
        "search_q_all_workspaces",
        ("TEN-001",),
        "contact search's free text (q) is served from one index shared by every workspace, "
        "so it finds other workspaces' contacts",
    ),
    Fault(
        "deal_contact_any_workspace",
        ("TEN-003", "TEN-004"),
        "a deal takes another workspace's contact_id (the contact is looked up by its id alone)",
    ),
    Fault(
        "email_filter_all_workspaces",
        ("TEN-001",),
        "the contact list's email filter reads one e-mail index for every workspace, so it "
        "lists other workspaces' contacts with that email",
    ),
    Fault(
        "workspace_header_honoured",
        ("TEN-002",),
        "an X-Workspace-Id or X-Tenant-Id header, whatever its value, switches the request "
        "to the other workspace (a support override left in)",
    ),
    Fault(
        "contact_list_workspace_header",
        ("TEN-002",),
        "the contact list alone honours an X-Workspace-Id header (its query builder reads "
        "the workspace from the request), so it lists the other workspace's contacts",
    ),
    Fault(
        "deal_external_id_unique_across_workspaces",
        ("TEN-005",),
        "a deal's external_id is kept unique across every workspace, so a second workspace "
        "cannot use one the first has",
    ),
    Fault(
        "note_retrieve_any_workspace",
        ("TEN-003",),
        "a note is retrieved by its id alone, so another workspace's note is served where a "
        "missing one answers 404",
    ),
    Fault(
        "notes_list_all_workspaces",
        ("TEN-001",),
        "the note list serves every workspace's notes (its query has no workspace condition)",
    ),
    Fault(
        "deal_delete_any_workspace",
        ("TEN-003",),
        "a deal delete looks the deal up by its id alone, so another workspace's deal is "
        "deleted (204) where a missing one answers 404",
    ),
    Fault(
        "campaign_stats_any_workspace",
        ("TEN-003",),
        "campaign stats are read from an analytics store keyed by the campaign id alone, so "
        "another workspace's campaign answers 200",
    ),
    Fault(
        "stage_any_workspace",
        ("TEN-003",),
        "a deal's stage_id is looked up by its id alone, so another workspace's stage answers "
        "422 stage_not_in_pipeline where a missing one answers 404 stage_not_found",
    ),
    Fault(
        "conversations_list_all_workspaces",
        ("TEN-001",),
        "the conversation list serves every workspace's conversations (its query has no "
        "workspace condition), though each retrieve is scoped",
    ),
    Fault(
        "conversation_retrieve_any_workspace",
        ("TEN-003",),
        "a conversation's retrieve looks it up by id alone, so another workspace's "
        "conversation is answered",
    ),
    Fault(
        "tag_update_any_workspace",
        ("TEN-003",),
        "a tag's update finds the tag by id alone: another workspace's tag is renamed",
    ),
    Fault(
        "users_list_shows_members_added_anywhere",
        ("TEN-001",),
        "the user list joins the members added to any workspace (the seeded teammates of "
        "another workspace stay out)",
    ),
    Fault(
        "contact_tags_any_workspace",
        ("TEN-003",),
        "a contact's tags are looked up by id alone: another workspace's tag is applied",
    ),
    Fault(
        "organization_external_id_unique_globally",
        ("TEN-005",),
        "an organization's external_id is unique across workspaces (one index on the value "
        "alone): another workspace's value answers 409 external_id_taken",
    ),
    Fault(
        "company_name_any_workspace",
        ("TEN-001",),
        "`company_name` matching no organization of the workspace links one of that name "
        "in another workspace (the name lookup has no workspace condition)",
    ),
    Fault(
        "closed_state_checked_before_workspace",
        ("TEN-003",),
        "the close looks the conversation up by its id alone to refuse a closed one first: "
        "another workspace's closed conversation answers 409 conversation_closed, not 404",
    ),
)
