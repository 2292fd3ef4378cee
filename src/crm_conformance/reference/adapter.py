"""The provisioning adapter (`spec/adapter.yaml`): tokens, people, records and policy.

A control plane beside the API for arranging what the public API cannot: a token
with chosen scopes or state, a person with limited visibility, a record in any
rendered state (a `won` contact, a `private` deal, the AI agent's
`resume_conversation` plan, chosen timestamps), a deletion for the deletion feed, an
entity mirrored from an external CRM. It takes no token (the middleware neither
authenticates nor counts `/_adapter` requests), but answers errors in the API's
envelope. Records are validated by the API's own `read_changes`, through a call acting
as a full-scope workspace token, so the adapter cannot store what the API could not
render. Conversations, campaigns and success event types live in `adapter_domain`.
"""

import importlib.util
from typing import Any, cast

from crm_conformance.reference import (
    activities,
    contacts,
    deals,
    directory,
    organizations,
    owners,
    pipelines,
    policy,
)
from crm_conformance.reference.api_errors import bad_query, not_found
from crm_conformance.reference.identifiers import kind_of
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.scopes import ALL_SCOPES
from crm_conformance.reference.seed import WORKSPACES
from crm_conformance.reference.storage import Record, Transaction
from crm_conformance.reference.tokens import TokenKind, TokenState, issue_token, revoke_token

routes = RouteTable(authenticated=False)

FEATURES = ("fixtures", "tokens", "users", "records", "policy")
"""Features this module serves."""
DOMAIN_FEATURES = ("conversations", "inbound", "campaigns", "success_event_types")
"""Features served by `adapter_domain`, offered only when that module exists."""
RECORD_KINDS = ("contact", "organization", "deal", "activity")
ACTIVITY_FIELDS = (
    "title", "description", "type", "status", "due_at", "record_id", "assignee_id",
    "created_by", "status_reason",
)  # fmt: skip


def offered_features() -> list[str]:
    """The features health names: the domain ones only where the domain module ships."""
    domain = importlib.util.find_spec(f"{__package__}.adapter_domain") is not None
    return [*FEATURES, *(DOMAIN_FEATURES if domain else ())]


def _workspace(fields: BodyFields) -> str:
    """The body's `workspace` (checked with the other fields: 422 when it is not one)."""
    return fields.string("workspace", required=True, choices=WORKSPACES) or ""


@routes.get("/_adapter/v1/health")
def health(call: Call) -> Reply:
    return Reply(200, {"ok": True, "features": offered_features()})


@routes.get("/_adapter/v1/fixtures")
def fixtures(call: Call) -> Reply:
    """Pipelines with stage default probabilities, lost reasons, active users and the
    contact custom field keys of the workspace."""
    call.allow_query(("workspace",))
    workspace = call.single("workspace")
    if workspace not in WORKSPACES:
        raise bad_query("workspace", f"must be one of {', '.join(WORKSPACES)}", "enum")
    with call.transaction() as tx:
        ordered = sorted(tx.all(workspace, "pipeline"), key=lambda p: p["position"])
        return Reply(
            200,
            {
                "pipelines": [
                    {
                        "id": pipeline["id"],
                        "stages": [
                            {"id": s["id"], "default_probability": s["default_probability"]}
                            for s in sorted(pipeline["stages"], key=lambda s: s["position"])
                        ],
                    }
                    for pipeline in ordered
                ],
                "lost_reasons": [r["id"] for r in tx.all(workspace, "lost_reason")],
                "users": [u["id"] for u in tx.all(workspace, "user") if u["status"] == "active"],
                "contact_custom_fields": [
                    f["key"] for f in tx.find(workspace, "field", resource="contact")
                ],
            },
        )


# --- tokens and people -------------------------------------------------------------------


@routes.post("/_adapter/v1/tokens")
def create_token(call: Call) -> Reply:
    fields = BodyFields(
        call.json(),
        allowed=("workspace", "kind", "scopes", "user_id", "state", "live", "rate_limit"),
    )
    workspace = _workspace(fields)
    kind = fields.string("kind", required=True, choices=("workspace", "oauth"))
    scopes = fields.list_of_strings("scopes", max_items=len(ALL_SCOPES))
    unknown = sorted(set(scopes or ()) - set(ALL_SCOPES))
    if unknown:
        fields.problem("scopes", f"unknown scope(s): {', '.join(unknown)}", "enum")
    state = fields.string("state", nullable=False, choices=("active", "expired", "revoked"))
    live = fields.boolean("live")
    rate_limit = _rate_limit(fields)
    if kind == "workspace" and fields.has("user_id"):
        fields.problem("user_id", "is only allowed with kind oauth", "not_allowed")
    with call.transaction() as tx:
        user_id = owners.user_field(tx, workspace, fields, "user_id") if workspace else None
        fields.check()
        if kind == "oauth" and user_id is None:
            user_id = _admin(tx, workspace)
        issued = issue_token(
            tx,
            call.settings.secret,
            workspace=workspace,
            kind=cast(TokenKind, kind),
            scopes=tuple(dict.fromkeys(scopes)) if scopes is not None else None,
            user_id=user_id,
            state=cast(TokenState, state or "active"),
            live=bool(live),
            rate_limit=rate_limit,
        )
    body = {
        "id": issued.id,
        "token": issued.token,
        "kind": issued.kind,
        "scopes": list(issued.scopes),
        "user_id": user_id,
        "state": state or "active",
    }
    return Reply(201, body)


def _rate_limit(fields: BodyFields) -> tuple[int, int] | None:
    value = fields.object("rate_limit")
    if value is None:
        return None
    nested = BodyFields(value, allowed=("limit", "window_seconds"), path="rate_limit")
    limit = nested.integer("limit", required=True, minimum=1, maximum=1_000_000)
    window = nested.integer("window_seconds", required=True, minimum=1, maximum=86_400)
    fields.problems.extend(nested.problems)
    return (limit, window) if limit is not None and window is not None else None


def _admin(tx: Transaction, workspace: str) -> str:
    """The workspace administrator an OAuth token acts for when no person is named."""
    users = tx.all(workspace, "user")
    return str(next((u for u in users if u["role"] == "admin"), users[0])["id"])


@routes.post("/_adapter/v1/tokens/{token_id}/revoke")
def revoke(call: Call) -> Reply:
    token_id = call.path_params["token_id"]
    with call.transaction() as tx:
        if not revoke_token(tx, token_id):
            raise not_found("token")
    return Reply(200, {"id": token_id, "state": "revoked"})


@routes.post("/_adapter/v1/users")
def create_user(call: Call) -> Reply:
    """A new active member with the least privileged role and no team."""
    fields = BodyFields(call.json(), allowed=("workspace", "name"))
    workspace = _workspace(fields)
    name = fields.string("name", min_length=1, max_length=255)
    fields.check()
    with call.transaction() as tx:
        number = len(tx.all(workspace, "user")) + 1
        record = tx.insert(
            workspace,
            "user",
            {
                "name": name or f"Member {number}",
                "email": f"member{number}.{workspace}@example.com",
                "role": "member",
                "status": "active",
            },
        )
    return Reply(201, directory.render_user(record))


# --- records -----------------------------------------------------------------------------


@routes.post("/_adapter/v1/records")
def create_record(call: Call) -> Reply:
    """A contact, organization, deal or activity from response field names, rendered as
    the API renders it on retrieve."""
    fields = BodyFields(
        call.json(), allowed=("workspace", "kind", "fields", "created_at", "updated_at")
    )
    workspace = _workspace(fields)
    kind = fields.string("kind", required=True, choices=RECORD_KINDS)
    values = fields.object("fields")
    if fields.body.get("fields") is None:
        fields.problem("fields", "is required", "missing")
    created_at = fields.instant("created_at")
    updated_at = fields.instant("updated_at")
    fields.check()
    acting = call.as_workspace(workspace)
    with call.transaction() as tx:
        stored = _read_record(acting, tx, kind or "", values or {}, created_at)
        record = tx.insert(
            workspace, kind or "", stored, created_at=created_at, updated_at=updated_at
        )
        return Reply(201, _render(tx, workspace, kind or "", record))


def _read_record(
    acting: Call, tx: Transaction, kind: str, values: dict[str, Any], created_at: str | None
) -> Record:
    """The stored form of a new record, validated as the API's create validates it."""
    if kind == "contact":
        return contacts.read_changes(acting, tx, values, None)[0]
    if kind == "organization":
        return organizations.read_changes(acting, tx, values, None)
    if kind == "deal":
        changes = deals.read_changes(acting, tx, _deal_defaults(tx, acting.workspace, values), None)
        if created_at is not None:
            changes["stage_changed_at"] = created_at
        return changes
    return _activity(acting, tx, values)


def _deal_defaults(tx: Transaction, workspace: str, values: dict[str, Any]) -> dict[str, Any]:
    """`pipeline_id`, `stage_id` and `title` may be left out: the first stage of the first
    pipeline and a generated title."""
    chosen = dict(values)
    if "pipeline_id" not in chosen and "stage_id" not in chosen:
        first = min(tx.all(workspace, "pipeline"), key=lambda p: p["position"])
        chosen["pipeline_id"] = first["id"]
        chosen["stage_id"] = min(first["stages"], key=lambda s: s["position"])["id"]
    elif "pipeline_id" not in chosen and isinstance(chosen["stage_id"], str):
        found = pipelines.stage_of(tx, workspace, chosen["stage_id"])
        if found is not None:
            chosen["pipeline_id"] = found[0]["id"]
    chosen.setdefault("title", "Deal")
    return chosen


def _activity(acting: Call, tx: Transaction, values: dict[str, Any]) -> Record:
    """Any response type (`resume_conversation` too) and status; the agent's plan is
    created by the AI agent, others by an integration (`created_by` null) unless named."""
    fields = BodyFields(values, allowed=ACTIVITY_FIELDS, path="fields")
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


def _render(tx: Transaction, workspace: str, kind: str, record: Record) -> dict[str, Any]:
    if kind == "contact":
        return contacts.render(tx, workspace, record)
    if kind == "organization":
        return organizations.render(tx, workspace, record)
    if kind == "deal":
        return deals.render(tx, workspace, record)
    return activities.render(tx, workspace, record)


@routes.delete("/_adapter/v1/records/{record_id}")
def delete_record(call: Call) -> Reply:
    """Delete a record of any workspace (its kind from the id prefix); the deletion
    appears in the deletion feed."""
    record_id = call.path_params["record_id"]
    kind = kind_of(record_id, RECORD_KINDS)
    if kind is None:
        raise bad_query("record_id", "must be a con_, org_, deal_ or act_ id", "pattern")
    with call.transaction() as tx:
        workspace = next((ws for ws in WORKSPACES if tx.get(ws, kind, record_id)), None)
        if workspace is None:
            raise not_found(kind)
        if call.settings.has_fault("deletion_feed_misses_adapter_deletes"):
            tx.execute("DELETE FROM records WHERE id = ?", (record_id,))
        else:
            tx.delete(workspace, kind, record_id)
    return Reply(204)


# --- policy ------------------------------------------------------------------------------


@routes.put("/_adapter/v1/policy/{entity}")
def set_policy(call: Call) -> Reply:
    """`local_write: false` mirrors the entity from an external CRM (writes answer 403)."""
    entity = call.path_params["entity"]
    fields = BodyFields(call.json(), allowed=("workspace", "local_write"))
    workspace = _workspace(fields)
    allowed = fields.boolean("local_write")
    if allowed is None and not fields.problems:
        fields.problem("local_write", "is required", "missing")
    fields.check()
    with call.transaction() as tx:
        policy.set_local_write(tx, workspace, entity, bool(allowed))
        return Reply(
            200, {"entity": entity, "local_write": policy.local_write(tx, workspace, entity)}
        )
