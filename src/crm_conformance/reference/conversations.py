"""Conversations: reading them, closing them, and handing them between the AI agent and
teammates (handoff, assign, resume).

The state machine lives in `conversation_moves`; this module loads a conversation,
applies a move and stores the result. A stored conversation keeps its holder as
`handler_id` (an `agt_` or `usr_` id, or None) and `agent_available` (whether its queue
has an active AI agent with a share of work, which `resume` needs).

Choices where the document is silent: every move needs `conversations:write` (the scope
that "changes who handles a conversation"; close is such a change too). Closing as
`spam` marks the contact with an internal flag (the Contact table has no field for it);
a spam contact who writes in again lands with the teammates, not the AI agent. An OAuth
token's person cannot act on a conversation whose contact they cannot see (403
`conversation_access_denied`); reads are not narrowed.
"""

import json
import secrets
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from crm_conformance.adapter_kit import Problem
from crm_conformance.reference import conversation_moves, owners
from crm_conformance.reference.api_errors import ApiError, not_found, validation_failed
from crm_conformance.reference.clock import now_stamp
from crm_conformance.reference.conversation_moves import Handler, Holding, MoveRefused
from crm_conformance.reference.identifiers import is_id
from crm_conformance.reference.listing import ListSpec, parse_since
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

STATUSES = ("waiting", "active", "closed")
CHANNELS = ("chatapp_api", "chatapp", "instagram", "slack", "web_widget", "chatbot_integration")
FIELDS = (
    "status", "channel", "channel_id", "contact_id", "handler", "needs_human", "queue_name",
    "last_message_at", "created_at", "updated_at",
)  # fmt: skip
WRITE = ("conversations:write",)

routes = RouteTable()

SPEC = ListSpec(
    name="conversations",
    fields=frozenset(FIELDS),
    sort_keys={
        "created_at": lambda r: r["created_at"],
        "updated_at": lambda r: r["updated_at"],
        "last_message_at": lambda r: r.get("last_message_at"),
    },
)


def render(tx: Transaction, workspace: str, record: Record) -> dict[str, Any]:
    return {
        "id": record["id"],
        "object": "conversation",
        "status": record["status"],
        "channel": record.get("channel"),
        "channel_id": record.get("channel_id"),
        "contact_id": record.get("contact_id"),
        "handler": owners.render_owner(tx, workspace, record.get("handler_id")),
        "needs_human": record.get("needs_human"),
        "queue_name": record.get("queue_name"),
        "last_message_at": record.get("last_message_at"),
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def holding(tx: Transaction, workspace: str, record: Record) -> Holding:
    """The part of a stored conversation the moves read."""
    handler_id = record.get("handler_id")
    handler = None
    if handler_id is not None:
        handler = Handler("agent" if is_id(handler_id, "agent") else "user", handler_id)
    return Holding(
        status=record["status"],
        handler=handler,
        needs_human=record.get("needs_human"),
        queue_name=record.get("queue_name"),
        agent_id=tx.setting(workspace, "agent_id") if record.get("agent_available") else None,
    )


def held(record: Record, moved: Holding) -> Record:
    """`record` with the holder of `moved`."""
    return {
        **record,
        "status": moved.status,
        "handler_id": moved.handler.id if moved.handler else None,
        "needs_human": moved.needs_human,
        "queue_name": moved.queue_name,
    }


def _actionable(call: Call, tx: Transaction, conversation_id: str) -> Record:
    """The conversation, if the token's person may act on it."""
    record = tx.get(call.workspace, "conversation", conversation_id)
    if record is None:
        raise not_found("conversation")
    contact = _contact(call, tx, record)
    if contact is not None and not call.sees(contact):
        raise ApiError(
            403,
            "conversation_access_denied",
            "The person this token acts for cannot see the conversation's contact.",
        )
    return record


def _contact(call: Call, tx: Transaction, record: Record) -> Record | None:
    contact_id = record.get("contact_id")
    return tx.get(call.workspace, "contact", contact_id) if contact_id else None


def _refusal(refused: MoveRefused) -> ApiError:
    return ApiError(refused.status, refused.code, refused.message, param=refused.param)


def _store(call: Call, tx: Transaction, record: Record, *, touch: bool = True) -> Reply:
    stored = tx.update(call.workspace, "conversation", record, touch=touch)
    return Reply(200, render(tx, call.workspace, stored))


@routes.get(
    "/v1/conversations",
    scopes=("conversations:read",),
    variant_scopes=(("conversations_list_unguarded", ()),),
)
def list_conversations(call: Call) -> Reply:
    params = call.list_params(SPEC, filters=("status", "contact_id", "updated_since"))
    statuses = call.query.getlist("status")
    contact_ids = call.query.getlist("contact_id")
    since = parse_since("updated_since", call.single("updated_since"))
    with call.transaction() as tx:
        places = [call.workspace]
        if call.settings.has_fault("conversations_list_all_workspaces"):
            places = tx.workspaces()  # the inbox query forgot its workspace condition
        rows = [
            row
            for place in places
            for row in tx.all(place, "conversation")
            if (not statuses or row["status"] in statuses)
            and (not contact_ids or row.get("contact_id") in contact_ids)
            and (since is None or row["updated_at"] >= since)
        ]
        identity = {
            "status": sorted(statuses),
            "contact_id": sorted(contact_ids),
            "updated_since": since,
        }
        return call.list_reply(SPEC, rows, params, identity, lambda r: _listed(call, tx, r))


def _listed(call: Call, tx: Transaction, record: Record) -> dict[str, Any]:
    """A row of the list; under its fault, `needs_human` as the integer column it is
    stored in (1 or 0)."""
    rendered = render(tx, call.workspace, record)
    flag = rendered.get("needs_human")
    if isinstance(flag, bool) and call.settings.has_fault("conversation_list_flag_as_integer"):
        rendered["needs_human"] = int(flag)
    return rendered


@routes.get("/v1/conversations/{conversation_id}", scopes=("conversations:read",))
def get_conversation(call: Call) -> Reply:
    conversation_id = call.path_id("conversation_id", "conversation")
    _, fields = call.retrieve_params(SPEC)
    with call.transaction() as tx:
        record = tx.get(call.workspace, "conversation", conversation_id)
        if record is None and call.settings.has_fault("conversation_retrieve_any_workspace"):
            found = (tx.get(ws, "conversation", conversation_id) for ws in tx.workspaces())
            record = next((r for r in found if r is not None), None)  # looked up by id alone
        if record is None:
            raise not_found("conversation")
        return Reply(200, call.narrow(_retrieved(call, render(tx, call.workspace, record)), fields))


def _retrieved(call: Call, rendered: dict[str, Any]) -> dict[str, Any]:
    """The retrieve's own serializer: its faults, each where one field is rendered."""
    handler = rendered.get("handler")
    if handler and handler["kind"] == "agent":
        if call.settings.has_fault("agent_handler_kind_ai"):
            rendered["handler"] = {**handler, "kind": "ai"}  # the internal name of the agent
        if call.settings.has_fault("agent_handler_id_bot_prefixed"):
            rendered["handler"] = {**handler, "id": "bot_" + handler["id"].partition("_")[2]}
    if handler and handler["kind"] == "user" and call.settings.has_fault("teammate_handler_hidden"):
        rendered["handler"] = None  # only the AI agent is rendered as a handler
    return rendered


@routes.post(
    "/v1/conversations/{conversation_id}/close",
    scopes=WRITE,
    entity="conversations",
    variant_scopes=(("close_needs_no_scope", ()),),
)
def close_conversation(call: Call) -> Reply:
    """Close with an outcome: `won` marks the contact won, `spam` marks it spam."""
    if call.settings.has_fault("close_path_id_unchecked"):
        conversation_id = call.path_params["conversation_id"]
    else:
        conversation_id = call.path_id("conversation_id", "conversation")
    try:
        body = call.json()
    except ApiError:
        if not call.settings.has_fault("close_unreadable_body_as_absent"):
            raise
        body = None  # the optional body, read leniently: anything unreadable is "none"
    if isinstance(body, dict) and call.settings.has_fault("close_unknown_keys_ignored"):
        body = {key: body[key] for key in ("outcome", "won_reason") if key in body}
    if (
        body is None
        and call.raw_body.strip()
        and call.settings.has_fault("close_null_body_refused")
    ):
        raise validation_failed([Problem("body", "must be a JSON object", "type")])
    fields = BodyFields(body, allowed=("outcome", "won_reason"))
    outcomes: tuple[str, ...] = conversation_moves.OUTCOMES
    if call.settings.has_fault("spam_outcome_refused"):
        outcomes = tuple(o for o in outcomes if o != "spam")
    outcome = fields.string("outcome", choices=outcomes) or "resolved"
    won_reasons: tuple[str, ...] = conversation_moves.WON_REASONS
    if call.settings.has_fault("won_reason_list_outdated"):
        won_reasons = tuple(r for r in won_reasons if r != "service_completed")
    won_reason = fields.string("won_reason", choices=won_reasons)
    fields.check()
    if (
        won_reason is not None
        and outcome != "won"
        and not call.settings.has_fault("won_reason_without_won_accepted")
    ):
        raise ApiError(
            422,
            "won_reason_without_won",
            "won_reason is only allowed with outcome won.",
            param="won_reason",
        )
    with call.transaction() as tx:
        unknown = tx.get(call.workspace, "conversation", conversation_id) is None
        if unknown and call.settings.has_fault("unknown_conversation_has_no_contact"):
            raise ApiError(409, "conversation_has_no_contact", "The conversation has no contact.")
        if unknown and call.settings.has_fault("closed_state_checked_before_workspace"):
            anywhere = (tx.get(w, "conversation", conversation_id) for w in tx.workspaces())
            if any(found and found["status"] == "closed" for found in anywhere):
                raise ApiError(409, "conversation_closed", "The conversation is closed.")
        record = _actionable(call, tx, conversation_id)
        if record["status"] == "closed" and call.settings.has_fault(
            "closed_conversation_closes_again"
        ):
            return Reply(200, render(tx, call.workspace, record))
        if record["status"] == "waiting" and call.settings.has_fault(
            "waiting_conversation_not_closable"
        ):
            raise ApiError(409, "conflict", "A queued conversation must be assigned first.")
        contact = _contact(call, tx, record)
        has_contact = contact is not None
        if call.settings.has_fault("close_without_contact_allowed"):
            has_contact = has_contact or record.get("contact_id") is None
        if call.settings.has_fault("deleted_contact_not_checked"):
            has_contact = has_contact or record.get("contact_id") is not None
        try:
            moved = conversation_moves.close(
                holding(tx, call.workspace, record), has_contact=has_contact
            )
        except MoveRefused as refused:
            raise _refusal(refused) from None
        marks_won = not call.settings.has_fault("close_won_not_marking_contact") and not (
            contact is not None
            and contact["status"] != "open"
            and call.settings.has_fault("won_close_marks_open_contacts_only")
        )
        if contact is None:
            pass  # only under the faults above that close without an existing contact
        elif outcome == "won" and marks_won and contact["status"] != "won":
            touch = not call.settings.has_fault("won_contact_keeps_updated_at")
            tx.update(call.workspace, "contact", {**contact, "status": "won"}, touch=touch)
        elif outcome == "spam":
            on_hold = call.settings.has_variant("spam_close_puts_contact_on_hold")
            status = {"status": "on_hold"} if on_hold else {}
            flagged = not call.settings.has_fault("spam_close_forgets_the_contact")
            tx.update(call.workspace, "contact", {**contact, "spam": flagged, **status})
        elif outcome == "resolved" and call.settings.has_fault("resolved_close_reopens_contact"):
            tx.update(call.workspace, "contact", {**contact, "status": "open"})
        closed = {
            **held(record, moved),
            "outcome": outcome,
            "won_reason": (won_reason or "other") if outcome == "won" else None,
        }
        if call.settings.has_fault("handler_kept_after_close"):
            closed["handler_id"] = record.get("handler_id")
        if outcome == "spam" and call.settings.has_fault("spam_close_keeps_handler"):
            closed["handler_id"] = record.get("handler_id")  # only the other outcomes clear it
        if call.settings.has_fault("needs_human_false_once_closed"):
            closed["needs_human"] = False
        if call.settings.has_fault("close_detaches_contact"):
            closed["contact_id"] = None
        if call.settings.has_fault("close_not_stored"):
            answer = Reply(200, render(tx, call.workspace, {**closed, "updated_at": now_stamp()}))
        else:
            touch = not call.settings.has_fault("close_keeps_updated_at")
            answer = _store(call, tx, closed, touch=touch)
            if call.settings.has_fault("close_clears_holder_in_answer_only"):
                kept = {key: record.get(key) for key in ("handler_id", "needs_human")}
                tx.update(call.workspace, "conversation", {**closed, **kept}, touch=False)
        return _close_answer(call, answer, record, outcome)


def _close_answer(call: Call, answer: Reply, before: Record, outcome: str) -> Reply:
    """The close's answer (with the faults of how a closed conversation is rendered, when
    on, at this one place); `before` is the conversation as it was before the close."""
    fault = call.settings.has_fault
    if fault("close_answers_204"):
        return Reply(204)
    body = dict(answer.body)
    if fault("close_renders_chat_id"):
        body["id"] = "chat_" + body["id"].removeprefix("conv_")
    if fault("close_renders_object_thread"):
        body["object"] = "thread"
    if fault("closed_status_named_after_outcome"):
        body["status"] = outcome
    if fault("close_renders_channel_label") and body.get("channel"):
        body["channel"] = str(body["channel"]).replace("_", " ").title()
    if fault("close_renders_channel_id_unprefixed") and body.get("channel_id"):
        body["channel_id"] = str(body["channel_id"]).removeprefix("chn_")
    if fault("close_renders_queue_object"):
        body["queue_name"] = {"name": before.get("queue_name")}
    if fault("close_renders_last_message_at_epoch") and body.get("last_message_at"):
        body["last_message_at"] = int(datetime.fromisoformat(body["last_message_at"]).timestamp())
    return replace(answer, body=body)


@routes.post(
    "/v1/conversations/{conversation_id}/messages", scopes=WRITE, variant="message_send_operation"
)
def send_message(call: Call) -> Reply:
    """The fault `message_send_operation`: a send, which "no public operation" may make."""
    conversation_id = call.path_id("conversation_id", "conversation")
    with call.transaction() as tx:
        if tx.get(call.workspace, "conversation", conversation_id) is None:
            raise not_found("conversation")
    sent = {"id": f"msg_{secrets.token_hex(16)}", "object": "message", "body": call.json()}
    return call.created({**sent, "conversation_id": conversation_id})


@routes.post(
    "/v1/conversations/{conversation_id}/handoff",
    scopes=WRITE,
    entity="conversations",
    replaced_by=("moves_as_one_operation",),
)
def handoff_conversation(call: Call) -> Reply:
    """Hand from the AI agent to the teammates' queue. Body: none (or `{}`)."""
    conversation_id = call.path_id("conversation_id", "conversation")
    BodyFields(call.json(), allowed=()).check()
    with call.transaction() as tx:
        record = _actionable(call, tx, conversation_id)
        current = holding(tx, call.workspace, record)
        if current.status != "closed" and call.settings.has_fault("handoff_holder_unchecked"):
            moved = replace(current, status="waiting", handler=None, needs_human=True)
            return _store(call, tx, held(record, moved))
        try:
            moved = conversation_moves.handoff(current)
        except MoveRefused as refused:
            raise _refusal(refused) from None
        if call.settings.has_fault("handoff_keeps_the_agent"):
            moved = replace(moved, status=current.status, handler=current.handler)  # flag only
        touch = not call.settings.has_fault("handoff_keeps_updated_at")  # a raw queue write
        return _store(call, tx, held(record, moved), touch=touch)


@routes.post(
    "/v1/conversations/{conversation_id}/assign",
    scopes=WRITE,
    entity="conversations",
    replaced_by=("moves_as_one_operation",),
)
def assign_conversation(call: Call) -> Reply:
    """Give to a teammate. Body: `{assignee_id}` (an active `usr_` of the workspace)."""
    conversation_id = call.path_id("conversation_id", "conversation")
    fields = BodyFields(call.json(), allowed=("assignee_id",))
    assignee_id = fields.identifier("assignee_id", "user", required=True)
    fields.check()
    assert assignee_id is not None
    with call.transaction() as tx:
        record = _actionable(call, tx, conversation_id)
        current = holding(tx, call.workspace, record)
        if current.with_ai and call.settings.has_fault("assign_takes_from_ai"):
            current = replace(current, handler=None)  # the AI agent's hold is not checked
        try:
            moved = conversation_moves.assign(current, assignee_id=assignee_id)
        except MoveRefused as refused:
            raise _refusal(refused) from None
        assignee = tx.get(call.workspace, "user", assignee_id)
        unchecked = call.settings.has_fault("assignee_unchecked")
        if not unchecked and (assignee is None or assignee.get("status") != "active"):
            raise ApiError(
                422,
                "assignee_not_found",
                "assignee_id is not an active teammate of this workspace.",
                param="assignee_id",
            )
        if call.settings.has_fault("assign_clears_needs_human"):
            moved = replace(moved, needs_human=False)  # "a teammate has it: no one to ask for"
        return _store(call, tx, held(record, moved))


@routes.post(
    "/v1/conversations/{conversation_id}/resume",
    scopes=WRITE,
    entity="conversations",
    replaced_by=("moves_as_one_operation", "conversation_resume_missing"),
)
def resume_conversation(call: Call) -> Reply:
    """Hand back to the queue's AI agent. Body: none (or `{}`)."""
    conversation_id = call.path_id("conversation_id", "conversation")
    BodyFields(call.json(), allowed=()).check()
    with call.transaction() as tx:
        record = _actionable(call, tx, conversation_id)
        current = holding(tx, call.workspace, record)
        if current.with_ai and call.settings.has_fault("resume_with_ai_accepted"):
            return Reply(200, render(tx, call.workspace, record))
        try:
            moved = conversation_moves.resume(current)
        except MoveRefused as refused:
            raise _refusal(refused) from None
        return _store(call, tx, held(record, moved))


MOVES: dict[str, Callable[[Call], Reply]] = {
    "handoff": handoff_conversation,
    "assign": assign_conversation,
    "resume": resume_conversation,
}


@routes.post(
    "/v1/conversations/{conversation_id}/handler",
    scopes=WRITE,
    entity="conversations",
    variant="moves_as_one_operation",
)
def change_handler(call: Call) -> Reply:
    """The `moves_as_one_operation` variant: one operation for every move, the move named
    by `action` in the body (`{action: assign, assignee_id}`)."""
    body = call.json()
    action = body.get("action") if isinstance(body, dict) else None
    if action not in MOVES:
        fields = BodyFields(body, allowed=("action", "assignee_id"))
        fields.string("action", required=True, choices=MOVES)
        fields.check()
    assert isinstance(body, dict)
    rest = {key: value for key, value in body.items() if key != "action"}
    return MOVES[str(action)](replace(call, raw_body=json.dumps(rest).encode()))
