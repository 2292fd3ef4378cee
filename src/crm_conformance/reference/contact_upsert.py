"""`POST /v1/contacts/upsert`: a contact matched by `external_id`, then by phone, made or
changed (the shape of its body is the target's; the conflicts are the document's:
`external_id_conflict` when the two name different contacts, `phone_mismatch` when the
phone would change)."""

from typing import Any

from crm_conformance.reference import (
    external_ids,
    phones,
)
from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.contacts import WRITABLE, answered, read_changes
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

routes = RouteTable()


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
    phone = phones.written(raw_phone, call.settings)
    if raw_phone is not None and phone is None:
        fields.problem("phone", "is not a phone number that can be written in E.164", "phone")
    if external_id is None and raw_phone is None and not fields.problems:
        fields.problem("external_id", "upsert needs external_id or phone to match on", "missing")
    fields.check()
    with call.transaction() as tx:
        by_external = _visible_one(call, tx, external_id=external_id) if external_id else None
        if raw_phone is not None and call.settings.has_fault("upsert_matches_raw_phone"):
            phone = raw_phone  # matched, and compared, as sent: "+44 20 …" finds no one
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
            return call.created(answered(tx, call, record, resolution))
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
        touch = not call.settings.has_fault("upsert_keeps_updated_at")
        record = tx.update(call.workspace, "contact", {**matched, **changes}, touch=touch)
        return Reply(200, answered(tx, call, record, resolution))


def _visible_one(call: Call, tx: Transaction, **equals: Any) -> Record | None:
    found = tx.find(call.workspace, "contact", **equals)
    return next((record for record in found if call.sees(record)), None)


# --- reads ---------------------------------------------------------------------------------
