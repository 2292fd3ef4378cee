"""Faults of scopes and workspace policy: bugs whose first requirement is of the `scopes` class
(What each scope allows, insufficient_scope refusals, and writes a workspace's policy
disables)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "campaign_pause_needs_messages_write",
        ("SCOPE-017",),
        "pausing a campaign needs messages:write besides campaigns:write (a campaign sends "
        "messages), where the document attaches messages:write to nothing",
    ),
    Fault(
        "capabilities_report_wrong_entity",
        ("SCOPE-027",),
        "GET /v1/capabilities reports a mirrored entity's refusal under the next entity's name",
    ),
    Fault(
        "handoff_needs_read_only",
        ("SCOPE-018",),
        "a handoff is guarded by conversations:read, so a reading token changes the handler",
    ),
    Fault(
        "scope_param_names_resource",
        ("SCOPE-022",),
        "insufficient_scope's param names the resource (contacts) instead of the scope",
    ),
    Fault(
        "scope_check_resource_only",
        ("SCOPE-004", "SCOPE-021"),
        "the scope check looks only at the resource, so a read scope allows writes",
    ),
    Fault(
        "deleted_records_without_scope_check",
        ("SCOPE-020",),
        "the deletion feed answers any token, without the read scope of the resource listed",
    ),
    Fault(
        "capabilities_ignore_policy",
        ("SCOPE-027",),
        "GET /v1/capabilities reports every entity locally writable, mirrored ones too",
    ),
    Fault(
        "me_lists_all_scopes",
        ("SCOPE-026",),
        "GET /v1/me lists every scope of the table instead of the token's own",
    ),
    Fault(
        "policy_ignored_for_oauth",
        ("SCOPE-024", "SCOPE-025"),
        "writes to a mirrored entity are refused for workspace tokens but not OAuth tokens",
    ),
    Fault(
        "scope_message_generic",
        ("SCOPE-023",),
        "insufficient_scope's message says a scope is missing without naming it",
    ),
    Fault(
        "deleted_deals_need_contacts_read",
        ("SCOPE-020",),
        "listing deleted deals needs contacts:read (a deal hangs off a contact) instead of "
        "deals:read, the read scope of the resource listed",
    ),
    Fault(
        "contact_retrieve_needs_organizations_read",
        ("SCOPE-002", "SCOPE-004"),
        "retrieving a contact also needs organizations:read (for the organization it could "
        "expand), so contacts:read alone cannot retrieve",
    ),
    Fault(
        "deal_create_guarded_by_contacts_write",
        ("SCOPE-006", "SCOPE-003"),
        "deal creation checks contacts:write (the contact it links) instead of deals:write",
    ),
    Fault(
        "pipelines_unguarded",
        ("SCOPE-007",),
        "the pipeline list is treated as public configuration and checks no scope",
    ),
    Fault(
        "fields_guarded_by_contacts_read",
        ("SCOPE-008", "SCOPE-002"),
        "the field definitions list checks contacts:read (the fields of contacts) instead "
        "of fields:read",
    ),
    Fault(
        "activity_create_guarded_by_contacts_write",
        ("SCOPE-010", "SCOPE-003"),
        "activity creation checks contacts:write (the record it is planned on) instead of "
        "activities:write",
    ),
    Fault(
        "tag_create_guarded_by_tags_read",
        ("SCOPE-011", "SCOPE-003"),
        "tag creation checks tags:read (a mistyped constant) instead of tags:write",
    ),
    Fault(
        "campaign_stats_need_analytics_read",
        ("SCOPE-013", "SCOPE-002"),
        "campaign stats are guarded by analytics:read (they are analytics) instead of "
        "campaigns:read",
    ),
    Fault(
        "success_event_types_need_write",
        ("SCOPE-015", "SCOPE-002"),
        "the success event type list needs success_events:write (types are configuration) "
        "instead of success_events:read",
    ),
    Fault(
        "me_lists_only_operation_scopes",
        ("SCOPE-005", "SCOPE-009", "SCOPE-012", "SCOPE-014", "SCOPE-026"),
        "GET /v1/me lists only the held scopes an operation of the document names, so "
        "organizations, notes, messages:write and analytics:read are never listed",
    ),
    Fault(
        "missing_scope_forbidden",
        ("SCOPE-021", "SCOPE-028"),
        "a call without the needed scope answers 403 forbidden instead of insufficient_scope",
    ),
    Fault(
        "mirrored_write_forbidden",
        ("SCOPE-025", "SCOPE-029"),
        "a write to a mirrored entity answers 403 forbidden instead of local_write_denied",
    ),
    Fault(
        "me_scopes_dotted",
        ("SCOPE-001", "SCOPE-026"),
        "GET /v1/me lists scopes in the admin UI's display form contacts.read, not "
        "<resource>:<access>",
    ),
    Fault(
        "adapter_policy_answers_500",
        ("SCOPE-025", "SCOPE-027"),
        "the adapter answers 500 to every policy change, so no entity can be mirrored",
        setup_only=True,
    ),
    Fault(
        "deal_update_unguarded",
        ("SCOPE-006",),
        "a deal update checks no scope (the create checks deals:write)",
    ),
    Fault(
        "conversations_list_unguarded",
        ("SCOPE-012", "SCOPE-002"),
        "the conversation list checks no scope (its retrieve checks conversations:read)",
    ),
    Fault(
        "reverse_guarded_by_read",
        ("SCOPE-015", "SCOPE-003"),
        "reversing a success event is guarded by success_events:read (it reads the event "
        "first), not success_events:write",
    ),
    Fault(
        "tag_delete_unguarded",
        ("SCOPE-011", "SCOPE-003"),
        "deleting a tag checks no scope (the route was declared without one), so a token "
        "without tags:write deletes tags",
    ),
    Fault(
        "note_update_unguarded",
        ("SCOPE-009",),
        "changing a note checks no scope, so a token without notes:write edits notes",
    ),
    Fault(
        "policy_ignored_on_deletes",
        ("SCOPE-025",),
        "a mirrored entity refuses creates and updates but takes deletes: the policy gate "
        "skips DELETE",
    ),
    Fault(
        "policy_checked_on_posts_only",
        ("SCOPE-025", "SCOPE-029"),
        "a mirrored entity refuses creates and moves (POST) but takes updates: the policy "
        "gate was written with the create routes",
    ),
    Fault(
        "organization_create_needs_contacts_write",
        ("SCOPE-005", "SCOPE-003"),
        "the organization create is guarded by contacts:write, copied from the contact "
        "create's route",
    ),
    Fault(
        "campaign_retrieve_unscoped",
        ("SCOPE-013",),
        "a campaign's retrieve checks no scope: a token without campaigns:read reads it",
    ),
    Fault(
        "tag_update_needs_tags_read",
        ("SCOPE-003",),
        "a tag's update is guarded by tags:read instead of tags:write",
    ),
    Fault(
        "mirrored_entity_refuses_reads",
        ("SCOPE-004", "SCOPE-006"),
        "a mirrored entity refuses reads too (403 local_write_denied): the policy check "
        "is keyed on the entity, not on the method",
    ),
    Fault(
        "contacts_feed_lists_every_resource",
        ("SCOPE-020",),
        "the contacts deletion feed lists every resource's deletions (organizations, "
        "deals, activities too)",
    ),
)
