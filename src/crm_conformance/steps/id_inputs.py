"""Every identifier input of every operation, and how to send each with a chosen id.

The inputs come from `spec/openapi.yaml` (`document.id_inputs()`: path, query and JSON
body), the contact list's id filters the target names (`contact_filters.*`), the ids a
convention body holds, the path id and each id field of the update and retrieve of every
resource the target's `updates.*` and `retrieve.*` name, the path id of each delete
`deletes.*` names, each id field of the creates `creates.*` names, the success event
paths with `{event_id}`, the note paths with `{note_id}`, and the activity cancel
`activities.*` names. `sender` builds the rest of the request valid for one workspace
(`WorkspaceRecords`), so a matrix suite sends only the id it is about.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from crm_conformance.core.model import conventions, document
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps import operations
from crm_conformance.steps.expect import expect_error
from crm_conformance.steps.factories import absent_id, create_fields, stamp
from crm_conformance.steps.workspace_records import EVENT, NOTE, WorkspaceRecords

CONVENTION_CALLS: dict[str, tuple[str, str | None]] = {
    "handoffConversation": ("conversation_moves.handoff_path", "conversation_moves.handoff_body"),
    "assignConversation": ("conversation_moves.assign_path", "conversation_moves.assign_body"),
    "resumeConversation": ("conversation_moves.resume_path", "conversation_moves.resume_body"),
    "resumeCampaign": ("campaigns.resume_path", None),
}
"""The path and body conventions of each operation the document only names."""


CONVENTION_BODY_IDS = {"assignConversation": ("assignee_id",)}
"""The ids a convention body holds (`conventions.KEYS`: "the assign body holds
`{assignee_id}`"); their kind is that of the field of the same name in the description."""


CANCEL_PATH = "activities.cancel_path"
"""The activity cancel the target names: its path id is an input like any other."""

EVENT_PATHS = {"reverse_path": "POST", "retrieve_path": "GET"}
"""The success event paths with `{event_id}` the target's conventions name, and the
method each is sent with (a reversal with an empty body, as the success-event tests
send it)."""

NOTE_PATHS = {"update_path": "", "delete_path": "DELETE", "retrieve_path": "GET"}
"""The note paths with `{note_id}` the target's conventions name (`[conventions.notes]`),
and the method each is sent with (an update's is the target's `notes.update_method`)."""

UNSHOWN_FORMATS = (EVENT, NOTE)
"""The kinds whose id format is not shown (no row of the identifier table)."""


@dataclass(frozen=True)
class Point:
    """One identifier input of one operation, naming a record of kind `prefix`."""

    input: document.IdInput
    prefix: str
    convention: str | None = None
    """The target's convention naming the input, where the document does not."""

    @property
    def removes(self) -> bool:
        """The point's operation deletes the record its path names."""
        return bool(self.convention and self.convention.startswith("deletes."))

    def __str__(self) -> str:
        kind = f"-{self.prefix}" if len(self.input.prefixes) > 1 else ""
        return f"{self.input.operation_id}-{self.input.where}-{self.input.name}{kind}"


def inputs() -> list[tuple[document.IdInput, str | None]]:
    """The description's id inputs, the contact list's id filters (named by the
    target's `contact_filters.*`, "the table names follow the contact fields") and the
    ids of convention bodies."""
    described = {op.operation_id: op for op in document.operations()}
    found: list[tuple[document.IdInput, str | None]] = [(i, None) for i in document.id_inputs()]
    contact = document.schema("Contact")["properties"]
    listing = described["listContacts"]
    for key in conventions.KEYS:
        table, _, name = key.key.partition(".")
        prefixes = document.identifier_prefixes(contact.get(name))
        if table == "contact_filters" and prefixes:
            found.append(
                (
                    document.IdInput(
                        listing.operation_id, "GET", listing.path, "query", name, prefixes, True
                    ),
                    key.key,
                )
            )
        if table in RECORD_ACTIONS and name.endswith("_path"):
            found += _record_inputs(table, name.removesuffix("_path"))
        if key.key == CANCEL_PATH:
            activity = document.schema("Activity")["properties"]["id"]
            prefixes = document.identifier_prefixes(activity)
            cancel = document.IdInput(
                operations.CANCEL.operation_id, "", key.key, "path", "activity_id", prefixes, False
            )
            found.append((cancel, key.key))
        if table == "success_events" and name in EVENT_PATHS:
            action = name.removesuffix("_path")
            event = document.IdInput(
                f"{action}SuccessEvent",
                EVENT_PATHS[name],
                key.key,
                "path",
                "event_id",
                (EVENT,),
                False,
            )
            found.append((event, key.key))
        if table == "notes" and name in NOTE_PATHS:
            action = name.removesuffix("_path")
            note = document.IdInput(
                f"{action}Note", NOTE_PATHS[name], key.key, "path", "note_id", (NOTE,), False
            )
            found.append((note, key.key))
    for operation_id, names in CONVENTION_BODY_IDS.items():
        op = described[operation_id]
        for name in names:
            prefixes = document.field_prefixes(name)
            found.append(
                (
                    document.IdInput(
                        operation_id, op.method, op.path, "body", name, prefixes, False
                    ),
                    None,
                )
            )
    return found


RECORD_ACTIONS = {
    "creates": "create",
    "updates": "update",
    "deletes": "delete",
    "retrieve": "retrieve",
}
"""The operation of each table of record conventions."""


def _record_inputs(table: str, resource: str) -> list[tuple[document.IdInput, str | None]]:
    """The ids of a resource's create (`creates.<resource>_*`: each id field of the
    record), update (`updates.<resource>_*`: its path id and each id field), delete
    (`deletes.<resource>_path`) or retrieve (`retrieve.<resource>_path`: its path id),
    whose paths and bodies the target's conventions give ("not shown")."""
    fields = document.schema(resource.capitalize())["properties"]
    action = RECORD_ACTIONS[table]
    operation_id = f"{action}{resource.capitalize()}"
    key = f"{table}.{resource}"
    found: list[tuple[document.IdInput, str | None]] = []
    if action != "create":
        path_id = document.IdInput(
            operation_id,
            "",
            key,
            "path",
            f"{resource}_id",
            document.identifier_prefixes(fields["id"]),
            False,
        )
        found.append((path_id, key))
    for name, node in fields.items() if action in ("create", "update") else ():
        prefixes = TAG_PREFIXES if name == TAGS else document.identifier_prefixes(node)
        if prefixes and name != "id":
            found.append(
                (document.IdInput(operation_id, "", key, "body", name, prefixes, False), key)
            )
    return found


TAGS = "tags"
"""A record's `tags` ("array of Tag"), written as a list of tag ids (how a body names
tags is not shown; ids, as the tag tests send them): the one id among them is the point's."""
TAG_PREFIXES = ("tag",)


def _value(node: Any, here: WorkspaceRecords) -> Any:
    """A valid value of a body member the rest of a request needs (this workspace's
    record for an identifier)."""
    prefixes = document.identifier_prefixes(node)
    if prefixes:
        return here.id_of(prefixes[0])
    node = document.resolved(node)
    if node.get("format") == "date-time":
        return stamp()
    if "enum" in node:
        return next(v for v in node["enum"] if v is not None)
    kinds = node.get("type")
    kind = kinds if isinstance(kinds, str) else next(k for k in kinds if k != "null")
    if kind in ("integer", "number"):
        return node.get("minimum", 1)
    if kind == "boolean":
        return False
    return here.unique("tenancy")


def body_for(point: Point, here: WorkspaceRecords, value: str) -> dict[str, Any]:
    """The smallest valid body of the operation holding `value` at the point's input:
    its required members, the `anyOf` alternative naming the input (else the first),
    and the members an `if`/`then` needs for the input (a deal's `status: lost` for
    `lost_reason_id`)."""
    schema = document.request_schema(point.input.method, point.input.path) or {}
    properties = schema.get("properties", {})
    names = list(schema.get("required", ()))
    alternatives = [list(alt.get("required", ())) for alt in schema.get("anyOf", ())]
    if alternatives:
        names += next((alt for alt in alternatives if point.input.name in alt), alternatives[0])
    body = {name: _value(properties[name], here) for name in names if name != point.input.name}
    if point.input.name in schema.get("then", {}).get("required", ()):
        condition = schema.get("if", {}).get("properties", {})
        body.update({name: rule["const"] for name, rule in condition.items() if "const" in rule})
    return {**body, point.input.name: value}


def sender(
    point: Point, here: WorkspaceRecords, convention: conventions.Lookup
) -> Callable[[ApiClient, str], httpx.Response]:
    """How to send the point's operation with a given id at its input, the rest of the
    request valid for this workspace."""
    if point.convention and point.convention.partition(".")[0] in RECORD_ACTIONS:
        return _record_sender(point, here, convention)
    if point.convention == CANCEL_PATH:

        def cancel(client: ApiClient, value: str) -> httpx.Response:
            call = conventions.cancel(convention, value)
            return client.request(call.method, call.path, json=call.body)

        return cancel
    if point.input.name == "note_id":
        action = point.input.operation_id.removesuffix("Note")

        def note(client: ApiClient, value: str) -> httpx.Response:
            if action == "update":
                call = conventions.note_update(convention, value, here.unique("note"))
                return client.request(call.method, call.path, json=call.body)
            path = conventions.path(convention, point.input.path, note_id=value)
            return client.request(point.input.method, path)

        return note
    if point.input.name == "event_id":
        return lambda client, value: client.request(
            point.input.method,
            conventions.path(convention, point.input.path, event_id=value),
            json={} if point.input.method == "POST" else None,
        )
    spec = point.input
    path_kinds = {
        i.name: i.prefixes[0]
        for i in document.id_inputs()
        if i.operation_id == spec.operation_id and i.where == "path"
    }
    shown = spec.shape_shown and spec.operation_id not in CONVENTION_CALLS

    def send(client: ApiClient, value: str) -> httpx.Response:
        ids = {name: here.id_of(prefix) for name, prefix in path_kinds.items()}
        if spec.where == "path":
            ids[spec.name] = value
        if shown:
            path = spec.path.format(**ids)
            if spec.where == "body" or document.body_required(spec.method, spec.path):
                return client.request(spec.method, path, json=body_for(point, here, value))
            return client.request(spec.method, path)
        path_key, body_key = CONVENTION_CALLS[spec.operation_id]
        path = conventions.path(convention, path_key, **ids)
        if body_key is None:
            return client.request(spec.method, path)
        values: dict[str, Any] = dict(ids)
        for name in conventions.placeholders(convention(body_key)) - set(ids):
            prefixes = document.field_prefixes(name)
            values[name] = value if name == spec.name else here.id_of(prefixes[0])
        return client.request(
            spec.method, path, json=conventions.body(convention, body_key, **values)
        )

    return send


def _record_sender(
    point: Point, here: WorkspaceRecords, convention: conventions.Lookup
) -> Callable[[ApiClient, str], httpx.Response]:
    """The update, delete or retrieve of this workspace's record (the one at `value` for a
    path point), an update changing the point's field to `value` (or, for a path point,
    a field every record of the resource has), a create of a new record with the point's
    field `value`."""
    assert point.convention is not None
    table, _, resource = point.convention.partition(".")
    own = document.identifier_prefixes(document.schema(resource.capitalize())["properties"]["id"])

    def send(client: ApiClient, value: str) -> httpx.Response:
        on_path = point.input.where == "path"
        record_id = value if on_path else here.id_of(own[0])
        sent: Any = [value] if point.input.name == TAGS else value
        if table == "creates":
            fields = {**create_fields(resource, here.unique), point.input.name: sent}
            call = conventions.create(convention, resource, fields)
            return client.request(call.method, call.path, json=call.body)
        if table in ("retrieve", "deletes"):
            path = conventions.path(
                convention, f"{point.convention}_path", **{point.input.name: record_id}
            )
            return client.request("GET" if table == "retrieve" else "DELETE", path)
        changes = operations.PLAIN_CHANGE.get(resource, {}) if on_path else {point.input.name: sent}
        call = conventions.update(convention, resource, record_id, changes)
        return client.request(call.method, call.path, json=call.body)

    return send


def missing_like(foreign_id: str, prefix: str) -> str | None:
    """A well-formed id naming nothing, of the kind `prefix`; for a success event or a
    note, whose id format is not shown, one of the foreign id's prefix when it has the
    identifier table's form (None otherwise: no id of that form is sure to name nothing)."""
    if prefix not in UNSHOWN_FORMATS:
        return absent_id(prefix)
    kind, _, tail = foreign_id.rpartition("_")
    if not kind or len(tail) != 32 or any(c not in "0123456789abcdef" for c in tail):
        return None
    return absent_id(kind)


def points() -> list[Point]:
    """One point per identifier input and kind of record it may name."""
    return [Point(i, prefix, key) for i, key in inputs() for prefix in i.prefixes]


RECORD_KINDS = ("con", "org", "deal")
"""`record_not_found`: "contact, organization or deal id in the body missing or invisible
to the token" (their prefixes, from the identifier table)."""


def body_record_points() -> list[Point]:
    """The body inputs of every write that name a contact, organization or deal."""
    return [p for p in points() if p.input.where == "body" and p.prefix in RECORD_KINDS]


def expect_body_id_not_found(
    send: Callable[[ApiClient, str], httpx.Response],
    client: ApiClient,
    point: Point,
    *,
    control_id: str,
    refused_id: str,
    req_id: str,
    skip_why: str,
) -> None:
    """The write of `point`, sent by `client` with `control_id` (an id it may name), is
    taken; with `refused_id` (naming nothing it may see) it is then `record_not_found`
    naming the field (`param`). A refused control says the write does not take the
    field as sent (its body is not shown) and skips the point, with `skip_why`."""
    control = send(client, control_id)
    if not control.is_success:
        pytest.skip(f"{point}: the control was refused ({control.status_code}): {skip_why}")
    response = send(client, refused_id)
    expect_error(response, req_id, status=404, code="record_not_found", param=point.input.name)
