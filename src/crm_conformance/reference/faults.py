"""The fault catalogue: named, realistic bugs the reference server can be started with.

Each fault breaks exactly the requirements it lists, so the suite's kill rate can be
measured: the suite must fail against every fault and name those ids. A fault is off
unless named (`ServerSettings(faults={...})`, `crm-conformance serve --fault NAME`), and
the code checks `settings.has_fault(name)` at the one place the bug lives.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Fault:
    """A named bug: the requirement ids it violates and what it does."""

    name: str
    reqs: tuple[str, ...]
    summary: str
    setup_only: bool = False
    """Breaks the provisioning adapter, not the API: the tests naming `reqs` cannot set
    up and end blocked or errored, never failed. A control of the kill matrix's
    accounting, which must show it survived (a setup failure is never a kill)."""


_FAULTS = (
    Fault(
        "user_name_dropped",
        ("USR-003",),
        "the user list renders every member's name as null",
    ),
    Fault(
        "campaign_pause_needs_messages_write",
        ("SCOPE-017",),
        "pausing a campaign needs messages:write besides campaigns:write (a campaign sends "
        "messages), where the document attaches messages:write to nothing",
    ),
    Fault(
        "user_role_dropped",
        ("USR-003",),
        "the user list leaves out every member's role",
    ),
    Fault(
        "audience_status_null",
        ("AUD-003",),
        "the audience list renders every audience's status as null",
    ),
    Fault(
        "upsert_changes_phone",
        ("CON-044",),
        "an upsert matched by external_id writes the phone it was sent over the contact's",
    ),
    Fault(
        "upsert_takes_another_external_id",
        ("CON-043",),
        "an upsert matched by phone overwrites the contact's other external_id",
    ),
    Fault(
        "activity_assignee_unchecked",
        ("ACT-014",),
        "an activity takes any usr_ id as assignee_id, a user of the workspace or not",
    ),
    Fault(
        "audiences_oldest_first",
        ("AUD-001",),
        "audiences are listed oldest first",
    ),
    Fault(
        "capabilities_report_wrong_entity",
        ("SCOPE-027",),
        "GET /v1/capabilities reports a mirrored entity's refusal under the next entity's name",
    ),
    Fault(
        "contact_updated_at_epoch",
        ("IDN-003",),
        "a contact's updated_at is rendered as Unix seconds (an integer), not ISO 8601",
    ),
    Fault(
        "deal_custom_fields_omit_unset",
        ("CON-025",),
        "a deal's custom_fields leaves out the fields that are not set",
    ),
    Fault(
        "organization_custom_fields_omit_unset",
        ("CON-025",),
        "an organization's custom_fields leaves out the fields that are not set",
    ),
    Fault(
        "contact_tags_without_color",
        ("CON-023",),
        "the tags a contact embeds are rendered without their color",
    ),
    Fault(
        "unknown_pipeline_takes_the_stages",
        ("DEAL-008",),
        "an unknown pipeline_id is replaced by the pipeline of the stage sent, so the deal "
        "is created",
    ),
    Fault(
        "conversation_resume_missing",
        ("CONV-034", "CONV-037", "CONV-038"),
        "the conversation resume operation the target file names is not served (404)",
    ),
    Fault(
        "success_event_reverse_missing",
        ("SEV-003", "SEV-004"),
        "the success-event reversal the target file names is not served (404)",
    ),
    Fault(
        "campaign_resume_missing",
        ("CAMP-007", "CAMP-009"),
        "the campaign resume operation the target file names is not served (404)",
    ),
    Fault(
        "lost_justification_dropped",
        ("DEAL-013",),
        "a lost deal's lost_justification is validated but never stored, so it reads null",
    ),
    Fault(
        "unknown_entity_lists_nothing",
        ("SYNC-010",),
        "the deletion feed answers an empty page to a resource name it does not have",
    ),
    Fault(
        "users_newest_first",
        ("USR-001",),
        "the user list shares the audience list's order, newest first, not the order they joined",
    ),
    Fault(
        "handoff_needs_read_only",
        ("SCOPE-018",),
        "a handoff is guarded by conversations:read, so a reading token changes the handler",
    ),
    Fault(
        "param_names_the_location",
        ("ERR-006",),
        "validation errors name where the problem is (query, body) in param, not the field",
    ),
    Fault(
        "scope_param_names_resource",
        ("SCOPE-022",),
        "insufficient_scope's param names the resource (contacts) instead of the scope",
    ),
    Fault(
        "idempotency_key_length_unchecked",
        ("IDEM-002",),
        "an Idempotency-Key longer than 255 characters is accepted",
    ),
    Fault(
        "tag_color_unchecked",
        ("TAG-007",),
        "a tag colour is stored as sent, whatever its form",
    ),
    Fault(
        "tag_name_limit_off_by_one",
        ("TAG-013",),
        "a tag name of 101 characters passes the length check",
    ),
    Fault(
        "unknown_sort_key_ignored",
        ("QRY-003",),
        "a sort key the list cannot sort by is skipped instead of refused",
    ),
    Fault(
        "meta_limit_reports_default",
        ("PAG-003",),
        "meta.limit reports the default page size, not the limit the request asked for",
    ),
    Fault(
        "retry_after_missing_on_429",
        ("HDR-002",),
        "a refused request gets 429 and the rate-limit headers but no Retry-After",
    ),
    Fault(
        "rate_limit_per_workspace",
        ("RATE-001",),
        "the limiter counts requests per workspace, so one busy token throttles the others",
    ),
    Fault(
        "rate_limit_never_refills",
        ("RATE-003",),
        "a window is renewed only by an allowed request, so a spent token stays refused",
    ),
    Fault(
        "missing_request_id_on_errors",
        ("ERR-005",),
        "error bodies carry request_id null although X-Request-ID is sent",
    ),
    Fault(
        "error_type_wrong",
        ("ERR-004",),
        "404 answers carry type api_error, which tells clients to retry a missing record",
    ),
    Fault(
        "cursor_repeats_row_on_insert",
        ("PAG-009",),
        "cursors hold an offset, so a row inserted ahead of the cursor repeats a row",
    ),
    Fault(
        "has_more_wrong_on_last_page",
        ("PAG-004",),
        "has_more is true (with a next cursor) whenever a page is full, even the last",
    ),
    Fault(
        "scope_check_resource_only",
        ("SCOPE-004", "SCOPE-021"),
        "the scope check looks only at the resource, so a read scope allows writes",
    ),
    Fault(
        "query_errors_answer_422",
        ("ERR-011",),
        "invalid query, path and header values answer 422 validation_failed instead of 400",
    ),
    Fault(
        "rate_limit_headers_missing_on_errors",
        ("HDR-001",),
        "X-RateLimit-* headers are sent on 2xx answers only",
    ),
    Fault(
        "contacts_oldest_first",
        ("CON-002",),
        "the contact list's default order is oldest first",
    ),
    Fault(
        "tag_conflict_without_id",
        ("TAG-004",),
        "tag_already_exists does not name the existing tag's id",
    ),
    Fault(
        "phone_not_normalized",
        ("CON-009",),
        "phones are stored as sent (trimmed) instead of in E.164",
    ),
    Fault(
        "custom_fields_omit_unset",
        ("CON-025",),
        "custom fields with no value are left out of custom_fields instead of null",
    ),
    Fault(
        "revoked_token_accepted",
        ("AUTH-007",),
        "revocation is ignored: a revoked token keeps working",
    ),
    Fault(
        "verifier_not_checked",
        ("AUTH-004", "AUTH-008"),
        "only the selector is looked up; any verifier is accepted",
    ),
    Fault(
        "expired_oauth_unauthorized",
        ("OAUTH-006",),
        "an expired OAuth token answers unauthorized instead of token_expired",
    ),
    Fault(
        "replay_returns_200",
        ("IDEM-003",),
        "an idempotent replay of a create answers 200 instead of the original status",
    ),
    Fault(
        "handler_kept_after_close",
        ("CONV-032", "CONV-008"),
        "closing a conversation keeps its handler instead of setting it to null",
    ),
    Fault(
        "close_won_not_marking_contact",
        ("CONV-027", "CONV-028"),
        "closing as won leaves the contact's status unchanged",
    ),
    Fault(
        "closed_conversation_closes_again",
        ("CONV-033",),
        "closing a closed conversation answers 200 with it instead of 409 conversation_closed",
    ),
    Fault(
        "won_reason_without_won_accepted",
        ("CONV-023",),
        "won_reason is accepted (and ignored) with an outcome other than won",
    ),
    Fault(
        "close_keeps_updated_at",
        ("CONV-013",),
        "closing a conversation does not change its updated_at",
    ),
    Fault(
        "pause_paused_campaign_ok",
        ("CAMP-006", "CAMP-007"),
        "pausing a paused campaign answers 200 instead of 409 campaign_not_running",
    ),
    Fault(
        "resume_running_campaign_ok",
        ("CAMP-009",),
        "resuming a running campaign answers 200 instead of 409 campaign_not_paused",
    ),
    Fault(
        "reply_rate_as_percentage",
        ("STAT-017",),
        "reply_rate is a percentage (25.0) instead of a fraction (0.25)",
    ),
    Fault(
        "automated_replies_counted",
        ("STAT-010", "STAT-011"),
        "automated replies count as replied; replied_automated stays 0",
    ),
    Fault(
        "window_end_inclusive",
        ("STAT-006",),
        "an event at exactly window_end is counted (the end is treated as inclusive)",
    ),
    Fault(
        "not_contacted_omits_zero_reasons",
        ("STAT-015",),
        "not_contacted lists only reasons with a count above zero",
    ),
    Fault(
        "enrolled_windowed",
        ("STAT-013",),
        "enrolled counts only participants added inside the window",
    ),
    Fault(
        "probability_not_inherited",
        ("DEAL-016",),
        "a deal created with a null probability keeps null instead of its stage default",
    ),
    Fault(
        "value_as_number",
        ("DEAL-014",),
        "a deal's value is rendered as a JSON number instead of a string",
    ),
    Fault(
        "stage_pipeline_unchecked",
        ("DEAL-007",),
        "a deal is placed in a stage of another pipeline without stage_not_in_pipeline",
    ),
    Fault(
        "record_not_found_without_param",
        ("DEAL-010",),
        "record_not_found for an unknown contact or organization of a deal has param null",
    ),
    Fault(
        "method_not_allowed_404",
        ("ERR-013",),
        "a method the path does not support answers 404 not_found instead of 405 api_error",
    ),
    Fault(
        "reversal_reversible",
        ("SEV-004",),
        "a reversal can itself be reversed instead of answering 409 not_a_record",
    ),
    Fault(
        "double_reversal_allowed",
        ("SEV-003",),
        "an event can be reversed twice instead of answering 409 already_reversed",
    ),
    Fault(
        "value_basis_unchecked",
        ("SEV-005", "SEV-007"),
        "an event's value is not checked against its type's basis (required or forbidden)",
    ),
    Fault(
        "unknown_event_code_accepted",
        ("SEV-006",),
        "an event with a code no event type has is recorded instead of 422 unknown_event_code",
    ),
    Fault(
        "deletion_feed_misses_adapter_deletes",
        ("SYNC-004", "SYNC-006"),
        "a record deleted through the adapter is removed without a tombstone in the feed",
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
        "idempotency_key_ignored_across_bodies",
        ("IDEM-005",),
        "a repeated Idempotency-Key with a different body replays the first answer",
    ),
    Fault(
        "replay_missing_header",
        ("IDEM-004",),
        "an idempotent replay is sent without the Idempotent-Replay: true header",
    ),
    Fault(
        "idempotency_cross_workspace",
        ("IDEM-003", "TEN-001"),
        "idempotency keys are stored globally, so another workspace's key replays here",
    ),
    Fault(
        "resume_conversation_creatable",
        ("ACT-008",),
        "POST /v1/activities accepts type resume_conversation (the response enum is used)",
    ),
    Fault(
        "activity_title_limit_off_by_one",
        ("ACT-024",),
        "an activity title of 501 characters is accepted (the limit is checked with > 501)",
    ),
    Fault(
        "private_visible_to_oauth",
        ("OAUTH-004",),
        "an OAuth token sees other people's private records (visibility checks the kind only)",
    ),
    Fault(
        "expired_workspace_token_accepted",
        ("AUTH-006",),
        "expiry is checked for OAuth tokens only, so an expired workspace token keeps working",
    ),
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
        "updated_since_exclusive",
        ("SYNC-001",),
        "updated_since keeps records changed strictly after the instant, losing the edge",
    ),
    Fault(
        "scope_message_generic",
        ("SCOPE-023",),
        "insufficient_scope's message says a scope is missing without naming it",
    ),
    Fault(
        "limit_200_rejected",
        ("PAG-008", "SRCH-008"),
        "limit=200 is refused in a list query and a search body (the bound is compared with <)",
    ),
    Fault(
        "cursor_not_bound_to_query",
        ("PAG-006",),
        "cursors are bound to the list and sort only, so one works with other filters",
    ),
    Fault(
        "filter_values_anded",
        ("CON-034",),
        "the values of a repeated contact filter are ANDed, so two values match nothing",
    ),
    Fault(
        "fields_ignored",
        ("QRY-010",),
        "fields is validated but not applied: every field is returned",
    ),
    Fault(
        "search_unknown_keys_ignored",
        ("SRCH-010",),
        "unknown keys of a contact search body are ignored instead of refused",
    ),
    Fault(
        "close_unknown_keys_ignored",
        ("CONV-019",),
        "unknown keys of a close body are ignored instead of refused",
    ),
    Fault(
        "resolved_close_reopens_contact",
        ("CONV-030",),
        "closing as resolved sets the contact's status back to open",
    ),
    Fault(
        "window_start_exclusive",
        ("STAT-004",),
        "an event at exactly window_start is not counted (the start is treated as exclusive)",
    ),
    Fault(
        "naive_window_start_as_utc",
        ("STAT-005",),
        "a window_start without a timezone offset is read as UTC instead of refused",
    ),
    Fault(
        "rates_zero_when_nobody_contacted",
        ("STAT-018", "STAT-019"),
        "reply_rate and conversion_rate are 0 instead of null when nobody was contacted",
    ),
    Fault(
        "replied_counts_replies_in_window",
        ("STAT-010", "STAT-020"),
        "replied counts every reply in the window, also of participants contacted before it",
    ),
    Fault(
        "tag_names_unique_across_catalogues",
        ("TAG-006",),
        "a tag name taken in one catalogue is refused in the others (uniqueness not per kind)",
    ),
    Fault(
        "organization_name_never_matched",
        ("CON-013",),
        "a company_name never matches an existing organization: a new one is always made",
    ),
    Fault(
        "rate_remaining_counts_used",
        ("HDR-007",),
        "X-RateLimit-Remaining reports the requests used in the window, not those left",
    ),
    Fault(
        "rate_remaining_frozen",
        ("HDR-007",),
        "X-RateLimit-Remaining always reports the whole allowance: the limiter counts, the "
        "header does not (with any window shape, the sliding variant's too)",
    ),
    Fault(
        "lists_omit_default_visibility",
        ("CON-003", "DEAL-002"),
        "list pages leave out `visibility` when it is the default `company`",
    ),
    Fault(
        "assignee_unchecked",
        ("CONV-040",),
        "assign takes any usr_ id without checking it is a teammate of the workspace",
    ),
    Fault(
        "resume_with_ai_accepted",
        ("CONV-037",),
        "resuming a conversation the AI agent already handles answers 200 unchanged",
    ),
    Fault(
        "fields_drops_id",
        ("QRY-011",),
        "a list narrowed by fields leaves id out unless it is named",
    ),
    Fault(
        "deletion_feed_all_workspaces",
        ("TEN-001",),
        "the deletion feed forgets the workspace: every workspace's deletions are listed",
    ),
    Fault(
        "adapter_policy_answers_500",
        ("SCOPE-025", "SCOPE-027"),
        "the adapter answers 500 to every policy change, so no entity can be mirrored",
        setup_only=True,
    ),
)

FAULTS: dict[str, Fault] = {fault.name: fault for fault in _FAULTS}
