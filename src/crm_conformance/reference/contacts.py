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
from typing import Any

from crm_conformance.reference import (
    external_ids,
    field_definitions,
    organizations,
    owners,
    phones,
    tags,
    visibility,
)
from crm_conformance.reference.api_errors import ApiError, not_found
from crm_conformance.reference.listing import ListSpec
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


def render(
    tx: Transaction,
    workspace: str,
    record: Record,
    expand: Sequence[str] = (),
    settings: ServerSettings | None = None,
    *,
    variants: ServerSettings | None = None,
) -> dict[str, Any]:
    """The Contact; `settings` (the API's reads pass theirs) switch on its render faults
    and variants, `variants` (a write's answer passes them) its variants alone."""
    fault = settings.has_fault if settings is not None else lambda _: False
    chosen = variants or settings
    variant = chosen.has_variant if chosen is not None else lambda _: False
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
        else None
        if fault("contact_name_needs_first_name") and not record.get("first_name")
        else (record.get("first_name") or "") + (record.get("last_name") or "")
        if fault("contact_name_parts_run_together")
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
        "lost_reason": record.get("lost_reason")
        if record["status"] == "lost" or variant("lost_reason_kept_when_reopened")
        else None,
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
    call: Call,
    tx: Transaction,
    body: Any,
    current: Record | None,
    *,
    phone_checked: bool = True,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The validated changes of a create (current None) or update body, and how an
    `organization` sent by name was resolved (None when none was sent); `phone_checked`
    False skips the phone's uniqueness (the fault `contact_create_phone_unchecked`)."""
    fields = BodyFields(body, allowed=WRITABLE)
    changes: dict[str, Any] = {}
    for name in TEXT_FIELDS:
        if fields.has(name):
            changes[name] = fields.string(name, max_length=MAX_TEXT)
    if fields.has("email"):
        loose = current is not None and call.settings.has_fault("email_checked_on_create_only")
        changes["email"] = fields.string("email", max_length=320, pattern=None if loose else EMAIL)
        if current is None and call.settings.has_fault("contact_email_dropped_on_create"):
            del changes["email"]
    if fields.has("phone"):
        raw = fields.string("phone", max_length=40)
        changes["phone"] = phones.written(raw, call.settings)
        if raw and set(raw) & set("().") and call.settings.has_fault("phone_brackets_refused"):
            changes["phone"] = None  # the parser drops spaces and dashes only
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
        loose = current is not None and call.settings.has_fault("contact_update_score_unchecked")
        changes["score"] = fields.string("score", choices=None if loose else SCORES)
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
        checked = current is not None or not call.settings.has_fault(
            "contact_create_tags_any_catalogue"
        )
        deal_tags = "deal" if call.settings.has_fault("contact_takes_deal_tags") else None
        anywhere = call.settings.has_fault("contact_tags_any_workspace")
        changes["tags"] = (
            tags.read_ids(
                tx,
                call.workspace,
                "contact",
                fields,
                checked=checked,
                also=deal_tags,
                anywhere=anywhere,
            )
            or []
        )
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
    unlinked_update = call.settings.has_fault(
        "company_name_unlinked_on_update" if current else "company_name_unlinked_on_create"
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
    reopened = current is not None and current.get("status") == "lost"
    kept = reopened and call.settings.has_variant("lost_reason_kept_when_reopened")
    if was.get("status") != "lost" and not kept:
        changes["lost_reason"] = None
    if current is None and call.user_id is not None and "owner_id" not in changes:
        changes["owner_id"] = call.user_id
    own_id = current["id"] if current else None
    if current is None or not call.settings.has_fault("contact_update_external_id_unchecked"):
        external_ids.ensure_unique(
            tx, call.workspace, "contact", changes.get("external_id"), own_id
        )
    if changes.get("phone") and phone_checked:
        compared = changes["phone"]
        if call.settings.has_fault("phone_uniqueness_compares_raw"):
            compared = str(fields.body.get("phone")).strip()  # the phone as sent
        _ensure_phone_free(tx, call.workspace, compared, own_id)
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
    places = tx.workspaces() if call.settings.has_fault("company_name_any_workspace") else ()
    found = next(
        (o for ws in (call.workspace, *places) if (o := organizations.find_by_name(tx, ws, name))),
        None,
    )
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


def answered(
    tx: Transaction, call: Call, record: Record, resolution: dict[str, Any] | None
) -> dict[str, Any]:
    rendered = render(tx, call.workspace, record, variants=call.settings)
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
    checked = not call.settings.has_fault("contact_create_phone_unchecked")
    with call.transaction() as tx:
        changes, resolution = read_changes(call, tx, call.json(), None, phone_checked=checked)
        if call.settings.has_fault("contact_create_phone_as_sent") and changes.get("phone"):
            changes["phone"] = str(call.json().get("phone")).strip()  # normalized, then not kept
        record = tx.insert(call.workspace, "contact", changes)
        return call.created(answered(tx, call, record, resolution))


@routes.patch("/v1/contacts/{contact_id}", scopes=("contacts:write",), entity="contacts")
def update_contact(call: Call) -> Reply:
    contact_id = call.path_id("contact_id", "contact")
    with call.transaction() as tx:
        current = visible_contact(call, tx, contact_id)
        checked = not call.settings.has_fault("contact_update_phone_unchecked")
        changes, resolution = read_changes(call, tx, call.json(), current, phone_checked=checked)
        if call.settings.has_fault("contact_name_stale_on_update"):
            changes["stored_name"] = current.get("stored_name") or display_name(current)
        dirty = {key for key, value in changes.items() if current.get(key) != value}
        touch = dirty != {"custom_fields"} or not call.settings.has_fault(
            "custom_fields_change_keeps_updated_at"
        )
        record = tx.update(call.workspace, "contact", {**current, **changes}, touch=touch)
        return Reply(200, answered(tx, call, record, resolution))


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
