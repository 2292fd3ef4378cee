"""Faults of the core: bugs whose first requirement is of the `core` class (Authentication
basics, the error envelope and codes, headers, identifiers, object constants and versioning;
every target is held to it)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "contact_updated_at_epoch",
        ("IDN-003",),
        "a contact's updated_at is rendered as Unix seconds (an integer), not ISO 8601",
    ),
    Fault(
        "param_names_the_location",
        ("ERR-006",),
        "validation errors name where the problem is (query, body) in param, not the field",
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
        "deal_contact_id_any_record",
        ("ERR-011",),
        "a deal's contact_id takes the id of a contact, an organization or a deal (one table "
        "of records, looked up by the id alone)",
    ),
    Fault(
        "organization_delete_any_record",
        ("ERR-011",),
        "the organization delete removes whichever contact, organization or deal has the "
        "path's id (a delete by the id alone)",
    ),
    Fault(
        "deal_links_deleted_records",
        ("ERR-022",),
        "a deal's contact_id or organization_id is checked against every id ever made, so "
        "a deleted contact or organization is taken",
    ),
    Fault(
        "deleted_deal_update_answers_200",
        ("ERR-012",),
        "an update of a deleted deal answers 200 (the UPDATE touched no row and was not checked)",
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
        "revoked_token_accepted",
        ("AUTH-007",),
        "revocation is ignored: a revoked token keeps working",
    ),
    Fault(
        "revocation_unchecked_on_deletes",
        ("AUTH-005",),
        "the delete routes' own guard skips the revocation check: a revoked token deletes",
    ),
    Fault(
        "token_trailing_characters_ignored",
        ("AUTH-008",),
        "the verifier is read to its issued length, so a workspace token with characters "
        "appended is accepted",
    ),
    Fault(
        "json_charset_refused_on_updates",
        ("HDR-004",),
        "an update (PATCH) compares Content-Type with application/json exactly, so a JSON "
        "body labelled application/json; charset=utf-8 answers 400 bad_request",
    ),
    Fault(
        "trailing_slash_unscoped",
        ("SCOPE-006",),
        "a collection's create is also routed at its path with a trailing slash (POST "
        "/v1/deals/), where no scope is checked",
    ),
    Fault(
        "deal_path_id_read_as_missing",
        ("ERR-011",),
        "a deal path's id is looked up without its pattern checked, so a malformed one "
        "answers 404 not_found instead of 400 validation_failed",
    ),
    Fault(
        "contact_list_method_not_allowed_404",
        ("ERR-013",),
        "a method /v1/contacts does not take answers 404 not_found (its router is mounted "
        "with a catch-all), where every other path answers 405",
    ),
    Fault(
        "record_path_method_not_allowed_404",
        ("ERR-013",),
        "a method a path with a record id does not take answers 404 not_found (its "
        "routes match method and template together, so a miss there reads as a missing "
        "record), where paths without an id answer 405",
    ),
    Fault(
        "update_array_body_as_empty",
        ("ERR-009",),
        "an update (PATCH) merges its body into the record key by key, so a JSON array "
        "changes nothing and answers 200, where it is refused",
    ),
    Fault(
        "update_detail_lists_first_problem",
        ("ERR-010",),
        "an update (PATCH) stops validating at its first invalid field, so detail names one "
        "of two, where creates and search list each",
    ),
    Fault(
        "deal_ids_case_folded",
        ("ERR-011",),
        "a deal write matches the ids in its body without letter case (the store's "
        "collation), so a real contact id with its hex in capitals is taken",
    ),
    Fault(
        "note_record_unchecked",
        ("ERR-022",),
        "a note create checks its record id's shape only, so a note on a contact id no "
        "record has is created",
    ),
    Fault(
        "token_selector_case_folded",
        ("AUTH-008",),
        "the token's selector is looked up without regard to letter case (a NOCASE "
        "collation), so the token with its selector's case changed is accepted",
    ),
    Fault(
        "verifier_not_checked",
        ("AUTH-004", "AUTH-008"),
        "only the selector is looked up; any verifier is accepted",
    ),
    Fault(
        "method_not_allowed_404",
        ("ERR-013",),
        "a method the path does not support answers 404 not_found instead of 405 api_error",
    ),
    Fault(
        "expired_workspace_token_accepted",
        ("AUTH-006",),
        "expiry is checked for OAuth tokens only, so an expired workspace token keeps working",
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
        "rate_reset_epoch",
        ("HDR-008",),
        "X-RateLimit-Reset is the epoch timestamp at which the window resets, not the "
        "seconds until then",
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
        "request_id_fixed_per_process",
        ("HDR-005",),
        "X-Request-ID is made once when the server starts, so every response has the same",
    ),
    Fault(
        "retry_after_on_every_error",
        ("HDR-010",),
        "every error answer carries Retry-After (the seconds until the window resets), a "
        "404 or a 422 as well as a 429",
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
        "me_answers_inactive",
        ("AUTH-002", "AUTH-003", "AUTH-004", "AUTH-005", "AUTH-006"),
        "GET /v1/me answers a missing or invalid token 200 {active: false}, as OAuth token "
        "introspection does, instead of 401",
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
        "bare_token_accepted",
        ("AUTH-004",),
        "a token sent without any scheme (Authorization: <token>) is accepted as if Bearer",
    ),
    Fault(
        "rate_limit_meters_gets_only",
        ("HDR-007",),
        "only GETs draw on a token's allowance: a POST or update is answered with the "
        "Remaining of a count of its own, as if no GET had been made",
    ),
    Fault(
        "custom_field_detail_bracketed",
        ("ERR-007",),
        "an organization write's refused custom field is named `custom_fields[key]` in "
        "detail, not by its dotted path",
    ),
    Fault(
        "organization_list_object_company",
        ("IDN-002",),
        "the organization list's rows carry object `company` (the older surface's name); "
        "the retrieve says `organization`",
    ),
)
