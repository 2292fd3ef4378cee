"""The reference server's provisioning adapter, on `crm_conformance.adapter_kit`.

The kit serves the HTTP surface of `spec/adapter.yaml` (routing, validation, errors,
health); this module fills in the methods of the features over the reference's store:
fixtures, tokens, users, records and policy (`ReferenceAdapter`). Conversations,
campaigns and success event types are `adapter_domain.DomainAdapter`. So every run
against the embedded server exercises the kit a vendor builds on.

Records are validated by the API's own `read_changes`, acting as a full-scope
workspace token of the workspace asked for (`Backend.acting`), so the adapter cannot
store what the API could not render. The reference's errors (`ApiError`) become the
kit's `Refusal` at the edge of each method.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from starlette.datastructures import Headers, QueryParams

from crm_conformance.adapter_kit import (
    CustomFieldSample,
    Fixtures,
    IssuedToken,
    PermissionsRequest,
    Pipeline,
    PolicyRequest,
    Problem,
    RecordRequest,
    Refusal,
    Stage,
    TokenRequest,
    UserRequest,
    Workspace,
)
from crm_conformance.reference import (
    activities,
    contacts,
    deals,
    directory,
    grants,
    organizations,
    owners,
    pipelines,
    policy,
)
from crm_conformance.reference.clock import stamp
from crm_conformance.reference.identifiers import kind_of
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call
from crm_conformance.reference.scopes import ALL_SCOPES
from crm_conformance.reference.seed import WORKSPACES
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Record, Store, Transaction
from crm_conformance.reference.tokens import issue_token, issued_form, revoke_token

DELETABLE = ("contact", "organization", "deal", "activity", "tag", "campaign", "user")
"""Kinds `DELETE /v1/records/{record_id}` deletes, by id prefix."""
ACTIVITY_FIELDS = (
    "title", "description", "type", "status", "due_at", "record_id", "assignee_id",
    "created_by", "status_reason",
)  # fmt: skip


@dataclass(frozen=True)
class Backend:
    """The store and settings the adapter's methods work on."""

    settings: ServerSettings
    store: Store

    def workspace(self, asked: Workspace) -> str:
        """The workspace a request names (under `adapter_ignores_workspace`, always primary)."""
        return "primary" if self.settings.has_adapter_fault("adapter_ignores_workspace") else asked

    def acting(self, workspace: str) -> Call:
        """A call acting as a full-scope workspace token of `workspace`, to reuse the API's
        validation and rendering."""
        bare = Call(
            settings=self.settings,
            store=self.store,
            method="POST",
            path="/_adapter",
            path_params={},
            query=QueryParams(""),
            headers=Headers(),
            raw_body=b"",
            request_id="adapter",
            principal=None,
        )
        return bare.as_workspace(workspace)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        with self.store.transaction() as tx:
            yield tx


def checked(values: dict[str, Any], allowed: tuple[str, ...], path: str = "") -> BodyFields:
    """`values` as `BodyFields`, to reuse the API's field checks on adapter input."""
    return BodyFields(values, allowed=allowed, path=path)


SAMPLES = {
    "text": CustomFieldSample(accepted="Sample text", refused=(12345, ["a list"])),
    "number": CustomFieldSample(accepted=42, refused=("forty-two",)),
}
"""What a custom field of each type of the reference's takes and refuses."""


class ReferenceAdapter:
    """Fixtures, tokens, users and their permissions, records and policy of the
    reference server."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def fixtures(self, workspace: Workspace) -> Fixtures:
        chosen = self.backend.workspace(workspace)
        with self.backend.transaction() as tx:
            ordered = sorted(tx.all(chosen, "pipeline"), key=lambda p: p["position"])
            return Fixtures(
                pipelines=tuple(
                    Pipeline(
                        id=pipeline["id"],
                        stages=tuple(
                            Stage(id=s["id"], default_probability=s["default_probability"])
                            for s in sorted(pipeline["stages"], key=lambda s: s["position"])
                        ),
                    )
                    for pipeline in ordered
                ),
                lost_reasons=tuple(r["id"] for r in tx.all(chosen, "lost_reason")),
                users=tuple(u["id"] for u in tx.all(chosen, "user") if u["status"] == "active"),
                contact_custom_fields=tuple(
                    f["key"] for f in tx.find(chosen, "field", resource="contact")
                ),
                deal_custom_fields=tuple(
                    f["key"] for f in tx.find(chosen, "field", resource="deal")
                ),
                organization_custom_fields=tuple(
                    f["key"] for f in tx.find(chosen, "field", resource="organization")
                ),
                custom_field_samples={
                    resource: {
                        f["key"]: self._sample(f["type"])
                        for f in tx.find(chosen, "field", resource=resource)
                    }
                    for resource in ("contact", "organization", "deal")
                },
            )

    def _sample(self, field_type: str) -> CustomFieldSample:
        """What a field of `field_type` takes and refuses (swapped for a number under the
        `adapter_samples_untrue` fault)."""
        sample = SAMPLES[field_type]
        if field_type == "number" and self.backend.settings.has_adapter_fault(
            "adapter_samples_untrue"
        ):
            return CustomFieldSample(accepted=sample.refused[0], refused=(sample.accepted,))
        return sample

    # --- tokens and people -------------------------------------------------------------

    def create_token(self, request: TokenRequest) -> IssuedToken:
        workspace = self.backend.workspace(request.workspace)
        unknown = sorted(set(request.scopes or ()) - set(ALL_SCOPES))
        if unknown:
            raise Refusal.invalid([Problem("scopes", f"unknown scope(s): {', '.join(unknown)}")])
        with self.backend.transaction() as tx:
            fields = checked({"user_id": request.user_id} if request.user_id else {}, ("user_id",))
            user_id = owners.user_field(tx, workspace, fields, "user_id")
            fields.check()
            if request.kind == "oauth" and user_id is None:
                user_id = _admin(tx, workspace)
            rate = request.rate_limit
            issued = issue_token(
                tx,
                self.backend.settings.secret,
                workspace=workspace,
                kind=request.kind,
                scopes=request.scopes,
                user_id=user_id,
                state=request.state,
                live=request.live,
                rate_limit=(rate.limit, rate.window_seconds) if rate is not None else None,
            )
        return IssuedToken(
            id=issued.id,
            token=issued_form(issued.token, self.backend.settings.faults),
            kind=issued.kind,
            scopes=issued.scopes,
            user_id=user_id,
            state=request.state,
        )

    def revoke_token(self, token_id: str) -> None:
        with self.backend.transaction() as tx:
            revoked = revoke_token(tx, token_id)
            if not revoked and not self.backend.settings.has_adapter_fault(
                "adapter_revoke_unknown_ok"
            ):
                raise Refusal.not_found("token")

    def create_user(self, request: UserRequest) -> dict[str, Any]:
        """A new active member with the least privileged role and no team."""
        workspace = self.backend.workspace(request.workspace)
        with self.backend.transaction() as tx:
            number = len(tx.all(workspace, "user")) + 1
            record = tx.insert(
                workspace,
                "user",
                {
                    "name": request.name or f"Member {number}",
                    "email": f"member{number}.{workspace}@example.com",
                    "role": "member",
                    "status": "active",
                },
            )
        return directory.render_user(record)

    # --- permissions -------------------------------------------------------------------

    def set_permissions(self, request: PermissionsRequest) -> PermissionsRequest:
        """Withhold (false) or give back (true) what the person's OAuth tokens may do."""
        wanted = {"changes": request.changes, "conversations": request.conversations}
        if self.backend.settings.has_adapter_fault("adapter_permissions_ignored"):
            wanted = dict.fromkeys(wanted, True)
        with self.backend.transaction() as tx:
            workspace = next((ws for ws in WORKSPACES if tx.get(ws, "user", request.user_id)), None)
            if workspace is None:
                raise Refusal.not_found("user")
            user = tx.get(workspace, "user", request.user_id)
            assert user is not None
            withheld = [name for name in grants.PERMISSIONS if not wanted[name]]
            tx.update(workspace, "user", {**user, "withheld": withheld}, touch=False)
        return request

    # --- records -----------------------------------------------------------------------

    def create_record(self, request: RecordRequest) -> dict[str, Any]:
        """A contact, organization, deal or activity from response field names, rendered
        as the API renders it on retrieve."""
        workspace = self.backend.workspace(request.workspace)
        acting = self.backend.acting(workspace)
        created_at = stamp_or_none(request.created_at)
        values = dict(request.fields)
        with self.backend.transaction() as tx:
            stored = _READERS[request.kind](acting, tx, values)
            if request.kind == "deal" and created_at is not None:
                stored["stage_changed_at"] = created_at
            record = tx.insert(
                workspace,
                request.kind,
                stored,
                created_at=created_at,
                updated_at=stamp_or_none(request.updated_at),
            )
            return _RENDERERS[request.kind](tx, workspace, record)

    def delete_record(self, record_id: str) -> None:
        """Delete a record of any workspace (ids are unique across them); contacts,
        organizations, deals and activities appear in the deletion feed. A campaign goes
        with its participants; a user leaves the workspace."""
        kind = kind_of(record_id, DELETABLE)
        if kind is None:
            expected = "a con_, org_, deal_, act_, tag_, camp_ or usr_ id"
            raise Refusal.invalid(
                [Problem("record_id", f"must be {expected}", "pattern")], status=400
            )
        with self.backend.transaction() as tx:
            workspace = next((ws for ws in WORKSPACES if tx.get(ws, kind, record_id)), None)
            if workspace is None:
                raise Refusal.not_found(kind)
            if self.backend.settings.has_fault("deletion_feed_misses_adapter_deletes"):
                tx.execute("DELETE FROM records WHERE id = ?", (record_id,))
                return
            soft = {"contact": "deleted_records_still_served", "deal": "deleted_deals_still_served"}
            if kind in soft and self.backend.settings.has_fault(soft[kind]):
                tx.note_deletion(workspace, kind, record_id)
                return
            if kind == "campaign":
                for participant in tx.find(workspace, "participant", campaign_id=record_id):
                    tx.delete(workspace, "participant", participant["id"])
            tx.delete(workspace, kind, record_id)

    # --- policy ------------------------------------------------------------------------

    def set_policy(self, request: PolicyRequest) -> bool:
        """`local_write: false` mirrors the entity from an external CRM (writes answer 403)."""
        if self.backend.settings.has_fault("adapter_policy_answers_500"):
            raise Refusal(500, "internal_error", "the policy store is unavailable")
        workspace = self.backend.workspace(request.workspace)
        with self.backend.transaction() as tx:
            policy.set_local_write(tx, workspace, request.entity, request.local_write)
            return policy.local_write(tx, workspace, request.entity)


def _admin(tx: Transaction, workspace: str) -> str:
    """The workspace administrator an OAuth token acts for when no person is named."""
    users = tx.all(workspace, "user")
    return str(next((u for u in users if u["role"] == "admin"), users[0])["id"])


def stamp_or_none(instant: datetime | None) -> str | None:
    """The stored form of an optional instant."""
    return stamp(instant) if instant is not None else None


def _contact(acting: Call, tx: Transaction, values: dict[str, Any]) -> Record:
    return contacts.read_changes(acting, tx, values, None)[0]


def _organization(acting: Call, tx: Transaction, values: dict[str, Any]) -> Record:
    return organizations.read_changes(acting, tx, values, None)


def _deal(acting: Call, tx: Transaction, values: dict[str, Any]) -> Record:
    """`pipeline_id`, `stage_id` and `title` may be left out: the first stage of the first
    pipeline and a generated title."""
    chosen = dict(values)
    if "pipeline_id" not in chosen and "stage_id" not in chosen:
        first = min(tx.all(acting.workspace, "pipeline"), key=lambda p: p["position"])
        chosen["pipeline_id"] = first["id"]
        chosen["stage_id"] = min(first["stages"], key=lambda s: s["position"])["id"]
    elif "pipeline_id" not in chosen and isinstance(chosen["stage_id"], str):
        found = pipelines.stage_of(tx, acting.workspace, chosen["stage_id"])
        if found is not None:
            chosen["pipeline_id"] = found[0]["id"]
    chosen.setdefault("title", "Deal")
    return deals.read_changes(acting, tx, chosen, None)


def _activity(acting: Call, tx: Transaction, values: dict[str, Any]) -> Record:
    """Any response type (`resume_conversation` too) and status; the agent's plan is
    created by the AI agent, others by an integration (`created_by` null) unless named."""
    fields = checked(values, ACTIVITY_FIELDS, "fields")
    title = fields.string("title", required=True, min_length=1, max_length=activities.MAX_TITLE)
    due_at = fields.instant("due_at", required=True)
    record_id = fields.identifier("record_id", activities.RECORD_KINDS, required=True)
    description = fields.string(
        "description", nullable=False, max_length=activities.MAX_DESCRIPTION
    )
    kind = fields.string("type", nullable=False, choices=activities.TYPES) or "task"
    status = fields.string("status", nullable=False, choices=activities.STATUSES)
    status_reason = fields.string("status_reason", max_length=activities.MAX_DESCRIPTION)
    assignee_id = owners.user_field(tx, acting.workspace, fields, "assignee_id")
    agent_id = tx.setting(acting.workspace, "agent_id")
    created_by = fields.identifier("created_by", ("user", "agent"))
    if created_by is not None and created_by != agent_id:
        created_by = owners.user_field(tx, acting.workspace, fields, "created_by")
    fields.check()
    assert record_id is not None
    return {
        "title": title,
        "description": description or "",
        "type": kind,
        "status": status or "open",
        "due_at": due_at,
        "record_id": record_id,
        "record_kind": activities.linked_record(acting, tx, record_id),
        "assignee_id": assignee_id,
        "created_by": created_by
        if fields.has("created_by")
        else (agent_id if kind == activities.AGENT_TYPE else None),
        "status_reason": status_reason,
    }


_READERS: dict[str, Callable[[Call, Transaction, dict[str, Any]], Record]] = {
    "contact": _contact,
    "organization": _organization,
    "deal": _deal,
    "activity": _activity,
}
"""Record kind -> the stored form of a new record, validated as the API's create does."""

_RENDERERS: dict[str, Callable[[Transaction, str, Record], dict[str, Any]]] = {
    "contact": contacts.render,
    "organization": organizations.render,
    "deal": deals.render,
    "activity": activities.render,
}
