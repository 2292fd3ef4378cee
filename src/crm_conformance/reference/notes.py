"""Notes on a contact, organization or deal. Only a note's author may change or delete
it (403 `note_author_only`); a note written by an integration (a workspace token, no
author) may be changed by any token with `notes:write`."""

from dataclasses import replace
from typing import Any

from crm_conformance.reference import owners
from crm_conformance.reference.activities import RECORD_KINDS, linked_record
from crm_conformance.reference.api_errors import ApiError, not_found
from crm_conformance.reference.identifiers import kind_of
from crm_conformance.reference.listing import DEFAULT_LIMIT, ListSpec
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

MAX_CONTENT = 100_000

routes = RouteTable()

SPEC = ListSpec(
    name="notes",
    fields=frozenset({"content", "record_id", "author", "created_at", "updated_at"}),
    sort_keys={"created_at": lambda r: r["created_at"], "updated_at": lambda r: r["updated_at"]},
)


def render(tx: Transaction, workspace: str, record: Record) -> dict[str, Any]:
    return {
        "id": record["id"],
        "object": "note",
        "content": record["content"],
        "record_id": record["record_id"],
        "author": owners.render_owner(tx, workspace, record.get("author_id")),
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def _visible(call: Call, tx: Transaction, note_id: str) -> Record:
    record = tx.get(call.workspace, "note", note_id)
    if record is None:
        raise not_found("note")
    parent = tx.get(call.workspace, record["record_kind"], record["record_id"])
    if parent is not None and not call.sees(parent):
        raise not_found("note")
    return record


def _authored(call: Call, record: Record) -> None:
    if record.get("author_id") is not None and record["author_id"] != call.user_id:
        raise ApiError(403, "note_author_only", "Only the note's author may change or delete it.")


@routes.post("/v1/notes", scopes=("notes:write",), entity="notes")
def create_note(call: Call) -> Reply:
    fields = BodyFields(call.json(), allowed=("content", "record_id"))
    content = fields.string("content", required=True, min_length=1, max_length=MAX_CONTENT)
    record_id = fields.identifier("record_id", RECORD_KINDS, required=True)
    fields.check()
    assert record_id is not None
    with call.transaction() as tx:
        if call.settings.has_fault("note_record_unchecked"):
            kind = kind_of(record_id, RECORD_KINDS) or "contact"  # the shape alone is checked
        else:
            kind = linked_record(call, tx, record_id)
        record = tx.insert(
            call.workspace,
            "note",
            {
                "content": content,
                "record_id": record_id,
                "record_kind": kind,
                "author_id": call.user_id,
            },
        )
        return call.created(render(tx, call.workspace, record))


@routes.get("/v1/notes", scopes=("notes:read",))
def list_notes(call: Call) -> Reply:
    params = call.list_params(SPEC, filters=("record_id",))
    if call.settings.has_fault("notes_list_ignores_limit"):
        params = replace(params, limit=DEFAULT_LIMIT)
    record_ids = call.query.getlist("record_id")
    with call.transaction() as tx:
        rows = []
        spaces = [call.workspace]
        if call.settings.has_fault("notes_list_all_workspaces"):
            spaces = tx.workspaces()  # the query forgot its workspace condition
        for row in (note for space in spaces for note in tx.all(space, "note")):
            parent = tx.get(call.workspace, row["record_kind"], row["record_id"])
            if (parent is None or call.sees(parent)) and (
                not record_ids or row["record_id"] in record_ids
            ):
                rows.append(row)
        return call.list_reply(
            SPEC,
            rows,
            params,
            {"record_id": sorted(record_ids)},
            lambda r: render(tx, call.workspace, r),
        )


@routes.get("/v1/notes/{note_id}", scopes=("notes:read",))
def get_note(call: Call) -> Reply:
    note_id = call.path_id("note_id", "note")
    _, fields = call.retrieve_params(SPEC)
    with call.transaction() as tx:
        if call.settings.has_fault("note_retrieve_any_workspace"):  # looked up by id alone
            found = (tx.get(space, "note", note_id) for space in tx.workspaces())
            record = next((note for note in found if note is not None), None)
            if record is not None:
                return Reply(200, call.narrow(render(tx, call.workspace, record), fields))
        return Reply(
            200, call.narrow(render(tx, call.workspace, _visible(call, tx, note_id)), fields)
        )


@routes.patch(
    "/v1/notes/{note_id}",
    scopes=("notes:write",),
    entity="notes",
    variant_scopes=(("note_update_unguarded", ()),),
)
def update_note(call: Call) -> Reply:
    note_id = call.path_id("note_id", "note")
    fields = BodyFields(call.json(), allowed=("content",))
    content = fields.string("content", required=True, min_length=1, max_length=MAX_CONTENT)
    fields.check()
    with call.transaction() as tx:
        current = _visible(call, tx, note_id)
        _authored(call, current)
        record = tx.update(call.workspace, "note", {**current, "content": content})
        return Reply(200, render(tx, call.workspace, record))


@routes.delete("/v1/notes/{note_id}", scopes=("notes:write",), entity="notes")
def delete_note(call: Call) -> Reply:
    note_id = call.path_id("note_id", "note")
    with call.transaction() as tx:
        current = _visible(call, tx, note_id)
        if not call.settings.has_fault("note_delete_by_anyone"):
            _authored(call, current)
        tx.delete(call.workspace, "note", note_id)
    return Reply(204)
