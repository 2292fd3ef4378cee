"""Tags: "Resources and their fields › Tag", "Endpoints › Tags" and the Limits table.

A tag lives in the catalogue of one record kind (`contact`, `organization`, `deal`);
the body field that picks the catalogue is "not shown", so its name comes from the
target file (`conventions.tag_catalogue_field`). `POST /v1/tags` takes `name`
(required, 1 to 100 characters, unique within its catalogue) and an optional `color`
matching `#` and 3 or 6 hex digits; a repeated name answers 409 `tag_already_exists`
with the existing id in the message. Refusals of a bad body are 422
`validation_failed` (the Errors table's code for invalid fields).
"""

from collections.abc import Callable
from typing import Any

import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import document
from crm_conformance.steps import (
    RecordFactory,
    Updates,
    expect_error,
    expect_field,
    expect_identifier,
    expect_success,
    expect_true,
    matches,
    operations,
)

CATALOGUES = ("contact", "organization", "deal")
COLOR = r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})"
MAX_NAME = document.length_range("TagCreateRequest", "name")[1]


def _body(convention: Callable[[str], str], kind: str = "contact", **fields: Any) -> dict[str, Any]:
    return {convention("tag_catalogue_field"): kind, **fields}


def _spellings(color: str) -> set[str]:
    """The ways a server may keep `color`: as sent or with 3 digits widened to 6, any case."""
    digits = color[1:].casefold()
    widened = "".join(d * 2 for d in digits) if len(digits) == 3 else digits
    return {f"#{digits}", f"#{widened}"}


def _padded(unique: Callable[[str], str], length: int) -> str:
    """A name of exactly `length` characters that is unique in the run."""
    name = unique("tag")
    assert len(name) <= length, "the run prefix is longer than the name under test"
    return name + "x" * (length - len(name))


@pytest.mark.req("TAG-001", "TAG-009", "TAG-010", "TAG-011", "IDN-014")
@pytest.mark.parametrize("kind", CATALOGUES)
def test_a_tag_is_added_to_the_catalogue_of_each_record_kind(
    api: ApiClient,
    convention: Callable[[str], str],
    unique: Callable[[str], str],
    observe: Callable[[str, Any], None],
    kind: str,
) -> None:
    name = unique("tag")
    response = api.post("/v1/tags", json=_body(convention, kind, name=name))
    expect_true(  # the kind has a catalogue that takes the tag
        response,
        "TAG-011",
        response.is_success,
        expected=f"a tag added to the {kind} catalogue",
        got=f"{response.status_code} {response.text[:200]}",
    )
    tag = expect_success(response, "TAG-001")
    observe("tag create status", response.status_code)
    expect_field(response, "TAG-010", tag, "object", expected="tag")
    expect_identifier(response, "TAG-009", tag, "id", "tag_")
    expect_identifier(response, "IDN-014", tag, "id", "tag_")
    expect_field(response, "TAG-001", tag, "name", expected=name)


@pytest.mark.req("TAG-002")
def test_a_tag_without_a_name_is_refused(api: ApiClient, convention: Callable[[str], str]) -> None:
    response = api.post("/v1/tags", json=_body(convention, color="#abc"))
    expect_error(response, "TAG-002", status=422, code="validation_failed")


@pytest.mark.req("TAG-003")
def test_a_name_of_100_characters_is_accepted(
    api: ApiClient, convention: Callable[[str], str], unique: Callable[[str], str]
) -> None:
    name = _padded(unique, MAX_NAME)
    response = api.post("/v1/tags", json=_body(convention, name=name))
    shown = expect_success(response, "TAG-003")
    expect_field(response, "TAG-003", shown, "name", expected=name)


@pytest.mark.req("TAG-003")
def test_a_name_of_1_character_is_accepted(
    api: ApiClient, convention: Callable[[str], str]
) -> None:
    """One character cannot carry the run prefix, so an earlier run may have made it:
    409 `tag_already_exists` also shows the length was accepted."""
    response = api.post("/v1/tags", json=_body(convention, name="Q"))
    if response.status_code == 409:
        expect_error(response, "TAG-003", status=409, code="tag_already_exists")
    else:
        expect_success(response, "TAG-003")


@pytest.mark.req("TAG-003", "TAG-013")
@pytest.mark.parametrize("length", [0, MAX_NAME + 1], ids=["empty", f"{MAX_NAME + 1} characters"])
def test_a_name_outside_1_to_100_characters_is_refused(
    api: ApiClient, convention: Callable[[str], str], unique: Callable[[str], str], length: int
) -> None:
    name = _padded(unique, length) if length else ""
    response = api.post("/v1/tags", json=_body(convention, name=name))
    expect_error(response, "TAG-013" if length else "TAG-003", status=422, code="validation_failed")


SECOND_BODIES: dict[str, dict[str, Any]] = {"same body": {}, "another colour": {"color": "#3a7"}}
"""What else the second create of a name says: nothing, or a colour the first lacks (a
name is unique whatever the colour: a uniqueness over name and colour lets it by)."""


@pytest.mark.req("TAG-004", "TAG-005")
@pytest.mark.parametrize("second", SECOND_BODIES)
@pytest.mark.parametrize("kind", CATALOGUES)
def test_a_repeated_name_answers_tag_already_exists_with_the_existing_id(
    api: ApiClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    kind: str,
    second: str,
) -> None:
    """ "unique within its catalogue": in each catalogue, not only the first one met, and
    whatever else the second create's body says."""
    first = factory.tag(kind=kind)
    body = _body(convention, kind, name=first["name"], **SECOND_BODIES[second])
    response = api.post("/v1/tags", json=body)
    error = expect_error(response, "TAG-005", status=409, code="tag_already_exists")
    expect_true(
        response,
        "TAG-004",
        first["id"] in str(error.get("message")),
        expected=f"error.message naming the existing tag {first['id']}",
        got=f"error.message = {error.get('message')!r}",
    )


@pytest.mark.req("TAG-006")
@pytest.mark.parametrize("write", ["create", "rename"])
@pytest.mark.parametrize(
    ("held", "other"),
    [(a, b) for a in CATALOGUES for b in CATALOGUES if a != b],
    ids=lambda kind: str(kind),
)
def test_the_same_name_is_allowed_in_another_catalogue(
    api: ApiClient,
    factory: RecordFactory,
    updates: Updates,
    convention: Callable[[str], str],
    held: str,
    other: str,
    write: str,
) -> None:
    """ "unique within its catalogue": a name one catalogue has is free in each other,
    for a new tag and for a tag renamed to it (an update checking the name across every
    catalogue refuses)."""
    first = factory.tag(kind=held)
    if write == "create":
        response = api.post("/v1/tags", json=_body(convention, other, name=first["name"]))
        expect_success(response, "TAG-006")
        return
    tag = factory.tag(kind=other)
    response = updates.send("tag", str(tag["id"]), {"name": first["name"]})
    updates.applied(response, "TAG-006", updates.control("tag", str(tag["id"])))


@pytest.mark.req("TAG-007")
@pytest.mark.parametrize("color", ["#abc", "#A1B2C3", "#0f0f0f"])
def test_a_colour_of_3_or_6_hex_digits_is_accepted(
    api: ApiClient, convention: Callable[[str], str], unique: Callable[[str], str], color: str
) -> None:
    response = api.post("/v1/tags", json=_body(convention, name=unique("tag"), color=color))
    tag = expect_success(response, "TAG-007")
    expect_true(
        response,
        "TAG-007",
        str(tag.get("color")).casefold() in _spellings(color),
        expected=f"color {color!r} kept (in any case, or with 3 digits written as 6)",
        got=f"color = {tag.get('color')!r}",
    )


@pytest.mark.req("TAG-007")
@pytest.mark.parametrize("color", ["abc", "#abcd", "#ggg", "#1234567", "red"])
def test_a_colour_not_matching_the_pattern_is_refused(
    api: ApiClient, convention: Callable[[str], str], unique: Callable[[str], str], color: str
) -> None:
    response = api.post("/v1/tags", json=_body(convention, name=unique("tag"), color=color))
    expect_error(response, "TAG-007", status=422, code="validation_failed")


@pytest.mark.req("TAG-008", "TAG-007")
def test_a_tag_without_a_colour_is_accepted(
    api: ApiClient,
    convention: Callable[[str], str],
    unique: Callable[[str], str],
    observe: Callable[[str, Any], None],
) -> None:
    """ "The UI default is grey" says how a tag without a colour looks, not that the API
    stores one: the colour may come back null (or left out), or as a colour of the
    pattern."""
    response = api.post("/v1/tags", json=_body(convention, name=unique("tag")))
    tag = expect_success(response, "TAG-008")
    observe("tag default color", tag.get("color"))
    expect_true(
        response,
        "TAG-007",
        tag.get("color") is None or matches(COLOR, tag.get("color")),
        expected="color null, or # followed by 3 or 6 hex digits",
        got=f"color = {tag.get('color')!r}",
    )


# --- a tag's update (`updates.tag_*`): the rules of its fields hold on a new value ---------

CARRIERS = {"contact": "CON-023", "deal": "DEAL-029"}
"""The records whose `tags` the document types "array of Tag", by their requirement."""


@pytest.mark.req("TAG-005")
@pytest.mark.parametrize("kind", CATALOGUES)
def test_renaming_a_tag_to_a_name_its_catalogue_has_answers_tag_already_exists(
    updates: Updates, factory: RecordFactory, kind: str
) -> None:
    """ "unique within its catalogue" and `tag_already_exists` "catalogue already has
    that name" hold for a new name as for a first one (the id in the message is stated
    for a create only, so it is not looked for)."""
    taken, tag = factory.tag(kind=kind), factory.tag(kind=kind)
    response = updates.send("tag", str(tag["id"]), {"name": taken["name"]})
    expect_error(response, "TAG-005", status=409, code="tag_already_exists")


@pytest.mark.req("TAG-007")
@pytest.mark.parametrize("color", ["abc", "#abcd", "#ggg", "red"])
def test_a_colour_not_matching_the_pattern_is_refused_on_update(
    updates: Updates, color: str
) -> None:
    tag = updates.made("tag")
    response = updates.send("tag", str(tag["id"]), {"color": color})
    expect_error(response, "TAG-007", status=422, code="validation_failed")


@pytest.mark.req("TAG-007")
def test_a_colour_of_the_pattern_is_kept_on_update(updates: Updates) -> None:
    tag_id = str(updates.made("tag")["id"])
    response = updates.send("tag", tag_id, {"color": "#A1B2C3"})
    updates.applied(response, "TAG-007", updates.control("tag", tag_id))
    color = updates.read("tag", tag_id, "TAG-007").get("color")
    expect_true(
        response,
        "TAG-007",
        str(color).casefold() == "#a1b2c3",
        expected="color '#A1B2C3' kept (in any case)",
        got=f"color = {color!r}",
    )


@pytest.mark.parametrize(
    "kind", [pytest.param(k, marks=pytest.mark.req(r)) for k, r in CARRIERS.items()]
)
def test_a_deleted_tag_is_carried_by_no_record(
    api: ApiClient,
    updates: Updates,
    factory: RecordFactory,
    convention: Callable[[str], str],
    kind: str,
) -> None:
    """A record's `tags` are Tags of its kind's catalogue: once the target's own delete
    of a tag it carries succeeds, that tag is in no catalogue, and the record no longer
    shows it. A delete refused (a tag in use may be a conflict with current state) or
    not named deletes nothing, and a record not carrying the tag before has nothing to
    hide: the point is then not applicable."""
    req_id = CARRIERS[kind]
    tag_id = str(factory.tag(kind=kind)["id"])
    record_id = str(updates.made(kind, tags=[tag_id])["id"])

    def carried() -> tuple[Any, list[Any]]:
        tags = updates.read(kind, record_id, req_id).get("tags")
        return tags, [t.get("id") if isinstance(t, dict) else t for t in tags or ()]

    if tag_id not in carried()[1]:
        pytest.skip(f"the {kind} made with the tag does not carry it")
    operations.delete_through_api(api, convention, "tag", tag_id)
    tags, ids = carried()
    expect_true(
        None,
        req_id,
        tag_id not in ids,
        expected=f"the deleted tag {tag_id} not among the {kind}'s tags",
        got=f"tags = {tags!r}",
    )


@pytest.mark.parametrize(
    "kind", [pytest.param(k, marks=pytest.mark.req(r)) for k, r in CARRIERS.items()]
)
def test_a_renamed_tag_shows_its_new_name_on_the_records_that_carry_it(
    updates: Updates, factory: RecordFactory, kind: str
) -> None:
    """A record's `tags` are Tags: the tag as it is now, not as it was when applied."""
    req_id = CARRIERS[kind]
    tag_id = str(factory.tag(kind=kind)["id"])
    record_id = str(updates.made(kind, tags=[tag_id])["id"])
    renamed = factory.unique("renamed")
    response = updates.send("tag", tag_id, {"name": renamed})
    updates.applied(response, req_id, updates.control("tag", tag_id))
    tags = updates.read(kind, record_id, req_id).get("tags")
    names = [t.get("name") for t in tags or () if isinstance(t, dict) and t.get("id") == tag_id]
    expect_true(
        response,
        req_id,
        names == [renamed],
        expected=f"tags holding {tag_id} named {renamed!r}",
        got=f"tags = {tags!r}",
    )
