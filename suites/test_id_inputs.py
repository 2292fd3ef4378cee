"""Every id input of every operation: one naming nothing is not found, one in capitals or
of another kind is no id.

"`not_found` | no such record in the workspace": a well-formed id of the path's kind that
no record has answers 404, on every operation with a path id the document shows or the
target file names (retrieves, updates, deletes, moves, stats, resume, cancel, a success
event's paths), not only the contact retrieve. Its code may be `not_found`, or the row that
names the kind (`contact_not_found`, `record_not_found`): the document does not rank
them for a path. Identifiers are "Prefix, underscore, 32 lowercase hex characters", so a
real record's id with its hex in capitals is none: refused, as a path problem (400,
"Query, path and header problems answer 400") or as no such record (404), never served
(a delete's is sent with a record of its own, which a server that serves it deletes).
The table gives each kind its prefix, so a real record's id of another kind is none
either: a real organization's id on a contact path, or in a deal's `contact_id`, is
refused on every path id and every body id of every write (a server keeping every
record in one table, or reading only the hex, would take it). A deleted record, by the
adapter or the target's own delete, is no such record on every path and in every body
that names it.
A contact, organization or deal id naming nothing in the body of any write is
`record_not_found` with `param` naming the field ("contact, organization or deal id in
the body missing"): the shown creates, and the creates and updates the target names.
The points come from `steps.id_inputs`, so a path or body the target names is reached too.
"""

import json
import secrets
from collections.abc import Callable

import httpx
import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import conventions
from crm_conformance.steps import (
    WorkspaceRecords,
    absent_id,
    expect_error,
    expect_true,
    id_inputs,
    operations,
)

PATH_POINTS = [point for point in id_inputs.points() if point.input.where == "path"]

SHAPED_PATH_POINTS = [p for p in PATH_POINTS if p.prefix not in id_inputs.UNSHOWN_FORMATS]
"""The path ids whose form the identifier table shows: a malformed one is defined."""


def _foreign_kind(point: id_inputs.Point) -> str | None:
    """The first record kind (`id_inputs.RECORD_KINDS`: records every workspace has, the
    ones a server keeping every record in one table, or looking ids up by their hex,
    finds) the point's input does not name (None for an input naming all three, an
    activity's `record_id`, whose pattern its own test holds)."""
    return next((k for k in id_inputs.RECORD_KINDS if k not in point.input.prefixes), None)


FOREIGN_BODY_POINTS = [
    p
    for p in id_inputs.points()
    if p.input.where == "body" and p.input.name != id_inputs.TAGS and _foreign_kind(p)
]
"""The body ids of every write but a record's `tags`, whose form in a body is not shown
(a server may take a tag's name there, and make a tag of any string)."""

CODES = {
    "con": ("not_found", "contact_not_found", "record_not_found"),
    "org": ("not_found", "record_not_found"),
    "deal": ("not_found", "record_not_found"),
}
"""The codes a missing id of a path may answer: `not_found`, and for the kinds the
`contact_not_found` and `record_not_found` rows name, those too."""


@pytest.mark.req("ERR-012")
@pytest.mark.parametrize("point", PATH_POINTS, ids=str)
def test_a_path_id_naming_nothing_answers_404(
    point: id_inputs.Point, api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    real = here.id_of(point.prefix)
    missing = id_inputs.missing_like(real, point.prefix)
    if missing is None:
        pytest.skip(
            f"a {point.prefix}'s id format is not shown, and {real!r} is not prefix_<32 hex>"
        )
    response = id_inputs.sender(point, here, convention)(api, missing)
    expect_error(response, "ERR-012", status=404, code=CODES.get(point.prefix, ("not_found",)))


DELETABLE = {"con": "contact", "org": "organization", "deal": "deal", "act": "activity"}
"""The kinds the adapter deletes (feature `records`), by prefix, with each kind's name."""


@pytest.fixture(scope="module")
def deleted_ids() -> dict[tuple[str, str], str]:
    """The deleted record of each kind and way of deleting, made once per module (in
    each process): a point only sends its id, and a refusal changes nothing."""
    return {}


@pytest.fixture(params=operations.DELETED_BY)
def deleted(
    request: pytest.FixtureRequest,
    api: ApiClient,
    here: WorkspaceRecords,
    maker: operations.Maker,
    deleted_ids: dict[tuple[str, str], str],
) -> Callable[[str], str]:
    """The id of a record of a kind (by prefix) deleted through the adapter or the
    target's own delete (the parameter)."""

    def make(prefix: str) -> str:
        key = (request.param, prefix)
        if key not in deleted_ids:
            gone = here.another(prefix)
            operations.delete_by(request.param, api, maker, DELETABLE[prefix], gone)
            deleted_ids[key] = gone
        return deleted_ids[key]

    return make


@pytest.mark.req("ERR-012")
@pytest.mark.parametrize(
    "point", [p for p in PATH_POINTS if p.prefix in DELETABLE and not p.removes], ids=str
)
def test_a_path_id_of_a_deleted_record_answers_404(
    point: id_inputs.Point,
    api: ApiClient,
    here: WorkspaceRecords,
    convention: conventions.Lookup,
    deleted: Callable[[str], str],
) -> None:
    """A deleted record is "no such record" on every path naming it, not only on its
    retrieve: its update and an activity's cancel answer 404 too (a server that marks
    rows deleted checks the mark on every path). A second delete is left out: a server
    may answer it as done, and nothing is left to show."""
    gone = deleted(point.prefix)
    response = id_inputs.sender(point, here, convention)(api, gone)
    expect_error(response, "ERR-012", status=404, code=CODES.get(point.prefix, ("not_found",)))


@pytest.mark.req("ERR-011")
@pytest.mark.parametrize("point", SHAPED_PATH_POINTS, ids=str)
def test_a_real_path_id_in_capitals_is_refused(
    point: id_inputs.Point, api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    real = here.another(point.prefix) if point.removes else here.id_of(point.prefix)
    prefix, _, digits = real.partition("_")
    response = id_inputs.sender(point, here, convention)(api, f"{prefix}_{digits.upper()}")
    _expect_refused(response, (400, 404), f"{real} with its hex in capitals")


@pytest.mark.req("ERR-011")
@pytest.mark.parametrize("point", SHAPED_PATH_POINTS, ids=str)
def test_a_malformed_path_id_answers_400_validation_failed(
    point: id_inputs.Point, api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    """A path segment that is no identifier at all (no prefix, underscore and 32
    lowercase hex) is a path problem on every path id, as on the contact retrieve:
    "Query, path and header problems answer 400 with the same code"."""
    response = id_inputs.sender(point, here, convention)(api, f"not_a_{point.prefix}_id")
    expect_error(response, "ERR-011", status=400, code="validation_failed")


@pytest.mark.req("ERR-011")
@pytest.mark.parametrize("point", SHAPED_PATH_POINTS, ids=str)
def test_a_real_id_of_another_kind_on_a_path_is_refused(
    point: id_inputs.Point, api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    """The identifier table gives each kind its prefix, so a real organization's id is
    no contact's: on every path id it is refused, as a path problem (400) or as no such
    record (404), never served as the record it names (a server keeping every record in
    one table, or reading only the hex, would). A delete's is a record of its own."""
    kind = _foreign_kind(point)
    assert kind is not None  # every path names one kind
    foreign = here.another(kind) if point.removes else here.id_of(kind)
    response = id_inputs.sender(point, here, convention)(api, foreign)
    _expect_refused(response, (400, 404), f"{foreign}, a {kind}_ id on a {point.prefix}_ path")


@pytest.mark.req("ERR-011")
@pytest.mark.parametrize("point", FOREIGN_BODY_POINTS, ids=str)
def test_a_real_id_of_another_kind_in_a_body_is_refused(
    point: id_inputs.Point, api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    """As on a path: a field typed as one kind's id (`contact_id` a `con_` id, `owner_id`
    a `usr_` id, ...) holds no real id of another kind, on every write that takes it.
    The write takes the field (the control, a real id of the field's kind, is accepted,
    and the answer, where it shows the field, holds it; else not applicable); a real
    organization's or contact's id is then refused (400, 404 or 422)."""
    send = id_inputs.sender(point, here, convention)
    kind = _foreign_kind(point)
    assert kind is not None
    real = (
        here.another(point.prefix)
        if point.prefix in id_inputs.RECORD_KINDS
        else here.id_of(point.prefix)
    )
    control = send(api, real)
    answer = control.json() if control.is_success and control.content else {}
    shown = answer.get(point.input.name, real) if isinstance(answer, dict) else real
    if not control.is_success or shown != real:
        pytest.skip(f"{point}: a real {point.prefix}_ id not taken ({control.status_code})")
    foreign = here.id_of(kind)
    response = send(api, foreign)
    _expect_refused(response, (400, 404, 422), f"{foreign}, a {kind}_ id in {point.input.name}")


@pytest.mark.req("ERR-022")
@pytest.mark.parametrize("point", id_inputs.body_record_points(), ids=str)
def test_a_body_record_id_naming_nothing_answers_record_not_found(
    point: id_inputs.Point, api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    """The write takes the field (a real id of the kind is accepted: the control, a new
    record, so an update changes the field); an id no record has is then
    `record_not_found`. A write that refuses a real id too does not take the field (an
    update's body is not shown; a server may keep an activity on its record): not
    applicable."""
    id_inputs.expect_body_id_not_found(
        id_inputs.sender(point, here, convention),
        api,
        point,
        control_id=here.another(point.prefix),
        refused_id=absent_id(point.prefix),
        req_id="ERR-022",
        skip_why=f"a real {point.prefix}_ id refused too: this write does not take the field",
    )


@pytest.mark.req("ERR-022")
@pytest.mark.parametrize("point", id_inputs.body_record_points(), ids=str)
def test_a_body_id_of_a_deleted_record_answers_record_not_found(
    point: id_inputs.Point,
    api: ApiClient,
    here: WorkspaceRecords,
    convention: conventions.Lookup,
    deleted: Callable[[str], str],
) -> None:
    """A deleted contact, organization or deal is "missing" in the body of every write
    naming one (a deal's contact, an activity's record, a contact's organization):
    `record_not_found` naming the field, once a real id there is taken (the control)."""
    gone = deleted(point.prefix)
    id_inputs.expect_body_id_not_found(
        id_inputs.sender(point, here, convention),
        api,
        point,
        control_id=here.another(point.prefix),
        refused_id=gone,
        req_id="ERR-022",
        skip_why=f"a real {point.prefix}_ id refused too: this write does not take the field",
    )


@pytest.mark.req("ERR-011")
@pytest.mark.parametrize("point", id_inputs.body_record_points(), ids=str)
def test_a_real_body_id_in_capitals_is_refused(
    point: id_inputs.Point, api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    """As a path id: a real record's id with its hex in capitals is no identifier
    ("32 lowercase hex characters"), in the body of every write that names a record.
    The write takes the field (the control, a real id, is accepted; else not
    applicable); the id in capitals is then refused (400, 404 or 422), never taken as
    the record it spells."""
    send = id_inputs.sender(point, here, convention)
    real = here.another(point.prefix)
    control = send(api, real)
    if not control.is_success:
        pytest.skip(f"{point}: a real {point.prefix}_ id refused too ({control.status_code})")
    prefix, _, digits = real.partition("_")
    response = send(api, f"{prefix}_{digits.upper()}")
    _expect_refused(response, (400, 404, 422), f"{prefix}_{digits} with its hex in capitals")


def _expect_refused(response: httpx.Response, statuses: tuple[int, ...], sent: str) -> None:
    """What was `sent` for an id is refused with one of `statuses`, never taken."""
    expect_true(
        response,
        "ERR-011",
        response.status_code in statuses,
        expected=f"{sent} refused ({', '.join(map(str, statuses))})",
        got=f"{response.status_code} {response.text[:200]}",
    )


def _note_record_key(convention: conventions.Lookup) -> str | None:
    """The body key of the target's note create that holds its record (`"{record_id}"`)."""
    template = json.loads(convention("notes.create_body"))
    held = (
        [k for k, v in template.items() if v == "{record_id}"] if isinstance(template, dict) else []
    )
    return held[0] if held else None


@pytest.mark.req("ERR-022")
def test_a_note_on_a_record_naming_nothing_answers_record_not_found(
    api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    """The target's note create (`[conventions.notes]`) names its record in the body: a
    contact id no record has there is "contact, organization or deal id in the body
    missing", `record_not_found` naming the key that holds it. The control, a note on a
    real contact, is taken first, else the point is not applicable."""
    path = conventions.path(convention, "notes.create_path")

    def send(client: ApiClient, record_id: str) -> httpx.Response:
        text = f"note {secrets.token_hex(4)}"
        body = conventions.body(convention, "notes.create_body", record_id=record_id, text=text)
        return client.post(path, json=body)

    control = send(api, here.id_of("con"))
    if not control.is_success:
        pytest.skip(f"a note on a real contact was refused ({control.status_code})")
    response = send(api, absent_id("con"))
    key = _note_record_key(convention)
    if key is None:
        expect_error(response, "ERR-022", status=404, code="record_not_found")
    else:
        expect_error(response, "ERR-022", status=404, code="record_not_found", param=key)
