"""Success events: business outcomes the caller reports (a closed sale, a signed
contract), typed by a workspace-defined event type code, on which an agreement may
charge a fee.

They are append-only: an event is never edited or deleted; a refund is a new event,
the reversal, that names the event it reverses. An event is reversed at most once (409
`already_reversed`) and a reversal is not itself reversible (409 `not_a_record`). An
event type requires or forbids a `value` (422 `value_basis_mismatch`); an unknown code
is 422 `unknown_event_code`.

Shapes (not shown by the document, chosen here): an event type is
`{id, object: success_event_type, code, value: required|forbidden, created_at}`; an
event is `{id, object: success_event, code, value, contact_id, occurred_at, reverses,
reversed_by, reason, created_at}`, where `reverses` is set on a reversal and
`reversed_by` is read from the reversal, so the original record never changes. Create
takes `code`, `value` (a number >= 0), `contact_id` and `occurred_at` (default now);
the reversal is `POST /v1/success-events/{id}/reverse` with an optional `reason`.
"""

import json
from dataclasses import replace
from typing import Any

from crm_conformance.reference.api_errors import ApiError, not_found
from crm_conformance.reference.listing import ListSpec
from crm_conformance.reference.rendering import stored
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

VALUE_BASES = ("required", "forbidden")
MAX_REASON = 500
WRITE = ("success_events:write",)
READ = ("success_events:read",)

routes = RouteTable()

TYPES_SPEC = ListSpec(
    name="success_event_types",
    fields=frozenset({"code", "value", "created_at"}),
    sort_keys={"code": lambda r: r["code"], "created_at": lambda r: r["created_at"]},
    default_sort=("code",),
)
EVENTS_SPEC = ListSpec(
    name="success_events",
    fields=frozenset(
        {"code", "value", "contact_id", "occurred_at", "reverses", "reversed_by", "reason"}
        | {"created_at"}
    ),
    sort_keys={
        "created_at": lambda r: r["created_at"],
        "occurred_at": lambda r: r["occurred_at"],
    },
)


def render_type(record: Record) -> dict[str, Any]:
    return stored(record, "success_event_type", "code", "value", "created_at")


def render(tx: Transaction, workspace: str, record: Record) -> dict[str, Any]:
    reversal = next(iter(tx.find(workspace, "success_event", reverses=record["id"])), None)
    return {
        "id": record["id"],
        "object": "success_event",
        "code": record["code"],
        "value": record.get("value"),
        "contact_id": record.get("contact_id"),
        "occurred_at": record["occurred_at"],
        "reverses": record.get("reverses"),
        "reversed_by": reversal["id"] if reversal else None,
        "reason": record.get("reason"),
        "created_at": record["created_at"],
    }


def event_type(tx: Transaction, workspace: str, code: str) -> Record | None:
    """The workspace's event type with `code`, or None."""
    return next(iter(tx.find(workspace, "success_event_type", code=code)), None)


@routes.get(
    "/v1/success-event-types",
    scopes=READ,
    replaced_by=("success_event_types_missing",),
    variant_scopes=(("success_event_types_need_write", WRITE),),
)
def list_event_types(call: Call) -> Reply:
    params = call.list_params(TYPES_SPEC)
    with call.transaction() as tx:
        rows = tx.all(call.workspace, "success_event_type")
    return call.list_reply(TYPES_SPEC, rows, params, {}, render_type)


@routes.post(
    "/v1/success-events",
    scopes=WRITE,
    entity="success_events",
    replaced_by=("success_events_as_outcomes",),
)
def create_event(call: Call) -> Reply:
    fields = BodyFields(call.json(), allowed=("code", "value", "contact_id", "occurred_at"))
    code = fields.string("code", required=True, min_length=1, max_length=64)
    value = fields.number("value", minimum=0)
    contact_id = fields.identifier("contact_id", "contact")
    occurred_at = fields.instant("occurred_at")
    fields.check()
    assert code is not None
    with call.transaction() as tx:
        kind = event_type(tx, call.workspace, code)
        if kind is None and not call.settings.has_fault("unknown_event_code_accepted"):
            raise ApiError(
                422, "unknown_event_code", f"No success event type {code!r}.", param="code"
            )
        needs_value = kind is not None and kind["value"] == "required"
        checked = kind is not None and not call.settings.has_fault("value_basis_unchecked")
        sent = (
            bool(value) if call.settings.has_fault("zero_value_read_as_none") else value is not None
        )
        if checked and sent != needs_value:
            raise ApiError(
                422,
                "value_basis_mismatch",
                f"Events of type {code!r} {'need' if needs_value else 'forbid'} a value.",
                param="value",
            )
        if contact_id is not None:
            contact = tx.get(call.workspace, "contact", contact_id)
            if contact is None or not call.sees(contact):
                raise not_found("contact", "contact_not_found")
        record = tx.insert(
            call.workspace,
            "success_event",
            {
                "code": code,
                "value": value,
                "contact_id": contact_id,
                "occurred_at": occurred_at or call.now(),
                "reverses": None,
                "reason": None,
            },
        )
        return call.created(render(tx, call.workspace, record))


@routes.get("/v1/success-events", scopes=READ)
def list_events(call: Call) -> Reply:
    params = call.list_params(EVENTS_SPEC, filters=("code", "contact_id"))
    codes = call.query.getlist("code")
    contact_ids = call.query.getlist("contact_id")
    with call.transaction() as tx:
        rows = [
            row
            for row in tx.all(call.workspace, "success_event")
            if (not codes or row["code"] in codes)
            and (not contact_ids or row.get("contact_id") in contact_ids)
        ]
        identity = {"code": sorted(codes), "contact_id": sorted(contact_ids)}
        return call.list_reply(
            EVENTS_SPEC, rows, params, identity, lambda r: render(tx, call.workspace, r)
        )


def _event(call: Call, tx: Transaction) -> Record:
    event_id = call.path_id("event_id", "success_event")
    record = tx.get(call.workspace, "success_event", event_id)
    if record is None:
        raise not_found("success event")
    return record


@routes.get("/v1/success-events/{event_id}", scopes=READ)
def get_event(call: Call) -> Reply:
    _, fields = call.retrieve_params(EVENTS_SPEC)
    with call.transaction() as tx:
        return Reply(200, call.narrow(render(tx, call.workspace, _event(call, tx)), fields))


@routes.patch(
    "/v1/success-events/{event_id}",
    scopes=WRITE,
    entity="success_events",
    variant="success_event_editable",
)
def edit_event(call: Call) -> Reply:
    """The fault `success_event_editable`: an event's code and value can be changed in
    place, where the document has events append-only ("a refund is recorded as a
    reversal, never an edit")."""
    fields = BodyFields(call.json(), allowed=("code", "value", "contact_id", "occurred_at"))
    changes = {name: fields.body[name] for name in ("code", "value") if fields.has(name)}
    fields.check()
    with call.transaction() as tx:
        record = tx.update(call.workspace, "success_event", {**_event(call, tx), **changes})
        return Reply(200, render(tx, call.workspace, record))


@routes.delete(
    "/v1/success-events/{event_id}",
    scopes=WRITE,
    entity="success_events",
    variant="success_event_deletable",
)
def delete_event(call: Call) -> Reply:
    """The fault `success_event_deletable`: the router's generic DELETE removes an event,
    which is append-only (a refund "is recorded as a reversal, never an edit")."""
    with call.transaction() as tx:
        tx.delete(call.workspace, "success_event", _event(call, tx)["id"])
    return Reply(204)


@routes.post(
    "/v1/success-events/{event_id}/reverse",
    scopes=WRITE,
    variant_scopes=(("reverse_guarded_by_read", READ),),
    entity="success_events",
    replaced_by=("success_events_as_outcomes", "success_event_reverse_missing"),
)
def reverse_event(call: Call) -> Reply:
    """Record the reversal (a refund) of an event: once, and never of a reversal."""
    fields = BodyFields(call.json(), allowed=("reason",))
    reason = fields.string("reason", min_length=1, max_length=MAX_REASON)
    fields.check()
    with call.transaction() as tx:
        original = _event(call, tx)
        if original.get("reverses") and not call.settings.has_fault("reversal_reversible"):
            raise ApiError(409, "not_a_record", "A reversal cannot be reversed.")
        reversed_already = tx.find(call.workspace, "success_event", reverses=original["id"])
        if reversed_already and not call.settings.has_fault("double_reversal_allowed"):
            raise ApiError(
                409,
                "already_reversed",
                f"The event is already reversed by {reversed_already[0]['id']}.",
            )
        value = original.get("value")
        if value is not None and call.settings.has_fault("reversal_zeroes_the_original"):
            tx.update(call.workspace, "success_event", {**original, "value": 0})  # a refund
        record = tx.insert(
            call.workspace,
            "success_event",
            {
                "code": original["code"],
                "value": value,
                "contact_id": original.get("contact_id"),
                "occurred_at": call.now(),
                "reverses": original["id"],
                "reason": reason,
            },
        )
        return call.created(render(tx, call.workspace, record))


OUTCOME_FIELDS = {"event_type": "code", "amount": "value"}
"""The `success_events_as_outcomes` variant's body names, and the reference's for each."""


@routes.post(
    "/v1/outcomes", scopes=WRITE, entity="success_events", variant="success_events_as_outcomes"
)
def record_outcome(call: Call) -> Reply:
    """The `success_events_as_outcomes` variant: events are recorded at `/v1/outcomes`
    as `{event_type, amount}` (the operation and its fields are not shown)."""
    body = call.json()
    if isinstance(body, dict):
        body = {OUTCOME_FIELDS.get(key, f"unknown:{key}"): value for key, value in body.items()}
    return create_event(replace(call, raw_body=json.dumps(body).encode()))


@routes.post(
    "/v1/outcomes/{event_id}/refund",
    scopes=WRITE,
    entity="success_events",
    variant="success_events_as_outcomes",
)
def refund_outcome(call: Call) -> Reply:
    """The variant's reversal: `POST /v1/outcomes/{event_id}/refund`."""
    return reverse_event(call)
