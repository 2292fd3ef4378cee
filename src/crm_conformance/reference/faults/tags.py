"""Faults of tags: bugs whose first requirement is of the `tags` class (Tag catalogues per
record kind and tag creation)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
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
        "tag_conflict_without_id",
        ("TAG-004",),
        "tag_already_exists does not name the existing tag's id",
    ),
    Fault(
        "tag_names_unique_across_catalogues",
        ("TAG-006",),
        "a tag name taken in one catalogue is refused in the others (uniqueness not per kind)",
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
        "tag_name_in_bytes",
        ("TAG-003",),
        "a tag name's length is counted in UTF-8 bytes, so 100 two-byte characters are refused",
    ),
    Fault(
        "organization_tags_any_catalogue",
        ("TAG-012",),
        "an organization update takes a tag of any catalogue: the catalogue check was "
        "written for contacts and deals",
    ),
    Fault(
        "contact_create_tags_any_catalogue",
        ("TAG-012",),
        "the contact create takes a tag of any catalogue: the catalogue is checked by the "
        "update only",
    ),
    Fault(
        "deal_tag_names_unchecked",
        ("TAG-005", "TAG-004"),
        "a repeated name is refused in the contact and organization catalogues but the "
        "deal catalogue takes it (a second tag of that name)",
    ),
    Fault(
        "tag_update_name_unbounded",
        ("TAG-003", "TAG-013"),
        "a tag's update takes a name of any length, empty and past 100 characters included "
        "(the create checks it)",
    ),
    Fault(
        "tag_update_color_unchecked",
        ("TAG-007",),
        "a tag's update stores any colour text; the create checks the pattern",
    ),
    Fault(
        "tag_rename_unchecked",
        ("TAG-005",),
        "renaming a tag to a name its catalogue has is taken: two tags of one name",
    ),
    Fault(
        "deleted_tag_kept_on_records",
        ("CON-023", "DEAL-029"),
        "records keep a copy of each tag applied to them: a deleted tag is gone from its "
        "catalogue but still shows on the contacts and deals that carried it",
    ),
    Fault(
        "tag_rename_stale_on_records",
        ("CON-023", "DEAL-029"),
        "a record embeds a tag under the name it had when first renamed from (a copy kept "
        "beside the record), so a renamed tag shows its old name on contacts and deals",
    ),
    Fault(
        "contact_takes_deal_tags",
        ("TAG-012",),
        "a contact takes the deal catalogue's tags (a kind check that only refuses "
        "organization tags)",
    ),
    Fault(
        "tag_retrieve_any_case",
        ("ERR-011",),
        "the tag retrieve finds a tag whatever the case of its id's hex (a case-blind "
        "collation): a real id in capitals is served",
    ),
    Fault(
        "tag_rename_checked_across_catalogues",
        ("TAG-006",),
        "renaming a tag checks the new name against every catalogue (the create checks its "
        "own): a deal tag cannot take a contact tag's name",
    ),
    Fault(
        "tag_unique_with_colour",
        ("TAG-005",),
        "a tag's name is unique with its colour (a unique index over catalogue, name and "
        "colour): the same name with another colour is a second tag",
    ),
    Fault(
        "tag_name_in_units_on_create",
        ("TAG-003",),
        "a tag's create counts its name's length in UTF-16 code units (an astral character "
        "is two), its update in characters: 100 astral characters are refused, then taken",
    ),
)
