"""Who holds a conversation, and the moves between holders: close, handoff, assign, resume.

The document gives close in full and, for the other moves, only their refusals (the 409
table: `conversation_closed`, `conversation_not_with_ai`, `conversation_with_ai`,
`conversation_already_with_ai`, `no_agent_available`; 422 `assignee_not_found`). The
moves chosen to fit those refusals:

- handoff: allowed when the AI agent holds it; afterwards `waiting`, no handler (queued
  for a teammate), `needs_human` true.
- assign: allowed when a teammate or the queue holds it; afterwards `waiting` (the
  teammate has not accepted yet), handler the teammate, `needs_human` true.
- resume: allowed when a teammate or the queue holds it and the queue has an AI agent;
  afterwards `active`, handler the AI agent, `needs_human` false.
- close: allowed when it has an existing contact; afterwards `closed` with handler,
  `needs_human` and queue null.

Every move on a closed conversation is refused with `conversation_closed`. Pure
functions over `Holding`, so the state machine is tested without storage.
"""

from dataclasses import dataclass, replace
from typing import Literal

Status = Literal["waiting", "active", "closed"]
HandlerKind = Literal["agent", "user"]

OUTCOMES = ("resolved", "won", "spam")
WON_REASONS = (
    "hiring_sale_success",
    "appointment_completed",
    "proposal_accepted",
    "contract_signed",
    "payment_confirmed",
    "service_completed",
    "other",
)


class MoveRefused(Exception):
    """The move is not allowed from the current state: `status` and `code` of the answer."""

    def __init__(self, status: int, code: str, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param


@dataclass(frozen=True)
class Handler:
    """The AI agent (`agt_` id) or a teammate (`usr_` id) holding the conversation."""

    kind: HandlerKind
    id: str


@dataclass(frozen=True)
class Holding:
    """The part of a conversation the moves read and change."""

    status: Status
    handler: Handler | None
    needs_human: bool | None
    queue_name: str | None
    agent_id: str | None
    """The queue's active AI agent with a share of work; None when it has none."""

    @property
    def with_ai(self) -> bool:
        """Whether the AI agent holds it."""
        return self.handler is not None and self.handler.kind == "agent"


def close(holding: Holding, *, has_contact: bool) -> Holding:
    """Close: nothing is sent to the contact; nobody holds it any more."""
    _require_open(holding)
    if not has_contact:
        raise MoveRefused(
            409,
            "conversation_has_no_contact",
            "the conversation has no contact (or the contact was deleted), so it cannot be closed",
        )
    return replace(holding, status="closed", handler=None, needs_human=None, queue_name=None)


def handoff(holding: Holding) -> Holding:
    """Hand from the AI agent to the teammates' queue."""
    _require_open(holding)
    if not holding.with_ai:
        raise MoveRefused(
            409,
            "conversation_not_with_ai",
            "a teammate or the queue already has the conversation; use assign to move it",
        )
    return replace(holding, status="waiting", handler=None, needs_human=True)


def assign(holding: Holding, *, assignee_id: str) -> Holding:
    """Give to one teammate, who has not accepted yet (`waiting`)."""
    _require_open(holding)
    if holding.with_ai:
        raise MoveRefused(
            409,
            "conversation_with_ai",
            "the AI agent has the conversation; hand it off before assigning it",
        )
    return replace(
        holding, status="waiting", handler=Handler("user", assignee_id), needs_human=True
    )


def resume(holding: Holding) -> Holding:
    """Hand back to the queue's AI agent."""
    _require_open(holding)
    if holding.with_ai:
        raise MoveRefused(
            409, "conversation_already_with_ai", "the AI agent already handles the conversation"
        )
    if holding.agent_id is None:
        raise MoveRefused(
            409,
            "no_agent_available",
            "the conversation's queue has no active AI agent with a share of work",
        )
    return replace(
        holding, status="active", handler=Handler("agent", holding.agent_id), needs_human=False
    )


def _require_open(holding: Holding) -> None:
    if holding.status == "closed":
        raise MoveRefused(
            409,
            "conversation_closed",
            "the conversation is closed; it cannot be handed off, assigned, resumed or closed",
        )
