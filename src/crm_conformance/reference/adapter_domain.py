"""The adapter's domain features on the kit: conversations in a chosen state, a contact
writing in, campaigns with participant histories, and success event types. None of
these can be arranged through the public API.

The kit has checked each request against `spec/adapter.yaml` (which holders a state
allows, the order of a participant's events); the records made here are read back
through the public API exactly as if the service had made them, so they are stored in
the forms the API modules store.
"""

from typing import Any

from crm_conformance.adapter_kit import (
    CampaignRequest,
    ConversationRequest,
    Definition,
    InboundRequest,
    Problem,
    Refusal,
    SuccessEventTypeRequest,
)
from crm_conformance.reference import (
    campaigns,
    contacts,
    conversations,
    owners,
    stats,
    success_events,
)
from crm_conformance.reference.adapter import Backend, checked, stamp_or_none
from crm_conformance.reference.clock import now_stamp, stamp
from crm_conformance.reference.storage import Record, Transaction

QUEUE = "Sales"
"""The queue of conversations whose AI agent is available."""
HUMAN_QUEUE = "Human support"
"""The queue with no active AI agent (`agent_available: false`)."""


class DomainAdapter:
    """Conversations, inbound messages, campaigns and success event types."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def create_conversation(self, request: ConversationRequest) -> dict[str, Any]:
        """A conversation in a chosen open state; with `new_contact`, a new contact."""
        workspace = self.backend.workspace(request.workspace)
        with self.backend.transaction() as tx:
            contact_id = request.contact_id
            if contact_id is not None:
                _existing_contact(tx, workspace, contact_id)
            elif request.new_contact:
                contact_id = self._new_contact(tx, workspace, "Conversation")
            holder = None
            if request.handler == "agent":
                holder = tx.setting(workspace, "agent_id")
            elif request.handler == "user":
                holder = self._teammate(tx, workspace, request.user_id)
            record = _open_conversation(
                tx,
                workspace,
                status=request.status,
                contact_id=contact_id,
                holder=holder,
                channel=request.channel,
                agent_available=request.agent_available,
            )
            return conversations.render(tx, workspace, record)

    def inbound(self, request: InboundRequest) -> dict[str, Any]:
        """The contact writes in: to its open conversation, or to a new one when the last
        is closed. The AI agent takes a new one, unless the contact was closed as spam."""
        workspace = self.backend.workspace(request.workspace)
        with self.backend.transaction() as tx:
            contact = _existing_contact(tx, workspace, request.contact_id)
            threads = tx.find(workspace, "conversation", contact_id=request.contact_id)
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
                    contact_id=request.contact_id,
                    holder=None if spam else tx.setting(workspace, "agent_id"),
                    channel=threads[-1]["channel"] if threads else "chatapp_api",
                    agent_available=True,
                )
            return conversations.render(tx, workspace, record)

    def create_campaign(self, request: CampaignRequest) -> dict[str, Any]:
        """A campaign in a chosen status with participants and their message history; a
        participant converted after the message makes its contact `won`."""
        unknown = [
            Problem(f"participants.{index}.not_contacted_reason", "is not a reason of this service")
            for index, one in enumerate(request.participants)
            if one.not_contacted_reason not in (None, *stats.NOT_CONTACTED_REASONS)
        ]
        if unknown:
            raise Refusal.invalid(unknown)
        workspace = self.backend.workspace(request.workspace)
        with self.backend.transaction() as tx:
            campaign = tx.insert(
                workspace,
                "campaign",
                {
                    "name": request.name or "Spring outreach",
                    "instructions": "Answer questions about the offer and offer a call.",
                    "status": request.status,
                },
            )
            for index, one in enumerate(request.participants):
                contact_id = one.contact_id or self._new_contact(
                    tx, workspace, f"Participant {index + 1}"
                )
                contact = _existing_contact(tx, workspace, contact_id)
                if one.converted_at is not None and contact["status"] != "won":
                    tx.update(workspace, "contact", {**contact, "status": "won"})
                history = {
                    "campaign_id": campaign["id"],
                    "contact_id": contact_id,
                    "enrolled_at": stamp(one.enrolled_at),
                    "contacted_at": stamp_or_none(one.contacted_at),
                    "replied_at": stamp_or_none(one.replied_at),
                    "reply_automated": one.reply_automated,
                    "converted_at": stamp_or_none(one.converted_at),
                    "not_contacted_reason": one.not_contacted_reason,
                    "status_changed_at": stamp(one.status_changed_at),
                }
                tx.insert(workspace, "participant", history, created_at=history["enrolled_at"])
            return campaigns.render(campaign)

    def create_success_event_type(self, request: SuccessEventTypeRequest) -> Definition:
        """A new type; the same code again with the same basis is found unchanged, with
        another basis 409 `already_exists`."""
        workspace = self.backend.workspace(request.workspace)
        with self.backend.transaction() as tx:
            existing = success_events.event_type(tx, workspace, request.code)
            if existing is None:
                tx.insert(
                    workspace, "success_event_type", {"code": request.code, "value": request.value}
                )
                return "created"
        if existing["value"] != request.value:
            raise Refusal.conflict(
                "already_exists",
                f"Event type {request.code!r} exists with value basis {existing['value']!r}.",
                param="value",
            )
        return "existing"

    def _new_contact(self, tx: Transaction, workspace: str, first_name: str) -> str:
        """A contact made with the API's own defaults, for records that need one."""
        acting = self.backend.acting(workspace)
        changes, _ = contacts.read_changes(acting, tx, {"first_name": first_name}, None)
        return str(tx.insert(workspace, "contact", changes)["id"])

    def _teammate(self, tx: Transaction, workspace: str, user_id: str | None) -> str:
        """The teammate named, or the first active one."""
        if user_id is None:
            return str(next(u for u in tx.all(workspace, "user") if u["status"] == "active")["id"])
        fields = checked({"user_id": user_id}, ("user_id",))
        chosen = owners.user_field(tx, workspace, fields, "user_id")
        fields.check()
        assert chosen is not None
        return chosen


def _existing_contact(tx: Transaction, workspace: str, contact_id: str) -> Record:
    contact = tx.get(workspace, "contact", contact_id)
    if contact is None:
        raise Refusal.not_found("contact", code="contact_not_found")
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
    holder: str | None,
    channel: str,
    agent_available: bool,
) -> Record:
    """Store an open conversation held by `holder` (the AI agent or a teammate) or queued."""
    agent = holder is not None and holder == tx.setting(workspace, "agent_id")
    return tx.insert(
        workspace,
        "conversation",
        {
            "status": status,
            "channel": channel,
            "channel_id": _channel_id(tx, workspace, channel),
            "contact_id": contact_id,
            "handler_id": holder,
            "needs_human": not agent,
            "queue_name": QUEUE if agent_available else HUMAN_QUEUE,
            "agent_available": agent_available,
            "last_message_at": now_stamp(),
        },
    )
