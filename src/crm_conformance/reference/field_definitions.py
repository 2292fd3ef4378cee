"""Field definitions: built-in and custom fields of contacts, organizations and deals.

Custom fields are defined per workspace and resource (seeded); every defined one
appears in a record's `custom_fields`, null when unset. `GET /v1/fields` lists them.
"""

import hashlib
from typing import Any

from crm_conformance.reference.api_errors import bad_query, not_found
from crm_conformance.reference.listing import ListSpec
from crm_conformance.reference.rendering import stored
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

BUILT_IN = {
    "contact": (
        "first_name", "last_name", "name", "email", "phone", "address", "city", "state",
        "job_title", "company_name", "organization_id", "owner_id", "score", "status",
        "lost_reason", "channels", "tags", "external_id", "visibility",
    ),
    "organization": ("name", "website", "owner_id", "tags", "external_id", "visibility"),
    "deal": (
        "title", "pipeline_id", "stage_id", "contact_id", "organization_id", "owner_id",
        "value", "probability", "score", "status", "lost_reason_id", "lost_justification",
        "expected_close_date", "tags", "external_id", "visibility",
    ),
}  # fmt: skip
MAX_TEXT = 1000
ENUMS = frozenset({"score", "status", "visibility"})

routes = RouteTable()

SPEC = ListSpec(
    name="fields",
    fields=frozenset({"resource", "key", "label", "type", "built_in"}),
    sortable=False,
    default_sort=("resource", "position"),
    order_keys={"resource": lambda r: r["resource"], "position": lambda r: r["position"]},
)


def definitions(tx: Transaction, workspace: str, resource: str) -> list[Record]:
    """The custom field definitions of `resource`, in the order they were defined."""
    return tx.memo(
        ("field definitions", workspace, resource),
        lambda: tx.find(workspace, "field", resource=resource),
    )


def render_values(
    tx: Transaction, workspace: str, resource: str, stored: dict[str, Any] | None
) -> dict[str, Any]:
    """`custom_fields` as rendered: every defined key, null when unset."""
    values = stored or {}
    return {d["key"]: values.get(d["key"]) for d in definitions(tx, workspace, resource)}


def read_values(
    tx: Transaction,
    workspace: str,
    resource: str,
    fields: BodyFields,
    current: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The `custom_fields` of a body merged over `current`: keys must be defined; a text
    field takes a string, a number field a number; null unsets."""
    given = fields.object("custom_fields")
    if given is None:
        return None if not fields.has("custom_fields") else {}
    types = {d["key"]: d["type"] for d in definitions(tx, workspace, resource)}
    merged = dict(current or {})
    nested = BodyFields(given, allowed=types, path=fields.field("custom_fields"))
    for key, kind in types.items():
        if not nested.has(key):
            continue
        value = nested.string(key, max_length=MAX_TEXT) if kind == "text" else nested.number(key)
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    fields.problems.extend(nested.problems)
    return merged


@routes.get(
    "/v1/fields",
    scopes=("fields:read",),
    variant_scopes=(("fields_guarded_by_contacts_read", ("contacts:read",)),),
)
def list_fields(call: Call) -> Reply:
    """Built-in fields first, then the workspace's custom fields, per resource; the
    optional `resource` (repeatable) keeps those of the resources named."""
    if call.settings.has_fault("field_list_not_served"):
        raise not_found("endpoint")
    params = call.list_params(SPEC, filters=("resource",))
    wanted = call.query.getlist("resource")
    if not wanted and call.settings.has_variant("fields_need_resource"):
        raise bad_query("resource", "is required: the resource whose fields to list", "missing")
    unknown = sorted(set(wanted) - BUILT_IN.keys())
    if unknown and not call.settings.has_fault("fields_unknown_resource_lists_none"):
        raise bad_query("resource", f"one of {', '.join(BUILT_IN)}, not {unknown[0]!r}", "enum")
    rows: list[Record] = []
    with call.transaction() as tx:
        for resource, names in BUILT_IN.items():
            if wanted and resource not in wanted:
                continue
            for position, key in enumerate(names):
                rows.append(
                    {
                        "id": _built_in_id(resource, key),
                        "resource": resource,
                        "key": key,
                        "label": key.replace("_", " ").capitalize(),
                        "type": _built_in_type(key),
                        "built_in": True,
                        "position": position,
                    }
                )
            custom = definitions(tx, call.workspace, resource)
            if call.settings.has_fault("field_list_builtin_only"):
                custom = []  # the list was written before custom fields existed
            for position, definition in enumerate(custom):
                rows.append({**definition, "built_in": False, "position": len(names) + position})
    return call.list_reply(SPEC, rows, params, {"resource": sorted(wanted)}, _render)


def _built_in_id(resource: str, key: str) -> str:
    """A stable id of the usual form for a built-in field."""
    return "fld_" + hashlib.sha256(f"{resource}.{key}".encode()).hexdigest()[:32]


def _built_in_type(key: str) -> str:
    if key.endswith("_id"):
        return "id"
    if key in ENUMS:
        return "enum"
    if key in ("channels", "tags"):
        return "list"
    if key in ("value", "probability"):
        return "number"
    return "date_time" if key.endswith("_date") else "text"


def _render(row: Record) -> dict[str, Any]:
    return stored(row, "field", "resource", "key", "label", "type", "built_in")
