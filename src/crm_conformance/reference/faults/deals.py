"""Faults of deals: bugs whose first requirement is of the `deals` class (Deal records and deal
creation in a pipeline stage)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "unknown_pipeline_takes_the_stages",
        ("DEAL-008",),
        "an unknown pipeline_id is replaced by the pipeline of the stage sent, so the deal "
        "is created",
    ),
    Fault(
        "lost_justification_dropped",
        ("DEAL-013",),
        "a lost deal's lost_justification is validated but never stored, so it reads null",
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
        "deal_update_answer_echoes_value",
        ("DEAL-014",),
        "the deal update's answer shows value as sent (a JSON number); the deal stored, and "
        "every read of it, shows the string",
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
        "deal_empty_title_on_update",
        ("DEAL-005",),
        "a deal update takes an empty title (the create checks its length, the update "
        "only its type)",
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
        "deal_update_external_id_unchecked",
        ("DEAL-011", "DEAL-033"),
        "a deal update takes an external_id another deal has (checked on create only)",
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
        "money_cents_by_floor",
        ("DEAL-014",),
        "a deal value becomes cents by floor of the binary float times 100, so 19.99 reads 19.98",
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
        "deal_link_counted_when_null",
        ("DEAL-006",),
        "a deal create counts contact_id: null as a link: the at-least-one rule checks that"
        " the key is present, not its value",
    ),
    Fault(
        "deal_value_in_int32_cents",
        ("DEAL-014",),
        "a deal's value is kept as cents in a 32-bit integer: 21474836.48 reads back "
        "-21474836.48, 42949672.97 as 0.01",
    ),
    Fault(
        "deal_value_zero_unsets",
        ("DEAL-014",),
        "a deal's value is tested for truth: 0 is stored as no value and reads back null",
    ),
    Fault(
        "deal_move_unknown_stage_stored",
        ("DEAL-009",),
        "a deal's update stores a stage id it never looked up: an unknown stage is taken "
        "(the create answers stage_not_found)",
    ),
    Fault(
        "deal_move_unknown_pipeline_ignored",
        ("DEAL-008",),
        "a deal's update ignores a pipeline id it does not know and keeps the deal's own",
    ),
    Fault(
        "close_date_offset_optional_on_update",
        ("DEAL-021",),
        "a deal's expected_close_date needs a timezone offset on create, but an update reads "
        "one without an offset as UTC: one field, two parsers",
    ),
    Fault(
        "deal_close_date_rolls_over",
        ("IDN-022",),
        "a deal's expected_close_date is read with a lenient parser: 30 February is 2 March",
    ),
    Fault(
        "deleted_deals_still_served",
        ("SYNC-006", "ERR-012"),
        "a deleted deal is only noted in the deletion feed (a soft delete the deal queries "
        "do not filter): its retrieve and the deal list still serve it",
    ),
    Fault(
        "deal_update_links_unchecked",
        ("ERR-022",),
        "a deal update stores a contact_id or organization_id naming no record, answered 200 "
        "(only the create looks the ids up)",
    ),
    Fault(
        "deal_retrieve_names_unchecked",
        ("QRY-007", "QRY-012"),
        "the deal retrieve reads no query: an unknown expand or fields name answers 200 "
        "(the list checks them)",
    ),
    Fault(
        "deal_update_null_probability_kept",
        ("DEAL-016",),
        "a deal update with probability null keeps the old probability (null read as "
        "'not sent'), so the deal never goes back to its stage's default",
    ),
    Fault(
        "lost_reason_named_on_create_only",
        ("DEAL-020",),
        "a deal's lost_reason name is copied onto it when created: a deal made lost by an "
        "update reads lost_reason null",
    ),
    Fault(
        "deal_list_tags_without_color",
        ("DEAL-029",),
        "the deal list's rows show each tag without its color (the list's tag join selects "
        "id and name only); the retrieve shows it",
    ),
    Fault(
        "deal_validation_stops_at_first",
        ("ERR-010",),
        "a deal create with several invalid fields lists only the first in detail (its "
        "validator returns on its first problem)",
    ),
    Fault(
        "deal_embeds_organization_short",
        ("CON-026",),
        "a deal embeds its organization as {id, object, name} only (the deal serializer's "
        "own short form), where a contact embeds every listed field",
    ),
    Fault(
        "probability_string_cast_to_null",
        ("DEAL-035",),
        'a deal `probability` sent as a JSON string ("50") is taken, and its failed cast '
        "stores null, so the deal reads its stage's default instead",
    ),
    Fault(
        "deal_value_string_stored_as_sent",
        ("DEAL-014",),
        "a deal `value` sent as a JSON string is stored as sent (a text column), so a word "
        '("one hundred") is taken where the body takes a number',
    ),
    Fault(
        "lost_reason_shows_its_id",
        ("DEAL-020",),
        "a lost deal's `lost_reason` reads the `lrsn_` id where the reason's name belongs",
    ),
    Fault(
        "stage_named_again_stamps_a_move",
        ("DEAL-036",),
        "an update naming the stage the deal is already in stamps `stage_changed_at` as "
        "a move between stages",
    ),
    Fault(
        "deal_visibility_subteams_as_team",
        ("DEAL-030",),
        "a deal written with visibility `team_and_subteams` is stored as `team`",
    ),
    Fault(
        "deal_value_unbounded",
        ("DEAL-014",),
        "a deal value is not bounded before it is stored: an amount past what the money "
        "column holds (1e300) makes the write a 500 instead of a refusal",
    ),
    Fault(
        "pipeline_move_keeps_stage_changed_at",
        ("DEAL-023",),
        "a deal moved to another pipeline's stage keeps its stage_changed_at (only a move "
        "within its pipeline stamps it)",
    ),
    Fault(
        "deal_value_sign_checked_on_create_only",
        ("DEAL-014",),
        "a negative deal value is refused on create but taken by update (the create's check only)",
    ),
    Fault(
        "deal_title_capped_on_create_only",
        ("DEAL-005",),
        "a deal's title is capped at 255 characters on create and taken at any length by update",
    ),
)
