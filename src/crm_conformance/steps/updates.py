"""Writing records through the creates and updates the target file names, and reading
them back.

"Update, delete and retrieve operations of other resources: not shown": the target file
names each update (`[conventions.updates]`: method, path with the record's id, body with
`{changes}` standing for the changed fields), the creates of contacts and organizations
(`[conventions.creates]`: a POST's path, body with `{fields}`), and where an
organization, a deal and an activity are read (`[conventions.retrieve]`; a contact is
read at the path the document shows). These bodies are not shown, so a refusal as
`validation_failed` may be the target wanting another body or the rule under test being
broken; `applied` tells them apart with a control, a write the document certainly
allows.
"""

from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import httpx

from crm_conformance.core.model import conventions
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.expect import error_of, expect_status, expect_true
from crm_conformance.steps.factories import RecordFactory, create_fields, stamp

CONTACT_PATH = "/v1/contacts/{contact_id}"
"""The one retrieve the document shows ("GET /v1/contacts/{contact_id} retrieves one
contact"); the others are the target file's `retrieve.<kind>_path`."""

CONTROL_FIELD = {
    "contact": "first_name",
    "organization": "name",
    "deal": "title",
    "activity": "title",
    "tag": "name",
}
"""A plain text field of each kind's table: the change a control update makes."""


class Updates:
    """The target's updates and reads of records, for one test."""

    def __init__(
        self,
        api: ApiClient,
        convention: conventions.Lookup,
        factory: RecordFactory,
        skip: Callable[[str], NoReturn],
    ) -> None:
        self.api = api
        self.convention = convention
        self.factory = factory
        self.skip = skip

    def send(
        self, kind: str, record_id: str, changes: Mapping[str, Any], **options: Any
    ) -> httpx.Response:
        """The target's update of `kind` `record_id` with `changes` (`headers=...` as
        `ApiClient.request` takes)."""
        operation = conventions.update(self.convention, kind, record_id, changes)
        return self.api.request(operation.method, operation.path, json=operation.body, **options)

    def names_cancel(self) -> bool:
        """Whether the target file names how an activity is canceled."""
        return self.factory.target.conventions.get("activities.cancel_path") is not None

    def cancel(self, activity_id: str) -> httpx.Response:
        """The target's cancel of activity `activity_id` (`[conventions.activities]`)."""
        operation = conventions.cancel(self.convention, activity_id)
        return self.api.request(operation.method, operation.path, json=operation.body)

    def create(self, kind: str, fields: Mapping[str, Any], **options: Any) -> httpx.Response:
        """The target's create of a `kind` (one of `conventions.CREATED`) with `fields`."""
        operation = conventions.create(self.convention, kind, fields)
        return self.api.request(operation.method, operation.path, json=operation.body, **options)

    def created(self, kind: str, fields: Mapping[str, Any], req_id: str) -> str:
        """The id of a new `kind` the target's create made with `fields`: applied (a
        refusal as invalid is judged against a control, the same create of the kind's
        plain fields alone) and answered with its id (the answer is not shown: none is
        not applicable)."""
        response = self.create(kind, fields)
        fresh = create_fields(kind, self.factory.unique)
        self.applied(response, req_id, lambda: self.create(kind, fresh))
        try:
            made = response.json()
        except ValueError:
            made = None
        record_id = made.get("id") if isinstance(made, dict) else None
        if not isinstance(record_id, str):
            self.skip(f"the target's {kind} create answered no id ({response.text[:100]!r})")
        self.factory.created.append((kind, record_id))
        return record_id

    def control(self, kind: str, record_id: str) -> Callable[[], httpx.Response]:
        """An update of `record_id` the document certainly allows, a new value of its
        plain text field (`CONTROL_FIELD`); sent only when a control is needed."""
        fields = {CONTROL_FIELD[kind]: self.factory.unique("control")}
        return lambda: self.send(kind, record_id, fields)

    def applied(
        self,
        response: httpx.Response,
        req_id: str,
        control: Callable[[], httpx.Response] | None = None,
    ) -> None:
        """A write the document allows succeeded (any 2xx: its answer is not shown).

        A refusal as `validation_failed` may be the target wanting another body, or the
        rule being broken. `control` tells them apart: another write of the same shape.
        When the target accepts it, the body was right and the refusal is charged to
        `req_id`; when it refuses it too, or no control exists, the point is not
        applicable, with the reason."""
        if response.status_code in (400, 422) and error_of(response).get("code") == (
            "validation_failed"
        ):
            sent = f"{response.request.method} {response.request.url.path}"
            if control is not None:
                answer = control()
                expect_true(
                    response,
                    req_id,
                    not answer.is_success,
                    expected=f"{sent} to apply {response.request.content!r}, as the target "
                    f"applied a write of the same shape ({answer.request.content!r} "
                    f"answered {answer.status_code})",
                    got=f"{response.status_code} {response.text[:200]}",
                )
            self.skip(
                f"{sent} refused {response.request.content!r} as validation_failed"
                + (", and a control write of the same shape too" if control else "")
                + ": the body is not shown, and the target wants another"
            )
        expect_status(response, req_id, *range(200, 300))

    def retrieve_path(self, kind: str, record_id: str) -> str:
        """The retrieve of `record_id`: the document's for a contact, the target's
        `retrieve.<kind>_path` for another kind (a skip where it names none)."""
        ids = {f"{kind}_id": record_id}
        if kind == "contact":
            return conventions.fill_path(CONTACT_PATH, "contact retrieve", **ids)
        return conventions.path(self.convention, f"retrieve.{kind}_path", **ids)

    def read(self, kind: str, record_id: str, req_id: str) -> dict[str, Any]:
        """The record as the target reads it now: a 200 with a JSON object."""
        response = self.api.get(self.retrieve_path(kind, record_id))
        body = expect_status(response, req_id, 200)
        expect_true(
            response,
            req_id,
            isinstance(body, dict) and body.get("id") == record_id,
            expected=f"the {kind} {record_id} read back",
            got=response.text[:300],
        )
        assert isinstance(body, dict)
        return body

    def made(self, kind: str, *, created_at: str | None = None, **fields: Any) -> dict[str, Any]:
        """A record of `kind` with `fields`, through the adapter (kept in
        `factory.created` for the report and sweep): a deal on a new contact in the
        adapter's first stage, an activity due now on a new contact, unless given."""
        values = dict(fields)
        if kind == "contact":
            values = {"first_name": self.factory.unique("contact"), **values}
        elif kind == "organization":
            values = {"name": self.factory.unique("org"), **values}
        elif kind == "deal":
            values.setdefault("title", self.factory.unique("deal"))
            if "contact_id" not in values and "organization_id" not in values:
                values["contact_id"] = self.factory.contact()["id"]
        elif kind == "activity":
            values.setdefault("title", self.factory.unique("activity"))
            values.setdefault("due_at", stamp())
            values.setdefault("record_id", self.factory.contact()["id"])
        elif kind == "tag":  # the API makes tags (POST /v1/tags is shown), not the adapter
            if created_at is not None:
                raise ValueError("a tag is made through the API, which takes no created_at")
            return self.factory.tag(**values)
        made = self.factory.adapter.create_record(kind=kind, fields=values, created_at=created_at)
        self.factory.created.append((kind, str(made.get("id"))))
        return self.factory.linked(made, values) if kind == "contact" else made
