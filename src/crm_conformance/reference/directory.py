"""The workspace directory: users, audiences, channels and lost reasons (read only).

Scopes for these are not shown in the document; any valid token of the workspace may
read them. Users list in the order they joined and audiences newest first, both in
one fixed order (a `sort` answers 400 `unsupported_sort`).
"""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from crm_conformance.reference.api_errors import not_found
from crm_conformance.reference.listing import DEFAULT_LIMIT, ListSpec
from crm_conformance.reference.rendering import stored
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record

routes = RouteTable()


def _created(row: Record) -> Any:
    return row["created_at"]


USERS = ListSpec(
    name="users",
    fields=frozenset({"name", "email", "role", "status", "created_at"}),
    sortable=False,
    default_sort=("created_at",),
    order_keys={"created_at": _created},
)
AUDIENCES = ListSpec(
    name="audiences",
    fields=frozenset({"name", "status", "created_at", "updated_at"}),
    sortable=False,
    default_sort=("-created_at",),
    order_keys={"created_at": _created},
)
CHANNELS = ListSpec(
    name="channels",
    fields=frozenset({"platform", "name", "status", "created_at", "updated_at"}),
    sortable=False,
    default_sort=("created_at",),
    order_keys={"created_at": _created},
)
LOST_REASONS = ListSpec(
    name="lost_reasons",
    fields=frozenset({"name", "created_at"}),
    sortable=False,
    default_sort=("created_at",),
    order_keys={"created_at": _created},
)


def render_user(row: Record) -> dict[str, Any]:
    return stored(row, "user", "name", "email", "role", "status", "created_at")


def render_audience(row: Record) -> dict[str, Any]:
    return stored(row, "audience", "name", "status", "created_at", "updated_at")


def render_channel(row: Record) -> dict[str, Any]:
    return stored(row, "channel", "platform", "name", "status", "created_at", "updated_at")


def render_lost_reason(row: Record) -> dict[str, Any]:
    return stored(row, "lost_reason", "name", "created_at")


def _list(call: Call, kind: str, spec: ListSpec, render: Any) -> Reply:
    params = call.list_params(spec)
    if kind == "user" and call.settings.has_fault("users_cursor_ignored"):
        params = replace(params, cursor=None)
    if kind == "audience" and call.settings.has_fault("audiences_limit_ignored"):
        params = replace(params, limit=DEFAULT_LIMIT)
    with call.transaction() as tx:
        rows = tx.all(call.workspace, kind)
        if kind == "user" and call.settings.has_fault("users_list_shows_members_added_anywhere"):
            others = (ws for ws in tx.workspaces() if ws != call.workspace)
            rows += [u for ws in others for u in tx.all(ws, "user") if u.get("role") == "member"]
    return call.list_reply(spec, rows, params, {}, render)


def _listed_user(call: Call) -> Callable[[Record], dict[str, Any]]:
    """How the user list renders a member (its faults drop a field's value or key)."""
    if call.settings.has_fault("user_name_dropped"):
        return lambda row: {**render_user(row), "name": None}
    if call.settings.has_fault("user_role_dropped"):
        return lambda row: {k: v for k, v in render_user(row).items() if k != "role"}
    if call.settings.has_fault("user_list_object_member"):
        return lambda row: {**render_user(row), "object": "member"}
    return render_user


@routes.get("/v1/users", variant_scopes=(("directory_needs_contacts_read", ("contacts:read",)),))
def list_users(call: Call) -> Reply:
    spec = USERS
    if call.settings.has_fault("users_newest_first"):
        spec = replace(USERS, default_sort=("-created_at",))
    elif call.settings.has_fault("users_listed_by_name"):
        by_name = {"name": lambda row: str(row.get("name") or "").casefold()}
        spec = replace(USERS, default_sort=("name",), order_keys=by_name)
    return _list(call, "user", spec, _listed_user(call))


@routes.get("/v1/users/{user_id}")
def get_user(call: Call) -> Reply:
    user_id = call.path_id("user_id", "user")
    call.allow_query(())
    with call.transaction() as tx:
        row = tx.get(call.workspace, "user", user_id)
    if row is None:
        raise not_found("user")
    return Reply(200, render_user(row))


@routes.get(
    "/v1/audiences", variant_scopes=(("directory_needs_contacts_read", ("contacts:read",)),)
)
def list_audiences(call: Call) -> Reply:
    oldest_first = call.settings.has_fault("audiences_oldest_first")
    spec = replace(AUDIENCES, default_sort=("created_at",)) if oldest_first else AUDIENCES
    if call.settings.has_fault("audience_status_null"):
        return _list(call, "audience", spec, lambda row: {**render_audience(row), "status": None})
    return _list(call, "audience", spec, render_audience)


@routes.get("/v1/channels")
def list_channels(call: Call) -> Reply:
    return _list(call, "channel", CHANNELS, render_channel)


@routes.get("/v1/lost-reasons")
def list_lost_reasons(call: Call) -> Reply:
    return _list(call, "lost_reason", LOST_REASONS, render_lost_reason)
