"""Faults of contacts: bugs whose first requirement is of the `contacts` class (Contact
records, their list filters, retrieval and search)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "contact_name_parts_run_together",
        ("CON-007",),
        "a contact's name joins first_name and last_name with no separator (AdaLovelace)",
    ),
    Fault(
        "phone_brackets_refused",
        ("CON-009",),
        "the phone parser drops spaces and dashes only: a number written with parentheses "
        "or dots is refused",
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
        "contacts_oldest_first",
        ("CON-002",),
        "the contact list's default order is oldest first",
    ),
    Fault(
        "phone_sixteen_digits_taken",
        ("CON-009",),
        "every contact write takes a phone of 16 digits, one past E.164's 15, and stores it "
        "as sent",
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
        "filter_values_anded",
        ("CON-034",),
        "the values of a repeated contact filter are ANDed, so two values match nothing",
    ),
    Fault(
        "search_unknown_keys_ignored",
        ("SRCH-010",),
        "unknown keys of a contact search body are ignored instead of refused",
    ),
    Fault(
        "organization_name_never_matched",
        ("CON-013",),
        "a company_name never matches an existing organization: a new one is always made",
    ),
    Fault(
        "lists_omit_default_visibility",
        ("CON-003", "DEAL-002"),
        "list pages leave out `visibility` when it is the default `company`",
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
        "id_filters_uncapped",
        ("CON-037",),
        "owner_id and organization_id take any number of values: the cap is checked where "
        "text and enum values are read, and ids are read elsewhere",
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
        "contact_update_external_id_unchecked",
        ("CON-047",),
        "a contact update takes an external_id another contact has (checked on create only)",
    ),
    Fault(
        "search_group_keys_unchecked",
        ("SRCH-010",),
        "a search group's keys are not checked (only the body's top level is): a misspelt "
        "conditions key reads as no conditions, and the group matches every contact",
    ),
    Fault(
        "search_equals_as_like",
        ("SRCH-005",),
        "a search equals condition is a SQL LIKE whose % and _ are not escaped: a pattern "
        "finds the contacts it matches",
    ),
    Fault(
        "email_filter_like_wildcards",
        ("CON-029",),
        "the email filter is a SQL LIKE whose % and _ are not escaped: a pattern finds the "
        "contacts it matches",
    ),
    Fault(
        "status_filter_won_as_closed",
        ("CON-027",),
        "the status filter reads won and lost as one closed status: status=won lists the "
        "lost contacts too, and status=lost the won ones",
    ),
    Fault(
        "external_id_unique_across_parties",
        ("CON-047",),
        "an organization's external_id is checked against contacts' too (one table of "
        "parties, one unique index): a contact's value answers external_id_taken",
    ),
    Fault(
        "organization_update_external_id_unchecked",
        ("CON-047",),
        "an organization update takes an external_id another organization has (checked on "
        "create only)",
    ),
    Fault(
        "external_id_null_ignored",
        ("CON-046",),
        "a contact update with external_id null keeps the old external_id (null read as absent)",
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
        "nested_or_group_as_and",
        ("SRCH-004",),
        "a search group nested inside another is joined with and whatever its join says",
    ),
    Fault(
        "company_name_relinks_on_update",
        ("CON-013",),
        "company_name written by update relinks a contact that already has an organization",
    ),
    Fault(
        "upsert_split_match_unchecked",
        ("CON-043",),
        "an upsert whose external_id and phone name two different contacts updates the "
        "external_id's instead of answering external_id_conflict",
    ),
    Fault(
        "email_filter_prefix_match",
        ("CON-029",),
        "the email filter matches every address that starts with the value (a LIKE "
        "'value%'), not the whole address",
    ),
    Fault(
        "upsert_keeps_updated_at",
        ("SYNC-005",),
        "an upsert that finds and changes a contact keeps its updated_at: the upsert stores "
        "the merged record without touching it, so a sync by updated_since misses the change",
    ),
    Fault(
        "contact_create_phone_unchecked",
        ("CON-045",),
        "the contact create takes a phone another contact has: the uniqueness check was "
        "written for the update and the upsert",
    ),
    Fault(
        "phone_uniqueness_compares_raw",
        ("CON-045",),
        "a phone's uniqueness is checked on the phone as sent, before normalizing, so "
        "'+44 20 7123 4567' is not the '+442071234567' a contact has",
    ),
    Fault(
        "contact_create_phone_as_sent",
        ("CON-009",),
        "the contact create stores the phone as sent: only the update and the upsert "
        "normalize it to E.164",
    ),
    Fault(
        "organization_create_external_id_unchecked",
        ("CON-047",),
        "the organization create takes an external_id another organization has: only the "
        "update checks it",
    ),
    Fault(
        "company_name_unlinked_on_create",
        ("CON-013",),
        "a contact created with a company_name keeps the text but is linked to no "
        "organization: the link is made by the update only",
    ),
    Fault(
        "organization_list_omits_unset_custom_fields",
        ("CON-025",),
        "the organization list leaves unset custom fields out of its rows, though the "
        "retrieve shows them null",
    ),
    Fault(
        "field_list_builtin_only",
        ("CON-049",),
        "GET /v1/fields lists the built-in field definitions only, not the workspace's "
        "custom fields",
    ),
    Fault(
        "contacts_by_name_descending",
        ("CON-002",),
        "the contact list is ordered by name, descending, when no sort is given, not newest first",
    ),
    Fault(
        "contact_update_phone_unchecked",
        ("CON-045",),
        "a contact's update takes a phone another contact has (the create refuses it)",
    ),
    Fault(
        "contact_update_score_unchecked",
        ("CON-020",),
        "a contact update stores any score (the create checks it against cold, warm, hot)",
    ),
    Fault(
        "search_index_not_refreshed_on_update",
        ("SRCH-006",),
        "search's free-text index is written on create only: a contact changed since is not "
        "found by its new e-mail or name",
    ),
    Fault(
        "contact_name_needs_first_name",
        ("CON-007",),
        "`name` is derived only when a first name is set: a contact with a last name "
        "alone reads name null",
    ),
    Fault(
        "upsert_matches_raw_phone",
        ("CON-043", "CON-044"),
        "the upsert matches and compares the phone as sent, not normalized: a number "
        "written with spaces finds no contact and reads as another phone",
    ),
    Fault(
        "custom_field_null_kept",
        ("CON-025",),
        "an organization update setting a custom field to null keeps its old value (the "
        "merge skips nulls)",
    ),
    Fault(
        "created_since_dropped_with_status",
        ("CON-035",),
        "the created-since filter is ignored when the status filter is given too",
    ),
    Fault(
        "created_since_dropped_with_sort",
        ("CON-033",),
        "the created-since filter is ignored when the list is also given a sort (the sorted "
        "query path builds its own WHERE clause)",
    ),
    Fault(
        "repeated_filter_first_value_beside_another",
        ("CON-034",),
        "with two different filters given, a repeated one keeps only its first value (the "
        "IN list is built for a query of one filter only)",
    ),
    Fault(
        "email_filter_dropped_with_status",
        ("CON-035",),
        "the email filter is ignored when the status filter is given too",
    ),
    Fault(
        "search_q_joins_tags",
        ("SRCH-001",),
        "search by `q` joins the tag table: a contact with two tags is two rows",
    ),
    Fault(
        "email_checked_on_create_only",
        ("CON-008",),
        "a contact's e-mail address is checked for an at sign on create but not on update, "
        "which stores 'not-an-email'",
    ),
    Fault(
        "external_id_trimmed_on_create",
        ("CON-048", "DEAL-032"),
        "an external_id is trimmed of outer spaces by creates and upserts that create, and "
        "stored as sent by updates: one key, two forms",
    ),
    Fault(
        "organization_empty_name_on_update",
        ("CON-026",),
        "an organization's name must have a character on create, but an update stores an "
        "empty name",
    ),
    Fault(
        "website_checked_on_create_only",
        ("CON-026",),
        "an organization's website must look like a web address on create, but an update "
        "stores any text",
    ),
    Fault(
        "embedded_organization_cached",
        ("CON-016", "DEAL-026"),
        "an expanded organization is rendered once and kept: after an update renames it, "
        "contacts and deals still embed the old name",
    ),
)
