"""The fault catalogue: named, realistic bugs the reference server can be started with.

Each fault lists the requirements it means to break, so the suite's kill rate can be
measured: the suite must fail against every fault, charged to one of those ids. What a
fault was shown to break is measured, not declared: the kill matrix records the ids its
killing failures were charged to (`selftest.report.charged`). A fault is off unless
named (`ServerSettings(faults={...})`, `crm-conformance serve --fault NAME`); the code
checks `settings.has_fault(name)` where the bug would live, but for about twenty that
rewrite an answer in `routing.py` instead (issue 33 moves them).
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
        "token_trailing_characters_ignored",
        ("AUTH-008",),
        "the verifier is read to its issued length, so a workspace token with characters "
        "appended is accepted",
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
        "contact_list_object_lead",
        ("CON-001", "IDN-002"),
        "the contact list renders each row with object 'lead', the older surfaces' name",
    ),
    Fault(
        "contact_on_hold_hyphenated",
        ("CON-004",),
        "a contact's status on_hold is rendered 'on-hold'",
    ),
    Fault(
        "contact_visibility_company_as_everyone",
        ("CON-005",),
        "a contact's visibility company is rendered 'everyone'",
    ),
    Fault(
        "contact_last_name_dropped",
        ("CON-006",),
        "a contact's last_name is rendered null (name still shows it)",
    ),
    Fault(
        "contact_name_first_name_only",
        ("CON-007",),
        "a contact's name is its first_name alone",
    ),
    Fault(
        "contact_email_dropped_on_create",
        ("CON-008",),
        "an email given when a contact is created is not stored (only an update writes it)",
    ),
    Fault(
        "contact_job_title_as_title",
        ("CON-010",),
        "a contact's job_title is rendered under the name title",
    ),
    Fault(
        "company_name_cleared_when_linked",
        ("CON-012",),
        "company_name is cleared once it has linked the contact to an organization",
    ),
    Fault(
        "contact_organization_id_ignored",
        ("CON-015",),
        "a contact's organization_id on write is ignored; only organization {id} links one",
    ),
    Fault(
        "organization_always_embedded",
        ("CON-016",),
        "a contact embeds its organization whether or not expand names it",
    ),
    Fault(
        "contact_owner_id_ignored",
        ("CON-017",),
        "a contact's owner_id on create is ignored: the caller (none for a workspace token) "
        "owns it",
    ),
    Fault(
        "contact_owner_dropped_with_expand",
        ("CON-018",),
        "a contact read with an expand is rendered without its owner",
    ),
    Fault(
        "contact_owner_expand_accepted",
        ("CON-019",),
        "the contact list accepts expand=owner (and ignores it) instead of refusing it",
    ),
    Fault(
        "contact_score_title_cased",
        ("CON-020",),
        "a contact's score is rendered title-cased (Cold, Warm, Hot) as the UI shows it",
    ),
    Fault(
        "lost_reason_cleared_by_old_status",
        ("CON-021",),
        "lost_reason is cleared unless the contact was already lost before the write, so a "
        "contact made lost has no reason",
    ),
    Fault(
        "channel_username_dropped",
        ("CON-022",),
        "a contact's channels are rendered without username",
    ),
    Fault(
        "contact_custom_fields_as_list",
        ("CON-024",),
        "a contact's custom_fields is rendered as an array of {key, value} items",
    ),
    Fault(
        "embedded_organization_short_form",
        ("CON-026",),
        "an embedded organization is a short form {id, object, name}",
    ),
    Fault(
        "status_filter_ignored",
        ("CON-027",),
        "the contact list accepts the status filter but does not apply it",
    ),
    Fault(
        "score_filter_ignored",
        ("CON-028",),
        "the contact list accepts the score filter but does not apply it",
    ),
    Fault(
        "email_filter_ignored",
        ("CON-029",),
        "the contact list accepts the email filter but does not apply it",
    ),
    Fault(
        "owner_filter_ignored",
        ("CON-030",),
        "the contact list accepts the owner_id filter but does not apply it",
    ),
    Fault(
        "organization_filter_ignored",
        ("CON-031",),
        "the contact list accepts the organization_id filter but does not apply it",
    ),
    Fault(
        "external_id_filter_ignored",
        ("CON-032",),
        "the contact list accepts the external_id filter but does not apply it",
    ),
    Fault(
        "created_since_exclusive",
        ("CON-033",),
        "the created-since filter keeps records created strictly after the instant",
    ),
    Fault(
        "different_filters_ored",
        ("CON-035",),
        "different filter parameters of the contact list are ORed, not ANDed",
    ),
    Fault(
        "filter_cap_off_by_one",
        ("CON-036",),
        "a filter repeated 100 times is refused as too_many_filter_values",
    ),
    Fault(
        "filter_cap_unchecked",
        ("CON-037",),
        "a filter repeated more than 100 times is accepted",
    ),
    Fault(
        "contact_retrieve_wrapped_in_data",
        ("CON-038",),
        "GET /v1/contacts/{contact_id} answers the contact wrapped in {data: ...}",
    ),
    Fault(
        "contact_path_id_unchecked",
        ("CON-039",),
        "a contact path id is looked up whatever its form, so a malformed one answers 404",
    ),
    Fault(
        "contact_retrieve_ignores_fields",
        ("CON-040",),
        "GET /v1/contacts/{contact_id} validates fields but returns every field",
    ),
    Fault(
        "field_list_not_served",
        ("CON-042",),
        "GET /v1/fields answers 404 (the list is served under another path only)",
    ),
    Fault(
        "search_renders_without_custom_fields",
        ("SRCH-001",),
        "contacts found by search are rendered without custom_fields (a lighter index form)",
    ),
    Fault(
        "search_ignores_expand",
        ("SRCH-002",),
        "search accepts expand but embeds nothing",
    ),
    Fault(
        "search_or_join_as_and",
        ("SRCH-003",),
        "a group's join is compared to 'OR', so join 'or' falls back to and",
    ),
    Fault(
        "search_nested_group_ignored",
        ("SRCH-003", "SRCH-004"),
        "a nested group inside conditions is skipped (it matches every contact)",
    ),
    Fault(
        "search_equals_as_contains",
        ("SRCH-005",),
        "the equals operator matches values containing the one sent",
    ),
    Fault(
        "search_q_skips_phone",
        ("SRCH-006",),
        "search's q matches name and email but not phone",
    ),
    Fault(
        "search_sort_ignored",
        ("SRCH-007",),
        "search ignores the body's sort: results come in the default order",
    ),
    Fault(
        "search_cursor_ignored",
        ("SRCH-009",),
        "search ignores the body's cursor, so every page is the first",
    ),
    Fault(
        "deal_created_in_first_stage",
        ("DEAL-001",),
        "a new deal is placed in its pipeline's first stage, whatever stage_id says",
    ),
    Fault(
        "deal_contact_id_unprefixed",
        ("DEAL-027", "IDN-001"),
        "the deal create answer renders contact_id as the bare key, without its con_ prefix",
    ),
    Fault(
        "deal_pipeline_id_inferred",
        ("DEAL-003",),
        "a deal created without pipeline_id is placed in its stage's pipeline instead of refused",
    ),
    Fault(
        "deal_stage_defaults_to_first",
        ("DEAL-004",),
        "a deal created without stage_id is placed in its pipeline's first stage instead of "
        "refused",
    ),
    Fault(
        "deal_empty_title_accepted",
        ("DEAL-005",),
        "a deal title of 0 characters is accepted (only its presence is checked)",
    ),
    Fault(
        "deal_needs_contact",
        ("DEAL-006",),
        "deal create requires contact_id: a deal on an organization only is refused",
    ),
    Fault(
        "unknown_stage_validation_failed",
        ("DEAL-009",),
        "an unknown stage_id answers 422 validation_failed instead of 404 stage_not_found",
    ),
    Fault(
        "deal_external_id_not_unique",
        ("DEAL-011", "DEAL-033"),
        "a deal takes an external_id another deal already has",
    ),
    Fault(
        "lost_deal_needs_no_reason",
        ("DEAL-012",),
        "a deal created lost without lost_reason_id is accepted",
    ),
    Fault(
        "deal_probability_unbounded_below",
        ("DEAL-015", "DEAL-034"),
        "a negative deal probability is accepted (only the maximum is checked)",
    ),
    Fault(
        "deal_probability_limit_off_by_one",
        ("DEAL-015", "DEAL-034"),
        "a deal probability of 101 is accepted (the maximum check is off by one)",
    ),
    Fault(
        "deal_probability_as_float",
        ("DEAL-035",),
        "a deal's probability is stored and rendered as a float (55.0)",
    ),
    Fault(
        "deal_score_unchecked",
        ("DEAL-017",),
        "a deal takes any string as score, not only cold, warm or hot",
    ),
    Fault(
        "deal_status_unchecked",
        ("DEAL-018",),
        "a deal takes any string as status, not only open, won or lost",
    ),
    Fault(
        "lost_reason_id_not_rendered",
        ("DEAL-019", "IDN-013"),
        "the deal create answer renders lost_reason_id as null (only the reason's name is kept)",
    ),
    Fault(
        "lost_reason_name_null",
        ("DEAL-020",),
        "the deal create answer renders a lost deal's lost_reason as null",
    ),
    Fault(
        "expected_close_date_as_date",
        ("DEAL-021", "IDN-003"),
        "a deal's expected_close_date is stored as a date alone (2030-01-31), not a date-time",
    ),
    Fault(
        "stage_changed_at_epoch",
        ("DEAL-022", "IDN-003"),
        "a deal's stage_changed_at is stored in Unix seconds (an integer), not ISO 8601",
    ),
    Fault(
        "deal_owner_id_ignored",
        ("DEAL-024",),
        "deal create ignores the owner_id sent",
    ),
    Fault(
        "deal_owner_not_rendered",
        ("DEAL-025",),
        "the deal create answer leaves out owner though the deal has one",
    ),
    Fault(
        "deal_organization_always_embedded",
        ("DEAL-026",),
        "deal create embeds the organization whether or not expand names it",
    ),
    Fault(
        "deal_custom_fields_as_pairs",
        ("DEAL-028", "CON-025"),
        "the deal create answer renders custom_fields as a list of {key, value} pairs",
    ),
    Fault(
        "deal_tags_as_collection",
        ("DEAL-029",),
        "the deal create answer renders tags as a collection {data, has_more}, not an array",
    ),
    Fault(
        "deal_visibility_default_everyone",
        ("DEAL-030",),
        "a deal created without visibility gets 'everyone', not a value of the enum",
    ),
    Fault(
        "deal_empty_external_id_clears",
        ("DEAL-032",),
        "an empty deal external_id is taken as null instead of refused",
    ),
    Fault(
        "pipelines_listed_under_deals",
        ("DEAL-031",),
        "GET /v1/pipelines answers 404: the route is mounted under /v1/deals only",
    ),
    Fault(
        "activity_on_deal_refused",
        ("ACT-001", "ACT-012"),
        "an activity on a deal answers 404 record_not_found (only contacts and organizations "
        "are looked up)",
    ),
    Fault(
        "activity_due_at_must_be_future",
        ("ACT-002", "ACT-011"),
        "an activity with a due_at in the past is refused",
    ),
    Fault(
        "activity_record_id_optional",
        ("ACT-003",),
        "an activity without record_id is created on no record instead of refused",
    ),
    Fault(
        "activity_empty_title_accepted",
        ("ACT-004",),
        "an activity title of 0 characters is accepted",
    ),
    Fault(
        "activity_description_default_null",
        ("ACT-005",),
        "an activity created without description renders it null, not the empty string",
    ),
    Fault(
        "activity_follow_up_type_refused",
        ("ACT-006",),
        "activity create refuses the type follow_up (an older list of body types)",
    ),
    Fault(
        "activity_default_type_todo",
        ("ACT-007",),
        "an activity created without type gets 'todo', not a value of the enum",
    ),
    Fault(
        "activity_create_takes_any_status",
        ("ACT-009",),
        "activity create takes every response status (canceled, conflict, suggested) in the body",
    ),
    Fault(
        "activity_default_status_pending",
        ("ACT-010",),
        "an activity created without status gets 'pending', not a value of the enum",
    ),
    Fault(
        "activity_record_kind_by_prefix",
        ("ACT-012",),
        "activity create checks only the shape of record_id and looks its kind up by prefix: "
        "another prefix answers 500",
    ),
    Fault(
        "activity_record_not_found_names_kind",
        ("ACT-013",),
        "an unknown record_id answers record_not_found with param contact_id, organization_id "
        "or deal_id, not record_id",
    ),
    Fault(
        "activity_created_by_api_string",
        ("ACT-015", "IDN-021"),
        "an activity created by an integration renders created_by as the string 'api', not null",
    ),
    Fault(
        "activity_id_task_prefix",
        ("ACT-018", "IDN-001", "IDN-015"),
        "the activity create answer renders the id with a task_ prefix, not act_",
    ),
    Fault(
        "activity_object_task",
        ("ACT-019",),
        "the activity create answer renders object as 'task', not 'activity'",
    ),
    Fault(
        "activity_timestamps_epoch",
        ("ACT-020", "IDN-003"),
        "the activity create answer renders updated_at in Unix seconds (an integer)",
    ),
    Fault(
        "activity_description_dropped",
        ("ACT-025",),
        "activity create ignores the description sent",
    ),
    Fault(
        "tag_organization_catalogue_missing",
        ("TAG-001", "TAG-011"),
        "tag create knows only the contact and deal catalogues: an organization tag is refused",
    ),
    Fault(
        "tag_name_defaults",
        ("TAG-002",),
        "a tag created without a name is named 'New tag' instead of refused",
    ),
    Fault(
        "tag_empty_name_accepted",
        ("TAG-003",),
        "a tag name of 0 characters is accepted",
    ),
    Fault(
        "tag_duplicate_already_exists",
        ("TAG-005",),
        "a repeated tag name answers 409 already_exists, not tag_already_exists",
    ),
    Fault(
        "tag_color_required",
        ("TAG-008",),
        "a tag created without color is refused (color required)",
    ),
    Fault(
        "tag_id_label_prefix",
        ("TAG-009", "IDN-001", "IDN-014"),
        "the tag create answer renders the id with a label_ prefix, not tag_",
    ),
    Fault(
        "tag_object_label",
        ("TAG-010",),
        "the tag create answer renders object as 'label', not 'tag'",
    ),
    Fault(
        "conversation_ids_rendered_cnv",
        ("IDN-001", "IDN-004"),
        "the response encoder spells conversation ids cnv_..., though it reads conv_ ids",
    ),
    Fault(
        "channel_ids_rendered_chan",
        ("IDN-001", "IDN-005"),
        "the response encoder spells channel ids chan_..., though it reads chn_ ids",
    ),
    Fault(
        "contact_ids_rendered_cont",
        ("IDN-001", "IDN-006"),
        "the response encoder spells contact ids cont_..., though it reads con_ ids",
    ),
    Fault(
        "organization_ids_rendered_acct",
        ("IDN-001", "IDN-007"),
        "the response encoder spells organization ids acct_ (accounts), though it reads org_",
    ),
    Fault(
        "user_ids_rendered_user",
        ("IDN-001", "IDN-008", "IDN-018"),
        "the response encoder spells teammate ids user_..., owners' too, though it reads usr_",
    ),
    Fault(
        "deal_ids_rendered_dl",
        ("IDN-001", "IDN-010"),
        "the response encoder spells deal ids dl_..., though it reads deal_ ids",
    ),
    Fault(
        "pipeline_ids_rendered_pipeline",
        ("IDN-001", "IDN-011"),
        "the response encoder spells pipeline ids pipeline_..., though it reads pipe_ ids",
    ),
    Fault(
        "stage_ids_rendered_stage",
        ("IDN-001", "IDN-012"),
        "the response encoder spells stage ids stage_..., though it reads stg_ ids",
    ),
    Fault(
        "lost_reason_ids_rendered_lr",
        ("IDN-001", "IDN-013"),
        "the response encoder spells lost reason ids lr_..., though it reads lrsn_ ids",
    ),
    Fault(
        "tag_ids_rendered_tg",
        ("IDN-001", "IDN-014"),
        "the response encoder spells tag ids tg_..., though it reads tag_ ids",
    ),
    Fault(
        "activity_ids_rendered_actv",
        ("IDN-001", "IDN-015"),
        "the response encoder spells activity ids actv_..., though it reads act_ ids",
    ),
    Fault(
        "campaign_ids_rendered_cmp",
        ("IDN-001", "IDN-016"),
        "the response encoder spells campaign ids cmp_..., though it reads camp_ ids",
    ),
    Fault(
        "audience_ids_rendered_audience",
        ("IDN-001", "IDN-017"),
        "the response encoder spells audience ids audience_..., though it reads aud_ ids",
    ),
    Fault(
        "user_list_object_member",
        ("IDN-002",),
        "the user list renders each member with object member instead of user",
    ),
    Fault(
        "owner_kind_teammate",
        ("IDN-019",),
        "a teammate's Owner has kind teammate (the identifier table's word), not user",
    ),
    Fault(
        "owner_name_structured",
        ("IDN-020",),
        "a teammate's Owner name is an object {first, last}, not a string",
    ),
    Fault(
        "owner_object_user",
        ("IDN-021",),
        "a teammate's Owner has object user (the record it points to), not owner",
    ),
    Fault(
        "unknown_path_framework_body",
        ("ERR-001",),
        'an unknown path answers the framework\'s 404 body {"detail": "Not Found"}',
    ),
    Fault(
        "validation_typed_validation_error",
        ("ERR-002",),
        "422 answers carry type validation_error, a type outside the seven",
    ),
    Fault(
        "validation_message_null",
        ("ERR-003",),
        "validation_failed answers have message null (the detail items carry the messages)",
    ),
    Fault(
        "detail_field_last_key",
        ("ERR-007",),
        "a detail item names a nested field by its last key (join), not its dotted path",
    ),
    Fault(
        "unparsable_body_validation_failed",
        ("ERR-009",),
        "a body that is not JSON answers 422 validation_failed instead of 400 bad_request",
    ),
    Fault(
        "detail_lists_first_problem",
        ("ERR-010",),
        "validation stops at the first invalid field: detail lists one item",
    ),
    Fault(
        "missing_contact_resource_missing",
        ("ERR-012",),
        "a missing contact answers 404 resource_missing instead of not_found",
    ),
    Fault(
        "idempotency_key_must_be_uuid",
        ("IDEM-001", "IDEM-002"),
        "an Idempotency-Key that is not a UUID is refused with 400",
    ),
    Fault(
        "in_flight_answers_conflict",
        ("IDEM-006",),
        "a duplicate of a request still processing answers 409 conflict, not "
        "idempotency_key_in_flight",
    ),
    Fault(
        "close_ignores_idempotency_key",
        ("IDEM-003", "IDEM-008"),
        "closing is left out of the idempotency layer: a repeat answers 409 conversation_closed",
    ),
    Fault(
        "pause_ignores_idempotency_key",
        ("IDEM-003", "IDEM-009"),
        "pausing is left out of the idempotency layer: a repeat answers 409 campaign_not_running",
    ),
    Fault(
        "naive_updated_since_as_utc",
        ("SYNC-002",),
        "an updated_since without a timezone offset is read as UTC instead of refused",
    ),
    Fault(
        "updated_at_sort_descending",
        ("SYNC-003",),
        "sort=updated_at lists contacts latest change first",
    ),
    Fault(
        "updated_since_reads_created_at",
        ("SYNC-001", "SYNC-005"),
        "updated_since compares the creation time, so a later change of an older record is lost",
    ),
    Fault(
        "deletion_feed_skips_activities",
        ("SYNC-004", "SYNC-007"),
        "deleted activities leave no tombstone: the feed lists contacts, organizations, deals",
    ),
    Fault(
        "close_renders_chat_id",
        ("CONV-001", "IDN-001", "IDN-004", "CONV-015"),
        "the close answer renders the conversation's id with the legacy chat_ prefix",
    ),
    Fault(
        "close_renders_object_thread",
        ("CONV-002", "IDN-002"),
        "the close answer renders the conversation's object as thread",
    ),
    Fault(
        "closed_status_named_after_outcome",
        ("CONV-003", "CONV-024"),
        "the close answer's status is the outcome (resolved, won, spam), not closed",
    ),
    Fault(
        "close_renders_channel_label",
        ("CONV-004",),
        "the close answer renders the channel's display label (Chatapp Api), not its enum value",
    ),
    Fault(
        "close_renders_channel_id_unprefixed",
        ("CONV-005", "IDN-001", "IDN-005"),
        "the close answer renders channel_id without its chn_ prefix",
    ),
    Fault(
        "close_detaches_contact",
        ("CONV-006",),
        "closing detaches the contact: the closed conversation's contact_id reads null",
    ),
    Fault(
        "needs_human_false_once_closed",
        ("CONV-009", "CONV-032"),
        "closing sets needs_human to false, not null",
    ),
    Fault(
        "close_renders_queue_object",
        ("CONV-011",),
        "the close answer embeds the queue it was closed from as an object ({name}) in queue_name",
    ),
    Fault(
        "close_renders_last_message_at_epoch",
        ("CONV-012", "IDN-003"),
        "the close answer renders last_message_at as Unix seconds (an integer)",
    ),
    Fault(
        "close_not_stored",
        ("CONV-014", "CONV-033", "CONV-041"),
        "the close answers the closed conversation but never stores it: it stays open "
        "(closing it again succeeds, the contact's next message lands in it)",
    ),
    Fault(
        "close_answers_204",
        ("CONV-015",),
        "the close answers 204 No Content instead of 200 with the Conversation",
    ),
    Fault(
        "close_path_id_unchecked",
        ("CONV-016",),
        "the close does not check the path id's conv_ pattern: a malformed id answers 404",
    ),
    Fault(
        "unknown_conversation_has_no_contact",
        ("CONV-017",),
        "closing an unknown conversation answers 409 conversation_has_no_contact, not 404",
    ),
    Fault(
        "close_null_body_refused",
        ("CONV-018",),
        "a close with a JSON null body is refused (422 validation_failed)",
    ),
    Fault(
        "spam_outcome_refused",
        ("CONV-020",),
        "the close refuses outcome spam (422 validation_failed): only resolved and won pass",
    ),
    Fault(
        "won_reason_list_outdated",
        ("CONV-021",),
        "the close refuses won_reason service_completed (the list predates it)",
    ),
    Fault(
        "waiting_conversation_not_closable",
        ("CONV-024",),
        "closing a waiting (queued) conversation answers 409 conflict",
    ),
    Fault(
        "close_without_contact_allowed",
        ("CONV-025",),
        "a conversation without a contact closes (200) instead of 409 conversation_has_no_contact",
    ),
    Fault(
        "deleted_contact_not_checked",
        ("CONV-025", "CONV-026"),
        "close checks only that contact_id is set: a conversation whose contact is gone closes",
    ),
    Fault(
        "handoff_holder_unchecked",
        ("CONV-035",),
        "a handoff of a conversation a teammate or the queue holds is accepted (queued again)",
    ),
    Fault(
        "assign_takes_from_ai",
        ("CONV-036",),
        "assign takes a conversation straight from the AI agent, not 409 conversation_with_ai",
    ),
    Fault(
        "pause_answer_without_updated_at",
        ("CAMP-001",),
        "the pause answer leaves out the campaign's updated_at",
    ),
    Fault(
        "paused_rendered_as_stopped",
        ("CAMP-002",),
        "the pause answer renders the paused status with the legacy name stopped",
    ),
    Fault(
        "pause_not_stored",
        ("CAMP-004",),
        "pause answers the paused campaign but never stores it: the campaign stays running",
    ),
    Fault(
        "pause_answers_status_only",
        ("CAMP-008",),
        "pause answers {status} only, not the Campaign",
    ),
    Fault(
        "pause_unknown_campaign_conflict",
        ("CAMP-016",),
        "pausing an unknown campaign answers 409 campaign_not_running, not 404",
    ),
    Fault(
        "stats_object_named_stats",
        ("STAT-001", "IDN-002"),
        "campaign stats carry object stats, not campaign_stats",
    ),
    Fault(
        "stats_campaign_id_dropped",
        ("STAT-002",),
        "campaign stats render campaign_id as null",
    ),
    Fault(
        "stats_window_as_dates",
        ("STAT-003", "IDN-003"),
        "campaign stats render window_start and window_end as dates (YYYY-MM-DD)",
    ),
    Fault(
        "default_window_four_weeks",
        ("STAT-007", "STAT-023"),
        "without window_start the stats window is the 4 weeks (28 days) ending now",
    ),
    Fault(
        "empty_window_allowed",
        ("STAT-008",),
        "an empty window (window_start equal to window_end) answers 200 with zero counts",
    ),
    Fault(
        "contacted_counts_failed_sends",
        ("STAT-009",),
        "contacted also counts the participants whose message failed (not contacted) in the window",
    ),
    Fault(
        "converted_counts_conversions_in_window",
        ("STAT-012",),
        "converted counts every contact won in the window, also those messaged before it",
    ),
    Fault(
        "not_contacted_as_mapping",
        ("STAT-014",),
        "not_contacted is rendered as an object {reason: count}, not a list of items",
    ),
    Fault(
        "not_contacted_ignores_window",
        ("STAT-016",),
        "not_contacted counts every participant not contacted, whenever its status changed",
    ),
    Fault(
        "counts_as_floats",
        ("STAT-021",),
        "the stats counts are rendered as floats (3.0), as the aggregate query returns them",
    ),
    Fault(
        "success_event_types_missing",
        ("SEV-001",),
        "GET /v1/success-event-types is not served (404)",
    ),
    Fault(
        "users_cursor_ignored",
        ("USR-002", "PAG-005"),
        "the user list ignores cursor: every page is the first",
    ),
    Fault(
        "audiences_limit_ignored",
        ("AUD-002", "PAG-003"),
        "the audience list ignores limit: every page has the default size",
    ),
    Fault(
        "activity_assignee_must_be_member",
        ("USR-004", "ACT-025"),
        "an activity's assignee_id must be a member: an admin the user list shows is refused",
    ),
    Fault(
        "contact_update_external_id_unchecked",
        ("CON-047",),
        "a contact update takes an external_id another contact has (checked on create only)",
    ),
    Fault(
        "organization_update_external_id_unchecked",
        ("CON-047",),
        "an organization update takes an external_id another organization has (checked on "
        "create only)",
    ),
    Fault(
        "deal_update_external_id_unchecked",
        ("DEAL-011", "DEAL-033"),
        "a deal update takes an external_id another deal has (checked on create only)",
    ),
    Fault(
        "external_id_null_ignored",
        ("CON-046",),
        "a contact update with external_id null keeps the old external_id (null read as absent)",
    ),
    Fault(
        "activity_validation_detail_null",
        ("ERR-010",),
        "an activity create refused as validation_failed says so in its message only: its "
        "detail is null",
    ),
    Fault(
        "rate_remaining_before_request",
        ("HDR-007",),
        "X-RateLimit-Remaining is read before the request it answers is counted: one more "
        "than is left",
    ),
    Fault(
        "company_name_unlinked_on_update",
        ("CON-013",),
        "a contact update keeps a new company_name as text without linking the contact to "
        "an organization (create and the adapter link it)",
    ),
    Fault(
        "external_id_null_refused",
        ("CON-046",),
        "a contact update refuses external_id null as validation_failed (the field typed a "
        "string only), while it applies any other change",
    ),
    Fault(
        "stage_change_keeps_stage_changed_at",
        ("DEAL-023",),
        "stage_changed_at is stamped when the deal is created only: moving it to another "
        "stage leaves it",
    ),
    Fault(
        "stage_changed_at_stamped_on_every_update",
        ("DEAL-036",),
        "every deal update stamps stage_changed_at, a change of title too (read as a last "
        "change time)",
    ),
    Fault(
        "resume_activity_editable",
        ("ACT-022", "ACT-023"),
        "the AI agent's resume plan is checked only when the update names a status: its "
        "title, description, due_at, type and assignee can be changed",
    ),
    Fault(
        "resume_activity_not_completable",
        ("ACT-022",),
        "the AI agent's resume plan is read-only: completing and canceling it are refused "
        "with 422 agent_activity_read_only too",
    ),
    Fault(
        "success_event_editable",
        ("SEV-002",),
        "PATCH /v1/success-events/{event_id} changes an event's code and value in place",
    ),
    Fault(
        "status_filter_unvalidated",
        ("ERR-011", "CON-027"),
        "the contact list's status filter is compared as text, so an unknown value such as "
        "archived answers 200 with no rows instead of 400 validation_failed",
    ),
    Fault(
        "organization_id_filter_unvalidated",
        ("ERR-011", "CON-031"),
        "the contact list's organization_id filter is compared as text, so a malformed id "
        "answers 200 with no rows instead of 400 validation_failed",
    ),
    Fault(
        "window_end_unvalidated",
        ("ERR-011",),
        "a campaign stats window_end that is no date-time falls back to the default (now) "
        "instead of answering 400",
    ),
    Fault(
        "contact_limit_clamped",
        ("PAG-008",),
        "the contact list pulls an integer limit outside 1 to 200 into the range instead of "
        "refusing it (the other lists refuse it)",
    ),
    Fault(
        "sort_without_tie_breaker",
        ("QRY-002", "PAG-009"),
        "a sort the request names pages by its keys alone (no id tie-break in the keyset), "
        "so rows tying with a page's last row are skipped",
    ),
    Fault(
        "sort_second_key_ignored",
        ("QRY-001",),
        "only the first key of a comma-separated sort is applied",
    ),
    Fault(
        "corrupt_cursor_restarts",
        ("PAG-007",),
        "a cursor that is not payload.signature reads as no cursor: the first page again",
    ),
    Fault(
        "has_more_as_integer",
        ("PAG-001",),
        "meta.has_more is rendered 0 or 1 (the database's boolean, unconverted)",
    ),
    Fault(
        "next_cursor_empty_on_last_page",
        ("PAG-002", "PAG-004"),
        'the last page\'s links.next is "" instead of null',
    ),
    Fault(
        "list_expand_ignored",
        ("QRY-005",),
        "the contact list validates expand but embeds nothing (only retrieve expands)",
    ),
    Fault(
        "unknown_expand_ignored",
        ("QRY-007",),
        "a list leaves out the expand names it does not know instead of refusing them",
    ),
    Fault(
        "unknown_fields_ignored",
        ("QRY-012",),
        "a list leaves out the fields names it does not know instead of refusing them",
    ),
    Fault(
        "expand_limit_answers_422",
        ("QRY-008",),
        "more than four expand names answer 422 validation_failed, as a body field would",
    ),
    Fault(
        "expand_cap_reached_at_four",
        ("QRY-009",),
        "the expand cap is compared with >=, so four names are already refused as "
        "expand_limit_exceeded",
    ),
    Fault(
        "list_organization_id_needs_expand",
        ("QRY-006", "CON-015"),
        "the contact list reads organization_id from the organization it joins only for an "
        "expand, so without expand=organization it is null",
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
        "deal_external_id_unique_across_workspaces",
        ("TEN-005",),
        "a deal's external_id is kept unique across every workspace, so a second workspace "
        "cannot use one the first has",
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
        "deleted_deals_need_contacts_read",
        ("SCOPE-020",),
        "listing deleted deals needs contacts:read (a deal hangs off a contact) instead of "
        "deals:read, the read scope of the resource listed",
    ),
    Fault(
        "expired_oauth_unauthorized_on_writes",
        ("OAUTH-006",),
        "an expired OAuth token answers token_expired on reads but unauthorized on writes "
        "(the write path authenticates with its own, older check)",
    ),
    Fault(
        "rate_reset_epoch",
        ("HDR-008",),
        "X-RateLimit-Reset is the epoch timestamp at which the window resets, not the "
        "seconds until then",
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
        "missing_token_bad_request",
        ("AUTH-003",),
        "a request without an Authorization header answers 400 bad_request (a missing "
        "required header) instead of 401 unauthorized",
    ),
    Fault(
        "bad_token_invalid_token",
        ("AUTH-004", "AUTH-005", "AUTH-006", "AUTH-008", "AUTH-017"),
        "a presented token that is not valid answers 401 invalid_token (RFC 6750's name) "
        "instead of unauthorized",
    ),
    Fault(
        "revoked_token_forbidden",
        ("AUTH-005",),
        "a revoked token answers 403 forbidden (known, no longer allowed) instead of 401 "
        "unauthorized",
    ),
    Fault(
        "workspace_token_hides_private",
        ("AUTH-015", "AUTH-016"),
        "a workspace token is treated as a person with no records: it does not see private records",
    ),
    Fault(
        "oauth_sees_only_own_records",
        ("OAUTH-002", "OAUTH-003", "OAUTH-005"),
        "an OAuth token sees only the records its person owns, not company-wide ones",
    ),
    Fault(
        "invisible_body_id_forbidden",
        ("OAUTH-007",),
        "an activity on a record invisible to the OAuth token answers 403 forbidden instead "
        "of 404 record_not_found",
    ),
    Fault(
        "request_id_fixed_per_process",
        ("HDR-005",),
        "X-Request-ID is made once when the server starts, so every response has the same",
    ),
    Fault(
        "retry_after_on_every_response",
        ("HDR-010",),
        "Retry-After (the seconds until the window resets) is sent on every response, not "
        "only on 429",
    ),
    Fault(
        "rate_limit_off_by_one",
        ("HDR-006", "HDR-007"),
        "the limiter allows one request more than X-RateLimit-Limit says (used <= limit)",
    ),
    Fault(
        "rate_limit_code_too_many_requests",
        ("RATE-002",),
        "a request over the allowance answers 429 with code too_many_requests instead of "
        "rate_limit_exceeded",
    ),
    Fault(
        "external_id_unique_across_resources",
        ("DEAL-033",),
        "a deal's external_id is refused when a contact or organization has it (one index "
        "across resources, not per resource)",
    ),
    Fault(
        "stage_of_other_pipeline_validation_failed",
        ("DEAL-007",),
        "a stage of another pipeline answers 422 validation_failed, not stage_not_in_pipeline",
    ),
    Fault(
        "user_ids_rendered_uppercase_hex",
        ("IDN-001",),
        "the response encoder spells a teammate id's hex digits in upper case (usr_9F3A...)",
    ),
    Fault(
        "audience_list_unversioned",
        ("VER-001",),
        "the audience list's router is included without the version prefix: /audiences",
    ),
    Fault(
        "token_segments_joined_by_underscore",
        ("AUTH-009", "AUTH-011"),
        "a workspace token's selector and verifier are joined by an underscore, not a dot",
    ),
    Fault(
        "test_tokens_prefixed_live",
        ("AUTH-010",),
        "workspace tokens of a test deployment are issued with the sk_live_ prefix",
    ),
    Fault(
        "oauth_tokens_prefixed_oauth",
        ("OAUTH-001",),
        "OAuth access tokens are issued with the prefix oauth_ instead of oat_",
    ),
    Fault(
        "me_scopes_dotted",
        ("SCOPE-001", "SCOPE-026"),
        "GET /v1/me lists scopes in the admin UI's display form contacts.read, not "
        "<resource>:<access>",
    ),
    Fault(
        "me_answers_inactive",
        ("AUTH-002", "AUTH-003", "AUTH-004", "AUTH-005", "AUTH-006"),
        "GET /v1/me answers a missing or invalid token 200 {active: false}, as OAuth token "
        "introspection does, instead of 401",
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
        "update_ignores_idempotency_key",
        ("IDEM-003", "IDEM-004"),
        "the updates (PATCH and PUT) ignore Idempotency-Key: only POST was wired to the "
        "idempotency layer",
    ),
    Fault(
        "upsert_ignores_idempotency_key",
        ("IDEM-003", "IDEM-004", "IDEM-005"),
        "the upsert ignores Idempotency-Key: a repeat upserts again, a reused key with "
        "another body is not refused",
    ),
    Fault(
        "limit_read_as_int32",
        ("PAG-008", "SRCH-008"),
        "limit is read into a signed 32-bit integer, so 4294967297 reads as 1 and is served",
    ),
    Fault(
        "contact_name_stale_on_update",
        ("CON-007",),
        "a contact update keeps the name derived before it: name is not recomputed when "
        "first_name or last_name changes",
    ),
    Fault(
        "contact_phone_raw_on_update",
        ("CON-009",),
        "a phone written by the contact update is stored as sent (the create path normalizes it)",
    ),
    Fault(
        "upsert_phone_raw",
        ("CON-009",),
        "an upsert that creates a contact stores the phone as sent, not in E.164",
    ),
    Fault(
        "external_id_unbounded_on_update",
        ("CON-048",),
        "the external_id bound is checked on creates only: an update takes 256 characters",
    ),
    Fault(
        "deal_probability_unbounded_on_update",
        ("DEAL-034",),
        "a deal update takes any probability (the bound is checked on create only)",
    ),
    Fault(
        "probability_read_as_int32",
        ("DEAL-015",),
        "a deal probability is read into a signed 32-bit integer, so 4294967346 is stored as 50",
    ),
    Fault(
        "activity_title_unbounded_on_update",
        ("ACT-004",),
        "an activity update takes a title of any length (the 500 bound is checked on create only)",
    ),
    Fault(
        "activity_update_keeps_updated_at",
        ("SYNC-005",),
        "an activity update leaves updated_at as it was, so listing with updated_since "
        "misses the change",
    ),
    Fault(
        "contact_owner_missing_on_list",
        ("CON-018",),
        "the contact list leaves out owner, which the retrieve renders (the list query "
        "joins no users)",
    ),
    Fault(
        "unset_custom_fields_dropped_on_list",
        ("CON-025",),
        "the contact list leaves out the custom fields no value was stored for, instead of null",
    ),
    Fault(
        "lost_reason_missing_on_search",
        ("CON-021",),
        "contact search renders lost_reason null for a lost contact (the retrieve names the"
        " reason)",
    ),
    Fault(
        "deal_expand_ignored_on_retrieve",
        ("QRY-005",),
        "the deal retrieve ignores expand=organization (the create honours it)",
    ),
    Fault(
        "won_contact_keeps_updated_at",
        ("SYNC-005",),
        "closing as won marks the contact won without stamping the change: its updated_at "
        "stays, so updated_since misses it",
    ),
    Fault(
        "spam_close_keeps_handler",
        ("CONV-008", "CONV-032"),
        "closing as spam leaves the handler in place (resolved and won clear it)",
    ),
    Fault(
        "status_and_score_ored",
        ("CON-035",),
        "the status and score filters are read as one standing condition: a contact "
        "matching either passes both",
    ),
    Fault(
        "created_since_reads_updated_at",
        ("CON-033",),
        "created since reads updated_at (one stamp index serves both since filters), so a "
        "contact created before and changed after is listed",
    ),
    Fault(
        "sort_direction_ignored_on_text_keys",
        ("QRY-001",),
        "a minus sign before a text sort key (name, email, ...) is ignored: only the stamps"
        " sort descending",
    ),
    Fault(
        "search_unknown_fields_ignored",
        ("QRY-012",),
        "contact search drops the fields names not on a contact instead of refusing them "
        "with unknown_field",
    ),
    Fault(
        "search_ignores_visibility",
        ("OAUTH-004",),
        "contact search serves every contact of the workspace to an OAuth token, another "
        "person's private ones included",
    ),
    Fault(
        "nested_or_group_as_and",
        ("SRCH-004",),
        "a search group nested inside another is joined with and whatever its join says",
    ),
    Fault(
        "deal_body_visibility_unchecked",
        ("OAUTH-007",),
        "a deal create takes a contact_id invisible to the OAuth person instead of "
        "answering 404 record_not_found",
    ),
    Fault(
        "money_cents_by_floor",
        ("DEAL-014",),
        "a deal value becomes cents by floor of the binary float times 100, so 19.99 reads 19.98",
    ),
    Fault(
        "company_name_relinks_on_update",
        ("CON-013",),
        "company_name written by update relinks a contact that already has an organization",
    ),
    Fault(
        "update_stage_pipeline_unchecked",
        ("DEAL-007",),
        "a deal update takes a stage of another pipeline (only the create checks the pair)",
    ),
    Fault(
        "probability_inherited_at_create",
        ("DEAL-016",),
        "a deal created with a null probability stores its stage's default, so a stage move"
        " keeps the old stage's",
    ),
    Fault(
        "upsert_split_match_unchecked",
        ("CON-043",),
        "an upsert whose external_id and phone name two different contacts updates the "
        "external_id's instead of answering external_id_conflict",
    ),
    Fault(
        "resume_plan_reopenable",
        ("ACT-023",),
        "the AI agent's resume plan can be set back to open after it was completed",
    ),
    Fault(
        "limit_in_fixed_page_sizes",
        ("PAG-008", "SRCH-008"),
        "limit takes only the UI's page sizes (1, 10, 20, 25, 50, 100, 200): any other "
        "value in 1 to 200 is refused as validation_failed",
    ),
    Fault(
        "email_filter_prefix_match",
        ("CON-029",),
        "the email filter matches every address that starts with the value (a LIKE "
        "'value%'), not the whole address",
    ),
    Fault(
        "deal_link_counted_when_null",
        ("DEAL-006",),
        "a deal create counts contact_id: null as a link: the at-least-one rule checks that"
        " the key is present, not its value",
    ),
    Fault(
        "tag_name_in_bytes",
        ("TAG-003",),
        "a tag name's length is counted in UTF-8 bytes, so 100 two-byte characters are refused",
    ),
    Fault(
        "deleted_records_still_served",
        ("CON-041", "SYNC-006"),
        "a deleted contact is only noted in the deletion feed: its row stays, and the "
        "retrieve, the list and search still serve it",
    ),
    Fault(
        "organization_retrieve_ignores_visibility",
        ("OAUTH-004",),
        "the organization retrieve serves any organization of the workspace to an OAuth "
        "token, another person's private one included",
    ),
    Fault(
        "organizations_list_refuses_limit_200",
        ("PAG-008",),
        "the organization list refuses limit=200 (its bound check reads `< 200`), while the "
        "contact list takes it",
    ),
    Fault(
        "deals_list_ignores_updated_since",
        ("SYNC-001", "SYNC-005"),
        "the deal list validates updated_since and never applies it: every deal is listed",
    ),
    Fault(
        "deals_list_drops_lost_reason",
        ("SYNC-005", "DEAL-020"),
        "the deal list's serializer leaves out lost_reason, which the retrieve shows",
    ),
    Fault(
        "activities_list_cursor_unchecked",
        ("PAG-007",),
        "a corrupt cursor on the activity list answers 500 instead of 400 invalid_cursor",
    ),
    Fault(
        "campaign_pages_overlap",
        ("PAG-009", "PAG-005"),
        "the campaign list's next page starts at the last row served (`>=` for `>`): each "
        "page repeats the row before it",
    ),
    Fault(
        "tags_list_limit_as_string",
        ("PAG-001", "PAG-003"),
        'the tag list echoes meta.limit as the query\'s string ("1"), not an integer',
    ),
    Fault(
        "conversations_list_unguarded",
        ("SCOPE-012", "SCOPE-002"),
        "the conversation list checks no scope (its retrieve checks conversations:read)",
    ),
    Fault(
        "conversations_list_all_workspaces",
        ("TEN-001",),
        "the conversation list serves every workspace's conversations (its query has no "
        "workspace condition), though each retrieve is scoped",
    ),
    Fault(
        "organization_list_ignores_visibility",
        ("OAUTH-004",),
        "the organization list shows an OAuth token every organization, another person's "
        "private ones too (the retrieve checks what the person sees)",
    ),
    Fault(
        "activity_retrieve_ignores_fields",
        ("QRY-010",),
        "the activity retrieve validates fields and renders the whole activity all the same",
    ),
    Fault(
        "tags_list_fields_drop_id",
        ("QRY-011",),
        "the tag list narrowed by fields keeps only the names asked for: no id",
    ),
    Fault(
        "rate_limited_answers_share_request_id",
        ("HDR-005",),
        "every 429 the limiter answers carries the same X-Request-ID (the limiter's own, set "
        "once), though each other answer has its own",
    ),
    Fault(
        "activity_record_not_found_typed_as_request",
        ("ERR-021",),
        "record_not_found on an activity's record_id is typed invalid_request_error, while "
        "the deal create's record_not_found is not_found_error",
    ),
    Fault(
        "handoff_keeps_updated_at",
        ("CONV-013",),
        "a handoff changes the handler and status but not updated_at (the queue writes the "
        "row without touching it), though close stamps it",
    ),
    Fault(
        "assign_clears_needs_human",
        ("CONV-010",),
        'assigning a teammate sets needs_human false (read as "a teammate has it, nobody '
        'needs to be asked for"), though the document says true once a teammate is assigned',
    ),
    Fault(
        "reverse_ignores_idempotency_key",
        ("IDEM-003", "IDEM-004"),
        "reversing a success event is left out of the idempotency layer: a repeat with the "
        "same key answers 409 already_reversed instead of the stored answer",
    ),
    Fault(
        "reverse_guarded_by_read",
        ("SCOPE-015", "SCOPE-003"),
        "reversing a success event is guarded by success_events:read (it reads the event "
        "first), not success_events:write",
    ),
)

FAULTS: dict[str, Fault] = {fault.name: fault for fault in _FAULTS}
