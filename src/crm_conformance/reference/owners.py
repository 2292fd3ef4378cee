"""Owners: the teammate (`usr_`) or AI agent (`agt_`) a record or conversation belongs to."""

from collections.abc import Callable
from typing import Any

from crm_conformance.reference.identifiers import is_id
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.storage import Transaction


def render_owner(tx: Transaction, workspace: str, owner_id: str | None) -> dict[str, Any] | None:
    """The Owner object `{id, kind, name, object}` of `owner_id`, or None."""
    if owner_id is None:
        return None
    kind = "agent" if is_id(owner_id, "agent") else "user"
    record = tx.get(workspace, kind, owner_id)
    return {
        "id": owner_id,
        "kind": kind,
        "name": record.get("name") if record else None,
        "object": "owner",
    }


def put_owner(
    rendered: dict[str, Any], tx: Transaction, workspace: str, owner_id: str | None
) -> None:
    """Add `owner` to a rendered record that has one (absent, not null, otherwise)."""
    owner = render_owner(tx, workspace, owner_id)
    if owner is not None:
        rendered["owner"] = owner


def user_field(
    tx: Transaction, workspace: str, fields: BodyFields, name: str, *, required: bool = False
) -> str | None:
    """A body field naming a teammate of the workspace (`usr_` id)."""
    user_id = fields.identifier(name, "user", required=required)
    if user_id is not None and tx.get(workspace, "user", user_id) is None:
        fields.problem(name, "is not a user of this workspace", "not_found")
        return None
    return user_id


def _split_name(owner: dict[str, Any]) -> dict[str, Any]:
    first, _, last = (owner.get("name") or "").partition(" ")
    return {**owner, "name": {"first": first, "last": last}}


OWNER_FAULTS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "owner_kind_teammate": lambda owner: {**owner, "kind": "teammate"},
    "owner_object_user": lambda owner: {**owner, "object": "user"},
    "owner_name_structured": _split_name,
}
"""Faults of the Owner renderer (fault name -> what it does to a teammate's Owner): the
identifier table's word for a user ("teammate") as its kind, the `object` of the
record it points to, the directory's structured name."""


def owners_rendered(value: Any, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """`value` with `change` applied to every teammate's Owner object in it."""
    if isinstance(value, list):
        return [owners_rendered(item, change) for item in value]
    if not isinstance(value, dict):
        return value
    shaped = {key: owners_rendered(item, change) for key, item in value.items()}
    if value.get("object") == "owner" and value.get("kind") == "user":
        return change(shaped)
    return shaped
