"""Field rules on every operation that writes the field, not only where the document shows it.

A rule of a field's row (a bound, a normalization, a derivation) is a rule of the field,
so it holds on each write that accepts the field: the creates whose bodies the document
shows (deals, activities, tags), the creates of contacts and organizations and the
update of each record kind the target file names (`[conventions.creates]`,
`[conventions.updates]`), and the upsert (`upsert.body`). The matrix is data:

- `BOUNDED`: each bounded string on each write, tried at 1 character and at its maximum
  (ASCII, two-byte and astral characters) and read back as sent; empty and one over the
  maximum are refused 422 `validation_failed` (a deal's title states no maximum: 1
  character and empty only). The maximum in astral characters may be counted as twice
  as many UTF-16 code units: its refusal is recorded, not judged.
- `PROBABILITY`: a deal's 0 and 100 accepted on create and update; -1, 101 and the
  values a 32- or 64-bit reader wraps into range refused.
- Normalization and derivation: a phone written by create, update or upsert reads back
  in E.164; a name written by any of them is the derived `name`'s.
- `updated_at` moves on every update of every kind: "Changes to records are read by
  listing each resource with the `updated_since` filter", which a stale stamp defeats.

A named create, update or upsert body is not shown, so an accepted point refused as
`validation_failed` is sent again as a plain write of the same shape (the control,
`Updates.applied`): a target that takes the control refused the value, one that refuses
both wants another body, and the point is not applicable.
"""

import itertools
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    NOT_A_DATE_TIME,
    PAST_EVERY_INTEGER,
    PHONE_FORMS,
    RecordFactory,
    Updates,
    absent_id,
    detail_fields,
    error_of,
    expect_error,
    expect_error_among,
    expect_field,
    expect_refused_body,
    expect_status,
    expect_success,
    expect_text,
    expect_true,
    expect_value,
    later,
    names_path,
    operations,
    phone_number,
    settle,
    stamp,
    universal,
)

WIDE = {"ascii": "x", "two-byte": "é", "astral": "\U0001d11e"}
"""Characters a bounded string is filled with: one byte, two bytes and four bytes in
UTF-8 (the last is two UTF-16 code units, and still one character)."""


@dataclass(frozen=True)
class Write:
    """One operation that writes a field: how to send a value of it, and how to read
    the record it wrote."""

    name: str
    kind: str
    send: Callable[["Writer", str, Any], tuple[httpx.Response, str | None]]
    """(writer, field, value) -> (the answer, the written record's id if known)."""


class Writer:
    """The writes of one test: creates through the API, updates and upserts at the
    target's conventions, each on a fresh record."""

    def __init__(
        self, api: ApiClient, factory: RecordFactory, updates: Updates, maker: operations.Maker
    ) -> None:
        self.api = api
        self.factory = factory
        self.updates = updates
        self.maker = maker
        self.convention = maker.convention
        self.control: Callable[[], httpx.Response] | None = None
        """The control of the last update or upsert: a write of the same shape the
        document certainly allows."""

    def create(self, kind: str, field: str, value: Any) -> tuple[httpx.Response, str | None]:
        body = BODIES[kind](self.maker)
        body[field] = value
        response = self.api.post(CREATE_PATHS[kind], json=body)
        # the control: the same create with the field as the fresh body has it
        self.control = lambda: self.api.post(CREATE_PATHS[kind], json=BODIES[kind](self.maker))
        return response, _id(response)

    def named_create(self, kind: str, field: str, value: Any) -> tuple[httpx.Response, str | None]:
        response = self.updates.create(kind, {**self.maker.create_fields(kind), field: value})
        # the control: the same create of another new record, without the field
        self.control = lambda: self.updates.create(kind, self.maker.create_fields(kind))
        return response, _id(response)

    def update(self, kind: str, field: str, value: Any) -> tuple[httpx.Response, str | None]:
        record_id = str(self.updates.made(kind)["id"])
        self.control = self.updates.control(kind, record_id)
        return self.updates.send(kind, record_id, {field: value}), record_id

    def upsert(self, field: str, value: Any) -> tuple[httpx.Response, str | None]:
        if field not in conventions.placeholders(self.convention("upsert.body")):
            pytest.skip(f"the target's upsert.body has no {{{field}}} placeholder")
        values = {
            "external_id": self.factory.unique("upsert"),
            "phone": phone_number(),
            "first_name": self.factory.unique("upsert"),
            field: value,
        }
        body = conventions.body(self.convention, "upsert.body", **values)
        response = self.api.post("/v1/contacts/upsert", json=body)
        fresh = {**values, "external_id": self.factory.unique("upsert"), "phone": phone_number()}
        again = conventions.body(self.convention, "upsert.body", **fresh)
        self.control = lambda: self.api.post("/v1/contacts/upsert", json=again)
        return response, _id(response)


def _id(response: httpx.Response) -> str | None:
    try:
        body = response.json() if response.is_success and response.content else None
    except ValueError:
        return None
    record_id = body.get("id") if isinstance(body, dict) else None
    return record_id if isinstance(record_id, str) else None


CREATE_PATHS = {"deal": "/v1/deals", "activity": "/v1/activities", "tag": "/v1/tags"}
BODIES: dict[str, Callable[[operations.Maker], dict[str, Any]]] = {
    "deal": operations.Maker.deal_body,
    "activity": operations.Maker.activity_body,
    "tag": operations.Maker.tag_body,
}
"""A create body the document shows, of a new record."""


def _create(kind: str) -> Write:
    return Write(f"create {kind}", kind, lambda w, f, v: w.create(kind, f, v))


def _named_create(kind: str) -> Write:
    return Write(f"create {kind}", kind, lambda w, f, v: w.named_create(kind, f, v))


def _update(kind: str) -> Write:
    return Write(f"update {kind}", kind, lambda w, f, v: w.update(kind, f, v))


UPSERT = Write("upsert contact", "contact", lambda w, f, v: w.upsert(f, v))


@dataclass(frozen=True)
class Bounded:
    """A string field of 1 to `maximum` characters (None: no maximum is stated), and the
    writes that take it."""

    field: str
    maximum: int | None
    writes: tuple[Write, ...]
    reqs: dict[str, str]
    """The requirement of each write's points, by write name (default under "")."""
    unique: bool = False
    """Unique values only (an external_id, a tag's name): a bound value carries a prefix."""

    def req(self, write: Write) -> str:
        return self.reqs.get(write.name, self.reqs[""])


BOUNDED = (
    Bounded(
        "external_id",
        255,
        (
            _named_create("contact"),
            _update("contact"),
            UPSERT,
            _named_create("organization"),
            _update("organization"),
            _create("deal"),
            _update("deal"),
        ),
        {"": "CON-048", "create deal": "DEAL-032", "update deal": "DEAL-032"},
        unique=True,
    ),
    Bounded("title", 500, (_create("activity"), _update("activity")), {"": "ACT-004"}),
    Bounded("title", None, (_create("deal"), _update("deal")), {"": "DEAL-005"}),
    Bounded("name", 100, (_create("tag"), _update("tag")), {"": "TAG-003"}, unique=True),
)


def _bound_points() -> list[Any]:
    points = []
    for bounded in BOUNDED:
        for write in bounded.writes:
            cases = [("1 character", 1, "ascii", True), ("empty", 0, "ascii", False)]
            if bounded.maximum is not None:
                top = bounded.maximum
                cases += [(f"{top} {w}", top, w, True) for w in WIDE]
                cases += [(f"{top + 1} {w}", top + 1, w, False) for w in WIDE]
            for label, length, wide, accepted in cases:
                points.append(
                    pytest.param(
                        bounded,
                        write,
                        length,
                        wide,
                        accepted,
                        id=f"{write.name} {bounded.field} {label}",
                        marks=pytest.mark.req(bounded.req(write)),
                    )
                )
    return points


def filled(factory: RecordFactory, bounded: Bounded, length: int, wide: str) -> str:
    """A value of exactly `length` characters of `wide`, unique where it must be (one
    character: a random CJK ideograph, of twenty thousand)."""
    if bounded.unique and length == 1:
        return chr(0x4E00 + secrets.randbelow(0x5000))
    head = factory.unique("b").replace("-", "")[: length // 2] if bounded.unique else ""
    return head + WIDE[wide] * (length - len(head))


TAKEN = ("external_id_taken", "tag_already_exists")
"""What a unique one-character value an earlier run took answers: not the bound's."""


@pytest.fixture
def writer(
    api: ApiClient, factory: RecordFactory, updates: Updates, maker: operations.Maker
) -> Writer:
    return Writer(api, factory, updates, maker)


def read_back(
    updates: Updates, write: Write, response: httpx.Response, record_id: str | None, req_id: str
) -> dict[str, Any]:
    """The written record as the target reads it; a created tag is not read back (no
    read of one is shown), so its create's answer stands for it (an updated one is read
    where the target file says, as every updated record is)."""
    if write.name == "create tag":
        return expect_success(response, req_id)
    if record_id is None:
        pytest.skip(f"{write.name} answered no record id to read back (its answer is not shown)")
    return updates.read(write.kind, record_id, req_id)


@pytest.mark.parametrize(("bounded", "write", "length", "wide", "accepted"), _bound_points())
def test_a_bounded_string_is_accepted_at_its_bounds_and_refused_past_them(
    writer: Writer,
    updates: Updates,
    factory: RecordFactory,
    bounded: Bounded,
    write: Write,
    length: int,
    wide: str,
    accepted: bool,
    observe: Callable[[str, Any], None],
) -> None:
    """An astral character is one code point and two UTF-16 code units, and "characters"
    reads both ways (a JavaScript or Java length counts units): the maximum in astral
    characters refused as invalid is recorded, not judged; one more is refused by either
    count, and one accepted reads back as sent."""
    req_id = bounded.req(write)
    value = filled(factory, bounded, length, wide)
    response, record_id = write.send(writer, bounded.field, value)
    if not accepted:
        expect_error(response, req_id, status=422, code="validation_failed")
        return
    if response.status_code == 409 and error_of(response).get("code") in TAKEN:
        pytest.skip(f"{value!r} is taken by a record an earlier run made")
    if wide == "astral" and error_of(response).get("code") == "validation_failed":
        observe(f"{write.name} {bounded.field} of {length} astral characters", "refused")
        pytest.skip(f"{length} astral characters refused: counted as UTF-16 code units")
    updates.applied(response, req_id, writer.control)
    written = read_back(updates, write, response, record_id, req_id)
    expect_true(
        response,
        req_id,
        written.get(bounded.field) == value,
        expected=f"{bounded.field} read back as written: {length} characters",
        got=f"{bounded.field} = {str(written.get(bounded.field))[:80]!r}… "
        f"({len(str(written.get(bounded.field)))} characters)",
    )


# --- an enumerated field: "enum" rows, on every write that takes the field ------------


RECORD_WRITES = (
    _named_create("contact"),
    _update("contact"),
    _named_create("organization"),
    _update("organization"),
    _create("deal"),
    _update("deal"),
)
"""The writes of a contact, organization or deal: the deal create (its body is the
Deal table), the named creates and the updates."""


@dataclass(frozen=True)
class Enumerated:
    """An enumerated field on the writes that may take it: `valid`, a value of the enum
    other than a new record's default, and `invalid`, none of them."""

    field: str
    valid: str
    invalid: str
    writes: tuple[Write, ...]
    reqs: dict[str, str]
    """The requirement of the field's row, by the kind written."""


ENUMERATED = (
    Enumerated(
        "status",
        "on_hold",
        "pending",
        (_named_create("contact"), _update("contact")),
        {"contact": "CON-004"},
    ),
    Enumerated("status", "won", "pending", (_update("deal"),), {"deal": "DEAL-018"}),
    Enumerated(
        "score",
        "hot",
        "lukewarm",
        (_named_create("contact"), _update("contact"), _update("deal")),
        {"contact": "CON-020", "deal": "DEAL-017"},
    ),
    Enumerated(
        "visibility",
        "team",
        "everyone",
        RECORD_WRITES,
        {"contact": "CON-005", "organization": "CON-005", "deal": "DEAL-030"},
    ),
    Enumerated("type", "meeting", "lunch", (_update("activity"),), {"activity": "ACT-006"}),
    Enumerated(
        "type", "meeting", "resume_conversation", (_update("activity"),), {"activity": "ACT-008"}
    ),
    *(
        Enumerated("status", "completed", invalid, (_update("activity"),), {"activity": "ACT-009"})
        for invalid in ("done", "conflict", "suggested")
    ),
)
"""Each enum of a record's table whose value a caller writes, on each write beyond the
shown create where the existing tests hold it (a deal's score and status, an activity's
type and status on create): the named creates and the updates. An activity's status
"response: ... `conflict`, `suggested`" is read, never written ("body: `open`,
`completed`")."""


@pytest.mark.parametrize(
    ("enumerated", "write"),
    [
        pytest.param(
            e,
            w,
            id=f"{w.name} {e.field} {e.invalid}",
            marks=pytest.mark.req(e.reqs[w.kind]),
        )
        for e in ENUMERATED
        for w in e.writes
    ],
)
def test_an_enumerated_field_takes_only_its_values_on_every_write(
    writer: Writer, updates: Updates, enumerated: Enumerated, write: Write
) -> None:
    """The write takes the field (a valid value is accepted and reads back; how a named
    write's body is shaped is not shown, so one that does not take it is not
    applicable); a value outside the enum is then refused 422 `validation_failed`."""
    req_id = enumerated.reqs[write.kind]
    response, record_id = write.send(writer, enumerated.field, enumerated.valid)
    if not response.is_success:
        pytest.skip(
            f"{write.name} refused {enumerated.field}={enumerated.valid!r} "
            f"({response.status_code}): it does not take the field"
        )
    written = read_back(updates, write, response, record_id, req_id).get(enumerated.field)
    if written != enumerated.valid:
        pytest.skip(f"{write.name} does not write {enumerated.field} (it reads {written!r})")
    refused, _ = write.send(writer, enumerated.field, enumerated.invalid)
    expect_error(refused, req_id, status=422, code="validation_failed")


NEVER_NULL = {
    "contact": (("status", "CON-003"), ("visibility", "CON-003")),
    "deal": (
        ("pipeline_id", "DEAL-002"),
        ("stage_id", "DEAL-002"),
        ("title", "DEAL-002"),
        ("visibility", "DEAL-002"),
    ),
    "activity": (("due_at", "ACT-011"), ("title", "ACT-004"), ("description", "ACT-005")),
    "tag": (("name", "TAG-002"),),
}
"""Fields a record always has, by the rule that says so: "Always present" (a contact, a
deal), "required" (an activity's `due_at`, a tag's `name`), "1 to 500 characters" (an
activity's `title`, which null is not), a `string` whose "body default is the empty
string" (an activity's `description`, where the table says "or null" of others)."""
MAY_BE_LEFT_OUT = frozenset({"description"})
"""Fields no "Always present" list names: a rendering may leave an empty one out, so only
an explicit null reads as emptied."""
NULL_WRITES = {
    "contact": (_named_create("contact"), _update("contact")),
    "deal": (_create("deal"), _update("deal")),
    "activity": (_create("activity"), _update("activity")),
    "tag": (_create("tag"), _update("tag")),
}


@pytest.mark.parametrize(
    ("write", "field", "req_id"),
    [
        pytest.param(
            write, field, req_id, id=f"{write.name} {field}", marks=pytest.mark.req(req_id)
        )
        for kind, fields in NEVER_NULL.items()
        for field, req_id in fields
        for write in NULL_WRITES[kind]
    ],
)
def test_null_never_empties_a_field_a_record_always_has(
    writer: Writer, updates: Updates, write: Write, field: str, req_id: str
) -> None:
    """A write sending the field as null is refused (any 4xx: a body problem, or a null id
    read as naming no pipeline or stage, 404), or the record it wrote still has the
    field (a server may read null as "keep" or as the default); it never reads null or
    absent afterwards (an update writing every field it was sent, null included,
    empties it)."""
    response, record_id = write.send(writer, field, None)
    if not response.is_success:
        expect_status(response, req_id, *range(400, 500))
        return
    written = read_back(updates, write, response, record_id, req_id)
    expect_true(
        response,
        req_id,
        written.get(field) is not None or (field in MAY_BE_LEFT_OUT and field not in written),
        expected=f"{field} present after {write.name} sent it as null (refused, or kept)",
        got=f"{field} = {written.get(field)!r}",
    )


SHOWN_ENUMS = {"deal": ("score", "status", "visibility"), "activity": ("type", "status")}
"""The enums of the shown creates' bodies (the Deal and Activity tables)."""
LEFT_OUT = {("deal", "status", "lost"), ("activity", "type", "resume_conversation")}
"""Values with a rule of their own: a lost deal needs a reason (its own tests), and the AI
agent's plan is "never created" (refused above)."""


def _body_values(kind: str, field: str) -> tuple[str, ...]:
    """The values a body may give `field`: the shown create's body enum where there is
    one (an activity's status takes `open` and `completed` only), else the table's."""
    path = CREATE_PATHS.get(kind)
    body = document.request_schema("POST", path) if path else None
    node = document.resolved((body or {}).get("properties", {}).get(field))
    if isinstance(node, dict) and "enum" in node:
        return tuple(value for value in node["enum"] if value is not None)
    return document.enum(kind.capitalize(), field)


def _every_value_points() -> list[Any]:
    """(enumerated field, value, write) for every value of each enum, on each write the
    field is held to above, and on the shown creates."""
    by_field: dict[tuple[str, str], Enumerated] = {}
    for e in ENUMERATED:  # the first of a field: its plain row, not a value's own rule
        for kind in e.reqs:
            by_field.setdefault((e.field, kind), e)
    points = []
    for (field, kind), enumerated in by_field.items():
        shown = (_create(kind),) if field in SHOWN_ENUMS.get(kind, ()) else ()
        named = {w.name: w for w in (*shown, *enumerated.writes) if w.kind == kind}
        writes = list(named.values())
        for write, value in itertools.product(writes, _body_values(kind, field)):
            if (kind, field, value) not in LEFT_OUT:
                req_id = enumerated.reqs[kind]
                points.append(
                    pytest.param(
                        enumerated,
                        value,
                        write,
                        id=f"{write.name} {field} {value}",
                        marks=pytest.mark.req(req_id),
                    )
                )
    return points


@pytest.mark.parametrize(("enumerated", "value", "write"), _every_value_points())
def test_every_value_of_an_enum_reads_back_as_written(
    writer: Writer, updates: Updates, enumerated: Enumerated, value: str, write: Write
) -> None:
    """Each value of the enum, written, reads back as itself (a value stored as another,
    `team_and_subteams` as `team`, shows here). A shown create must take every value of
    its body; a named write whose body is not shown and that refuses the value, or that
    does not write the field at all (its control value does not read back either), is
    not applicable."""
    req_id = enumerated.reqs[write.kind]
    shown = write.name.startswith("create ") and write.kind in SHOWN_ENUMS
    response, record_id = write.send(writer, enumerated.field, value)
    if not response.is_success and not shown:
        pytest.skip(f"{write.name} refused {enumerated.field}={value!r} ({response.status_code})")
    updates.applied(response, req_id)
    written = read_back(updates, write, response, record_id, req_id).get(enumerated.field)
    if written != value and not shown:
        control, control_id = write.send(writer, enumerated.field, enumerated.valid)
        kept = read_back(updates, write, control, control_id, req_id).get(enumerated.field)
        if not control.is_success or kept != enumerated.valid:
            pytest.skip(f"{write.name} does not write {enumerated.field} (it reads {kept!r})")
    expect_field(response, req_id, {enumerated.field: written}, enumerated.field, expected=value)


# --- a date-time in a body: "Timestamps are ISO 8601 date-time strings" -----------------

BODY_TIMESTAMPS = {
    "due_at": (_create("activity"), _update("activity")),
    "expected_close_date": (_create("deal"), _update("deal")),
}
"""The date-times a write's body carries (the Activity and Deal tables), on each write."""


@pytest.mark.req("IDN-022")
@pytest.mark.parametrize(
    ("field", "write", "value"),
    [
        pytest.param(field, write, value, id=f"{write.name} {field} {kind}")
        for field, writes in BODY_TIMESTAMPS.items()
        for write in writes
        for kind, value in NOT_A_DATE_TIME.items()
    ],
)
def test_a_body_date_time_that_is_no_date_time_is_refused(
    writer: Writer, field: str, write: Write, value: str
) -> None:
    """A value no reading of ISO 8601 takes (30 February included, which a lenient
    parser rolls over to March) is an invalid field: 422 `validation_failed`, never
    stored as some other instant."""
    response, record_id = write.send(writer, field, value)
    if response.is_success and record_id is not None:
        writer.factory.discard(record_id)
    expect_error(response, "IDN-022", status=422, code="validation_failed")


# --- a deal's probability: "0 to 100" --------------------------------------------------

PROBABILITY_WRITES = (_create("deal"), _update("deal"))
PROBABILITY_REQ = {"create deal": "DEAL-015", "update deal": "DEAL-034"}
PROBABILITIES = {
    "0": (0, True),
    "100": (100, True),
    "-1": (-1, False),
    "101": (101, False),
    "2^31": (2**31, False),
    "2^32": (2**32, False),
    "2^32+50": (2**32 + 50, False),
    "2^63": (2**63, False),
    "-(2^32-50)": (-(2**32 - 50), False),
}
"""Both ends, one past each, and values past the bound that a 32- or 64-bit reader
wraps (2^32 reads as 0 and 2^32+50 and -(2^32-50) as 50 in 32 bits)."""


@pytest.mark.parametrize(
    ("write", "label"),
    [
        pytest.param(
            w, label, id=f"{w.name} {label}", marks=pytest.mark.req(PROBABILITY_REQ[w.name])
        )
        for w in PROBABILITY_WRITES
        for label in PROBABILITIES
    ],
)
def test_a_deal_probability_is_accepted_from_0_to_100_only(
    writer: Writer, updates: Updates, write: Write, label: str
) -> None:
    req_id = PROBABILITY_REQ[write.name]
    value, accepted = PROBABILITIES[label]
    response, record_id = write.send(writer, "probability", value)
    if not accepted and abs(value) < 2**31:
        expect_error(response, req_id, status=422, code="validation_failed")
    elif not accepted:
        expect_error_among(response, req_id, PAST_EVERY_INTEGER)
    if not accepted:
        return
    updates.applied(response, req_id, writer.control)
    written = read_back(updates, write, response, record_id, req_id)
    expect_true(
        response,
        req_id,
        written.get("probability") == value,
        expected=f"probability {value} read back",
        got=f"probability = {written.get('probability')!r}",
    )


# --- normalization and derivation on every write ----------------------------------------

PHONE_WRITES = (_named_create("contact"), _update("contact"), UPSERT)


@pytest.mark.req("CON-009")
@pytest.mark.parametrize("form", sorted(PHONE_FORMS))
@pytest.mark.parametrize("write", PHONE_WRITES, ids=lambda w: w.name)
def test_a_phone_written_by_any_write_is_normalized_to_e164(
    writer: Writer, updates: Updates, write: Write, form: str
) -> None:
    """ "E.164, normalized on write": a London number written with spaces, dashes,
    parentheses or dots is taken and reads back as +4420…, on every write."""
    phone = phone_number()
    written = PHONE_FORMS[form](phone)
    response, record_id = write.send(writer, "phone", written)
    updates.applied(response, "CON-009", writer.control)
    contact = read_back(updates, write, response, record_id, "CON-009")
    expect_field(response, "CON-009", contact, "phone", expected=phone, why=f"E.164 of {written!r}")


# --- one rule per field: a value one write refuses, every write refuses ---------------


@dataclass(frozen=True)
class Doubtful:
    """A value whose validity or stored form the document leaves to the target, on a
    field of `req`'s row, and the writes that take the field."""

    field: str
    value: Any
    req: str
    writes: tuple[Write, ...]
    unique: bool = False
    """A field whose values are unique (an external_id, a tag's name): each write sends
    `value` with "{u}" replaced by a fresh unique string, so no write meets another's."""

    fill_to: int | None = None
    """Astral characters (each one character, two UTF-16 code units) pad the value to
    this many characters: a bound a write may count either way, as long as every write
    counts it alike."""

    def sent(self, writer: "Writer") -> tuple[Any, str | None]:
        """The value one write sends (made anew for each write when `value` is a
        function: a phone, unique in a workspace), and the unique string in it (None if
        none)."""
        unique = writer.factory.unique("d") if self.unique else None
        value = self.value() if callable(self.value) else self.value
        value = value if unique is None else str(value).replace("{u}", unique)
        if self.fill_to is not None:
            value = str(value) + WIDE["astral"] * (self.fill_to - len(str(value)))
        return value, unique


CONTACT_WRITES = (_named_create("contact"), _update("contact"), UPSERT)
ORGANIZATION_WRITES = (_named_create("organization"), _update("organization"))
TAG_WRITES = (_create("tag"), _update("tag"))
DOUBTFUL = {
    "email without an at sign": Doubtful("email", "not-an-email", "CON-008", CONTACT_WRITES),
    "phone of words": Doubtful("phone", "call me maybe", "CON-009", PHONE_WRITES),
    "phone of 16 digits": Doubtful(
        "phone", lambda: phone_number() + "1234", "CON-009", PHONE_WRITES
    ),
    "blank first_name": Doubtful("first_name", "   ", "CON-006", CONTACT_WRITES),
    "negative deal value": Doubtful("value", -5, "DEAL-014", PROBABILITY_WRITES),
    "blank deal title": Doubtful("title", "   ", "DEAL-005", PROBABILITY_WRITES),
    "deal title of 300 characters": Doubtful("title", "t" * 300, "DEAL-005", PROBABILITY_WRITES),
    "last_name of 300 characters": Doubtful("last_name", "n" * 300, "CON-006", CONTACT_WRITES),
    "blank activity title": Doubtful(
        "title", "   ", "ACT-004", (_create("activity"), _update("activity"))
    ),
    "blank organization name": Doubtful("name", "   ", "CON-026", ORGANIZATION_WRITES),
    "website that is no web address": Doubtful(
        "website", "not a web address", "CON-026", ORGANIZATION_WRITES
    ),
    "tag name of 100 astral characters": Doubtful(
        "name", "{u}", "TAG-003", TAG_WRITES, unique=True, fill_to=100
    ),
    "activity title of 500 astral characters": Doubtful(
        "title", "", "ACT-004", (_create("activity"), _update("activity")), fill_to=500
    ),
    "contact external_id of 255 astral characters": Doubtful(
        "external_id", "{u}", "CON-048", CONTACT_WRITES, unique=True, fill_to=255
    ),
    "deal external_id of 255 astral characters": Doubtful(
        "external_id", "{u}", "DEAL-032", PROBABILITY_WRITES, unique=True, fill_to=255
    ),
    "first_name of 300 characters": Doubtful("first_name", "f" * 300, "CON-006", CONTACT_WRITES),
    "job_title of 300 characters": Doubtful("job_title", "j" * 300, "CON-010", CONTACT_WRITES),
    "organization name of 300 characters": Doubtful(
        "name", "{u}" + "o" * 280, "CON-026", ORGANIZATION_WRITES, unique=True
    ),
    "expected_close_date that is a date alone": Doubtful(
        "expected_close_date", "2027-03-01", "DEAL-021", PROBABILITY_WRITES
    ),
    "due_at that is a date alone": Doubtful(
        "due_at", "2027-03-01", "ACT-011", (_create("activity"), _update("activity"))
    ),
    "empty first_name": Doubtful("first_name", "", "CON-006", CONTACT_WRITES),
    "empty last_name": Doubtful("last_name", "", "CON-006", CONTACT_WRITES),
    "empty e-mail": Doubtful("email", "", "CON-008", CONTACT_WRITES),
    "empty phone": Doubtful("phone", "", "CON-009", PHONE_WRITES),
    "empty job_title": Doubtful("job_title", "", "CON-010", CONTACT_WRITES),
    "empty organization name": Doubtful("name", "", "CON-026", ORGANIZATION_WRITES),
    "empty website": Doubtful("website", "", "CON-026", ORGANIZATION_WRITES),
}
"""Values a target may take or refuse (no format, sign, trimming or maximum is shown, and
"characters" reads as code points or as UTF-16 units): a target's rule for them is the
field's, so it is the same on each write. A phone of words or of 16 digits may be
refused, or taken and stored as no phone; one stored as sent is no E.164 number, which
the run-wide `phones_in_e164` fails on whichever answer shows it."""


@dataclass
class Answers:
    """What each write of the field answered to one value: the writes that refused it
    plainly (`validation_failed`, where a control of the same shape is taken) and those
    that took it, with the written record's id."""

    refused: list[str]
    taken: list[tuple[Write, httpx.Response, str | None]]
    uniques: dict[str, str]
    """The unique string each write's value carried, by write name (a unique field's)."""

    def compared(self, label: str) -> None:
        """Skip unless two writes or more answered for the value."""
        if len(self.refused) + len(self.taken) < 2:
            pytest.skip(f"fewer than two writes took or plainly refused {label}: no comparison")

    def expect_one_rule(self, doubtful: "Doubtful", label: str) -> None:
        """No write took the value that another refused."""
        expect_true(
            self.taken[0][1] if self.taken else None,
            doubtful.req,
            not (self.refused and self.taken),
            expected=f"{doubtful.field}: {label} refused on every write, as "
            f"{', '.join(self.refused)} refuses it",
            got=f"taken by {', '.join(write.name for write, _, _ in self.taken)}",
        )


def send_everywhere(
    writer: Writer, doubtful: Doubtful, label: str, observe: Callable[[str, Any], None]
) -> Answers:
    """`doubtful.value` sent by each of its writes (one the target file does not give the
    field, an upsert.body without its placeholder, is left out)."""
    answers = Answers([], [], {})
    for write in doubtful.writes:
        value, unique = doubtful.sent(writer)
        try:
            response, record_id = write.send(writer, doubtful.field, value)
        except pytest.skip.Exception:
            continue
        if unique is not None:
            answers.uniques[write.name] = unique
        observe(f"{write.name} {label}", response.status_code)
        if response.is_success:
            universal(response)  # what it stored, as its answer shows it (a phone in E.164)
            answers.taken.append((write, response, record_id))
        elif (
            response.status_code in (400, 422)
            and error_of(response).get("code") == "validation_failed"
            and writer.control is not None
            and writer.control().is_success
        ):
            answers.refused.append(write.name)
    return answers


@pytest.mark.parametrize(
    "label", [pytest.param(label, marks=pytest.mark.req(d.req)) for label, d in DOUBTFUL.items()]
)
def test_a_value_one_write_refuses_every_write_of_the_field_refuses(
    writer: Writer, label: str, observe: Callable[[str, Any], None]
) -> None:
    """A field's row gives one rule, whatever write sends the field: where the target
    refuses a value as `validation_failed` on one write (and takes a control of the same
    shape there), it refuses it on every other write, never stores it through one (a
    check on create that the update path lacks). Taking it everywhere, or refusing it
    everywhere, are both legal."""
    doubtful = DOUBTFUL[label]
    answers = send_everywhere(writer, doubtful, label, observe)
    answers.compared(label)
    answers.expect_one_rule(doubtful, label)


RESHAPED = {
    "e-mail in mixed case": Doubtful("email", "Ann.Lee@Example.COM", "CON-008", CONTACT_WRITES),
    "first_name with outer spaces": Doubtful("first_name", "  Ann  ", "CON-006", CONTACT_WRITES),
    "deal title with outer spaces": Doubtful("title", "  Deal  ", "DEAL-005", PROBABILITY_WRITES),
    "activity title with outer spaces": Doubtful(
        "title", "  Call  ", "ACT-004", (_create("activity"), _update("activity"))
    ),
    "deal value of three decimals": Doubtful("value", 10.125, "DEAL-014", PROBABILITY_WRITES),
    "last_name with outer spaces": Doubtful("last_name", "  Lee  ", "CON-006", CONTACT_WRITES),
    "e-mail with outer spaces": Doubtful("email", "  ann@example.com  ", "CON-008", CONTACT_WRITES),
    "job_title with outer spaces": Doubtful("job_title", "  Chief  ", "CON-010", CONTACT_WRITES),
    "city with outer spaces": Doubtful("city", "  Leeds  ", "CON-010", CONTACT_WRITES),
    "organization name with outer spaces": Doubtful(
        "name", "  {u}  ", "CON-026", ORGANIZATION_WRITES, unique=True
    ),
    "contact external_id with outer spaces": Doubtful(
        "external_id", "  {u}  ", "CON-048", CONTACT_WRITES, unique=True
    ),
    "organization external_id with outer spaces": Doubtful(
        "external_id", "  {u}  ", "CON-048", ORGANIZATION_WRITES, unique=True
    ),
    "deal external_id with outer spaces": Doubtful(
        "external_id", "  {u}  ", "DEAL-032", PROBABILITY_WRITES, unique=True
    ),
    "tag name with outer spaces": Doubtful("name", "  {u}  ", "TAG-003", TAG_WRITES, unique=True),
    "website without a scheme": Doubtful("website", "example.com", "CON-026", ORGANIZATION_WRITES),
    "deal value as a numeric string": Doubtful("value", "12.50", "DEAL-014", PROBABILITY_WRITES),
    "deal probability as a numeric string": Doubtful(
        "probability", "50", "DEAL-035", PROBABILITY_WRITES
    ),
    "expected_close_date without an offset": Doubtful(
        "expected_close_date", "2027-03-01T10:00:00", "DEAL-021", PROBABILITY_WRITES
    ),
    "due_at without an offset": Doubtful(
        "due_at", "2027-03-01T10:00:00", "ACT-011", (_create("activity"), _update("activity"))
    ),
    "tag colour in capitals": Doubtful("color", "#A1B2C3", "TAG-007", TAG_WRITES),
}
"""Values a target may store as sent or reshape (no letter case, trimming or rounding
is shown): whatever it does, it does on every write of the field."""


def _same(field: str, value: Any, unique: str | None) -> Any:
    """A read-back value in a form two writes can compare: an amount as a number, its
    trailing zeros dropped ("10.12" and "10.120" are one amount); a unique value with its
    write's unique string (in any letter case) as "{u}"."""
    if unique is not None and isinstance(value, str):
        return re.sub(re.escape(unique), "{u}", value, flags=re.IGNORECASE)
    amount = _amount(value) if field == "value" and isinstance(value, str) else None
    return value if amount is None else amount.normalize()


@pytest.mark.parametrize(
    "label", [pytest.param(label, marks=pytest.mark.req(d.req)) for label, d in RESHAPED.items()]
)
def test_a_value_every_write_takes_reads_back_alike(
    writer: Writer, updates: Updates, label: str, observe: Callable[[str, Any], None]
) -> None:
    """A field's normalization is the field's: a value every write takes reads back in one
    form, whichever write stored it (trimmed on create, as sent on update is a
    normalization one path lacks). The form itself is not judged; nor is a refusal, if
    every write refuses the value."""
    doubtful = RESHAPED[label]
    answers = send_everywhere(writer, doubtful, label, observe)
    answers.expect_one_rule(doubtful, label)
    forms = {
        write.name: read_back(updates, write, response, record_id, doubtful.req).get(doubtful.field)
        for write, response, record_id in answers.taken
    }
    if len(forms) < 2:
        pytest.skip(f"fewer than two writes took {label}: no comparison")
    observe(f"{label} read back", forms)
    expect_true(
        answers.taken[-1][1],
        doubtful.req,
        len(
            {
                repr(_same(doubtful.field, form, answers.uniques.get(name)))
                for name, form in forms.items()
            }
        )
        == 1,
        expected=f"{doubtful.field}: {label} read back alike from every write",
        got=", ".join(f"{name}: {form!r}" for name, form in forms.items()),
    )


OTHER_WORKSPACE_FIELDS: dict[
    str, Callable[[AdapterClient, Callable[[str], str]], dict[str, Any]]
] = {
    "contact": lambda adapter, unique: {"first_name": unique("tenant")},
    "organization": lambda adapter, unique: {"name": unique("tenant")},
    "deal": lambda adapter, unique: {
        "title": unique("tenant"),
        "contact_id": adapter.create_record(
            kind="contact", fields={"first_name": unique("tenant")}, workspace="secondary"
        )["id"],
    },
}
"""The least a record of each kind needs, made in the second workspace by the adapter."""


@pytest.mark.parametrize(
    ("write", "field"),
    [
        *(
            pytest.param(
                w, "external_id", id=f"{w.name} external_id", marks=pytest.mark.req("TEN-005")
            )
            for w in BOUNDED[0].writes
        ),
        *(
            pytest.param(w, "phone", id=f"{w.name} phone", marks=pytest.mark.req("TEN-001"))
            for w in PHONE_WRITES
        ),
    ],
)
def test_a_value_unique_in_another_workspace_is_free_here(
    writer: Writer,
    updates: Updates,
    adapter: AdapterClient,
    unique: Callable[[str], str],
    write: Write,
    field: str,
) -> None:
    """`external_id` is "unique per workspace and resource", and the workspace is "implied
    by the bearer token": a value the second workspace's record of the kind holds (an
    external_id, a contact's phone) is free in this one, on every write that takes it,
    never refused as taken (409) nor matched to that record."""
    req_id = "TEN-005" if field == "external_id" else "TEN-001"
    value = unique("shared") if field == "external_id" else phone_number()
    fields = {**OTHER_WORKSPACE_FIELDS[write.kind](adapter, unique), field: value}
    theirs = adapter.create_record(kind=write.kind, fields=fields, workspace="secondary")
    response, record_id = write.send(writer, field, value)
    updates.applied(response, req_id, writer.control)
    expect_true(
        response,
        req_id,
        record_id != theirs["id"],
        expected=f"a record of this workspace written with {field} {value!r}",
        got=f"the second workspace's record {theirs['id']}",
    )


NAME_POINTS = [
    pytest.param(_named_create("contact"), "first_name", id="create contact first_name"),
    pytest.param(_named_create("contact"), "last_name", id="create contact last_name"),
    pytest.param(_update("contact"), "first_name", id="update contact first_name"),
    pytest.param(_update("contact"), "last_name", id="update contact last_name"),
    pytest.param(UPSERT, "first_name", id="upsert contact first_name"),
]


@pytest.mark.req("CON-007")
@pytest.mark.parametrize(("write", "field"), NAME_POINTS)
def test_a_name_written_by_any_write_is_derived_into_name(
    writer: Writer, updates: Updates, factory: RecordFactory, write: Write, field: str
) -> None:
    """ "display name derived from first and last name": the new part is in `name`."""
    part = factory.unique("Renamed").replace("-", "")
    response, record_id = write.send(writer, field, part)
    updates.applied(response, "CON-007", writer.control)
    contact = read_back(updates, write, response, record_id, "CON-007")
    why = f"derived from {field} = {contact.get(field)!r}"
    expect_text(response, "CON-007", contact, "name", containing=part, why=why)


ONE_PART = ("first_name", "last_name")


@pytest.mark.req("CON-007")
@pytest.mark.parametrize("write", ["create", "update"])
@pytest.mark.parametrize("left_out", ONE_PART)
def test_a_name_of_one_part_is_derived_from_that_part(
    updates: Updates,
    maker: operations.Maker,
    observe: Callable[[str, Any], None],
    write: str,
    left_out: str,
) -> None:
    """ "display name derived from first and last name", when a contact has only one of
    them: created without `left_out`, or updated to a null `left_out`, its `name` holds
    the part it has. Whether a create needs both
    parts, or an update may null one, is not shown: a refusal is recorded, not judged."""
    kept = "last_name" if left_out == "first_name" else "first_name"
    if write == "create":
        fields = {k: v for k, v in maker.create_fields("contact").items() if k != left_out}
        response = updates.create("contact", fields)
        record_id = _id(response)
    else:
        parts = {"first_name": maker.unique("first"), "last_name": maker.unique("last")}
        record_id = str(updates.made("contact", **parts)["id"])
        response = updates.send("contact", record_id, {left_out: None})
    if not response.is_success:
        observe(f"contact {write} without {left_out}", f"refused: {response.status_code}")
        pytest.skip(f"not applicable: the target refused a contact {write} without {left_out}")
    if record_id is None:
        pytest.skip(f"the contact {write} answered no record id to read back")
    contact = updates.read("contact", record_id, "CON-007")
    part = contact.get(kept)
    if not isinstance(part, str) or not part:
        pytest.skip(f"the contact reads no {kept} to derive a name from: {part!r}")
    why = f"derived from {kept} = {part!r} alone ({left_out} null)"
    expect_text(response, "CON-007", contact, "name", containing=part, why=why)


# --- updated_at moves on every change ----------------------------------------------------


STAMPED = tuple(kind for kind in conventions.UPDATED if kind != "tag")
"""The updated kinds whose table has `updated_at` (a Tag's has only id, name, colour and
object)."""


def _expect_change_moves_updated_at(
    updates: Updates,
    kind: str,
    change: Callable[[dict[str, Any]], httpx.Response],
    control: Callable[[str], Callable[[], httpx.Response] | None],
    what: str,
    **fields: Any,
) -> None:
    """A record of `kind` with `fields` (stamped an hour ago where the adapter honours
    `created_at`), changed by `change(record)` (the record as read before), reads back
    with a later `updated_at` (SYNC-005). `control` None: the change is taken as given,
    and a refusal makes the point not applicable."""
    made = updates.made(kind, created_at=stamp(datetime.now(UTC) - timedelta(hours=1)), **fields)
    record_id = str(made["id"])
    record = updates.read(kind, record_id, "SYNC-005")
    before = record.get("updated_at")
    settle(before, clock=updates.api.get("/v1/me"))  # an answer carries the target's clock
    response = change(record)
    updates.applied(response, "SYNC-005", control(record_id))
    after = updates.read(kind, record_id, "SYNC-005").get("updated_at")
    expect_true(
        response,
        "SYNC-005",
        later(after, before),
        expected=f"updated_at later than {before!r} after the {kind} {what}",
        got=f"updated_at = {after!r}",
    )


ENUM_CHANGES = {
    "contact": ("score", document.enum("Contact", "score")),
    "organization": ("visibility", ("team", "company")),
    "deal": ("probability", (37, 38)),
    "activity": ("type", ("call", "email")),
}
"""A field of each kind that is not plain text, and two values of it (an enum's, or two
probabilities): the update sends one the record does not hold."""
CHANGES = ("plain", "other", "custom_fields", "owner")
"""What an update changes: a plain text field, a field of another type (`ENUM_CHANGES`),
a custom field (the adapter's sample; the kinds whose table has `custom_fields`), the
owner (the kinds whose table has `owner_id`; an activity's `assignee_id`)."""
OWNER_FIELD = {"contact": "owner_id", "organization": "owner_id", "deal": "owner_id"}


def _change_of(updates: Updates, kind: str, record: dict[str, Any], what: str) -> dict[str, Any]:
    """The changes of `what` for `record` as read: each a value it lacks."""
    if what == "plain":
        ((field, value),) = operations.PLAIN_CHANGE[kind].items()
        return {field: f"{value}-{updates.factory.unique('u')}"}
    if what == "other":
        field, values = ENUM_CHANGES[kind]
        return {field: next(v for v in values if v != record.get(field))}
    if what == "owner":
        field = OWNER_FIELD.get(kind, "assignee_id")
        user_id = updates.factory.listed_user_id()
        if record.get(field) == user_id:
            pytest.skip(f"the {kind} made already has {field} {user_id}")
        return {field: user_id}
    key, sample = next(iter(_samples(updates.factory, kind).items()))
    shown = (record.get("custom_fields") or {}).get(key)
    if shown == sample.accepted:
        pytest.skip(f"the {kind} already holds the custom field sample {key}")
    return {"custom_fields": {key: sample.accepted}}


@pytest.mark.req("SYNC-005")
@pytest.mark.parametrize(
    ("kind", "what"),
    [
        (kind, what)
        for kind in STAMPED
        for what in CHANGES
        if what != "custom_fields" or "custom_fields" in document.schema(kind.title())["properties"]
    ],
)
def test_an_update_moves_updated_at(updates: Updates, kind: str, what: str) -> None:
    """A record changed by the target's update reads back with a later `updated_at`,
    whatever field the change is in: plain text, an enum or a number, a custom field
    (where the adapter gives a sample of the kind's)."""

    def change(record: dict[str, Any]) -> httpx.Response:
        return updates.send(kind, str(record["id"]), _change_of(updates, kind, record, what))

    _expect_change_moves_updated_at(
        updates,
        kind,
        change,
        lambda record_id: updates.control(kind, record_id),
        f"changed ({what})",
    )


def _resume_plan() -> dict[str, Any]:
    """The fields of the AI agent's resume plan, due tomorrow (the adapter makes one: "it
    can be read and canceled, never created")."""
    return {"type": "resume_conversation", "due_at": stamp(datetime.now(UTC) + timedelta(days=1))}


PLANS: dict[str, Callable[[], dict[str, Any]]] = {"a task": dict, "the resume plan": _resume_plan}
"""The activities a cancel or completion ends: an ordinary one, and the AI agent's plan."""


@pytest.mark.req("SYNC-005")
@pytest.mark.parametrize("plan", PLANS)
def test_a_cancel_moves_updated_at(updates: Updates, plan: str) -> None:
    """The activity cancel the target names changes the activity, the AI agent's resume
    plan too: its `updated_at` moves as an update's does, or a sync never sees the
    cancel."""
    _expect_change_moves_updated_at(
        updates,
        "activity",
        lambda record: updates.cancel(str(record["id"])),
        lambda record_id: None,
        "was canceled",
        **PLANS[plan](),
    )


@pytest.mark.req("SYNC-005", "ACT-022")
def test_completing_the_resume_plan_moves_updated_at(updates: Updates) -> None:
    """The resume plan "can only be completed or canceled": completed by the target's
    update, it is changed, and its `updated_at` moves."""
    _expect_change_moves_updated_at(
        updates,
        "activity",
        lambda record: updates.send("activity", str(record["id"]), {"status": "completed"}),
        lambda record_id: None,
        "was completed",
        **_resume_plan(),
    )


@pytest.mark.req("SYNC-005")
@pytest.mark.parametrize("kind", ["contact", "organization", "deal"])
def test_an_update_of_tags_alone_moves_updated_at(updates: Updates, kind: str) -> None:
    """Tags are a field of the record (`tags`, array of Tag): an update that changes
    them alone changes the record, and its `updated_at` moves. How a body names tags is
    not shown: a target that refuses them as ids, or takes them and applies none, makes
    the point not applicable."""
    tag_id = updates.factory.tag(kind=kind)["id"]

    def change(record: dict[str, Any]) -> httpx.Response:
        response = updates.send(kind, str(record["id"]), {"tags": [tag_id]})
        if not response.is_success:
            pytest.skip(f"the {kind} update refused tags given as ids ({response.status_code})")
        now = updates.read(kind, str(record["id"]), "SYNC-005")
        if tag_id not in _tag_ids(now):
            pytest.skip(f"the {kind} update does not apply tags given as ids")
        return response

    _expect_change_moves_updated_at(
        updates, kind, change, lambda record_id: None, "had a tag added"
    )


@pytest.mark.req("SYNC-005")
def test_an_upsert_that_changes_a_contact_moves_updated_at(
    updates: Updates, convention: Callable[[str], str]
) -> None:
    """The upsert writes as the update does: a contact it finds by `external_id` and
    phone, given another first name, reads back with a later `updated_at` ("Changes to
    records are read by listing each resource with the `updated_since` filter")."""
    if not {"external_id", "phone", "first_name"} <= conventions.placeholders(
        convention("upsert.body")
    ):
        pytest.skip("the target's upsert.body has no {external_id}, {phone} and {first_name}")
    external_id, phone = updates.factory.unique("upsert"), phone_number()
    made = updates.made(
        "contact",
        created_at=stamp(datetime.now(UTC) - timedelta(hours=1)),
        external_id=external_id,
        phone=phone,
        first_name="Before",
    )
    record_id = str(made["id"])
    before = updates.read("contact", record_id, "SYNC-005").get("updated_at")
    settle(before, clock=updates.api.get("/v1/me"))
    values = {"external_id": external_id, "phone": phone, "first_name": updates.factory.unique("u")}
    response = updates.api.post(
        "/v1/contacts/upsert", json=conventions.body(convention, "upsert.body", **values)
    )
    if not response.is_success:
        pytest.skip(f"the target refused its own upsert.body ({response.status_code})")
    after = updates.read("contact", record_id, "SYNC-005").get("updated_at")
    expect_true(
        response,
        "SYNC-005",
        later(after, before),
        expected=f"updated_at later than {before!r} after an upsert changed the contact",
        got=f"updated_at = {after!r}",
    )


# --- tags: "can only be applied to records of that kind" ---------------------------------

TAGGED = ("contact", "organization", "deal")
"""The record kinds with a tag catalogue."""


def _tag_ids(record: dict[str, Any]) -> list[Any]:
    return [t.get("id") if isinstance(t, dict) else t for t in record.get("tags") or ()]


@pytest.mark.req("TAG-012")
@pytest.mark.parametrize("write", RECORD_WRITES, ids=lambda w: w.name)
def test_a_tag_is_applied_only_to_records_of_its_catalogues_kind(
    writer: Writer, updates: Updates, factory: RecordFactory, write: Write
) -> None:
    """A tag "can only be applied to records of that kind": a tag of each other catalogue
    is refused (the status is not shown: any 4xx) or, taken, not applied. The write's own
    catalogue's tag, sent the same way first, shows the write applies tags at all (how a
    body names tags is not shown: as ids here)."""
    own = factory.tag(kind=write.kind)["id"]
    response, record_id = write.send(writer, "tags", [own])
    if not response.is_success:
        pytest.skip(f"{write.name} refused tags given as ids ({response.status_code})")
    if own not in _tag_ids(read_back(updates, write, response, record_id, "TAG-012")):
        pytest.skip(f"{write.name} does not apply tags given as ids")
    for other in (kind for kind in TAGGED if kind != write.kind):
        foreign = factory.tag(kind=other)["id"]
        response, record_id = write.send(writer, "tags", [foreign])
        if not response.is_success:
            expect_true(
                response,
                "TAG-012",
                400 <= response.status_code < 500,
                expected=f"a {other} tag on a {write.kind} refused with a 4xx, or not applied",
                got=f"{response.status_code}",
            )
            continue
        applied = _tag_ids(read_back(updates, write, response, record_id, "TAG-012"))
        expect_true(
            response,
            "TAG-012",
            foreign not in applied,
            expected=f"the {other} catalogue's tag {foreign} not applied to a {write.kind}",
            got=f"tags = {applied}",
        )


# --- money: "string (monetary ...)", "number in the body" ---------------------------------

MONEY = ("19.99", "0.07", "0.1", "1234567.89", "100", "21474836.48", "42949672.97", "0")
"""Amounts a binary float or a cents conversion by truncation gets wrong, two a 32-bit
count of cents wraps (2^31 and 2^32+1 cents), and zero, which a value tested for truth
loses."""
REFUSABLE = frozenset({"21474836.48", "42949672.97", "0"})
"""Amounts a workspace may refuse (no bound is shown, none is forbidden): too large, or
not above zero. Refused, they are not applicable; taken, they read back exactly."""


@pytest.mark.req("DEAL-014")
@pytest.mark.parametrize("amount", MONEY)
@pytest.mark.parametrize("write", PROBABILITY_WRITES, ids=lambda w: w.name)
def test_a_deal_value_reads_back_exactly(
    writer: Writer, updates: Updates, write: Write, amount: str
) -> None:
    """The number sent reads back as a string of the same amount (trailing zeros aside).
    "the workspace sets the currency": one without a minor unit may refuse cents (the
    point is then not applicable, no control: the value is the only change) or round
    them to a whole amount (not applicable either); any other amount is a wrong one."""
    response, record_id = write.send(writer, "value", float(amount))
    if amount in REFUSABLE and response.status_code in (400, 422):
        pytest.skip(f"the target refused value {amount} ({response.status_code}): a bound")
    updates.applied(response, "DEAL-014")
    deal = read_back(updates, write, response, record_id, "DEAL-014")
    value = deal.get("value")
    if isinstance(value, str) and "." not in value and "." in amount:
        pytest.skip(f"value {value!r} for {amount}: the currency may have no minor unit")
    expect_true(
        response,
        "DEAL-014",
        isinstance(value, str) and _amount(value) == Decimal(amount),
        expected=f"value the string of {amount}",
        got=f"value = {value!r}",
    )


PAST_EVERY_AMOUNT = {"1e300": 1e300, "-1e300": -1e300, "1e-300": 1e-300}
"""Amounts past what any money column holds, or below any minor unit."""


@pytest.mark.req("DEAL-014")
@pytest.mark.parametrize("amount", PAST_EVERY_AMOUNT)
@pytest.mark.parametrize("write", PROBABILITY_WRITES, ids=lambda w: w.name)
def test_a_deal_value_past_every_amount_is_taken_or_refused(
    writer: Writer, write: Write, amount: str, observe: Callable[[str, Any], None]
) -> None:
    """ "number in the body", and no bound is shown: an amount past what a store holds is
    taken, or refused as invalid (400 or 422), never a server fault. What a taken one
    reads back as is not judged (it may be past exact decimal rendering)."""
    response, _ = write.send(writer, "value", PAST_EVERY_AMOUNT[amount])
    expect_true(
        response,
        "DEAL-014",
        response.is_success or response.status_code in (400, 422),
        expected=f"value {amount} taken (2xx) or refused (400, 422)",
        got=f"{response.status_code} {response.text[:200]}",
    )
    observe(f"{write.name} value {amount}", response.status_code)


MISTYPED = {
    "value as a word": ("value", "one hundred", "DEAL-014"),
    "probability as a word": ("probability", "half", "DEAL-035"),
    "probability as a fraction": ("probability", 50.5, "DEAL-035"),
}
"""A body value of another JSON type than the table's ("number in the body" for
`value`, "integer" for `probability`) that no reading turns into one."""


@pytest.mark.parametrize(
    ("write", "label"),
    [
        pytest.param(w, label, id=f"{w.name} {label}", marks=pytest.mark.req(req))
        for w in PROBABILITY_WRITES
        for label, (_, _, req) in MISTYPED.items()
    ],
)
def test_a_deal_number_of_another_type_is_refused(
    writer: Writer, write: Write, observe: Callable[[str, Any], None], label: str
) -> None:
    """A word where a number belongs, or a fraction where an integer belongs, is not the
    body's type and spells no value of the field: the write is refused (422
    `validation_failed`, or 400 read as "request not understood"), never stored."""
    field, value, req_id = MISTYPED[label]
    response, _ = write.send(writer, field, value)
    error = expect_refused_body(response, req_id)
    observe(f"{write.name} with {label}", error.get("code"))


SPELLED = {
    "value as a numeric string": ("value", "100", "DEAL-014"),
    "probability as a numeric string": ("probability", "50", "DEAL-035"),
}
"""A number sent as the JSON string that spells it. Independent readings differ: one
refuses it as not "number in the body", another takes it leniently (a deal's `value` is
read as a string, and a client may send back what it read). Either is accepted; taken,
it must be the number it spells."""


@pytest.mark.parametrize(
    ("write", "label"),
    [
        pytest.param(w, label, id=f"{w.name} {label}", marks=pytest.mark.req(req))
        for w in PROBABILITY_WRITES
        for label, (_, _, req) in SPELLED.items()
    ],
)
def test_a_deal_number_spelled_as_a_string_is_refused_or_read_as_that_number(
    writer: Writer,
    updates: Updates,
    write: Write,
    observe: Callable[[str, Any], None],
    label: str,
) -> None:
    """Refused (422 `validation_failed`, or 400), or taken and read back as the very
    number: `value` "100" as the amount 100, `probability` "50" as the integer 50."""
    field, value, req_id = SPELLED[label]
    response, record_id = write.send(writer, field, value)
    if not response.is_success:
        error = expect_refused_body(response, req_id)
        observe(f"{write.name} with {label}", f"refused: {error.get('code')}")
        return
    observe(f"{write.name} with {label}", f"taken: {response.status_code}")
    got = read_back(updates, write, response, record_id, req_id).get(field)
    if field == "value":
        right = isinstance(got, str) and _amount(got) == Decimal(value)
    else:
        right = isinstance(got, int) and not isinstance(got, bool) and got == int(value)
    expect_true(
        response,
        req_id,
        right,
        expected=f"{field} {value!r} refused, or read back as the number {value}",
        got=f"taken; {field} reads {got!r}",
    )


def _amount(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


# --- custom fields: written, read back, unset, refused ---------------------------------

CUSTOM_WRITES = (
    _named_create("contact"),
    _update("contact"),
    _named_create("organization"),
    _update("organization"),
    _create("deal"),
    _update("deal"),
)
CUSTOM_REQ = {"contact": "CON-025", "organization": "CON-025", "deal": "DEAL-028"}
"""The sentence a record's custom fields are held to ("Every custom field defined for
that resource in the workspace appears; an unset one is null"; a deal's row)."""


def _samples(factory: RecordFactory, kind: str) -> dict[str, Any]:
    """The adapter's custom field samples of `kind` (a skip without them: the document
    gives no custom field types, so no value is known to fit)."""
    samples = dict(factory.adapter.fixtures().custom_field_samples.get(kind) or {})
    if not samples:
        pytest.skip(f"the adapter's fixtures give no custom_field_samples for {kind} fields")
    return samples


@pytest.mark.parametrize(
    "write",
    [pytest.param(w, id=w.name, marks=pytest.mark.req(CUSTOM_REQ[w.kind])) for w in CUSTOM_WRITES],
)
def test_custom_fields_written_read_back_and_a_null_unsets_one(
    writer: Writer, updates: Updates, factory: RecordFactory, write: Write
) -> None:
    """Every custom field given a value it takes (the adapter's sample) reads it back;
    then an update setting the first to null unsets it ("an unset one is null") and
    leaves the others as they were (a write changes only what it names)."""
    req_id = CUSTOM_REQ[write.kind]
    values = {key: sample.accepted for key, sample in _samples(factory, write.kind).items()}
    response, record_id = write.send(writer, "custom_fields", values)
    updates.applied(response, req_id, writer.control)
    record = read_back(updates, write, response, record_id, req_id)
    expect_value(
        response,
        req_id,
        f"custom_fields after {write.name}",
        got=_shown(record, values),
        expected=values,
    )
    assert record_id is not None
    unset, *kept = values
    changes = {"custom_fields": {unset: None}}
    response = updates.send(write.kind, record_id, changes)
    updates.applied(response, req_id, updates.control(write.kind, record_id))
    now = updates.read(write.kind, record_id, req_id)
    expected = {**values, unset: None}
    why = f"{unset} set to null by an update, {', '.join(kept) or 'no other'} kept"
    expect_value(
        response, req_id, f"custom_fields ({why})", got=_shown(now, values), expected=expected
    )


def _shown(record: dict[str, Any], values: dict[str, Any]) -> Any:
    """The record's custom fields of the keys in `values` (others the adapter gave no
    sample of may be defined too), or what it shows instead of an object."""
    shown = record.get("custom_fields")
    return {key: shown.get(key) for key in values} if isinstance(shown, dict) else shown


@pytest.mark.req("ERR-007", "ERR-010")
@pytest.mark.parametrize("write", CUSTOM_WRITES, ids=lambda w: w.name)
def test_a_refused_custom_field_is_named_by_its_dotted_path(
    writer: Writer, factory: RecordFactory, write: Write
) -> None:
    """A value a custom field refuses (the adapter's sample) is `validation_failed`, and
    `detail` names the field by its dotted path, `custom_fields.<key>` ("validation items
    `{field: dotted path, ...}`"), not the object holding it nor another notation. Each
    key is refused alone: whether `custom_fields` counts as one body field or one per
    key (so whether a write with several refused keys names them all) is not shown."""
    refused = {k: s.refused[0] for k, s in _samples(factory, write.kind).items() if s.refused}
    if not refused:
        pytest.skip(f"the adapter's samples give no refused value of a {write.kind} field")
    for key, value in refused.items():
        response, _ = write.send(writer, "custom_fields", {key: value})
        error = expect_error(response, "ERR-010", status=422, code="validation_failed")
        fields = detail_fields(error)
        expect_true(
            response,
            "ERR-007",
            any(names_path(field, f"custom_fields.{key}") for field in fields),
            expected=f"error.detail naming custom_fields.{key}",
            got=f"detail fields {fields}",
        )


# --- company_name on a contact that has an organization -----------------------------------


@pytest.mark.req("CON-012", "CON-013")
def test_company_name_written_to_a_linked_contact_keeps_its_organization(
    updates: Updates, factory: RecordFactory
) -> None:
    """ "a contact with no organization yet is linked": one that has an organization
    keeps it, and the text is kept."""
    organization = factory.organization()
    contact = updates.made("contact", organization_id=organization["id"])
    company = factory.unique("Company")
    response = updates.send("contact", str(contact["id"]), {"company_name": company})
    updates.applied(response, "CON-012", updates.control("contact", str(contact["id"])))
    now = updates.read("contact", str(contact["id"]), "CON-013")
    expect_field(response, "CON-012", now, "company_name", expected=company, why="kept")
    expect_field(
        response, "CON-013", now, "organization_id", expected=organization["id"], why="kept"
    )


# --- a deal moved between stages ------------------------------------------------------------


@pytest.fixture
def pipelines(factory: RecordFactory) -> list[Any]:
    """The adapter's pipelines with two stages or more; two of them, or a skip."""
    found = [p for p in factory.adapter.fixtures().pipelines if len(p.stages) >= 2]
    if len(found) < 2:
        pytest.skip("the adapter's GET /v1/fixtures lists fewer than two pipelines of two stages")
    return found


@pytest.mark.req("DEAL-007")
def test_an_update_to_a_stage_of_another_pipeline_is_refused(
    updates: Updates, pipelines: list[Any]
) -> None:
    """ "stage belongs to another pipeline than the deal": the update names the deal's
    pipeline and another pipeline's stage. Like the create, either row describing it passes (404
    `stage_not_found`, 422 `stage_not_in_pipeline`); applying it fails."""
    first, second = pipelines[:2]
    deal = updates.made("deal", pipeline_id=first.id, stage_id=first.stages[0].id)
    changes = {"pipeline_id": first.id, "stage_id": second.stages[0].id}
    response = updates.send("deal", str(deal["id"]), changes)
    expect_error_among(
        response, "DEAL-007", {422: ("stage_not_in_pipeline",), 404: ("stage_not_found",)}
    )
    now = updates.read("deal", str(deal["id"]), "DEAL-007")
    expect_field(response, "DEAL-007", now, "stage_id", expected=first.stages[0].id, why="kept")


UNKNOWN_PLACE: dict[str, tuple[str, dict[int, tuple[str, ...]]]] = {
    "stage": ("DEAL-009", {404: ("stage_not_found",)}),
    "pipeline": (
        "DEAL-008",
        {404: ("pipeline_not_found", "stage_not_found"), 422: ("stage_not_in_pipeline",)},
    ),
}
"""What a move naming an unknown stage, or an unknown pipeline with a real stage, is
answered, as a create naming it is (which check comes first is not shown)."""


@pytest.mark.parametrize(
    "unknown", [pytest.param(u, marks=pytest.mark.req(r)) for u, (r, _) in UNKNOWN_PLACE.items()]
)
def test_a_move_to_an_unknown_stage_or_pipeline_is_refused(
    updates: Updates, factory: RecordFactory, unknown: str
) -> None:
    """ "`stage_not_found` | no stage with that id or name in the pipeline" and
    "`pipeline_not_found` | pipeline id does not exist" hold for a move as for a create;
    the deal stays where it was."""
    req_id, answers = UNKNOWN_PLACE[unknown]
    staged = [p for p in factory.adapter.fixtures().pipelines if len(p.stages) >= 2]
    if not staged:
        pytest.skip("the adapter's GET /v1/fixtures lists no pipeline of two stages")
    pipeline = staged[0]
    deal = updates.made("deal", pipeline_id=pipeline.id, stage_id=pipeline.stages[0].id)
    changes = (
        {"pipeline_id": pipeline.id, "stage_id": absent_id("stg")}
        if unknown == "stage"
        else {"pipeline_id": absent_id("pipe"), "stage_id": pipeline.stages[1].id}
    )
    response = updates.send("deal", str(deal["id"]), changes)
    expect_error_among(response, req_id, answers)
    now = updates.read("deal", str(deal["id"]), req_id)
    expect_field(response, req_id, now, "stage_id", expected=pipeline.stages[0].id, why="kept")


@pytest.mark.req("DEAL-016")
def test_a_deal_inheriting_its_probability_takes_the_new_stages_default(
    api: ApiClient, updates: Updates, pipelines: list[Any], maker: operations.Maker
) -> None:
    """ "null means the deal inherits its stage default": moved to another stage, a deal
    with a null probability reads what a new deal in that stage reads."""
    pipeline = pipelines[0]
    source, target = pipeline.stages[0].id, pipeline.stages[1].id
    body = {**maker.deal_body(), "pipeline_id": pipeline.id, "probability": None}
    fresh = expect_success(api.post("/v1/deals", json={**body, "stage_id": target}), "DEAL-016")
    moved = expect_success(api.post("/v1/deals", json={**body, "stage_id": source}), "DEAL-016")
    changes = {"pipeline_id": pipeline.id, "stage_id": target}
    _expect_stage_default(updates, str(moved["id"]), changes, fresh.get("probability"), target)


def _expect_stage_default(
    updates: Updates, deal_id: str, changes: dict[str, Any], default: Any, stage: str
) -> None:
    """The target's update of the deal with `changes` applied, it reads probability
    `default`, its stage's (DEAL-016)."""
    response = updates.send("deal", deal_id, changes)
    updates.applied(response, "DEAL-016", updates.control("deal", deal_id))
    now = updates.read("deal", deal_id, "DEAL-016")
    why = f"the default of stage {stage}"
    expect_field(response, "DEAL-016", now, "probability", expected=default, why=why)


@pytest.mark.req("DEAL-016")
def test_a_probability_set_to_null_by_an_update_takes_the_stages_default(
    api: ApiClient, updates: Updates, maker: operations.Maker
) -> None:
    """ "null means the deal inherits its stage default", written by an update too: a
    deal at 37 updated to a null probability reads what a new deal in its stage with a
    null probability reads, never 37 (a null read as "no change")."""
    body = {**maker.deal_body(), "probability": None}
    fresh = expect_success(api.post("/v1/deals", json=body), "DEAL-016")
    if fresh.get("probability") == 37:
        pytest.skip("the stage's default is 37, the value the test sets first")
    deal = expect_success(api.post("/v1/deals", json={**body, "probability": 37}), "DEAL-016")
    changes = {"probability": None}
    _expect_stage_default(
        updates, str(deal["id"]), changes, fresh.get("probability"), body["stage_id"]
    )


@pytest.mark.req("DEAL-020")
def test_a_deal_updated_to_lost_names_its_reason_as_a_created_one_does(
    api: ApiClient, updates: Updates, maker: operations.Maker
) -> None:
    """ "`lost_reason` | string | name, when lost", whichever write made it lost: a deal
    updated to lost with a reason reads the name a deal created lost with it reads."""
    reason = maker.adapter.fixture_ids("lost_reasons")[0]
    lost = {"status": "lost", "lost_reason_id": reason, "lost_justification": "Went elsewhere"}
    created = expect_success(api.post("/v1/deals", json={**maker.deal_body(), **lost}), "DEAL-020")
    name = created.get("lost_reason")
    if not isinstance(name, str) or not name:
        pytest.skip(
            f"a deal created lost reads lost_reason {name!r}: DEAL-020's own test judges it"
        )
    deal = expect_success(api.post("/v1/deals", json=maker.deal_body()), "DEAL-020")
    response = updates.send("deal", str(deal["id"]), lost)
    updates.applied(response, "DEAL-020", updates.control("deal", str(deal["id"])))
    now = updates.read("deal", str(deal["id"]), "DEAL-020")
    expect_field(
        response, "DEAL-020", now, "lost_reason", expected=name, why=f"the name of {reason}"
    )
