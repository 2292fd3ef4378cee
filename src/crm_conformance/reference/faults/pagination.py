"""Faults of lists and pagination: bugs whose first requirement is of the `pagination` class
(The collection envelope, limit and cursor paging, and the sort, expand and fields
parameters of reads)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "notes_list_ignores_limit",
        ("PAG-003",),
        "the note list answers pages of the default size whatever limit asks (its handler "
        "was written before paging took a limit)",
    ),
    Fault(
        "unknown_sort_key_ignored",
        ("QRY-003",),
        "a sort key the list cannot sort by is skipped instead of refused",
    ),
    Fault(
        "later_sort_keys_unchecked",
        ("QRY-003",),
        "only the first key of a sort is checked against the sortable keys; a later one "
        "the list cannot sort by is skipped",
    ),
    Fault(
        "meta_limit_reports_default",
        ("PAG-003",),
        "meta.limit reports the default page size, not the limit the request asked for",
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
        "fields_ignored",
        ("QRY-010",),
        "fields is validated but not applied: every field is returned",
    ),
    Fault(
        "fields_drops_id",
        ("QRY-011",),
        "a list narrowed by fields leaves id out unless it is named",
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
        "keyset_drops_null_keys",
        ("QRY-002",),
        "past a cursor whose sort value is set, rows whose value of that key is null are "
        "left out (SQL's `key > ?` is never true of a NULL)",
    ),
    Fault(
        "deal_keyset_drops_null_keys",
        ("QRY-002",),
        "past a cursor of the deal list, deals whose value of a sort key is null where the "
        "cursor's is set are left out (the deal query's keyset in SQL); the contact list is right",
    ),
    Fault(
        "search_cursor_on_sort_key_alone",
        ("QRY-002",),
        "a search sorted by a key the body names pages by that key alone (no id tie-break in "
        "its keyset), so contacts tying with a page's last row are skipped; the list is right",
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
        "unknown_expand_bad_request",
        ("QRY-007",),
        "an expand name not on the resource answers 400 with the generic code bad_request",
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
        "later_fields_unchecked",
        ("QRY-012",),
        "fields checks its first name only; a later name not on the resource is left out",
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
        "deal_expand_counts_names_sent",
        ("QRY-009",),
        "a deal read counts the expand names as sent (repeats too) and compares with >=, "
        "so four names are refused as expand_limit_exceeded on deals only",
    ),
    Fault(
        "list_organization_id_needs_expand",
        ("QRY-006", "CON-015"),
        "the contact list reads organization_id from the organization it joins only for an "
        "expand, so without expand=organization it is null",
    ),
    Fault(
        "limit_read_as_int32",
        ("PAG-008", "SRCH-008"),
        "limit is read into a signed 32-bit integer, so 4294967297 reads as 1 and is served",
    ),
    Fault(
        "deal_expand_ignored_on_retrieve",
        ("QRY-005",),
        "the deal retrieve ignores expand=organization (the create honours it)",
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
        "search_cursor_keyed_as_the_list",
        ("PAG-006",),
        "a search's cursor is bound to the query of the unfiltered contact list, not to the "
        "search's own filter and q: a list cursor reads on in a search, and back",
    ),
    Fault(
        "search_cursor_not_bound_to_sort",
        ("PAG-006",),
        "a search's cursor is bound to its filter and q but not its sort: a cursor issued "
        "under sort=updated_at reads on under -updated_at",
    ),
    Fault(
        "deal_cursor_not_bound_to_sort",
        ("PAG-006",),
        "the deal list's cursor is bound to its filters but not its sort: a cursor issued "
        "under sort=created_at reads on under -created_at",
    ),
    Fault(
        "search_sort_second_key_ignored",
        ("SRCH-007",),
        "contact search applies only the first key of a comma-separated sort (the list "
        "applies every key)",
    ),
    Fault(
        "search_sort_direction_ignored_on_text_keys",
        ("SRCH-007",),
        "contact search ignores a minus sign before a text sort key (name, email, ...): "
        "only the stamps sort a search descending (the list is right)",
    ),
    Fault(
        "deal_sort_second_key_ignored",
        ("QRY-001",),
        "the deal list applies only the first key of a comma-separated sort (the contact "
        "list applies every key)",
    ),
    Fault(
        "search_expands_owner",
        ("CON-019",),
        "contact search takes owner as an expand name (the owner object is always there) "
        "instead of refusing it with unknown_expand, as the list and the retrieve do",
    ),
    Fault(
        "limit_in_fixed_page_sizes",
        ("PAG-008", "SRCH-008"),
        "limit takes only the UI's page sizes (1, 10, 20, 25, 50, 100, 200): any other "
        "value in 1 to 200 is refused as validation_failed",
    ),
    Fault(
        "organizations_list_refuses_limit_200",
        ("PAG-008",),
        "the organization list refuses limit=200 (its bound check reads `< 200`), while the "
        "contact list takes it",
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
        "deal_pages_by_offset",
        ("PAG-009",),
        "the deal list's cursor is an offset: a deal made or deleted between two pages "
        "shifts the rows, so a row comes twice or not at all",
    ),
    Fault(
        "tag_pages_claim_more_when_full",
        ("PAG-004", "PAG-002"),
        "the tag list says has_more (with a next cursor) on every full page, the last one "
        "too, whose next page is empty",
    ),
    Fault(
        "expand_limit_as_unknown",
        ("QRY-007",),
        "more than four expand names, counted as sent, answer unknown_expand, though every "
        "name is a relationship of the resource",
    ),
    Fault(
        "expand_limit_spared_for_known_names",
        ("QRY-008",),
        "more than four expand names are refused only when one is not on the resource (the "
        "count is checked with the unknown names): five relationships of a deal are embedded",
    ),
    Fault(
        "limit_read_by_leading_digits",
        ("PAG-008",),
        "a query limit is read by its leading digits (parseInt): limit=12abc lists 12 rows",
    ),
    Fault(
        "organization_pages_skip",
        ("PAG-009",),
        "the organization list's next page starts one row past its cursor: a row is "
        "skipped at every page boundary",
    ),
    Fault(
        "cursor_omits_its_list",
        ("PAG-006",),
        "a cursor's digest holds the query but not the list that issued it: a deal list's "
        "cursor pages the organization list",
    ),
    Fault(
        "activity_cursor_on_sort_key_alone",
        ("PAG-009",),
        "the activity list's cursor resumes after its last row's sort key alone (no id "
        "tie-break): rows tied on updated_at after a page boundary are skipped",
    ),
    Fault(
        "deal_sort_value_as_text",
        ("QRY-001",),
        "the deal list sorts by the stored text of `value`: 100.00 before 9.00",
    ),
    Fault(
        "deal_sort_probability_stored_only",
        ("QRY-001",),
        "the deal list sorts `probability` by the stored value: a deal inheriting its "
        "stage's default sorts as null (last ascending) though it reads the default",
    ),
    Fault(
        "search_pages_claim_more_when_full",
        ("PAG-004",),
        "a search page as long as its limit says has_more with a next cursor, though the "
        "matches end there (the next page is empty)",
    ),
    Fault(
        "user_pages_claim_more_when_full",
        ("PAG-004",),
        "a user list page as long as its limit says has_more with a next cursor, though the "
        "members end there",
    ),
    Fault(
        "search_fields_drop_id",
        ("QRY-011",),
        "search narrowed by `fields` leaves `id` out unless it is named (its projection "
        "is its own, not the list's)",
    ),
    Fault(
        "cursor_signature_compared_as_text",
        ("PAG-007",),
        "a cursor's signature is compared as text, which the comparison refuses past "
        "ASCII: a cursor of other characters answers 500, not invalid_cursor",
    ),
)
