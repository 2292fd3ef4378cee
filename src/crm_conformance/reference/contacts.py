"""Contacts: the people a workspace sells to and talks with.

Create and update bodies are not shown in the document; they take the contact's own
fields, plus `organization` ({id} or {name}), the preferred way to link an
organization, whose answer reports how the name was resolved in
`organization_resolution`. Rules kept here: `name` derived from first and last name,
phones in E.164 and unique per workspace (409 `contact_already_exists`),
`company_name` kept as sent and, for a contact without an organization yet, linked to
the organization of that name or a new one, `external_id` unique, every custom field
present.
"""

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from starlette.datastructures import QueryParams

from crm_conformance.reference import (
    external_ids,
    field_definitions,
    organizations,
    owners,
    phones,
    tags,
    visibility,
)
from crm_conformance.reference.api_errors import ApiError, bad_query, not_found
from crm_conformance.reference.clock import parse_instant
from crm_conformance.reference.identifiers import is_id
from crm_conformance.reference.listing import ListSpec, SortKey, parse_since
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Record, Transaction

STATUSES = ("open", "on_hold", "won", "lost")
SCORES = ("cold", "warm", "hot")
TEXT_FIELDS = ("first_name", "last_name", "address", "city", "state", "job_title", "company_name")
CHANNEL_KEYS = ("identifier", "platform", "status", "username")
FIELDS = (
    "status", "visibility", "created_at", "updated_at", "first_name", "last_name", "name",
    "email", "phone", "address", "city", "state", "job_title", "company_name",
    "organization_id", "organization", "owner_id", "owner", "score", "lost_reason",
    "channels", "tags", "external_id", "custom_fields",
)  # fmt: skip
WRITABLE = (
    *TEXT_FIELDS, "email", "phone", "organization", "organization_id", "owner_id", "score",
    "status", "lost_reason", "channels", "tags", "external_id", "custom_fields", "visibility",
)  # fmt: skip
MAX_TEXT = 255
MAX_FILTER_VALUES = 100
EMAIL = r"[^@\s]+@[^@\s]+\.[^@\s]+"

routes = RouteTable()


def display_name(record: Record) -> str | None:
    """`name`: first and last name joined by a space; null when both are empty."""
    first = (record.get("first_name") or "").strip()
    last = (record.get("last_name") or "").strip()
    return f"{first} {last}" if first and last else first or last or None


SPEC = ListSpec(
    name="contacts",
    fields=frozenset(FIELDS),
    sort_keys={
        "created_at": lambda r: r["created_at"],
        "updated_at": lambda r: r["updated_at"],
        "name": lambda r: (display_name(r) or "").casefold() or None,
        "first_name": lambda r: (r.get("first_name") or "").casefold() or None,
        "last_name": lambda r: (r.get("last_name") or "").casefold() or None,
        "email": lambda r: r.get("email"),
        "status": lambda r: STATUSES.index(r["status"]),
        "score": lambda r: SCORES.index(r["score"]) if r.get("score") else None,
    },
    default_sort=("-created_at",),
    expands=frozenset({"organization"}),
)


def _field(name: str) -> SortKey:
    """Sorts by a contact's `name`, absent as null."""
    return lambda row: row.get(name)


WIDE_SPEC = replace(
    SPEC,
    sort_keys={
        **SPEC.sort_keys,
        **{
            name: _field(name)
            for name in (
                *("id", "visibility", "phone", "address", "city", "state", "job_title"),
                *("company_name", "organization_id", "owner_id", "lost_reason", "external_id"),
            )
        },
    },
)
"""The contact list under the `every_contact_field_sortable` variant: every scalar field
sorts (which keys sort is not shown)."""

FILTERS = {
    "status": STATUSES,
    "score": SCORES,
    "email": None,
    "owner_id": "user",
    "organization_id": "organization",
    "external_id": None,
    "phone": None,
}
"""Repeatable list filters: enum values, an id kind, or None for free text."""
SINCE_FILTERS = ("updated_since", "created_since")
UNVALIDATED_FILTER_FAULTS = {
    "status": "status_filter_unvalidated",
    "organization_id": "organization_id_filter_unvalidated",
}
"""Faults under which a filter's values are not checked against its type."""


def render(
    tx: Transaction,
    workspace: str,
    record: Record,
    expand: Sequence[str] = (),
    settings: ServerSettings | None = None,
) -> dict[str, Any]:
    """The Contact; `settings` (the API's reads pass theirs) switch on its render faults."""
    fault = settings.has_fault if settings is not None else lambda _: False
    rendered: dict[str, Any] = {
        "id": record["id"],
        "object": "contact",
        "status": _rendered_status(record["status"], fault("contact_on_hold_hyphenated")),
        "visibility": "everyone"
        if record["visibility"] == "company" and fault("contact_visibility_company_as_everyone")
        else record["visibility"],
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
        "first_name": record.get("first_name"),
        "last_name": None if fault("contact_last_name_dropped") else record.get("last_name"),
        "name": record.get("first_name") or None
        if fault("contact_name_first_name_only")
        else record.get("stored_name") or display_name(record),
        "email": record.get("email"),
        "phone": record.get("phone"),
        "address": record.get("address"),
        "city": record.get("city"),
        "state": record.get("state"),
        "title" if fault("contact_job_title_as_title") else "job_title": record.get("job_title"),
        "company_name": record.get("company_name"),
        "organization_id": record.get("organization_id"),
        "owner_id": record.get("owner_id"),
        "score": _rendered_score(record.get("score"), fault("contact_score_title_cased")),
        "lost_reason": record.get("lost_reason") if record["status"] == "lost" else None,
        "channels": _rendered_channels(record, fault("channel_username_dropped")),
        "tags": tags.render_many(tx, workspace, record.get("tags")),
        "external_id": record.get("external_id"),
        "custom_fields": field_definitions.render_values(
            tx, workspace, "contact", record.get("custom_fields")
        ),
    }
    if fault("contact_custom_fields_as_list"):
        rendered["custom_fields"] = [
            {"key": key, "value": value} for key, value in rendered["custom_fields"].items()
        ]
    if not (expand and fault("contact_owner_dropped_with_expand")):
        owners.put_owner(rendered, tx, workspace, record.get("owner_id"))
    if "organization" in expand or fault("organization_always_embedded"):
        organizations.put_embedded(
            rendered,
            tx,
            workspace,
            record.get("organization_id"),
            any_workspace=fault("contact_organization_any_workspace"),
        )
        embedded = rendered.get("organization")
        if embedded is not None and fault("embedded_organization_short_form"):
            rendered["organization"] = {k: embedded[k] for k in ("id", "object", "name")}
    return rendered


def _rendered_status(status: str, hyphenated: bool) -> str:
    """The fault `contact_on_hold_hyphenated` renders on_hold as `on-hold`."""
    return status.replace("_", "-") if hyphenated else status


def _rendered_score(score: str | None, title_cased: bool) -> str | None:
    """The fault `contact_score_title_cased` renders the score as the UI shows it."""
    return score.title() if score is not None and title_cased else score


def _rendered_channels(record: Record, without_username: bool) -> list[dict[str, str]]:
    """The fault `channel_username_dropped` leaves `username` out of each channel."""
    channels: list[dict[str, str]] = record.get("channels") or []
    if without_username:
        return [{k: v for k, v in channel.items() if k != "username"} for channel in channels]
    return channels


# --- writes ------------------------------------------------------------------------------


def read_changes(
    call: Call, tx: Transaction, body: Any, current: Record | None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The validated changes of a create (current None) or update body, and how an
    `organization` sent by name was resolved (None when none was sent)."""
    fields = BodyFields(body, allowed=WRITABLE)
    changes: dict[str, Any] = {}
    for name in TEXT_FIELDS:
        if fields.has(name):
            changes[name] = fields.string(name, max_length=MAX_TEXT)
    if fields.has("email"):
        changes["email"] = fields.string("email", max_length=320, pattern=EMAIL)
        if current is None and call.settings.has_fault("contact_email_dropped_on_create"):
            del changes["email"]
    if fields.has("phone"):
        raw = fields.string("phone", max_length=40)
        changes["phone"] = phones.normalize(raw) if raw is not None else None
        if raw is not None and changes["phone"] is None:
            fields.problem("phone", "is not a phone number that can be written in E.164", "phone")
        elif raw is not None and call.settings.has_fault("phone_not_normalized"):
            changes["phone"] = raw.strip()
        elif (
            raw is not None
            and current is not None
            and call.settings.has_fault("contact_phone_raw_on_update")
        ):
            changes["phone"] = raw.strip()  # the update path forgot to normalize
    if fields.has("status") or current is None:
        changes["status"] = (
            fields.string("status", nullable=False, choices=STATUSES)
            or (current or {}).get("status")
            or "open"
        )
    if fields.has("score"):
        changes["score"] = fields.string("score", choices=SCORES)
    if fields.has("lost_reason"):
        changes["lost_reason"] = fields.string("lost_reason", min_length=1, max_length=MAX_TEXT)
    if fields.has("visibility") or current is None:
        changes["visibility"] = (
            fields.string("visibility", nullable=False, choices=visibility.VISIBILITIES)
            or (current or {}).get("visibility")
            or visibility.DEFAULT
        )
    if fields.has("owner_id") and not (
        current is None and call.settings.has_fault("contact_owner_id_ignored")
    ):
        changes["owner_id"] = owners.user_field(tx, call.workspace, fields, "owner_id")
    if fields.has("external_id"):
        changes["external_id"] = external_ids.read(
            fields, call.settings, updating=current is not None
        )
        if changes["external_id"] is None and call.settings.has_fault("external_id_null_ignored"):
            del changes["external_id"]
        elif (
            changes["external_id"] is None
            and current is not None
            and call.settings.has_fault("external_id_null_refused")
        ):
            fields.problem("external_id", "must be a string of 1 to 255 characters", "string_type")
    if fields.has("channels"):
        changes["channels"] = _channels(fields)
    if fields.has("tags"):
        changes["tags"] = tags.read_ids(tx, call.workspace, "contact", fields) or []
    if fields.has("custom_fields"):
        changes["custom_fields"] = field_definitions.read_values(
            tx, call.workspace, "contact", fields, (current or {}).get("custom_fields")
        )
    organization_id = fields.identifier("organization_id", "organization")
    organization = fields.object("organization")
    if organization is not None:
        nested = BodyFields(organization, allowed=("id", "name"), path="organization")
        org_ref = nested.identifier("id", "organization")
        org_name = nested.string("name", min_length=1, max_length=organizations.MAX_NAME)
        if (org_ref is None) == (org_name is None) and not nested.problems:
            nested.problem("id", "give exactly one of id or name", "one_of")
        fields.problems.extend(nested.problems)
    if fields.has("organization_id") and organization is not None:
        fields.problem("organization", "give organization or organization_id, not both", "one_of")
    fields.check()

    resolution = None
    if fields.has("organization_id") and not call.settings.has_fault(
        "contact_organization_id_ignored"
    ):
        changes["organization_id"] = _existing_organization(
            call, tx, organization_id, "organization_id"
        )
    if organization is not None:
        if org_ref is not None:
            changes["organization_id"] = _existing_organization(
                call, tx, org_ref, "organization.id"
            )
            resolution = {"outcome": "matched_id", "organization_id": org_ref}
        else:
            assert org_name is not None
            linked, outcome = _organization_named(call, tx, org_name)
            changes["organization_id"] = linked
            resolution = {"outcome": outcome, "organization_id": linked, "name": org_name}
    elif fields.has("organization") and organization is None:
        changes["organization_id"] = None
    merged = {**(current or {}), **changes}
    unlinked_update = current is not None and call.settings.has_fault(
        "company_name_unlinked_on_update"
    )
    relinks = current is not None and call.settings.has_fault("company_name_relinks_on_update")
    if (
        merged.get("company_name")
        and (not merged.get("organization_id") or relinks)
        and "company_name" in changes
        and not unlinked_update
    ):
        changes["organization_id"], _ = _organization_named(call, tx, merged["company_name"])
        if call.settings.has_fault("company_name_cleared_when_linked"):
            changes["company_name"] = None
    was = (
        (current or {}) if call.settings.has_fault("lost_reason_cleared_by_old_status") else merged
    )
    if was.get("status") != "lost":
        changes["lost_reason"] = None
    if current is None and call.user_id is not None and "owner_id" not in changes:
        changes["owner_id"] = call.user_id
    own_id = current["id"] if current else None
    if current is None or not call.settings.has_fault("contact_update_external_id_unchecked"):
        external_ids.ensure_unique(
            tx, call.workspace, "contact", changes.get("external_id"), own_id
        )
    if changes.get("phone"):
        _ensure_phone_free(tx, call.workspace, changes["phone"], own_id)
    return changes, resolution


def _channels(fields: BodyFields) -> list[dict[str, str]] | None:
    value = fields.body.get("channels")
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 50:
        fields.problem("channels", "must be an array of at most 50 channel objects", "type")
        return None
    channels = []
    for index, item in enumerate(value):
        nested = BodyFields(item, allowed=CHANNEL_KEYS, path=f"channels.{index}")
        identifier = nested.string("identifier", required=True, min_length=1, max_length=MAX_TEXT)
        platform = nested.string("platform", required=True, min_length=1, max_length=MAX_TEXT)
        status = nested.string("status", max_length=MAX_TEXT)
        username = nested.string("username", max_length=MAX_TEXT)
        fields.problems.extend(nested.problems)
        channels.append(
            {
                "identifier": identifier or "",
                "platform": platform or "",
                "status": status or "active",
                "username": username or "",
            }
        )
    return channels


def _existing_organization(
    call: Call, tx: Transaction, organization_id: str | None, param: str
) -> str | None:
    if organization_id is None:
        return None
    record = organizations.by_id(
        tx,
        call.workspace,
        organization_id,
        any_workspace=call.settings.has_fault("contact_organization_any_workspace"),
    )
    if record is None or not call.sees(record):
        raise ApiError(404, "record_not_found", "No such organization.", param=param)
    return organization_id


def _organization_named(call: Call, tx: Transaction, name: str) -> tuple[str, str]:
    """The id of the organization called `name` (created when none is), and the outcome."""
    found = organizations.find_by_name(tx, call.workspace, name)
    if found is not None and not call.settings.has_fault("organization_name_never_matched"):
        return found["id"], "matched_name"
    created = tx.insert(
        call.workspace,
        "organization",
        {"name": name.strip(), "visibility": visibility.DEFAULT, "owner_id": call.user_id},
    )
    return created["id"], "created"


def _ensure_phone_free(tx: Transaction, workspace: str, phone: str, own_id: str | None) -> None:
    for other in tx.find(workspace, "contact", phone=phone):
        if other["id"] != own_id:
            raise ApiError(
                409,
                "contact_already_exists",
                f"Contact {other['id']} already has this phone; use upsert to create or"
                " update in one call.",
                param="phone",
            )


def _answer(
    tx: Transaction, call: Call, record: Record, resolution: dict[str, Any] | None
) -> dict[str, Any]:
    rendered = render(tx, call.workspace, record)
    if resolution is not None:
        rendered["organization_resolution"] = resolution
    return rendered


def visible_contact(call: Call, tx: Transaction, contact_id: str) -> Record:
    """The contact if the token sees it; 404 contact_not_found otherwise."""
    record = tx.get(call.workspace, "contact", contact_id)
    if record is None and _in_another_workspace(call, tx, contact_id):
        if call.settings.has_fault("cross_workspace_403"):
            raise ApiError(403, "forbidden", "This token may not read this contact.")
        if call.settings.has_fault("not_found_names_workspace"):
            raise ApiError(404, "contact_not_found", "This contact belongs to another workspace.")
    if record is None or not call.sees(record):
        if call.settings.has_fault("missing_contact_resource_missing"):
            raise not_found("contact", "resource_missing")  # the code another API uses
        raise not_found("contact", "contact_not_found")
    return record


def _in_another_workspace(call: Call, tx: Transaction, contact_id: str) -> bool:
    """Whether another workspace holds the contact (only the tenancy faults ask)."""
    others = (ws for ws in tx.workspaces() if ws != call.workspace)
    return any(tx.get(ws, "contact", contact_id) is not None for ws in others)


@routes.post("/v1/contacts", scopes=("contacts:write",), entity="contacts")
def create_contact(call: Call) -> Reply:
    with call.transaction() as tx:
        changes, resolution = read_changes(call, tx, call.json(), None)
        record = tx.insert(call.workspace, "contact", changes)
        return call.created(_answer(tx, call, record, resolution))


@routes.patch("/v1/contacts/{contact_id}", scopes=("contacts:write",), entity="contacts")
def update_contact(call: Call) -> Reply:
    contact_id = call.path_id("contact_id", "contact")
    with call.transaction() as tx:
        current = visible_contact(call, tx, contact_id)
        changes, resolution = read_changes(call, tx, call.json(), current)
        if call.settings.has_fault("contact_name_stale_on_update"):
            changes["stored_name"] = current.get("stored_name") or display_name(current)
        record = tx.update(call.workspace, "contact", {**current, **changes})
        return Reply(200, _answer(tx, call, record, resolution))


@routes.put(
    "/v1/contacts/{contact_id}",
    scopes=("contacts:write",),
    entity="contacts",
    variant="put_contact_update",
)
def replace_contact(call: Call) -> Reply:
    """PUT as an update, as many CRMs offer (contact update is not shown)."""
    return update_contact(call)


@routes.delete("/v1/contacts/{contact_id}", scopes=("contacts:write",), entity="contacts")
def delete_contact(call: Call) -> Reply:
    contact_id = call.path_id("contact_id", "contact")
    with call.transaction() as tx:
        visible_contact(call, tx, contact_id)
        tx.delete(call.workspace, "contact", contact_id)
    return Reply(204)


def _upsert_phone_first(call: Call) -> None:
    """The `upsert_validates_first` variant: the body is read before the token's scopes
    and the workspace policy, and upsert matches on the phone, which it requires."""
    if call.settings.has_variant("upsert_validates_first"):
        fields = BodyFields(call.json(), allowed=WRITABLE)
        fields.string("phone", required=True, nullable=False, max_length=40)
        fields.check()


@routes.post(
    "/v1/contacts/upsert",
    scopes=("contacts:write",),
    entity="contacts",
    precheck=_upsert_phone_first,
)
def upsert_contact(call: Call) -> Reply:
    """Create or update by `external_id` and/or `phone` in one call.

    A contact matched by external_id keeps its phone (409 `phone_mismatch` when another
    is sent); external_id and phone matching two different contacts, or a phone match
    that has another external_id, is 409 `external_id_conflict`. 201 when created, 200
    when updated.
    """
    body = call.json()
    fields = BodyFields(body, allowed=WRITABLE)
    external_id = external_ids.read(fields, call.settings) if fields.has("external_id") else None
    raw_phone = fields.string("phone", max_length=40)
    phone = phones.normalize(raw_phone) if raw_phone is not None else None
    if raw_phone is not None and phone is None:
        fields.problem("phone", "is not a phone number that can be written in E.164", "phone")
    if external_id is None and raw_phone is None and not fields.problems:
        fields.problem("external_id", "upsert needs external_id or phone to match on", "missing")
    fields.check()
    with call.transaction() as tx:
        by_external = _visible_one(call, tx, external_id=external_id) if external_id else None
        by_phone = _visible_one(call, tx, phone=phone) if phone else None
        split_unchecked = call.settings.has_fault("upsert_split_match_unchecked")
        if by_external and by_phone and by_external["id"] != by_phone["id"] and not split_unchecked:
            raise ApiError(
                409,
                "external_id_conflict",
                f"external_id names contact {by_external['id']} but the phone names"
                f" {by_phone['id']}.",
                param="external_id",
            )
        matched = by_external or by_phone
        if matched is None:
            changes, resolution = read_changes(call, tx, body, None)
            if raw_phone is not None and call.settings.has_fault("upsert_phone_raw"):
                changes["phone"] = raw_phone.strip()  # the upsert stores what it matched on
            record = tx.insert(call.workspace, "contact", changes)
            return call.created(_answer(tx, call, record, resolution))
        if (
            by_external
            and phone
            and by_external.get("phone") not in (None, phone)
            and not call.settings.has_fault("upsert_changes_phone")
        ):
            raise ApiError(
                409,
                "phone_mismatch",
                f"Contact {matched['id']} with this external_id has a different phone;"
                " upsert never changes a phone.",
                param="phone",
            )
        if (
            by_phone
            and not by_external
            and external_id
            and by_phone.get("external_id") not in (None, external_id)
            and not call.settings.has_fault("upsert_takes_another_external_id")
        ):
            raise ApiError(
                409,
                "external_id_conflict",
                f"Contact {matched['id']} with this phone has another external_id.",
                param="external_id",
            )
        changes, resolution = read_changes(call, tx, body, matched)
        record = tx.update(call.workspace, "contact", {**matched, **changes})
        return Reply(200, _answer(tx, call, record, resolution))


def _visible_one(call: Call, tx: Transaction, **equals: Any) -> Record | None:
    found = tx.find(call.workspace, "contact", **equals)
    return next((record for record in found if call.sees(record)), None)


# --- reads ---------------------------------------------------------------------------------


@routes.get(
    "/v1/contacts/{contact_id}",
    scopes=("contacts:read",),
    variant_scopes=(
        ("contact_retrieve_needs_organizations_read", ("contacts:read", "organizations:read")),
    ),
)
def get_contact(call: Call) -> Reply:
    if call.settings.has_fault("contact_path_id_unchecked"):
        contact_id = call.path_params["contact_id"]
    else:
        contact_id = call.path_id("contact_id", "contact")
    expand, fields = call.retrieve_params(SPEC)
    if call.settings.has_fault("contact_retrieve_ignores_fields"):
        fields = None
    with call.transaction() as tx:
        record = visible_contact(call, tx, contact_id)
        rendered = render(tx, call.workspace, record, expand, call.settings)
        if call.settings.has_fault("contact_retrieve_wrapped_in_data"):
            rendered = {"data": rendered}
        return Reply(200, call.narrow(rendered, fields))


@routes.get("/v1/contacts", scopes=("contacts:read",))
def list_contacts(call: Call) -> Reply:
    """Newest first by default; repeated filters OR, different filters AND."""
    if call.settings.has_variant("bracket_filter_names"):
        call.query = _bracketed(call.query)  # in place: rendering reads this call's state
    if call.settings.has_fault("contact_owner_expand_accepted"):
        call.query = _without_owner_expand(call.query)
    spec = WIDE_SPEC if call.settings.has_variant("every_contact_field_sortable") else SPEC
    params = call.list_params(spec, filters=(*FILTERS, *SINCE_FILTERS))
    if call.settings.has_fault("contacts_oldest_first") and call.single("sort") is None:
        params = replace(params, sort=(("created_at", False),))
    if call.settings.has_fault("list_expand_ignored"):
        params = replace(params, expand=())  # validated, but only retrieve embeds
    if call.settings.has_fault("updated_at_sort_descending") and params.sort[:1] == (
        ("updated_at", False),
    ):
        params = replace(params, sort=(("updated_at", True), *params.sort[1:]))  # "latest first"
    filters = _filters(call)
    since = {name: parse_since(name, _naive_as_utc(call, name)) for name in SINCE_FILTERS}
    bounds = {name: value for name, value in since.items() if value is not None}
    with call.transaction() as tx:
        places = [call.workspace]
        if "email" in filters and call.settings.has_fault("email_filter_all_workspaces"):
            places = tx.workspaces()  # the e-mail index is one for every workspace
        rows = [row for place in places for row in tx.view(place, "contact") if call.sees(row)]
        if filters or bounds:
            join = any if call.settings.has_fault("different_filters_ored") else all
            rows = [
                row
                for row in rows
                if join(
                    [
                        *_field_matches(call, row, filters),
                        *(_at_or_after(call, row, name, value) for name, value in bounds.items()),
                    ]
                )
            ]
        object_name = "lead" if call.settings.has_fault("contact_list_object_lead") else "contact"
        return call.list_reply(
            spec,
            rows,
            params,
            {"filters": filters, "since": since},
            lambda r: {
                **_list_row(render(tx, call.workspace, r, params.expand, call.settings), call),
                "object": object_name,
                **_organization_id_unjoined(call, params.expand),
            },
            kept_in=(tx, "contact"),
        )


def _list_row(rendered: dict[str, Any], call: Call) -> dict[str, Any]:
    """A contact as the list renders it; under its faults the list's lighter query leaves
    out the owner it would join, or the custom fields no value was stored for."""
    if call.settings.has_fault("contact_owner_missing_on_list"):
        rendered.pop("owner", None)
    custom = rendered.get("custom_fields")
    if isinstance(custom, dict) and call.settings.has_fault("unset_custom_fields_dropped_on_list"):
        rendered["custom_fields"] = {k: v for k, v in custom.items() if v is not None}
    return rendered


def _organization_id_unjoined(call: Call, expand: Sequence[str]) -> dict[str, Any]:
    """The `list_organization_id_needs_expand` fault: the list reads organization_id from
    the organization it joins only for an expand, so without one it is null."""
    if "organization" in expand or not call.settings.has_fault("list_organization_id_needs_expand"):
        return {}
    return {"organization_id": None}


def _without_owner_expand(query: QueryParams) -> QueryParams:
    """The fault `contact_owner_expand_accepted`: `owner` left out of `expand` (the owner
    is rendered anyway), so naming it is no error."""
    items = []
    for name, value in query.multi_items():
        if name == "expand":
            value = ",".join(part for part in value.split(",") if part.strip() != "owner")
        items.append((name, value))
    return QueryParams(items)


BRACKETED = {f"filter[{name}]": name for name in FILTERS} | {"created_after": "created_since"}
"""The `bracket_filter_names` variant's query names, and the reference's for each."""


def _bracketed(query: QueryParams) -> QueryParams:
    """The query with the variant's names read as the reference's; the reference's own
    names become unknown parameters, refused like any other."""
    plain = set(BRACKETED.values())
    return QueryParams(
        [
            (BRACKETED.get(name, f"unknown:{name}" if name in plain else name), value)
            for name, value in query.multi_items()
        ]
    )


def _one_of(call: Call, value: Any, values: list[str]) -> bool:
    """A repeated filter parameter ORs its values: the row's value is any of them."""
    if call.settings.has_fault("filter_values_anded"):
        return all(value == each for each in values)
    return value in values


def _naive_as_utc(call: Call, name: str) -> str | None:
    """The raw `*_since` value; under its fault an `updated_since` without an offset is
    read as UTC instead of refused."""
    raw = call.single(name)
    if name != "updated_since" or raw is None or parse_instant(raw) is not None:
        return raw
    if call.settings.has_fault("naive_updated_since_as_utc"):
        instant = parse_instant(raw, require_offset=False)
        return raw if instant is None else instant.isoformat()
    return raw


def _field_matches(call: Call, row: Record, filters: dict[str, list[str]]) -> list[bool]:
    """Whether the row matches each filter; under the `status_and_score_ored` fault the two
    enum filters are one "standing" condition that either satisfies."""
    matched = {name: _one_of(call, row.get(name), values) for name, values in filters.items()}
    if "email" in matched and call.settings.has_fault("email_filter_prefix_match"):
        email = row.get("email") or ""  # a LIKE 'value%' the index serves
        matched["email"] = any(email.startswith(value) for value in filters["email"])
    if call.settings.has_fault("status_and_score_ored") and {"status", "score"} <= set(matched):
        matched["status"] = matched["score"] = matched["status"] or matched["score"]
    return list(matched.values())


def _at_or_after(call: Call, row: Record, name: str, value: str) -> bool:
    """Whether the row's stamp of a `*_since` filter is at or after `value`."""
    stamp = row[name.replace("_since", "_at")]
    if name == "updated_since" and call.settings.has_fault("updated_since_reads_created_at"):
        stamp = row["created_at"]  # the index the filter was written against
    if name == "created_since" and call.settings.has_fault("created_since_reads_updated_at"):
        stamp = row["updated_at"]  # one stamp index serves both filters
    if name == "updated_since" and call.settings.has_fault("updated_since_exclusive"):
        return bool(stamp > value)
    if name == "created_since" and call.settings.has_fault("created_since_exclusive"):
        return bool(stamp > value)
    return bool(stamp >= value)


def _filters(call: Call) -> dict[str, list[str]]:
    chosen: dict[str, list[str]] = {}
    for name, rule in FILTERS.items():
        values = call.query.getlist(name)
        if not values:
            continue
        cap = MAX_FILTER_VALUES
        if call.settings.has_fault("filter_cap_off_by_one"):
            cap -= 1
        if len(values) > cap and not call.settings.has_fault("filter_cap_unchecked"):
            raise ApiError(
                400,
                "too_many_filter_values",
                f"{name} is repeated {len(values)} times; at most {MAX_FILTER_VALUES} values.",
                param=name,
            )
        for value in values:
            if name in UNVALIDATED_FILTER_FAULTS and call.settings.has_fault(
                UNVALIDATED_FILTER_FAULTS[name]
            ):
                continue  # compared as text: an invalid value matches nothing
            if isinstance(rule, tuple) and value not in rule:
                raise bad_query(name, f"must be one of {', '.join(rule)}", "enum")
            if isinstance(rule, str) and not is_id(value, rule):
                raise bad_query(name, f"must be a {rule} id", "pattern")
        if name == "phone":
            values = [phones.normalize(value) or value for value in values]
        ignored = IGNORED_FILTER_FAULTS.get(name)
        if ignored is None or not call.settings.has_fault(ignored):
            chosen[name] = sorted(set(values))
    return chosen


IGNORED_FILTER_FAULTS = {
    "status": "status_filter_ignored",
    "score": "score_filter_ignored",
    "email": "email_filter_ignored",
    "owner_id": "owner_filter_ignored",
    "organization_id": "organization_filter_ignored",
    "external_id": "external_id_filter_ignored",
}
"""Faults: a filter validated but never applied (left out of the chosen filters)."""
