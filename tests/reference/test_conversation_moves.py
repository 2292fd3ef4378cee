"""The conversation state machine: every move from every holder, without storage."""

import pytest

from crm_conformance.reference.conversation_moves import (
    Handler,
    Holding,
    MoveRefused,
    assign,
    close,
    handoff,
    resume,
)

AGENT = Handler("agent", "agt_" + "a" * 32)
TEAMMATE = Handler("user", "usr_" + "b" * 32)
OTHER = "usr_" + "c" * 32

WITH_AI = Holding("active", AGENT, False, "Sales", AGENT.id)
WITH_TEAMMATE = Holding("active", TEAMMATE, True, "Sales", AGENT.id)
QUEUED = Holding("waiting", None, True, "Sales", AGENT.id)
CLOSED = Holding("closed", None, None, None, AGENT.id)


def refusal(move: object) -> tuple[int, str]:
    with pytest.raises(MoveRefused) as caught:
        move()  # type: ignore[operator]  # the narrowed type mypy cannot follow
    return caught.value.status, caught.value.code


@pytest.mark.parametrize("holding", [WITH_AI, WITH_TEAMMATE, QUEUED], ids=["ai", "user", "queue"])
def test_close_clears_handler_needs_human_and_queue(holding: Holding) -> None:
    closed = close(holding, has_contact=True)
    assert (closed.status, closed.handler, closed.needs_human, closed.queue_name) == (
        "closed",
        None,
        None,
        None,
    )


def test_close_needs_a_contact() -> None:
    assert refusal(lambda: close(WITH_AI, has_contact=False)) == (
        409,
        "conversation_has_no_contact",
    )


@pytest.mark.parametrize(
    "move",
    [
        lambda h: close(h, has_contact=True),
        lambda h: close(h, has_contact=False),
        handoff,
        lambda h: assign(h, assignee_id=OTHER),
        resume,
    ],
    ids=["close", "close-no-contact", "handoff", "assign", "resume"],
)
def test_every_move_on_a_closed_conversation_is_conversation_closed(move: object) -> None:
    assert refusal(lambda: move(CLOSED)) == (409, "conversation_closed")  # type: ignore[operator]  # the narrowed type mypy cannot follow


def test_handoff_queues_for_a_teammate() -> None:
    moved = handoff(WITH_AI)
    assert (moved.status, moved.handler, moved.needs_human) == ("waiting", None, True)
    assert moved.queue_name == "Sales"


@pytest.mark.parametrize("holding", [WITH_TEAMMATE, QUEUED], ids=["user", "queue"])
def test_handoff_needs_the_ai_to_hold_it(holding: Holding) -> None:
    assert refusal(lambda: handoff(holding)) == (409, "conversation_not_with_ai")


@pytest.mark.parametrize("holding", [WITH_TEAMMATE, QUEUED], ids=["user", "queue"])
def test_assign_gives_it_to_a_teammate_who_has_not_accepted(holding: Holding) -> None:
    moved = assign(holding, assignee_id=OTHER)
    assert (moved.status, moved.handler, moved.needs_human) == (
        "waiting",
        Handler("user", OTHER),
        True,
    )


def test_assign_while_the_ai_holds_it_says_hand_off_first() -> None:
    assert refusal(lambda: assign(WITH_AI, assignee_id=OTHER)) == (409, "conversation_with_ai")


@pytest.mark.parametrize("holding", [WITH_TEAMMATE, QUEUED], ids=["user", "queue"])
def test_resume_hands_back_to_the_agent(holding: Holding) -> None:
    moved = resume(holding)
    assert (moved.status, moved.handler, moved.needs_human) == ("active", AGENT, False)


def test_resume_refusals() -> None:
    assert refusal(lambda: resume(WITH_AI)) == (409, "conversation_already_with_ai")
    no_agent = Holding("waiting", None, True, "Night", None)
    assert refusal(lambda: resume(no_agent)) == (409, "no_agent_available")
