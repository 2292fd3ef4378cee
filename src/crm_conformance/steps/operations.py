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

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import httpx

from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.adapter_kit import Workspace
from crm_conformance.core.model import conventions
from crm_conformance.core.model.document import DescribedOperation
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.factories import create_fields, phone_number, stamp

EVENT_VALUE = 100
"""A value every success event that needs one can carry (its type is not shown)."""

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

NO_BODY: Any = object()
"""A call that sends no body."""


@dataclass(frozen=True)
class Call:
    """What one call of an operation sends, the token aside."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    body: Any = NO_BODY
    conventional: bool = False
    """The body is the target's convention for an operation whose shape is not shown."""

    def send(self, client: ApiClient, **options: Any) -> httpx.Response:
        """Send it with `client`'s token (or `token=...`, `retry_429=...` as `request` takes)."""
        if self.body is NO_BODY:
            return client.request(self.method, self.path, params=list(self.query), **options)
        return client.request(
            self.method, self.path, params=list(self.query), json=self.body, **options
        )


class Maker:
    """Makes the data a call needs in one workspace, through the adapter."""

    def __init__(
        self,
        adapter: AdapterClient,
        unique: Callable[[str], str],
        convention: conventions.Lookup,
        skip: Callable[[str], NoReturn],
        workspace: Workspace = "primary",
        client: ApiClient | None = None,
    ) -> None:
        self.adapter = adapter
        self.unique = unique
        self.convention = convention
        self.skip = skip
        self.workspace = workspace
        self.client = client
        """The full-scope token's client, for data only the API makes (a success event)."""

    def contact_id(self) -> str:
        made = self.adapter.create_record(
            kind="contact",
            fields={
                "first_name": self.unique("call"),
                "last_name": "Conformance",
                "visibility": "company",
            },
            workspace=self.workspace,
        )
        return str(made["id"])

    def record_id(self, resource: str) -> str:
        """A new contact, organization, deal (on a new contact) or activity (due now on a
        new contact), visible to everyone, through the adapter; or a tag (`listed_id`)."""
        if resource == "contact":
            return self.contact_id()
        if resource == "tag":
            return self.listed_id(resource)
        return str(self.record(resource)["id"])

    def record(
        self,
        resource: str,
        *,
        created_at: str | None = None,
        updated_at: str | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A new organization, deal or activity as `record_id` makes it, with `fields`
        set over its own, stamped with the given `created_at` and `updated_at` (the
        adapter's), as the API renders it."""
        made: dict[str, Any] = {"visibility": "company"}
        if resource == "organization":
            made["name"] = self.unique("call")
        elif resource == "deal":
            made = {**made, "title": self.unique("call"), "contact_id": self.contact_id()}
        else:
            made = {
                "title": self.unique("call"),
                "due_at": stamp(),
                "record_id": self.contact_id(),
            }
        return self.adapter.create_record(
            kind=resource,
            fields={**made, **(fields or {})},
            workspace=self.workspace,
            created_at=created_at,
            updated_at=updated_at,
        )

    def listed_id(self, kind: str, client: ApiClient | None = None) -> str:
        """A new row of the list of `kind` (one of `conventions.LISTED`): a record or a
        conversation or campaign through the adapter, a tag through `client` (the
        adapter makes none; the full-scope client unless given)."""
        if kind in conventions.SYNCED:
            return self.record_id(kind)
        if kind == "conversation":
            return self.conversation_id("waiting", None)
        if kind == "campaign":
            return self.campaign_id("paused")
        client = client or self.client
        if client is None:
            self.skip("no full-scope client to make a tag with")
        response = client.post("/v1/tags", json=self.tag_body())
        if not response.is_success:
            self.skip(f"a tag to list could not be made: POST /v1/tags {response.status_code}")
        return str(response.json()["id"])

    def campaign_id(self, status: str) -> str:
        made = self.adapter.create_campaign(
            status=status, name=self.unique("campaign"), workspace=self.workspace
        )
        return str(made["id"])

    def conversation_id(self, status: str, handler: str | None) -> str:
        made = self.adapter.create_conversation(
            status=status, handler=handler, contact_id=self.contact_id(), workspace=self.workspace
        )
        return str(made["id"])

    def deal_body(self) -> dict[str, Any]:
        pipelines = self.adapter.fixtures(workspace=self.workspace).pipelines
        if not pipelines or not pipelines[0].stages:
            self.skip("the adapter's GET /v1/fixtures lists no pipeline with a stage")
        return {
            "pipeline_id": pipelines[0].id,
            "stage_id": pipelines[0].stages[0].id,
            "title": self.unique("deal"),
            "contact_id": self.contact_id(),
        }

    def activity_body(self) -> dict[str, Any]:
        return {"title": self.unique("activity"), "due_at": stamp(), "record_id": self.contact_id()}

    def tag_body(self) -> dict[str, Any]:
        return {"name": self.unique("tag"), self.convention("tag_catalogue_field"): "contact"}

    def create_fields(self, resource: str) -> dict[str, Any]:
        """The fields of a new contact or organization (`factories.create_fields`)."""
        return create_fields(resource, self.unique)

    def upsert_body(self) -> dict[str, Any]:
        """The target's upsert body (its shape is not shown) for a new contact."""
        made = conventions.body(
            self.convention,
            "upsert.body",
            external_id=self.unique("upsert"),
            phone=phone_number(),
            first_name=self.unique("upsert"),
        )
        return dict(made)

    def move(self, name: str, status: str, handler: str | None) -> Call:
        """A conversation move at the target's path and body (neither is shown), on a
        conversation held so that the move is allowed."""
        self.adapter.require("conversations")
        key = f"conversation_moves.{name}"
        conversation_id = self.conversation_id(status, handler)
        path = conventions.path(self.convention, f"{key}_path", conversation_id=conversation_id)
        assignee: Any = conventions.OMIT
        if name == "assign":
            users = self.adapter.fixtures(workspace=self.workspace).users
            if not users:
                self.skip("the adapter's GET /v1/fixtures lists no user to assign to")
            assignee = users[0]
        values = {"conversation_id": conversation_id, "assignee_id": assignee}
        body = conventions.body(self.convention, f"{key}_body", **values)
        return Call("POST", path, body=body, conventional=True)

    def event_code(self) -> str:
        """A new success event type, whose `value` is required, through the adapter."""
        code = re.sub(r"[^a-z0-9_]", "_", f"sev_{self.unique('call')}".lower())[:64]
        self.adapter.create_success_event_type(
            code=code, value="required", workspace=self.workspace
        )
        return code

    def success_event(self, code: str | None = None, value: int = EVENT_VALUE) -> Call:
        """Recording an event of type `code` (a new one unless given) at the target's path
        and body (neither is shown)."""
        key = "success_events.create"
        code = code or self.event_code()
        body = conventions.body(self.convention, f"{key}_body", code=code, value=value)
        return Call(
            "POST", conventions.path(self.convention, f"{key}_path"), body=body, conventional=True
        )

    def event_id(self) -> str:
        """A recorded event's id, recorded with the full-scope token."""
        if self.client is None:
            self.skip("no full-scope client to record a success event with")
        response = self.success_event().send(self.client)
        made = response.json() if response.is_success and response.content else None
        if not isinstance(made, dict) or not isinstance(made.get("id"), str):
            self.skip(
                f"a success event could not be recorded ({response.status_code}): its fields "
                "are not shown"
            )
        return str(made["id"])

    def deletion_feed(self, resource: str) -> Call:
        """The deletion feed listing `resource` (a scope table name), at the target's query."""
        query = conventions.deletion_feed(self.convention, resource)
        return Call("GET", "/v1/deleted-records", tuple(query.items()))


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


def _delete(resource: str) -> Callable[[Maker], Call]:
    def build(maker: Maker) -> Call:
        ids = {f"{resource}_id": maker.record_id(resource)}
        path = conventions.path(maker.convention, f"deletes.{resource}_path", **ids)
        return Call("DELETE", path, conventional=True)

    return build


def _list(kind: str) -> Callable[[Maker], Call]:
    return lambda maker: Call(
        "GET", conventions.path(maker.convention, f"lists.{kind}_path"), (("limit", "1"),)
    )


def list_id(kind: str) -> str:
    """The operation id of the list of `kind` the target file names (`listDeals`, ...)."""
    return f"list{ROWS[kind].title()}"


EVENTS: tuple[NamedOperation, ...] = (
    NamedOperation("createSuccessEvent", "success_events", ("success_events:write",)),
    NamedOperation("reverseSuccessEvent", "success_events", ("success_events:write",)),
    NamedOperation("getSuccessEvent", "success_events", ("success_events:read",)),
)
"""Recording, reversing and reading a success event (`[conventions.success_events]`):
"Success events | `success_events:read`, `success_events:write`"."""

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
    CANCEL,
)
"""The creates, updates, deletes, retrieves and lists the target file names, one per
kind, the success events' operations and the activity cancel."""

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


BUILDERS.update(
    {
        "cancelActivity": _cancel,
        "createSuccessEvent": lambda maker: maker.success_event(),
        "reverseSuccessEvent": _event("reverse"),
        "getSuccessEvent": _event("retrieve"),
    }
)


def call_of(operation: DescribedOperation | NamedOperation, maker: Maker) -> Call:
    """An acceptable call of `operation` on fresh data of `maker`'s workspace."""
    return BUILDERS[operation.operation_id](maker)


def pick(operations: Sequence[DescribedOperation], *, reads: bool) -> list[DescribedOperation]:
    """Per group, its first read (or write) without a path id if it has one, else its
    first: one call that stands for the group (the authentication matrix)."""
    chosen: dict[str, DescribedOperation] = {}
    for operation in operations:
        if operation.reads != reads:
            continue
        held = chosen.get(operation.group)
        if held is None or ("{" in held.path and "{" not in operation.path):
            chosen[operation.group] = operation
    return list(chosen.values())
