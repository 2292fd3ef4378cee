"""The provisioning adapter's domain operations (`spec/adapter.yaml`): conversations in a
chosen state, a contact writing in, campaigns with participant histories, and success
event types. None of these can be arranged through the public API.

Every body names its `workspace` (`primary` or `secondary`, the seeded workspaces);
the records made here are read back through the public API exactly as if the service
had made them, so they are stored in the forms the API modules store.
"""

from typing import Any

from crm_conformance.reference import campaigns, contacts, conversations, success_events
from crm_conformance.reference.api_errors import ApiError, not_found
from crm_conformance.reference.clock import now_stamp
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.seed import WORKSPACES
from crm_conformance.reference.storage import Record, Transaction

QUEUE = "Sales"
"""The queue of conversations whose AI agent is available."""
HUMAN_QUEUE = "Human support"
"""The queue with no active AI agent (`agent_available: false`)."""

routes = RouteTable(authenticated=False)


def workspace_of(fields: BodyFields) -> str | None:
    """The body's `workspace`: one of the seeded workspaces (a problem otherwise)."""
    return fields.string("workspace", required=True, choices=WORKSPACES)


def new_contact(call: Call, tx: Transaction, first_name: str) -> str:
    """A contact made with the API's own defaults, for records that need one."""
    acting = call.as_workspace(call.workspace)
    changes, _ = contacts.read_changes(acting, tx, {"first_name": first_name}, None)
    return str(tx.insert(call.workspace, "contact", changes)["id"])


def existing_contact(tx: Transaction, workspace: str, contact_id: str) -> Record:
    contact = tx.get(workspace, "contact", contact_id)
    if contact is None:
        raise not_found("contact", "contact_not_found")
    return contact


def _channel_id(tx: Transaction, workspace: str, platform: str) -> str | None:
    channel = next(iter(tx.find(workspace, "channel", platform=platform)), None)
    return channel["id"] if channel else None


def _open_conversation(
    tx: Transaction,
    workspace: str,
    *,
    status: str,
    contact_id: str | None,
    handler: str | None,
    channel: str,
    agent_available: bool,
) -> Record:
    """Store an open conversation held by the AI agent, a teammate or nobody (queued)."""
    handler_id = None
    if handler == "agent":
        handler_id = tx.setting(workspace, "agent_id")
    elif handler == "user":
        handler_id = tx.all(workspace, "user")[0]["id"]
    return tx.insert(
        workspace,
        "conversation",
        {
            "status": status,
            "channel": channel,
            "channel_id": _channel_id(tx, workspace, channel),
            "contact_id": contact_id,
            "handler_id": handler_id,
            "needs_human": handler != "agent",
            "queue_name": QUEUE if agent_available else HUMAN_QUEUE,
            "agent_available": agent_available,
            "last_message_at": now_stamp(),
        },
    )


@routes.post("/_adapter/v1/conversations")
def create_conversation(call: Call) -> Reply:
    """A conversation in a chosen open state; `contact_id` absent makes a new contact."""
    fields = BodyFields(
        call.json(),
        allowed=("workspace", "status", "contact_id", "handler", "channel", "agent_available"),
    )
    workspace = workspace_of(fields)
    status = fields.string("status", required=True, choices=("waiting", "active"))
    contact_id = fields.identifier("contact_id", "contact")
    handler = fields.string("handler", choices=("agent", "user"))
    channel = fields.string("channel", nullable=False, choices=conversations.CHANNELS)
    agent_available = fields.boolean("agent_available")
    fields.check()
    assert workspace is not None and status is not None
    acting = call.as_workspace(workspace)
    with call.transaction() as tx:
        if contact_id is not None:
            existing_contact(tx, workspace, contact_id)
        elif not fields.has("contact_id"):
            contact_id = new_contact(acting, tx, "Conversation")
        if not fields.has("handler"):
            handler = "agent" if status == "active" else None
        record = _open_conversation(
            tx,
            workspace,
            status=status,
            contact_id=contact_id,
            handler=handler,
            channel=channel or "chatapp_api",
            agent_available=agent_available is not False,
        )
        return Reply(201, conversations.render(tx, workspace, record))


@routes.post("/_adapter/v1/conversations/inbound")
def inbound_message(call: Call) -> Reply:
    """The contact writes in: to its open conversation, or to a new one when the last
    is closed. The AI agent takes a new one, unless the contact was closed as spam."""
    fields = BodyFields(call.json(), allowed=("workspace", "contact_id"))
    workspace = workspace_of(fields)
    contact_id = fields.identifier("contact_id", "contact", required=True)
    fields.check()
    assert workspace is not None and contact_id is not None
    with call.transaction() as tx:
        contact = existing_contact(tx, workspace, contact_id)
        threads = tx.find(workspace, "conversation", contact_id=contact_id)
        current = next((t for t in reversed(threads) if t["status"] != "closed"), None)
        if current is not None:
            record = tx.update(
                workspace, "conversation", {**current, "last_message_at": now_stamp()}
            )
        else:
            spam = bool(contact.get("spam"))
            record = _open_conversation(
                tx,
                workspace,
                status="waiting" if spam else "active",
                contact_id=contact_id,
                handler=None if spam else "agent",
                channel=threads[-1]["channel"] if threads else "chatapp_api",
                agent_available=True,
            )
        return Reply(200, conversations.render(tx, workspace, record))


PARTICIPANT_FIELDS = (
    "contact_id", "enrolled_at", "contacted_at", "replied_at", "reply_automated",
    "converted_at", "not_contacted_reason", "status_changed_at",
)  # fmt: skip
MAX_PARTICIPANTS = 1000


def _participants(fields: BodyFields) -> list[dict[str, Any]]:
    """The `participants` histories, each checked for order and consistency."""
    items = fields.body.get("participants")
    if items is None:
        return []
    if not isinstance(items, list) or len(items) > MAX_PARTICIPANTS:
        fields.problem("participants", f"must be a list of at most {MAX_PARTICIPANTS}", "type")
        return []
    histories = []
    for index, item in enumerate(items):
        one = BodyFields(item, allowed=PARTICIPANT_FIELDS, path=f"participants.{index}")
        history: dict[str, Any] = {
            "contact_id": one.identifier("contact_id", "contact"),
            "enrolled_at": one.instant("enrolled_at", required=True),
            "contacted_at": one.instant("contacted_at"),
            "replied_at": one.instant("replied_at"),
            "reply_automated": bool(one.boolean("reply_automated")),
            "converted_at": one.instant("converted_at"),
            "not_contacted_reason": one.string("not_contacted_reason", min_length=1),
            "status_changed_at": one.instant("status_changed_at"),
        }
        for later in ("replied_at", "converted_at"):
            if history[later] is not None and (
                history["contacted_at"] is None or history[later] < history["contacted_at"]
            ):
                one.problem(later, "needs contacted_at, and is not before it", "order")
        if history["reply_automated"] and history["replied_at"] is None:
            one.problem("reply_automated", "needs replied_at", "order")
        if history["not_contacted_reason"] is not None and history["contacted_at"] is not None:
            one.problem("not_contacted_reason", "is not allowed with contacted_at", "one_of")
        fields.problems.extend(one.problems)
        histories.append(history)
    return histories


@routes.post("/_adapter/v1/campaigns")
def create_campaign(call: Call) -> Reply:
    """A campaign in a chosen status with participants and their message history; a
    participant converted after the message makes its contact `won`."""
    fields = BodyFields(call.json(), allowed=("workspace", "status", "name", "participants"))
    workspace = workspace_of(fields)
    status = fields.string("status", required=True, choices=campaigns.STATUSES)
    name = fields.string("name", nullable=False, min_length=1, max_length=255)
    histories = _participants(fields)
    fields.check()
    assert workspace is not None and status is not None
    acting = call.as_workspace(workspace)
    with call.transaction() as tx:
        campaign = tx.insert(
            workspace,
            "campaign",
            {
                "name": name or "Spring outreach",
                "instructions": "Answer questions about the offer and offer a call.",
                "status": status,
            },
        )
        for index, history in enumerate(histories):
            contact_id = history["contact_id"]
            if contact_id is None:
                contact_id = new_contact(acting, tx, f"Participant {index + 1}")
            contact = existing_contact(tx, workspace, contact_id)
            if history["converted_at"] is not None and contact["status"] != "won":
                tx.update(workspace, "contact", {**contact, "status": "won"})
            record = {**history, "campaign_id": campaign["id"], "contact_id": contact_id}
            tx.insert(workspace, "participant", record, created_at=history["enrolled_at"])
        return Reply(201, campaigns.render(campaign))


@routes.post("/_adapter/v1/success-event-types")
def create_success_event_type(call: Call) -> Reply:
    """Define an event type; the same code again with the same basis answers it unchanged,
    with another basis 409 `already_exists`."""
    fields = BodyFields(call.json(), allowed=("workspace", "code", "value"))
    workspace = workspace_of(fields)
    code = fields.string("code", required=True, pattern=r"[a-z][a-z0-9_]{0,63}")
    basis = fields.string("value", required=True, choices=success_events.VALUE_BASES)
    fields.check()
    assert workspace is not None and code is not None
    with call.transaction() as tx:
        existing = success_events.event_type(tx, workspace, code)
        if existing is not None and existing["value"] != basis:
            raise ApiError(
                409,
                "already_exists",
                f"Event type {code!r} exists with value basis {existing['value']!r}.",
                param="value",
            )
        record = existing or tx.insert(
            workspace, "success_event_type", {"code": code, "value": basis}
        )
    return Reply(201, success_events.render_type(record))
