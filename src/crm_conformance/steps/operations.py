"""One acceptable call of each operation `spec/openapi.yaml` describes, on fresh data.

The matrices that send every operation with other tokens (scopes, authentication) read
the operations from the description (`document.operations()`) and build each call here,
so a new operation in the description is a new point of each matrix (and a call this
module cannot build fails loudly, `tests/steps/test_operations.py`). Whether a server
reads the body or the record's state before the token is not shown, so each call is
one the target accepts: a body the document shows (or the target's convention where it
does not), a record in a state in which the operation is allowed (a running campaign to
pause, a conversation the AI agent holds to hand off, ...). The only thing a matrix
changes is the token.
"""

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from crm_conformance.core.model import conventions, document
from crm_conformance.core.model.document import DescribedOperation
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.calls import EVENT_VALUE as EVENT_VALUE
from crm_conformance.steps.calls import NO_BODY as NO_BODY
from crm_conformance.steps.calls import Call as Call
from crm_conformance.steps.calls import Maker as Maker

PLAIN_CHANGE = {
    "contact": {"job_title": "Conformance check"},
    "organization": {"website": "https://example.com/conformance"},
    "deal": {"title": "Conformance check"},
    "activity": {"description": "Conformance check"},
    "tag": {"name": "Conformance check"},
}
"""The change an update sends when only the call matters: a plain text field of the
resource's table in the document, never one a rule of the document governs (a tag has
only its name and colour: a new name, made unique by each call, breaks none)."""


def _page(path: str) -> Callable[[Maker], Call]:
    return lambda _: Call("GET", path, (("limit", "1"),))


def _get(path: str) -> Callable[[Maker], Call]:
    return lambda _: Call("GET", path)


def _campaign(action: str, status: str) -> Callable[[Maker], Call]:
    def build(maker: Maker) -> Call:
        maker.adapter.require("campaigns")
        campaign_id = maker.campaign_id(status)
        if action == "resume":
            path = conventions.path(
                maker.convention, "campaigns.resume_path", campaign_id=campaign_id
            )
            return Call("POST", path)
        method = "GET" if action == "stats" else "POST"
        return Call(method, f"/v1/campaigns/{campaign_id}/{action}")

    return build


def _close(maker: Maker) -> Call:
    maker.adapter.require("conversations")
    return Call("POST", f"/v1/conversations/{maker.conversation_id('active', 'agent')}/close")


BUILDERS: dict[str, Callable[[Maker], Call]] = {
    "listContacts": _page("/v1/contacts"),
    "getContact": lambda m: Call("GET", f"/v1/contacts/{m.contact_id()}"),
    "searchContacts": lambda _: Call("POST", "/v1/contacts/search", body={"limit": 1}),
    "upsertContact": lambda m: Call("POST", "/v1/contacts/upsert", body=m.upsert_body()),
    "createDeal": lambda m: Call("POST", "/v1/deals", body=m.deal_body()),
    "createActivity": lambda m: Call("POST", "/v1/activities", body=m.activity_body()),
    "createTag": lambda m: Call("POST", "/v1/tags", body=m.tag_body()),
    "listUsers": _page("/v1/users"),
    "listAudiences": _page("/v1/audiences"),
    "closeConversation": _close,
    "handoffConversation": lambda m: m.move("handoff", "active", "agent"),
    "assignConversation": lambda m: m.move("assign", "waiting", None),
    "resumeConversation": lambda m: m.move("resume", "active", "user"),
    "pauseCampaign": _campaign("pause", "running"),
    "resumeCampaign": _campaign("resume", "paused"),
    "getCampaignStats": _campaign("stats", "running"),
    "getMe": _get("/v1/me"),
    "getCapabilities": _get("/v1/capabilities"),
    "listFields": lambda m: Call(
        "GET", "/v1/fields", tuple(conventions.query(m.convention, "fields_query"))
    ),
    "listPipelines": _get("/v1/pipelines"),
    "listDeletedRecords": lambda m: m.deletion_feed("contacts"),
    "listSuccessEventTypes": _get("/v1/success-event-types"),
}
"""operationId -> how to build an acceptable call of it (the deletion feed's: contacts)."""


@dataclass(frozen=True)
class NamedOperation:
    """An operation the document names but does not show ("Update, delete and retrieve
    operations of other resources: not shown"; the lists "changes to records are read
    by"), reached where the target file says (`[conventions.creates]`, `.updates`, `.deletes`,
    `.retrieve`, `.lists`). It is held to the rules of every operation: the scope of its resource's
    row ("`read` covers list and retrieve; `write` covers create, update and delete"),
    the key of every write."""

    operation_id: str
    group: str
    scopes: tuple[str, ...]

    @property
    def reads(self) -> bool:
        return all(scope.endswith(":read") for scope in self.scopes)


def _update(resource: str) -> Callable[[Maker], Call]:
    def build(maker: Maker) -> Call:
        record_id = maker.record_id(resource)
        ((field, value),) = PLAIN_CHANGE[resource].items()
        changes = {field: f"{value} {maker.unique('call')}"}
        update = conventions.update(maker.convention, resource, record_id, changes)
        return Call(update.method, update.path, body=update.body, conventional=True)

    return build


def _create(resource: str) -> Callable[[Maker], Call]:
    def build(maker: Maker) -> Call:
        create = conventions.create(maker.convention, resource, maker.create_fields(resource))
        return Call(create.method, create.path, body=create.body, conventional=True)

    return build


def _retrieve(resource: str) -> Callable[[Maker], Call]:
    def build(maker: Maker) -> Call:
        ids = {f"{resource}_id": maker.listed_id(resource)}
        return Call("GET", conventions.path(maker.convention, f"retrieve.{resource}_path", **ids))

    return build


ROWS = {
    "contact": "contacts",
    "organization": "organizations",
    "deal": "deals",
    "activity": "activities",
    "tag": "tags",
    "conversation": "conversations",
    "campaign": "campaigns",
}
"""The row of the scope table (and the resource group) of each kind a named operation
reads or writes."""


PREFIXES = {
    "contact": "con",
    "organization": "org",
    "deal": "deal",
    "activity": "act",
    "tag": "tag",
    "conversation": "conv",
    "campaign": "camp",
}
"""The id prefix of each kind a named operation reads or writes (the identifier table)."""


FEED_KINDS = {ROWS[kind]: kind for kind in ("contact", "organization", "deal", "activity")}
"""The record kind of each resource whose deletion the adapter makes, by the deletion
feed's (and the scope table's) name: the kind its delete convention names."""


def delete_call(convention: conventions.Lookup, kind: str, record_id: str) -> Call:
    """The target's delete of `record_id`, a record of `kind` (`[conventions.deletes]`)."""
    ids = {f"{kind}_id": record_id}
    path = conventions.path(convention, f"deletes.{kind}_path", **ids)
    return Call("DELETE", path, conventional=True)


def delete_through_api(
    client: ApiClient, convention: conventions.Lookup, kind: str, record_id: str
) -> None:
    """Delete `record_id` by the target's own delete. A target refusing it for a new
    record deleted nothing, so the point asking for it is not applicable (that the write
    scope deletes is held elsewhere, SCOPE-003)."""
    call = delete_call(convention, kind, record_id)
    done = call.send(client)
    if not done.is_success:
        pytest.skip(f"DELETE {call.path} of a new {kind} answered {done.status_code}")


DELETED_BY = ("adapter", "api")
"""The ways a record is deleted: the adapter's delete, and the target's own
(`[conventions.deletes]`): "no such record" whatever deleted it."""


def delete_by(by: str, client: ApiClient, maker: Maker, kind: str, record_id: str) -> None:
    """Delete `record_id` the way `by` (one of `DELETED_BY`) names."""
    if by == "adapter":
        maker.adapter.delete_record(record_id)
    else:
        delete_through_api(client, maker.convention, kind, record_id)


def _delete(resource: str) -> Callable[[Maker], Call]:
    return lambda maker: delete_call(maker.convention, resource, maker.record_id(resource))


def _list(kind: str) -> Callable[[Maker], Call]:
    return lambda maker: Call(
        "GET", conventions.path(maker.convention, f"lists.{kind}_path"), (("limit", "1"),)
    )


def list_id(kind: str) -> str:
    """The operation id of the list of `kind` the target file names (`listDeals`, ...)."""
    return f"list{ROWS[kind].title()}"


NOTE_WRITES = ("create", "update", "delete")
"""The writes of a note the target file names (`notes.<verb>_path`)."""

EVENTS: tuple[NamedOperation, ...] = (
    NamedOperation("createSuccessEvent", "success_events", ("success_events:write",)),
    NamedOperation("reverseSuccessEvent", "success_events", ("success_events:write",)),
    NamedOperation("getSuccessEvent", "success_events", ("success_events:read",)),
)
"""Recording, reversing and reading a success event (`[conventions.success_events]`):
"Success events | `success_events:read`, `success_events:write`"."""

NOTES: tuple[NamedOperation, ...] = (
    *(NamedOperation(f"{verb}Note", "notes", ("notes:write",)) for verb in NOTE_WRITES),
    NamedOperation("getNote", "notes", ("notes:read",)),
    NamedOperation("listNotes", "notes", ("notes:read",)),
)
"""Writing, changing, deleting, reading and listing notes (`[conventions.notes]`; note
operations are not shown): "Notes | `notes:read`, `notes:write`"."""

CANCEL = NamedOperation("cancelActivity", "activities", ("activities:write",))
"""Canceling an activity (`[conventions.activities]`): a write of the Activities row."""

NAMED: tuple[NamedOperation, ...] = (
    *(
        NamedOperation(f"create{kind.title()}", ROWS[kind], (f"{ROWS[kind]}:write",))
        for kind in conventions.CREATED
    ),
    *(
        NamedOperation(f"update{kind.title()}", ROWS[kind], (f"{ROWS[kind]}:write",))
        for kind in conventions.UPDATED
    ),
    *(
        NamedOperation(f"delete{kind.title()}", ROWS[kind], (f"{ROWS[kind]}:write",))
        for kind in conventions.DELETED
    ),
    *(
        NamedOperation(f"get{kind.title()}", ROWS[kind], (f"{ROWS[kind]}:read",))
        for kind in conventions.RETRIEVED
    ),
    *(
        NamedOperation(list_id(kind), ROWS[kind], (f"{ROWS[kind]}:read",))
        for kind in conventions.LISTED
    ),
    *EVENTS,
    *NOTES,
    CANCEL,
)
"""The creates, updates, deletes, retrieves and lists the target file names, one per
kind, the success events' and the notes' operations and the activity cancel."""

BUILDERS.update({f"create{kind.title()}": _create(kind) for kind in conventions.CREATED})
BUILDERS.update({f"update{kind.title()}": _update(kind) for kind in conventions.UPDATED})
BUILDERS.update({f"delete{kind.title()}": _delete(kind) for kind in conventions.DELETED})
BUILDERS.update({f"get{kind.title()}": _retrieve(kind) for kind in conventions.RETRIEVED})
BUILDERS.update({list_id(kind): _list(kind) for kind in conventions.LISTED})


def _event(action: str) -> Callable[[Maker], Call]:
    def build(maker: Maker) -> Call:
        key = f"success_events.{action}_path"
        path = conventions.path(maker.convention, key, event_id=maker.event_id())
        if action == "reverse":
            return Call("POST", path, body={}, conventional=True)
        return Call("GET", path)

    return build


def _cancel(maker: Maker) -> Call:
    cancel = conventions.cancel(maker.convention, maker.record_id("activity"))
    body = NO_BODY if cancel.body is None else cancel.body
    return Call(cancel.method, cancel.path, body=body, conventional=True)


def note_call(maker: Maker, action: str, note_id: str) -> Call:
    """The target's change (`update`: a new text), `delete` or `retrieve` of note
    `note_id` (`[conventions.notes]`)."""
    if action == "update":
        made = conventions.note_update(maker.convention, note_id, maker.unique("note"))
        return Call(made.method, made.path, body=made.body, conventional=True)
    path = conventions.path(maker.convention, f"notes.{action}_path", note_id=note_id)
    if action == "delete":
        return Call("DELETE", path, conventional=True)
    return Call("GET", path)


def _note(action: str) -> Callable[[Maker], Call]:
    def build(maker: Maker) -> Call:
        if action == "list":
            path = conventions.path(maker.convention, "notes.list_path")
            return Call("GET", path, (("limit", "1"),))
        return note_call(maker, action, maker.note_id())

    return build


BUILDERS.update(
    {
        "createNote": lambda maker: maker.note(),
        "updateNote": _note("update"),
        "deleteNote": _note("delete"),
        "getNote": _note("retrieve"),
        "listNotes": _note("list"),
        "cancelActivity": _cancel,
        "createSuccessEvent": lambda maker: maker.success_event(),
        "reverseSuccessEvent": _event("reverse"),
        "getSuccessEvent": _event("retrieve"),
    }
)


def every() -> tuple[DescribedOperation | NamedOperation, ...]:
    """Every operation a matrix sends: each the description gives a scope, then each the
    target file may name (`NAMED`)."""
    return (*(op for op in document.operations() if op.scopes), *NAMED)


def call_of(operation: DescribedOperation | NamedOperation, maker: Maker) -> Call:
    """An acceptable call of `operation` on fresh data of `maker`'s workspace."""
    return BUILDERS[operation.operation_id](maker)
