"""Conversations: reads, close per the state table and body rules, handoff, assign,
resume, and the adapter operations that arrange them (create, inbound)."""

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from crm_conformance.reference.app import ReferenceApp

Open = Callable[..., dict[str, Any]]
MISSING = "conv_" + "0" * 32


def code(response: Any) -> str:
    return str(response.json()["error"]["code"])


@pytest.fixture
def app(make_app: Callable[..., ReferenceApp], request: pytest.FixtureRequest) -> ReferenceApp:
    """A fresh app; parametrized indirectly with a set of fault names for fault tests."""
    return make_app(faults=getattr(request, "param", frozenset()))


@pytest.fixture
def adapter(client_for: Callable[[str | None], TestClient]) -> TestClient:
    return client_for(None)


@pytest.fixture
def contact(api: TestClient) -> dict[str, Any]:
    return api.post("/v1/contacts", json={"first_name": "Writer"}).json()


@pytest.fixture
def open_conversation(adapter: TestClient, contact: dict[str, Any]) -> Open:
    """`open_conversation(**body)`: an adapter conversation (default: active, with AI)."""

    def make(**body: Any) -> dict[str, Any]:
        sent = {"workspace": "primary", "status": "active", "contact_id": contact["id"], **body}
        response = adapter.post("/_adapter/v1/conversations", json=sent)
        assert response.status_code == 201, response.text
        return response.json()

    return make


def close(api: TestClient, conversation: dict[str, Any], **kwargs: Any) -> Any:
    return api.post(f"/v1/conversations/{conversation['id']}/close", **kwargs)


def move(api: TestClient, conversation: dict[str, Any], name: str, **kwargs: Any) -> Any:
    return api.post(f"/v1/conversations/{conversation['id']}/{name}", **kwargs)


# --- adapter arrangements and reads -------------------------------------------------------


def test_adapter_conversation_in_each_holding(open_conversation: Open, ids: dict) -> None:
    with_ai = open_conversation()
    assert with_ai["object"] == "conversation"
    assert with_ai["id"].startswith("conv_")
    assert with_ai["handler"]["id"] == ids["agent"]
    assert with_ai["handler"]["kind"] == "agent"
    assert (with_ai["status"], with_ai["needs_human"], with_ai["channel"]) == (
        "active",
        False,
        "chatapp_api",
    )
    assert with_ai["channel_id"].startswith("chn_")
    assert with_ai["queue_name"]
    queued = open_conversation(status="waiting")
    assert (queued["handler"], queued["needs_human"]) == (None, True)
    teammate = open_conversation(handler="user")
    assert teammate["handler"]["kind"] == "user"
    assert teammate["needs_human"] is True
    nobody = open_conversation(contact_id=None, channel="slack")
    assert (nobody["contact_id"], nobody["channel_id"]) == (None, None)


def test_adapter_makes_a_contact_when_absent(adapter: TestClient, api: TestClient) -> None:
    made = adapter.post(
        "/_adapter/v1/conversations", json={"workspace": "primary", "status": "active"}
    )
    assert made.status_code == 201
    assert api.get(f"/v1/contacts/{made.json()['contact_id']}").status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"workspace": "third", "status": "active"},
        {"workspace": "primary", "status": "closed"},
        {"workspace": "primary", "status": "active", "handler": "robot"},
        {"workspace": "primary", "status": "active", "surprise": 1},
    ],
)
def test_adapter_refuses_bad_bodies(adapter: TestClient, body: dict) -> None:
    response = adapter.post("/_adapter/v1/conversations", json=body)
    assert (response.status_code, code(response)) == (422, "validation_failed")


def test_adapter_unknown_contact_is_404(adapter: TestClient) -> None:
    body = {"workspace": "primary", "status": "active", "contact_id": "con_" + "0" * 32}
    response = adapter.post("/_adapter/v1/conversations", json=body)
    assert (response.status_code, code(response)) == (404, "contact_not_found")


def test_list_newest_first_with_filters_and_retrieve(
    api: TestClient, other_api: TestClient, open_conversation: Open
) -> None:
    first, second = open_conversation(), open_conversation(status="waiting")
    listed = api.get("/v1/conversations").json()
    assert [c["id"] for c in listed["data"]] == [second["id"], first["id"]]
    assert listed["meta"] == {"has_more": False, "limit": 50}
    assert listed["links"]["next"] is None
    waiting = api.get("/v1/conversations", params={"status": "waiting"}).json()["data"]
    assert [c["id"] for c in waiting] == [second["id"]]
    assert api.get(f"/v1/conversations/{first['id']}").json() == first
    assert other_api.get(f"/v1/conversations/{first['id']}").status_code == 404
    assert other_api.get("/v1/conversations").json()["data"] == []
    assert api.get("/v1/conversations/nope").status_code == 400


def test_reads_need_conversations_read(issue: Callable[..., TestClient]) -> None:
    response = issue(scopes=["contacts:read"]).get("/v1/conversations")
    assert (response.status_code, response.json()["error"]["param"]) == (
        403,
        "conversations:read",
    )


# --- close -----------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"json": None}, {"json": {}}])
def test_close_without_body_resolves(api: TestClient, open_conversation: Open, kwargs) -> None:
    conversation = open_conversation()
    response = close(api, conversation, **kwargs)
    assert response.status_code == 200
    closed = response.json()
    assert (closed["status"], closed["handler"], closed["needs_human"]) == ("closed", None, None)
    assert closed["updated_at"] > conversation["updated_at"]
    assert api.get(f"/v1/conversations/{conversation['id']}").json() == closed


def test_close_won_marks_the_contact_won(
    api: TestClient, open_conversation: Open, contact: dict
) -> None:
    close(api, open_conversation(), json={"outcome": "won", "won_reason": "contract_signed"})
    assert api.get(f"/v1/contacts/{contact['id']}").json()["status"] == "won"


def test_close_resolved_and_spam_leave_the_status(
    api: TestClient, open_conversation: Open, contact: dict
) -> None:
    assert close(api, open_conversation(), json={"outcome": "resolved"}).status_code == 200
    assert api.get(f"/v1/contacts/{contact['id']}").json() == contact
    assert close(api, open_conversation(), json={"outcome": "spam"}).status_code == 200
    after = api.get(f"/v1/contacts/{contact['id']}").json()
    assert after["status"] == "open"
    assert "spam" not in after


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"outcome": "resolved", "won_reason": "other"}, 422, "won_reason_without_won"),
        ({"won_reason": "other"}, 422, "won_reason_without_won"),
        ({"outcome": "sold"}, 422, "validation_failed"),
        ({"outcome": "won", "won_reason": "luck"}, 422, "validation_failed"),
        ({"reason": "done"}, 422, "validation_failed"),
        ([], 422, "validation_failed"),
    ],
)
def test_close_body_rules(
    api: TestClient, open_conversation: Open, body: Any, status: int, error: str
) -> None:
    response = close(api, open_conversation(), json=body)
    assert (response.status_code, code(response)) == (status, error)


def test_closing_twice_is_conversation_closed(api: TestClient, open_conversation: Open) -> None:
    conversation = open_conversation()
    closed = close(api, conversation).json()
    again = close(api, conversation)
    assert (again.status_code, code(again)) == (409, "conversation_closed")
    assert again.json()["error"]["type"] == "conflict_error"
    assert api.get(f"/v1/conversations/{conversation['id']}").json() == closed


def test_no_contact_or_contact_gone(
    api: TestClient, open_conversation: Open, contact: dict
) -> None:
    nobody = close(api, open_conversation(contact_id=None))
    assert (nobody.status_code, code(nobody)) == (409, "conversation_has_no_contact")
    conversation = open_conversation()
    assert api.delete(f"/v1/contacts/{contact['id']}").status_code == 204
    gone = close(api, conversation)
    assert (gone.status_code, code(gone)) == (409, "conversation_has_no_contact")


def test_close_missing_other_workspace_and_scope(
    api: TestClient, other_api: TestClient, open_conversation: Open, issue
) -> None:
    conversation = open_conversation()
    assert api.post(f"/v1/conversations/{MISSING}/close").status_code == 404
    assert close(other_api, conversation).status_code == 404
    reader = issue(scopes=["conversations:read"])
    denied = close(reader, conversation)
    assert (denied.status_code, denied.json()["error"]["param"]) == (403, "conversations:write")


def test_close_replays_with_idempotency_key(api: TestClient, open_conversation: Open) -> None:
    conversation = open_conversation()
    headers = {"Idempotency-Key": "close-1"}
    first = close(api, conversation, json={"outcome": "won"}, headers=headers)
    replay = close(api, conversation, json={"outcome": "won"}, headers=headers)
    assert replay.status_code == 200
    assert replay.headers["Idempotent-Replay"] == "true"
    assert replay.json() == first.json()


def test_oauth_person_cannot_act_on_a_hidden_contact(
    api: TestClient, open_conversation: Open, ids: dict, issue
) -> None:
    private = api.post(
        "/v1/contacts",
        json={"first_name": "Hidden", "visibility": "private", "owner_id": ids["users"][2]},
    ).json()
    conversation = open_conversation(contact_id=private["id"])
    person = issue(kind="oauth", user_id=ids["users"][1])
    denied = close(person, conversation)
    assert (denied.status_code, code(denied)) == (403, "conversation_access_denied")
    owner = issue(kind="oauth", user_id=ids["users"][2])
    assert close(owner, conversation).status_code == 200


# --- handoff, assign, resume ---------------------------------------------------------------


def test_handoff_assign_resume_round(api: TestClient, open_conversation: Open, ids: dict) -> None:
    conversation = open_conversation()
    handed = move(api, conversation, "handoff")
    assert handed.status_code == 200
    assert (handed.json()["status"], handed.json()["handler"], handed.json()["needs_human"]) == (
        "waiting",
        None,
        True,
    )
    teammate = ids["users"][1]
    assigned = move(api, conversation, "assign", json={"assignee_id": teammate}).json()
    assert assigned["handler"]["id"] == teammate
    assert assigned["handler"]["kind"] == "user"
    assert assigned["needs_human"] is True
    resumed = move(api, conversation, "resume").json()
    assert resumed["handler"]["id"] == ids["agent"]
    assert resumed["status"] == "active"
    assert resumed["needs_human"] is False
    assert resumed["updated_at"] > assigned["updated_at"] > handed.json()["updated_at"]


@pytest.mark.parametrize(
    ("arrange", "name", "body", "status", "error"),
    [
        ({}, "assign", "teammate", 409, "conversation_with_ai"),
        ({}, "resume", None, 409, "conversation_already_with_ai"),
        ({"status": "waiting"}, "handoff", None, 409, "conversation_not_with_ai"),
        ({"handler": "user"}, "handoff", None, 409, "conversation_not_with_ai"),
        (
            {"status": "waiting", "agent_available": False},
            "resume",
            None,
            409,
            "no_agent_available",
        ),
        ({"status": "waiting"}, "assign", "usr_" + "0" * 32, 422, "assignee_not_found"),
        ({"status": "waiting"}, "assign", "nobody", 422, "validation_failed"),
        ({"status": "waiting"}, "handoff", "extra", 422, "validation_failed"),
    ],
)
def test_move_refusals(
    api: TestClient,
    open_conversation: Open,
    ids: dict,
    arrange: dict,
    name: str,
    body: str | None,
    status: int,
    error: str,
) -> None:
    conversation = open_conversation(**arrange)
    sent: dict[str, Any] | None = None
    if body == "teammate":
        sent = {"assignee_id": ids["users"][1]}
    elif body == "extra":
        sent = {"note": "x"}
    elif body is not None:
        sent = {"assignee_id": body}
    response = move(api, conversation, name, json=sent)
    assert (response.status_code, code(response)) == (status, error)
    assert api.get(f"/v1/conversations/{conversation['id']}").json() == conversation


@pytest.mark.parametrize("name", ["handoff", "assign", "resume"])
def test_moves_on_a_closed_conversation(
    api: TestClient, open_conversation: Open, ids: dict, name: str
) -> None:
    conversation = open_conversation()
    close(api, conversation)
    response = move(
        api, conversation, name, json={"assignee_id": ids["users"][1]} if name == "assign" else None
    )
    assert (response.status_code, code(response)) == (409, "conversation_closed")


def test_moves_need_conversations_write(open_conversation: Open, issue) -> None:
    reader = issue(scopes=["conversations:read"])
    response = move(reader, open_conversation(), "handoff")
    assert (response.status_code, code(response)) == (403, "insufficient_scope")


# --- inbound ---------------------------------------------------------------------------


def test_inbound_lands_in_the_open_conversation_then_a_new_one(
    api: TestClient, adapter: TestClient, open_conversation: Open, contact: dict, ids: dict
) -> None:
    conversation = open_conversation()
    body = {"workspace": "primary", "contact_id": contact["id"]}
    landed = adapter.post("/_adapter/v1/conversations/inbound", json=body)
    assert landed.status_code == 200
    assert landed.json()["id"] == conversation["id"]
    assert landed.json()["last_message_at"] > conversation["last_message_at"]
    close(api, conversation)
    fresh = adapter.post("/_adapter/v1/conversations/inbound", json=body).json()
    assert fresh["id"] != conversation["id"]
    assert fresh["status"] == "active"
    assert fresh["handler"]["id"] == ids["agent"]


def test_inbound_from_a_spam_contact_goes_to_teammates(
    api: TestClient, adapter: TestClient, open_conversation: Open, contact: dict
) -> None:
    close(api, open_conversation(), json={"outcome": "spam"})
    body = {"workspace": "primary", "contact_id": contact["id"]}
    fresh = adapter.post("/_adapter/v1/conversations/inbound", json=body).json()
    assert (fresh["status"], fresh["handler"], fresh["needs_human"]) == ("waiting", None, True)


def test_inbound_needs_an_existing_contact(adapter: TestClient) -> None:
    body = {"workspace": "primary", "contact_id": "con_" + "0" * 32}
    response = adapter.post("/_adapter/v1/conversations/inbound", json=body)
    assert (response.status_code, code(response)) == (404, "contact_not_found")


def test_adapter_absent_when_switched_off(make_app: Callable[..., ReferenceApp]) -> None:
    with TestClient(make_app(adapter=False)) as client:
        response = client.post("/_adapter/v1/conversations", json={})
    assert response.status_code in (401, 404)


# --- faults -----------------------------------------------------------------------------


@pytest.mark.parametrize("app", [{"handler_kept_after_close"}], indirect=True)
def test_fault_handler_kept_after_close(api: TestClient, open_conversation: Open) -> None:
    assert close(api, open_conversation()).json()["handler"] is not None


@pytest.mark.parametrize("app", [{"close_won_not_marking_contact"}], indirect=True)
def test_fault_close_won_not_marking_contact(
    api: TestClient, open_conversation: Open, contact: dict
) -> None:
    close(api, open_conversation(), json={"outcome": "won"})
    assert api.get(f"/v1/contacts/{contact['id']}").json()["status"] == "open"


@pytest.mark.parametrize("app", [{"closed_conversation_closes_again"}], indirect=True)
def test_fault_closed_conversation_closes_again(api: TestClient, open_conversation: Open) -> None:
    conversation = open_conversation()
    close(api, conversation)
    assert close(api, conversation).status_code == 200


@pytest.mark.parametrize("app", [{"won_reason_without_won_accepted"}], indirect=True)
def test_fault_won_reason_without_won_accepted(api: TestClient, open_conversation: Open) -> None:
    response = close(api, open_conversation(), json={"won_reason": "other"})
    assert response.status_code == 200


@pytest.mark.parametrize("app", [{"close_keeps_updated_at"}], indirect=True)
def test_fault_close_keeps_updated_at(api: TestClient, open_conversation: Open) -> None:
    conversation = open_conversation()
    assert close(api, conversation).json()["updated_at"] == conversation["updated_at"]
