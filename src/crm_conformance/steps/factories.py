"""`RecordFactory`: the shared steps that make a test's data, named with the run prefix.

Every record a test makes carries the per-run, per-worker prefix (in names and external
ids), so runs never see each other's data and `sweep` can find it afterwards. Where the
document shows a create body (deals, activities, tags) the public API is used, so the
data is made the way a client would; otherwise (contacts, organizations, conversations,
campaigns, tokens, users) the provisioning adapter makes it. A create the target
refuses raises `SetupFailed`: the test is blocked by that, it did not fail.
"""

import contextlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NoReturn

from crm_conformance._errors import AdapterError, SetupFailed
from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.adapter_kit import IssuedToken
from crm_conformance.core.model.target import Target
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.verdicts.failure import ConformanceFailure

NO_ADAPTER = (
    "needs the provisioning adapter: add adapter_url to the target file "
    "(spec/adapter.yaml describes what to implement)"
)


def absent_id(prefix: str) -> str:
    """A well-formed id of `prefix` (`con`, `deal`, ...) that names no record: 128 random
    bits, so it never names a real one."""
    return f"{prefix}_{secrets.token_hex(16)}"


def stamp(when: datetime | None = None) -> str:
    """`when` (now when None) as an ISO 8601 date-time in UTC, to the whole second: the
    form every test sends, which any storage precision keeps exact."""
    return (when or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")


def phone_number() -> str:
    """A fresh E.164 number strict validators accept: London 020 7xxx xxxx, random
    because phones are unique per workspace."""
    return f"+44207{secrets.randbelow(10**7):07d}"


def spaced(phone: str) -> str:
    """A number `phone_number` made, written as people write it: `+44 20 7xxx xxxx`."""
    return f"{phone[:3]} {phone[3:5]} {phone[5:9]} {phone[9:]}"


PHONE_FORMS: dict[str, Callable[[str], str]] = {
    "spaces": spaced,
    "dashes": lambda phone: f"{phone[:3]}-{phone[3:5]}-{phone[5:9]}-{phone[9:]}",
    "parentheses": lambda phone: f"{phone[:3]} ({phone[3:5]}) {phone[5:9]}-{phone[9:]}",
    "dots": lambda phone: f"{phone[:3]}.{phone[3:5]}.{phone[5:9]}.{phone[9:]}",
}
"""A number `phone_number` made, written each of the ways people write it: "E.164,
normalized on write" reads each back as the number."""


CONTACT_LINKS = {"organization_id": "CON-015", "owner_id": "CON-017"}
"""The links a contact's create may be given, each with the rule of its field
("`organization_id` | string | `org_` id", "`owner_id` | string | `usr_` id")."""


def create_fields(kind: str, unique: Callable[[str], str]) -> dict[str, Any]:
    """The fields of a new contact or organization for the target's create
    (`[conventions.creates]`): a contact's name parts and a phone of its own ("contact
    with this phone exists" is refused), an organization's name."""
    if kind == "contact":
        return {"first_name": unique("create"), "last_name": "Conformance", "phone": phone_number()}
    return {"name": unique("create")}


class RecordFactory:
    """Makes records for one test; see ARCHITECTURE.md, "What the plugin gives a suite"."""

    def __init__(
        self,
        *,
        api: ApiClient,
        adapter: AdapterClient | None,
        target: Target,
        unique: Callable[[str], str],
        skip: Callable[[str], NoReturn],
    ) -> None:
        self.api = api
        self.target = target
        self.unique = unique
        self._adapter = adapter
        self._skip = skip
        self.created: list[tuple[str, str]] = []
        """(kind, id) of everything made, in order (for reports and sweeping)."""

    def requiring(self, feature: str) -> "RecordFactory":
        """This factory, once the adapter is known to offer `feature` (skipped otherwise):
        the gate of a suite whose every test needs it (`campaigns`, `conversations`)."""
        self.adapter.require(feature)
        return self

    @property
    def adapter(self) -> AdapterClient:
        """The adapter, or a skip saying to configure one."""
        if self._adapter is None:
            self._skip(NO_ADAPTER)
        return self._adapter

    def discard(self, record_id: str) -> None:
        """Delete a record a test wrote with a value no read may show (a date-time that
        is none), so the run-wide checks of later tests' reads, which would list it, judge
        the target's rules and not this one write. Best effort: without the adapter's
        `records`, or when it fails, the record stays."""
        if self._adapter is None or not self._adapter.has("records"):
            return
        with self._adapter.optional(), contextlib.suppress(AdapterError):
            self._adapter.delete_record(record_id)

    # --- records through the adapter (no documented create body) ---------------------

    def contact(
        self, *, created_at: str | None = None, updated_at: str | None = None, **fields: Any
    ) -> dict[str, Any]:
        """A contact (adapter: "Contact create and update bodies: not shown"), with the
        adapter's stamps when given."""
        values = {"first_name": self.unique("contact"), "last_name": "Conformance", **fields}
        made = self.adapter.create_record(
            kind="contact", fields=values, created_at=created_at, updated_at=updated_at
        )
        made = self._made("contact", made)
        return self.linked(made, values)

    def organization(self, **fields: Any) -> dict[str, Any]:
        """An organization (adapter: its create body is not shown)."""
        values = {"name": self.unique("org"), **fields}
        return self._made(
            "organization", self.adapter.create_record(kind="organization", fields=values)
        )

    def conversation(
        self, *, status: str = "active", contact: bool = True, **fields: Any
    ) -> dict[str, Any]:
        """A conversation in `status` (waiting | active); `contact=False` gives none.

        Its contact carries the run prefix when the adapter can make records; otherwise
        the adapter makes one itself.
        """
        contact_id: str | bool | None = None
        if contact and self.adapter.has("records"):
            with self.adapter.optional():  # without records, the adapter makes the contact
                contact_id = self.contact()["id"]
        elif contact:
            contact_id = True
        made = self.adapter.create_conversation(status=status, contact_id=contact_id, **fields)
        return self._made("conversation", made)

    def campaign(
        self, *, status: str = "running", participants: Sequence[Mapping[str, Any]] | None = None
    ) -> dict[str, Any]:
        """A campaign in `status` with `participants` (each a dict of adapter fields)."""
        made = self.adapter.create_campaign(
            status=status, name=self.unique("campaign"), participants=participants
        )
        return self._made("campaign", made)

    def token(
        self,
        *,
        scopes: Sequence[str] | None = None,
        kind: str = "workspace",
        state: str | None = None,
        **options: Any,
    ) -> IssuedToken:
        """A token with exactly `scopes` (all when None) in `state`; its value is redacted."""
        issued = self.adapter.create_token(scopes=scopes, kind=kind, state=state, **options)
        self.created.append(("token", issued.id))
        return issued

    def user(self, **fields: Any) -> dict[str, Any]:
        """A person an OAuth token can act for."""
        fields.setdefault("name", self.unique("user"))
        return self._made("user", self.adapter.create_user(**fields))

    # --- records through the public API (the document shows the body) ---------------

    def deal(self, **fields: Any) -> dict[str, Any]:
        """A deal in the first pipeline's first stage, on a new contact unless one is given."""
        body = dict(fields)
        if "pipeline_id" not in body or "stage_id" not in body:
            pipelines = self.adapter.fixtures().pipelines
            if not pipelines or not pipelines[0].stages:
                self._skip("the adapter's GET /v1/fixtures lists no pipeline with a stage")
            body.setdefault("pipeline_id", pipelines[0].id)
            body.setdefault("stage_id", pipelines[0].stages[0].id)
        if "contact_id" not in body and "organization_id" not in body:
            body["contact_id"] = self.contact()["id"]
        body.setdefault("title", self.unique("deal"))
        return self._made("deal", self._create("/v1/deals", body))

    def activity(self, **fields: Any) -> dict[str, Any]:
        """An activity due now on a new contact unless `record_id` is given."""
        body = dict(fields)
        if "record_id" not in body:
            body["record_id"] = self.contact()["id"]
        body.setdefault("title", self.unique("activity"))
        body.setdefault("due_at", stamp())
        return self._made("activity", self._create("/v1/activities", body))

    def tag(self, *, kind: str = "contact", **fields: Any) -> dict[str, Any]:
        """A tag in the catalogue of `kind` (contact | organization | deal).

        The body field choosing the catalogue is "not shown": it comes from the target's
        `conventions.tag_catalogue_field`, and the test is skipped without it.
        """
        selector = self.target.conventions.get("tag_catalogue_field")
        if selector is None:
            self._skip(
                "the tag catalogue field is not shown in the document: add "
                '[conventions] tag_catalogue_field = "<body field>" to the target file'
            )
        body = {"name": self.unique("tag"), selector: kind, **fields}
        return self._made("tag", self._create("/v1/tags", body))

    # --- helpers ---------------------------------------------------------------------

    def _create(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        response = self.api.post(path, json=dict(body))
        if not 200 <= response.status_code < 300:
            raise SetupFailed(
                f"could not make test data: POST {path} answered {response.status_code}: "
                f"{self.api.redactor.text(response.text[:300])}"
            )
        try:
            made = response.json()
        except ValueError:
            raise SetupFailed(f"could not make test data: POST {path} answered non-JSON") from None
        if not isinstance(made, dict):
            raise SetupFailed(f"could not make test data: POST {path} answered {made!r}")
        return made

    def listed_user_id(self) -> str:
        """The id of a workspace member as `GET /v1/users` lists it: "A user id serves as
        `owner_id` ... and as `assignee_id`". An `active` one where the list says so; the
        other values of `status` are not shown."""
        response = self.api.get("/v1/users", params={"limit": 200})
        body = response.json() if response.status_code == 200 else None
        rows = body.get("data") if isinstance(body, dict) else None
        users = [u for u in rows or [] if isinstance(u, dict) and isinstance(u.get("id"), str)]
        if not users:
            raise SetupFailed(
                f"no user to use: GET /v1/users answered {response.status_code} with "
                f"{len(users)} users"
            )
        active = [user for user in users if user.get("status") == "active"]
        return str((active or users)[0]["id"])

    def linked(self, made: dict[str, Any], asked: Mapping[str, Any]) -> dict[str, Any]:
        """The new contact `made`, holding the links its create was `asked` for.

        A test links a contact in its setup to judge something else (a filter by
        `organization_id`, an embedded organization, what a person sees). A link the
        create dropped would be charged to that test's rule; it is the link field's own
        rule, judged here on the public retrieve (the adapter's answer alone could be
        the adapter's slip). A retrieve that shows the links is the contact to go on with.
        Only links given as ids are held: a create given none may find an owner of its
        own."""
        dropped = [
            name
            for name in CONTACT_LINKS
            if isinstance(asked.get(name), str) and made.get(name) != asked[name]
        ]
        if not dropped:
            return made
        response = self.api.get(f"/v1/contacts/{made.get('id')}")
        try:
            record = response.json() if response.status_code == 200 else None
        except ValueError:
            record = None
        if not isinstance(record, dict):
            raise SetupFailed(
                f"could not make test data: the new contact shows {dropped[0]} = "
                f"{made.get(dropped[0])!r}, not {asked[dropped[0]]!r}, and its retrieve "
                f"answered {response.status_code}"
            )
        for name in dropped:
            if record.get(name) != asked[name]:
                raise ConformanceFailure(
                    CONTACT_LINKS[name],
                    expected=f"{name} = {asked[name]!r}, as the contact's create gave it",
                    got=f"{name} = {record.get(name)!r}",
                    response=response,
                )
        return record

    def _made(self, kind: str, record: dict[str, Any]) -> dict[str, Any]:
        if isinstance(record.get("id"), str):
            self.created.append((kind, record["id"]))
        return record
