"""Every id input of every operation: one naming nothing is not found, one in capitals is
no id.

"`not_found` | no such record in the workspace": a well-formed id of the path's kind that
no record has answers 404, on every operation with a path id the document shows or the
target file names (retrieves, updates, deletes, moves, stats, resume, cancel, a success
event's paths), not only the contact retrieve. Its code may be `not_found`, or the row that
names the kind (`contact_not_found`, `record_not_found`): the document does not rank
them for a path. Identifiers are "Prefix, underscore, 32 lowercase hex characters", so a
real record's id with its hex in capitals is none: refused, as a path problem (400,
"Query, path and header problems answer 400") or as no such record (404), never served
(a delete's is sent with a record of its own, which a server that serves it deletes).
A contact, organization or deal id naming nothing in the body of any write is
`record_not_found` with `param` naming the field ("contact, organization or deal id in
the body missing"): the shown creates, and the creates and updates the target names.
The points come from `steps.id_inputs`, so a path or body the target names is reached too.
"""

import json
import secrets

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
)

PATH_POINTS = [point for point in id_inputs.points() if point.input.where == "path"]

SHAPED_PATH_POINTS = [p for p in PATH_POINTS if p.prefix not in id_inputs.UNSHOWN_FORMATS]
"""The path ids whose form the identifier table shows: a malformed one is defined."""

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


@pytest.mark.req("ERR-011")
@pytest.mark.parametrize("point", SHAPED_PATH_POINTS, ids=str)
def test_a_real_path_id_in_capitals_is_refused(
    point: id_inputs.Point, api: ApiClient, here: WorkspaceRecords, convention: conventions.Lookup
) -> None:
    real = here.another(point.prefix) if point.removes else here.id_of(point.prefix)
    prefix, _, digits = real.partition("_")
    response = id_inputs.sender(point, here, convention)(api, f"{prefix}_{digits.upper()}")
    expect_true(
        response,
        "ERR-011",
        response.status_code in (400, 404),
        expected=f"{real} with its hex in capitals refused (400, or 404 as no such record)",
        got=f"{response.status_code} {response.text[:200]}",
    )


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
    expect_true(
        response,
        "ERR-011",
        response.status_code in (400, 404, 422),
        expected=f"{prefix}_{digits} with its hex in capitals refused (400, 404 or 422)",
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
