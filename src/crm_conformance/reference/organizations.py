"""Organizations: the company accounts contacts and deals belong to.

The document shows only the embedded form; the same fields are served by the
organization endpoints here (create, list, retrieve, update, delete).
"""

import re
from dataclasses import replace
from typing import Any

from crm_conformance.reference import (
    external_ids,
    field_definitions,
    identifiers,
    owners,
    tags,
    visibility,
)
from crm_conformance.reference.api_errors import bad_query, not_found
from crm_conformance.reference.listing import ListSpec, parse_since
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

FIELDS = (
    "name", "visibility", "created_at", "updated_at", "website", "external_id",
    "custom_fields", "owner_id", "owner", "tags",
)  # fmt: skip
WEB = r"(https?://)?[^\s/]+\.[^\s]+"
"""A web address, as the fault `website_checked_on_create_only` checks it on creates."""

WRITABLE = ("name", "website", "external_id", "custom_fields", "owner_id", "tags", "visibility")
MAX_NAME = 255

routes = RouteTable()

SPEC = ListSpec(
    name="organizations",
    fields=frozenset(FIELDS),
    sort_keys={
        "created_at": lambda r: r["created_at"],
        "updated_at": lambda r: r["updated_at"],
        "name": lambda r: r["name"].casefold(),
    },
)


def render(tx: Transaction, workspace: str, record: Record) -> dict[str, Any]:
    """The organization as embedded in a contact or deal (and as served on its own)."""
    rendered = {
        "id": record["id"],
        "object": "organization",
        "name": record["name"],
        "visibility": record["visibility"],
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
        "website": record.get("website"),
        "external_id": record.get("external_id"),
        "custom_fields": field_definitions.render_values(
            tx, workspace, "organization", record.get("custom_fields")
        ),
        "owner_id": record.get("owner_id"),
        "tags": tags.render_many(tx, workspace, record.get("tags")),
    }
    owners.put_owner(rendered, tx, workspace, record.get("owner_id"))
    return rendered


DELETED_COPY = "organization_copy"
"""Where the fault `deleted_organization_still_embedded` keeps a deleted organization."""


def put_embedded(
    rendered: dict[str, Any],
    tx: Transaction,
    workspace: str,
    organization_id: str | None,
    *,
    any_workspace: bool = False,
) -> None:
    """Add the expanded `organization` of a contact or deal; absent when it has none or
    the caller does not see it (an OAuth token's person: the id alone stays)."""
    record = by_id(tx, workspace, organization_id, any_workspace=any_workspace)
    if record is None or not tx.embeds(record):
        return
    if tx.embed_cache is None:
        rendered["organization"] = render(tx, workspace, record)
    else:  # a read-through cache nobody invalidates on update
        key = (workspace, record["id"])
        rendered["organization"] = tx.embed_cache.setdefault(key, render(tx, workspace, record))


def by_id(
    tx: Transaction, workspace: str, organization_id: str | None, *, any_workspace: bool = False
) -> Record | None:
    """The organization of `workspace` with this id. `any_workspace` is the fault
    `contact_organization_any_workspace`: looked up by the id alone (ids are unique
    across workspaces, so the lookup "needs" no workspace)."""
    if organization_id is None:
        return None
    places = tx.workspaces() if any_workspace else [workspace]
    return next(
        (
            found
            for place in places
            if (
                found := tx.get(place, "organization", organization_id)
                or tx.get(place, DELETED_COPY, organization_id)
            )
        ),
        None,
    )


def find_by_name(tx: Transaction, workspace: str, name: str) -> Record | None:
    """The oldest organization with this name, compared without regard to case or
    surrounding spaces."""
    wanted = name.strip().casefold()
    return next(
        (
            org
            for org in tx.all(workspace, "organization")
            if org["name"].strip().casefold() == wanted
        ),
        None,
    )


def read_changes(call: Call, tx: Transaction, body: Any, current: Record | None) -> dict[str, Any]:
    """The validated changes of a create (current None) or update body."""
    fields = BodyFields(body, allowed=WRITABLE)
    changes: dict[str, Any] = {}
    creating = current is None
    if creating or fields.has("name"):
        shortest = (
            0
            if not creating and call.settings.has_fault("organization_empty_name_on_update")
            else 1
        )
        changes["name"] = fields.string(
            "name", required=True, min_length=shortest, max_length=MAX_NAME
        )
    if fields.has("website"):
        checked = creating and call.settings.has_fault("website_checked_on_create_only")
        changes["website"] = fields.string(
            "website", max_length=2000, pattern=WEB if checked else None
        )
    if fields.has("external_id"):
        changes["external_id"] = external_ids.read(
            fields, call.settings, updating=current is not None
        )
    if fields.has("owner_id"):
        changes["owner_id"] = owners.user_field(tx, call.workspace, fields, "owner_id")
    if fields.has("visibility") or creating:
        changes["visibility"] = (
            fields.string("visibility", nullable=False, choices=visibility.VISIBILITIES)
            or (current or {}).get("visibility")
            or visibility.DEFAULT
        )
    if fields.has("tags"):
        checked = not call.settings.has_fault("organization_tags_any_catalogue")
        changes["tags"] = (
            tags.read_ids(tx, call.workspace, "organization", fields, checked=checked) or []
        )
    if fields.has("custom_fields"):
        stored = (current or {}).get("custom_fields")
        given = fields.body.get("custom_fields")
        if stored and isinstance(given, dict) and call.settings.has_fault("custom_field_null_kept"):
            # a merge that skips nulls: "no value sent" read for "unset it"
            fields.body["custom_fields"] = {k: v for k, v in given.items() if v is not None}
        changes["custom_fields"] = field_definitions.read_values(
            tx, call.workspace, "organization", fields, stored
        )
        if call.settings.has_fault("custom_field_detail_bracketed"):
            fields.problems = [
                replace(p, field=re.sub(r"custom_fields\.(\w+)$", r"custom_fields[\1]", p.field))
                for p in fields.problems
            ]
    fields.check()
    if creating and call.user_id is not None and "owner_id" not in changes:
        changes["owner_id"] = call.user_id
    unchecked = (
        "organization_create_external_id_unchecked"
        if creating
        else "organization_update_external_id_unchecked"
    )
    if not call.settings.has_fault(unchecked):
        # under its fault the unique index is on external_id alone, across workspaces
        everywhere = call.settings.has_fault("organization_external_id_unique_globally")
        # under its fault, contacts and organizations share one table of parties
        shared = call.settings.has_fault("external_id_unique_across_parties")
        for place in tx.workspaces() if everywhere else [call.workspace]:
            for kind in ("organization", "contact") if shared else ("organization",):
                external_ids.ensure_unique(
                    tx, place, kind, changes.get("external_id"), current["id"] if current else None
                )
    return changes


def _visible(call: Call, tx: Transaction, organization_id: str) -> Record:
    record = tx.get(call.workspace, "organization", organization_id)
    if record is None or not call.sees(record):
        raise not_found("organization")
    return record


@routes.post(
    "/v1/organizations",
    scopes=("organizations:write",),
    entity="organizations",
    variant_scopes=(("organization_create_needs_contacts_write", ("contacts:write",)),),
)
def create_organization(call: Call) -> Reply:
    with call.transaction() as tx:
        record = tx.insert(
            call.workspace, "organization", read_changes(call, tx, call.json(), None)
        )
        return call.created(render(tx, call.workspace, record))


@routes.get("/v1/organizations", scopes=("organizations:read",), replaced_by=("no_unshown_lists",))
def list_organizations(call: Call) -> Reply:
    params = call.list_params(SPEC, filters=("external_id", "updated_since"))
    if params.limit >= 200 and call.settings.has_fault("organizations_list_refuses_limit_200"):
        raise bad_query("limit", "must be less than 200", "range")  # `<` for `<=`
    external = call.query.getlist("external_id")
    since = parse_since("updated_since", call.single("updated_since"))
    with call.transaction() as tx:
        rows = [
            row
            for row in tx.all(call.workspace, "organization")
            if (call.sees(row) or call.settings.has_fault("organization_list_ignores_visibility"))
            and (not external or row.get("external_id") in external)
            and (since is None or row["updated_at"] >= since)
        ]
        identity = {"external_id": external, "updated_since": since}
        return call.list_reply(
            SPEC, rows, params, identity, lambda r: _listed(call, render(tx, call.workspace, r))
        )


def _listed(call: Call, rendered: dict[str, Any]) -> dict[str, Any]:
    """A row of the list, with the faults of its own serializer: custom fields without
    the unset ones (as one built for speed writes them), the legacy object name."""
    if call.settings.has_fault("organization_list_omits_unset_custom_fields"):
        values = rendered["custom_fields"] or {}
        rendered["custom_fields"] = {k: v for k, v in values.items() if v is not None}
    if call.settings.has_fault("organization_list_object_company"):
        rendered["object"] = "company"  # "company accounts", the older surface's name
    return rendered


@routes.get("/v1/organizations/{organization_id}", scopes=("organizations:read",))
def get_organization(call: Call) -> Reply:
    organization_id = call.path_id("organization_id", "organization")
    _, fields = call.retrieve_params(SPEC)
    with call.transaction() as tx:
        if call.settings.has_fault("organization_retrieve_ignores_visibility"):
            record = tx.get(call.workspace, "organization", organization_id)  # no person check
            if record is None:
                raise not_found("organization")
        else:
            record = _visible(call, tx, organization_id)
        return Reply(200, call.narrow(render(tx, call.workspace, record), fields))


@routes.patch(
    "/v1/organizations/{organization_id}", scopes=("organizations:write",), entity="organizations"
)
def update_organization(call: Call) -> Reply:
    organization_id = call.path_id("organization_id", "organization")
    with call.transaction() as tx:
        record = _visible(call, tx, organization_id)
        changes = read_changes(call, tx, call.json(), record)
        # a tag is a link row of its own: a change of tags alone leaves the record unstamped
        links_only = set(changes) == {"tags"} and call.settings.has_fault("tag_change_unstamped")
        record = tx.update(
            call.workspace, "organization", {**record, **changes}, touch=not links_only
        )
        return Reply(200, render(tx, call.workspace, record))


@routes.delete(
    "/v1/organizations/{organization_id}", scopes=("organizations:write",), entity="organizations"
)
def delete_organization(call: Call) -> Reply:
    if call.settings.has_fault("organization_delete_any_record"):
        return _delete_any_record(call)
    organization_id = call.path_id("organization_id", "organization")
    with call.transaction() as tx:
        _visible(call, tx, organization_id)
        noted = not call.settings.has_fault("organization_delete_unnoted")
        kept = tx.get(call.workspace, "organization", organization_id)
        tx.delete(call.workspace, "organization", organization_id, noted=noted)
        if kept and call.settings.has_fault("deleted_organization_still_embedded"):
            tx.insert(call.workspace, DELETED_COPY, kept, id=organization_id)
    return Reply(204)


def _delete_any_record(call: Call) -> Reply:
    """Fault `organization_delete_any_record`: the record of any kind with the path's id."""
    record_id = call.path_params["organization_id"]
    kind = identifiers.kind_of(record_id, ("contact", "organization", "deal"))
    if kind is None:  # no id of any kind: the path's own check answers
        record_id, kind = call.path_id("organization_id", "organization"), "organization"
    with call.transaction() as tx:
        if tx.get(call.workspace, kind, record_id) is None:
            raise not_found("organization")
        tx.delete(call.workspace, kind, record_id, noted=True)
    return Reply(204)
