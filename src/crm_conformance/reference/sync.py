"""The deletion feed: `GET /v1/deleted-records`, how a sync client learns of deletions.

Its shape is not shown in the document; the choice here: `entity` (required) names
the resource listed, by the scope table's plural name (400 `unknown_entity` for
another name), and its read scope is needed ("Listing deleted records needs the read
scope of the resource listed"). `deleted_since` keeps deletions at or after an instant,
like `updated_since`. Items are `{object: deleted_record, id, entity, deleted_at}` in
the order of deletion, in the usual collection envelope with keyset paging, so a
deletion made while paging is never skipped. Every delete goes through
`Transaction.delete`, which appends to the feed: the API's and the adapter's.
"""

from typing import Any

from crm_conformance.reference.api_errors import ApiError, bad_query
from crm_conformance.reference.listing import ListSpec, parse_since
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.routing import Call, RouteTable, require_scopes
from crm_conformance.reference.storage import Record

routes = RouteTable()

ENTITIES: dict[str, str] = {
    "contacts": "contact",
    "organizations": "organization",
    "deals": "deal",
    "activities": "activity",
    "notes": "note",
    "tags": "tag",
}
"""Resources with deletions, by the name the scope table gives them, and their kind."""

SPEC = ListSpec(
    name="deleted_records",
    fields=frozenset({"entity", "deleted_at"}),
    sortable=False,
    default_sort=("seq",),
    order_keys={"seq": lambda row: row["seq"]},
)


def render(entity: str, row: Record, *, as_object: bool = False) -> dict[str, Any]:
    """A deletion: `{object: deleted_record, id, entity, deleted_at}`, or under the
    `deletion_items_as_objects` variant the record's own object marked deleted."""
    if as_object:
        return {"id": row["id"], "object": row["kind"], "deleted": True}
    return {
        "object": "deleted_record",
        "id": row["id"],
        "entity": entity,
        "deleted_at": row["deleted_at"],
    }


def _names(call: Call) -> dict[str, str]:
    """The `entity` values this server takes, each with the scope table's resource name:
    the plural names, or the `object` values under `singular_deletion_entities`."""
    if call.settings.has_variant("singular_deletion_entities"):
        return {kind: resource for resource, kind in ENTITIES.items()}
    return {resource: resource for resource in ENTITIES}


@routes.get("/v1/deleted-records")
def list_deleted_records(call: Call) -> Reply:
    params = call.list_params(SPEC, filters=("entity", "deleted_since"))
    entity = call.single("entity")
    if entity is None:
        raise bad_query("entity", "is required: the resource whose deletions to list", "missing")
    names = _names(call)
    if entity not in names and call.settings.has_fault("unknown_entity_lists_nothing"):
        return call.list_reply(SPEC, [], params, {"entity": entity}, lambda r: r)
    if entity not in names:
        raise ApiError(
            400,
            "unknown_entity",
            f"No resource named {entity!r}; one of {', '.join(names)}.",
            param="entity",
        )
    resource = names[entity]
    if not call.settings.has_fault("deleted_records_without_scope_check"):
        deals_by_contact = resource == "deals" and call.settings.has_fault(
            "deleted_deals_need_contacts_read"
        )
        require_scopes(call, ("contacts:read",) if deals_by_contact else (f"{resource}:read",))
    since = parse_since("deleted_since", call.single("deleted_since"))
    kind = ENTITIES[resource]
    # under its fault, tombstones are kept for the CRM records only, not activities
    untracked = kind == "activity" and call.settings.has_fault("deletion_feed_skips_activities")
    with call.transaction() as tx:
        leaky = call.settings.has_fault("deletion_feed_all_workspaces")
        # under its fault, the contacts feed is the CRM's one feed: every kind's tombstones
        crm_wide = call.settings.has_fault("contacts_feed_lists_every_resource")
        rows = [
            row
            for workspace in (tx.workspaces() if leaky else [call.workspace])
            for row in tx.deletions(workspace)
            if (row["kind"] == kind or (kind == "contact" and crm_wide))
            and not untracked
            and (since is None or row["deleted_at"] >= since)
        ]
    as_object = call.settings.has_variant("deletion_items_as_objects")
    return call.list_reply(
        SPEC,
        rows,
        params,
        {"entity": entity, "deleted_since": since},
        lambda r: render(entity, r, as_object=as_object),
    )
