"""Legal variants: other choices where the document is silent.

The suite must pass against every variant; a test that fails one asserts something the
document does not say. Same mechanism as faults (`serve --variant NAME`,
`settings.has_variant(name)`).

The self-test switches compatible variants on together in one server (a conforming
server makes many such choices at once), so a variant says what it cannot be combined
with: `group` for alternative answers to one question, `alone` for a variant that must
have a server of its own (and `suites` for one too slow to run every module).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Variant:
    """A named alternative behaviour the document allows."""

    name: str
    summary: str
    group: str = ""
    """Variants sharing a group answer one open question differently (the default page
    size, the rate allowance), or one would hide the other's effect: never two of a group
    in one server. The empty group combines with every other variant."""
    alone: bool = False
    """Never combined with another variant: its self-test job is its own (a rate
    allowance that paces every request would slow a combined job to its pace)."""
    suites: tuple[str, ...] = ()
    """The suite modules the self-test runs against it (e.g. `test_pagination.py`);
    empty: every module. Only for a variant whose whole run the kill matrix cannot
    afford (a production-like allowance paces a whole run to many minutes)."""
    conventions: Mapping[str, Any] = field(default_factory=dict)
    """The target-file conventions this variant chooses otherwise (merged over the
    reference's, `reference/choices.py`; `None` drops a table), so its target file
    says what it does."""


_VARIANTS = (
    Variant("create_returns_200", "create operations answer 200 instead of 201"),
    Variant(
        "lengths_in_utf16_units",
        "an external_id's length is counted in UTF-16 code units, as a JavaScript or Java "
        "length is: 255 astral characters (510 units) are refused, 255 two-byte ones taken",
    ),
    Variant(
        "default_page_size_20",
        "lists default to 20 rows per page instead of 50",
        group="default_page_size",
    ),
    Variant(
        "extra_response_fields",
        "resources carry an undocumented `livemode` field unless `fields` narrows them",
    ),
    Variant("uuid_request_ids", "X-Request-ID values are UUIDs instead of req_ + hex"),
    Variant(
        "numeric_strings_taken",
        'a deal\'s `value` or `probability` sent as the JSON string of a number ("100", '
        '"50") is read as that number ("number in the body" does not say a string is refused)',
    ),
    Variant(
        "default_page_size_100",
        "lists default to 100 rows per page instead of 50",
        group="default_page_size",
    ),
    Variant("hex_cursors", "cursors are hex (payload.signature) instead of base64url"),
    Variant(
        "reworded_messages",
        "error messages are worded otherwise and documentation_url names a page per code",
    ),
    Variant("empty_detail_array", "`detail` is [] instead of null on errors without items"),
    Variant("charset_utf8", "JSON answers say `application/json; charset=utf-8`"),
    Variant("pretty_json", "JSON bodies are indented instead of compact"),
    Variant("added_latency", "every routed answer is 5 to 20 ms slower"),
    Variant(
        "omit_null_optional_fields",
        "contacts and deals leave out null fields outside their always-present list "
        "(deal probability, whose null means the stage default, stays)",
    ),
    Variant(
        "offset_timestamps",
        "timestamps end in +00:00 instead of Z (the same instants, another ISO 8601 form)",
    ),
    Variant(
        "coarse_error_types",
        "401, 403, 404 and 409 errors typed invalid_request_error, as Stripe-style APIs do "
        "(the mapping of types to statuses is not shown)",
        group="error_types",
    ),
    Variant(
        "small_rate_limit",
        "1000 requests per token per 10-second window",
        group="rate_allowance",
    ),
    Variant(
        "rate_limit_300_per_minute",
        "each token may make 300 requests per 60-second fixed window (Reset rounded up), "
        "a production-like allowance; a whole run takes its requests ÷ 5 seconds",
        group="rate_allowance",
        alone=True,
        # ~740 requests: the fuzz layer spends about 2.5 windows (~2.5 min, mostly waiting).
        suites=("test_fuzz.py", "test_errors_and_headers.py", "test_rate_limits.py"),
    ),
    Variant(
        "sliding_rate_limit",
        "each token may make 300 requests in any 120 seconds (a sliding log): Reset is the "
        "seconds until the oldest counted request leaves the window, rounded down, and "
        "Retry-After the same wait rounded up; a whole run takes its requests ÷ 2.5 seconds",
        group="rate_allowance",
        alone=True,
        # ~390 requests of the hand-written suites: one refill wait of up to 120 s.
        suites=(
            "test_conversations.py",
            "test_idempotency.py",
            "test_pagination.py",
            "test_activities.py",
            "test_campaign_stats.py",
            "test_contacts.py",
            "test_deals.py",
            "test_errors_and_headers.py",
            "test_rate_limits.py",
        ),
    ),
    Variant(
        "unknown_keys_bad_request",
        "a body with unknown keys answers 400 bad_request instead of 422 validation_failed "
        '("unknown keys rejected" pins no status)',
    ),
    Variant(
        "singular_deletion_entities",
        "the deletion feed names the resource listed by its object value (entity=contact) "
        "instead of the scope table's plural",
        conventions={
            "deleted_records_values": {
                "contacts": "contact",
                "organizations": "organization",
                "deals": "deal",
                "activities": "activity",
            }
        },
    ),
    Variant(
        "me_scope_string",
        "GET /v1/me answers as OAuth token introspection does: {active, scope} with the "
        "scopes in one space-separated string",
    ),
    Variant(
        "lost_needs_justification",
        'a deal created lost needs lost_justification too ("same rule as lost_reason_id" '
        "read as required when lost)",
    ),
    Variant(
        "lost_reason_kept_when_reopened",
        "a record updated from lost to open keeps its lost reason and shows it: lost_reason "
        'is "name of the reason when status is lost" (contact), "name, when lost" (deal), '
        "and neither row says what a record no longer lost shows",
    ),
    Variant(
        "put_contact_update",
        "contacts are updated with PUT /v1/contacts/{contact_id} too, and, as most routers "
        "do, a method /v1/contacts/search lacks reaches that route (PUT there answers 400 "
        "for the malformed id)",
        conventions={"updates": {"contact_method": "PUT"}},
    ),
    Variant(
        "fields_need_resource",
        "GET /v1/fields needs the resource whose fields to list (400 without resource=)",
    ),
    Variant(
        "upsert_validates_first",
        "POST /v1/contacts/upsert matches on the phone, which it requires, and validates "
        "its body before the token's scopes and the workspace policy (422 first)",
    ),
    Variant(
        "empty_cursor_rejected",
        "an empty cursor (cursor=) answers 400 invalid_cursor: it is no cursor the server "
        "issued, where the reference reads it as absent",
    ),
    Variant(
        "deletion_items_as_objects",
        "deletion feed items are the record's own object marked deleted "
        "({id, object: contact, deleted: true}) instead of deleted_record items",
    ),
    Variant(
        "campaign_start",
        "a paused campaign resumes at POST /v1/campaigns/{campaign_id}/start (the resume "
        "operation's path is not shown); nothing answers at .../resume",
        conventions={"campaigns": {"resume_path": "/v1/campaigns/{campaign_id}/start"}},
    ),
    Variant(
        "pause_answers_202",
        "pausing a campaign answers 202 with the Campaign (the document pins 200 on close only)",
    ),
    Variant(
        "moves_as_one_operation",
        "handoff, assign and resume are one operation, POST "
        "/v1/conversations/{conversation_id}/handler with the move named in the body "
        "({action: assign, assignee_id}); the moves themselves are not shown",
        conventions={
            "conversation_moves": {
                f"{move}_path": "/v1/conversations/{conversation_id}/handler"
                for move in ("handoff", "assign", "resume")
            }
            | {
                "handoff_body": '{"action": "handoff"}',
                "assign_body": '{"action": "assign", "assignee_id": "{assignee_id}"}',
                "resume_body": '{"action": "resume"}',
            }
        },
    ),
    Variant(
        "success_events_as_outcomes",
        "success events are recorded at POST /v1/outcomes as {event_type, amount} and "
        "reversed at POST /v1/outcomes/{event_id}/refund (operations and fields not shown)",
        conventions={
            "success_events": {
                "create_path": "/v1/outcomes",
                "create_body": '{"event_type": "{code}", "amount": "{value}"}',
                "reverse_path": "/v1/outcomes/{event_id}/refund",
            }
        },
    ),
    Variant(
        "owner_null_when_unowned",
        "contacts, deals and organizations without an owner render owner: null instead of "
        "leaving it out",
    ),
    Variant(
        "organization_null_when_unlinked",
        "with expand=organization, a contact or deal without an organization renders "
        "organization: null instead of leaving it out",
    ),
    Variant(
        "rates_rounded",
        "reply_rate and conversion_rate are rounded to 4 decimal places (1/3 reads 0.3333)",
    ),
    Variant(
        "stage_checked_first",
        "a deal's stage is checked before its pipeline: an unknown pipeline with a real "
        "stage answers 422 stage_not_in_pipeline (the order of validation is not shown)",
    ),
    Variant(
        "mirrored_refused_as_grant",
        "an OAuth token's write to a mirrored entity is refused as the person's: 403 "
        "user_grant_denied (no person may change what an external CRM owns); workspace "
        "tokens still get local_write_denied",
    ),
    Variant(
        "unknown_path_400",
        "a path the API does not have answers 400 bad_request (request not understood) "
        "instead of 404",
    ),
    Variant(
        "tag_color_null_default",
        'a tag created without a colour keeps none (color: null; "the UI default is grey")',
    ),
    Variant(
        "forbidden_typed_authentication",
        "403 errors are typed authentication_error, as APIs that type every refusal of a "
        "token alike do (the mapping of types to statuses is not shown; excludes "
        "coarse_error_types, which retypes 403s too)",
        group="error_types",
    ),
    Variant(
        "fields_keeps_always_present",
        "fields narrows a contact or deal to the names given and its Always present fields "
        '("Always present" read as winning over fields)',
    ),
    Variant(
        "problem_json_errors",
        "error bodies are sent as application/problem+json (still the {error: {...}} "
        "envelope: the document says only that bodies are JSON)",
    ),
    Variant(
        "search_null_join_absent",
        "a search group's join: null reads as an absent join (and), where the reference refuses it",
    ),
    Variant(
        "tag_catalogue_field_record_kind",
        "the body field choosing a tag's catalogue is record_kind (its name is not shown)",
        conventions={"tag_catalogue_field": "record_kind"},
    ),
    Variant(
        "activity_defaults_follow_up",
        "an activity created without a type is a follow_up, and without a status it is "
        "completed when its due_at has passed (defaults of status and type are not shown)",
    ),
    Variant(
        "user_roles_beyond_examples",
        "members are listed with the role sales_rep (roles beyond the example admin are not shown)",
    ),
    Variant(
        "more_not_contacted_reasons",
        "not_contacted lists more reasons, in another fixed order, meta_account last "
        "(reasons beyond the example meta_account are not shown)",
    ),
    Variant(
        "pipelines_as_plain_list",
        "GET /v1/pipelines answers {pipelines: [...]}, no collection envelope (fields of a "
        "pipeline and the operation's shape are not shown)",
    ),
    Variant(
        "spam_close_puts_contact_on_hold",
        "closing as spam also puts the contact on hold (other contact status transitions "
        "are not shown)",
    ),
    Variant(
        "deal_won_at_final_stage",
        "a deal moved to a stage whose default probability is 100 becomes won (deal status "
        "transitions are not shown)",
    ),
    Variant(
        "activity_complete_action",
        "an activity is completed with POST /v1/activities/{activity_id}/complete too "
        "(activity transitions are not shown)",
    ),
    Variant(
        "resume_schedules",
        "resuming a paused campaign makes it scheduled, not running (other campaign "
        "transitions are not shown)",
    ),
    Variant(
        "bracket_filter_names",
        "the contact list filters are named filter[status], filter[email], ... and created "
        "since is created_after (their names are not shown)",
        conventions={
            "created_since_param": "created_after",
            "contact_filters": {
                name: f"filter[{name}]"
                for name in (
                    "status",
                    "score",
                    "email",
                    "owner_id",
                    "organization_id",
                    "external_id",
                )
            },
        },
    ),
    Variant(
        "search_equals_only",
        "search conditions take the operator equals only (the operator list beyond equals "
        "is not shown); another answers 422",
    ),
    Variant(
        "close_needs_no_scope",
        "closing a conversation needs no scope beyond a valid token (its scope is not shown)",
    ),
    Variant(
        "capabilities_as_list",
        "GET /v1/capabilities answers {data: [{entity, local_write}]} (its shape is not shown)",
    ),
    Variant(
        "directory_needs_contacts_read",
        "listing users and audiences needs contacts:read (their scopes are not shown)",
    ),
    Variant(
        "oauth_token_endpoint",
        "POST /v1/oauth/token refreshes OAuth tokens (the refresh flow is not shown)",
    ),
    Variant(
        "webhook_endpoints",
        "webhook endpoints can be listed and created at /v1/webhook-endpoints (outbound "
        "event notifications are not shown)",
    ),
    Variant(
        "pydantic_detail_codes",
        "field-level codes in detail are pydantic's (string_too_long, extra_forbidden, "
        "value_error.*; the full list is not shown)",
    ),
    Variant(
        "small_body_limit",
        "a request body over 64 KiB answers 413 payload_too_large (the maximum body size is "
        "not shown)",
    ),
    Variant(
        "sunset_headers",
        "every answer carries Deprecation and Sunset headers (the deprecation and sunset "
        "policy is not shown)",
    ),
    Variant(
        "occasional_429",
        "every 50th request of a valid token's window answers 429 with Retry-After: 1 "
        "(Remaining 0, Reset 1)",
    ),
    Variant(
        "gzip_answers",
        "every answer is gzip-compressed when the request accepts it (Accept-Encoding), "
        "as Express's compression middleware and most gateways do",
    ),
    Variant(
        "stage_of_other_pipeline_not_found",
        "a deal created in a stage of another pipeline answers 404 stage_not_found (no such "
        "stage in the pipeline named) instead of 422 stage_not_in_pipeline",
    ),
    Variant(
        "search_ignores_idempotency_key",
        "contact search ignores Idempotency-Key, any length (a search writes nothing, and "
        "the document gives the key to writes)",
    ),
    Variant(
        "replays_refusals",
        "a keyed write refused with a 4xx other than 429 keeps its key: a repeat replays "
        "the refusal (Idempotent-Replay: true, the original error.request_id under a fresh "
        "X-Request-ID), as 'returns the original response' reads too",
    ),
    Variant(
        "every_contact_field_sortable",
        "the contact list also sorts by every other scalar field (id, visibility, phone, "
        "address, city, state, job_title, company_name, organization_id, owner_id, "
        "lost_reason, external_id; the sortable keys are not shown)",
    ),
    Variant(
        "no_unshown_lists",
        "GET /v1/organizations, /v1/deals, /v1/activities, /v1/tags and /v1/campaigns do not "
        "exist (404, or 405 where the path takes a POST; those lists are not shown), as on "
        "a server that offers only the operations the document shows: a run's records are "
        "swept through its ledger; its target file names no list",
        conventions={"lists": None},
    ),
    Variant(
        "cancel_by_update_only",
        "no cancel operation of its own: an activity is canceled by its update with "
        "status canceled (how is not shown), and the target file names no cancel",
        conventions={"activities": None},
    ),
)

VARIANTS: dict[str, Variant] = {variant.name: variant for variant in _VARIANTS}
