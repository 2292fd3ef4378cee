"""The records of one workspace, each made once on first use, by kind.

A matrix over every operation needs, for each identifier input, one record of the kind
it names in each workspace: the second workspace's to send, this one's to make the rest
of the request valid. `WorkspaceRecords` makes each kind once (through the adapter, or the API
where the adapter makes none) and serves the same id to every point after.
"""

import hashlib
from collections.abc import Callable
from typing import Any, NoReturn

from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.adapter_kit import Workspace
from crm_conformance.core.model import conventions
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.calls import Maker
from crm_conformance.steps.factories import stamp
from crm_conformance.steps.reads import findable

EVENT = "event"
"""The kind of a success event's id, whose format is not shown (no identifier prefix)."""
NOTE = "note"
"""The kind of a note's id, whose format is not shown either."""


class WorkspaceRecords:
    """WorkspaceRecords of one workspace by identifier prefix, each made once per module on first
    use (the same id serves every point that needs a record of that kind)."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.ids: dict[str, str] = {}
        self.needs: dict[str, set[str]] = {}
        """The adapter features making each kept record required."""
        self.contact: dict[str, Any] = {}
        self.adapter: AdapterClient
        self.unique: Callable[[str], str]
        self.client: ApiClient
        self.convention: conventions.Lookup
        self.skip: Callable[[str], NoReturn]

    def bind(self, maker: Maker, client: ApiClient) -> "WorkspaceRecords":
        """This workspace's records, made with this test's adapter, names, conventions
        and skip (`maker`'s) and `client`, a token of this workspace (a success event and
        a tag are made through the API)."""
        self.adapter, self.unique, self.client = maker.adapter, maker.unique, client
        self.convention, self.skip = maker.convention, maker.skip
        return self

    def id_of(self, prefix: str) -> str:
        """The id of this workspace's record of kind `prefix` (`con`, `usr`, `stg`, ...)."""
        if prefix not in self.ids:
            with self.adapter.recording() as used:
                self.ids[prefix] = self._make(prefix)
            self.needs[prefix] = used
        for feature in sorted(self.needs[prefix]):  # this test needs them too
            self.adapter.require(feature)
        return self.ids[prefix]

    def the_contact(self) -> dict[str, Any]:
        """The contact, with every field a read can match set (and its owner and
        organization), as the adapter rendered it."""
        self.id_of("con")
        return self.contact

    def another(self, prefix: str) -> str:
        """A new contact, organization, deal, activity or tag besides the kept one: a write
        changing a record's field to a real id names one the field does not hold already
        (a server may refuse to move an activity to another record and take the unchanged
        id), and a delete removes a record no other point names."""
        name = self.unique("another")
        made: dict[str, Callable[[], Any]] = {
            "con": lambda: self.record("contact", first_name=name)["id"],
            "org": lambda: self.record("organization", name=name)["id"],
            "deal": lambda: self.record("deal", title=name, contact_id=self.id_of("con"))["id"],
            "act": lambda: self.record(
                "activity", title=name, due_at=stamp(), record_id=self.id_of("con")
            )["id"],
            "tag": self._make_tag,
        }
        found = made[prefix]()
        if not isinstance(found, str):
            self.skip(f"no other {prefix}_ record of the {self.workspace} workspace could be made")
        return found

    def record(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A new record of `kind` (contact, organization, deal, activity)."""
        return self.adapter.create_record(kind=kind, fields=fields, workspace=self.workspace)

    def _make(self, prefix: str) -> str:
        fixtures = self.adapter.fixtures(workspace=self.workspace)
        pipeline = fixtures.pipelines[0] if fixtures.pipelines else None
        made: dict[str, Callable[[], Any]] = {
            "usr": lambda: fixtures.users[0] if fixtures.users else None,
            "pipe": lambda: pipeline.id if pipeline else None,
            "stg": lambda: pipeline.stages[0].id if pipeline and pipeline.stages else None,
            "lrsn": lambda: fixtures.lost_reasons[0] if fixtures.lost_reasons else None,
            "org": lambda: self.record("organization", name=self.unique("tenancy"))["id"],
            "con": self._make_contact,
            "deal": lambda: self.record(
                "deal", title=self.unique("tenancy"), contact_id=self.id_of("con")
            )["id"],
            "act": lambda: self.record(
                "activity",
                title=self.unique("tenancy"),
                due_at=stamp(),
                record_id=self.id_of("con"),
            )["id"],
            "conv": lambda: self.adapter.create_conversation(
                status="active",
                handler="user",
                contact_id=self.id_of("con"),
                workspace=self.workspace,
            )["id"],
            EVENT: self._record_event,
            NOTE: self._write_note,
            "tag": self._make_tag,
            "camp": lambda: self.adapter.create_campaign(
                status="running", name=self.unique("tenancy"), workspace=self.workspace
            )["id"],
        }
        found = made[prefix]() if prefix in made else None
        if not isinstance(found, str):
            self.skip(f"no {prefix}_ record of the {self.workspace} workspace to name")
        return found

    def _record_event(self) -> str | None:
        """A success event of a new type that forbids a value (its fields are not shown:
        None when the answer carries no string id)."""
        code = "sev_" + hashlib.sha256(self.unique("tenancy").encode()).hexdigest()[:16]
        self.adapter.create_success_event_type(
            code=code, value="forbidden", workspace=self.workspace
        )
        key = "success_events.create"
        body = conventions.body(self.convention, f"{key}_body", code=code, value=conventions.OMIT)
        answer = self.client.post(conventions.path(self.convention, f"{key}_path"), json=body)
        made = answer.json() if answer.is_success else None
        return made.get("id") if isinstance(made, dict) else None

    def _write_note(self) -> str | None:
        """A note on the contact, written through the target's note create (the adapter
        makes none; None when the answer carries no string id)."""
        made = conventions.note_create(self.convention, self.id_of("con"), self.unique("note"))
        answer = self.client.request(made.method, made.path, json=made.body)
        note = answer.json() if answer.is_success and answer.content else None
        return note.get("id") if isinstance(note, dict) else None

    def _make_tag(self) -> str | None:
        """A tag (the adapter makes none: made through the API)."""
        body = {"name": self.unique("tenancy"), self.convention("tag_catalogue_field"): "contact"}
        answer = self.client.post("/v1/tags", json=body)
        made = answer.json() if answer.is_success else None
        return made.get("id") if isinstance(made, dict) else None

    def _make_contact(self) -> str:
        fields = findable(
            self.unique("tenancy"), owner_id=self.id_of("usr"), organization_id=self.id_of("org")
        )
        self.contact = self.record("contact", **fields)
        return str(self.contact["id"])
