"""One call of an operation, and the data it needs made fresh in one workspace.

`Call` is what a matrix sends (method, path, query, body), the token aside; `Maker` makes
the records, conversations, campaigns and events a call needs, through the adapter (or
the full-scope token where only the API makes them), so each call is one the target
accepts. `steps.operations` builds a call of each operation from them.
"""

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

import httpx

from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.adapter_kit import Workspace
from crm_conformance.core.model import conventions
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.factories import create_fields, phone_number, stamp

EVENT_VALUE = 100
"""A value every success event that needs one can carry (its type is not shown)."""

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
        """A new row of the list of `kind` (one of `conventions.LISTED`, or `note`): a
        record or a conversation or campaign through the adapter, a tag or a note through
        `client` (the adapter makes none; the full-scope client unless given)."""
        if kind == "note":
            return self.note_id(client)
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
        return self.moves(name, status, handler)[0]

    def moves(self, name: str, status: str, handler: str | None) -> list[Call]:
        """The move on one conversation held so that it is allowed: an assignment once per
        teammate of the adapter's fixtures (each call assigns another), another move once."""
        self.adapter.require("conversations")
        key = f"conversation_moves.{name}"
        conversation_id = self.conversation_id(status, handler)
        path = conventions.path(self.convention, f"{key}_path", conversation_id=conversation_id)
        assignees: list[Any] = [conventions.OMIT]
        if name == "assign":
            assignees = list(self.adapter.fixtures(workspace=self.workspace).users)
            if not assignees:
                self.skip("the adapter's GET /v1/fixtures lists no user to assign to")
        return [
            Call(
                "POST",
                path,
                body=conventions.body(
                    self.convention,
                    f"{key}_body",
                    conversation_id=conversation_id,
                    assignee_id=assignee,
                ),
                conventional=True,
            )
            for assignee in assignees
        ]

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

    def note(self) -> Call:
        """Writing a note on a new contact at the target's path and body (a note's fields
        are not shown: `[conventions.notes]`)."""
        made = conventions.note_create(self.convention, self.contact_id(), self.unique("note"))
        return Call(made.method, made.path, body=made.body, conventional=True)

    def note_id(self, client: ApiClient | None = None) -> str:
        """A new note's id, written with `client` (the full-scope token's unless given):
        the adapter makes none."""
        client = client or self.client
        if client is None:
            self.skip("no full-scope client to write a note with")
        response = self.note().send(client)
        made = response.json() if response.is_success and response.content else None
        if not isinstance(made, dict) or not isinstance(made.get("id"), str):
            self.skip(
                f"a note could not be written ({response.status_code}): its fields are not shown"
            )
        return str(made["id"])

    def deletion_feed(self, resource: str) -> Call:
        """The deletion feed listing `resource` (a scope table name), at the target's query."""
        query = conventions.deletion_feed(self.convention, resource)
        return Call("GET", "/v1/deleted-records", tuple(query.items()))
