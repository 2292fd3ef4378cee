"""The adapter kit against tiny vendor objects: health, routing, validation, errors, answers."""

import subprocess
import sys
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from crm_conformance.adapter_kit import (
    FEATURES,
    CampaignRequest,
    ConversationRequest,
    IssuedToken,
    RecordRequest,
    Refusal,
    TokenRequest,
    adapter_app,
    load_contract,
)

CONV = {
    "id": "conv_" + "0" * 32,
    "object": "conversation",
    "status": "active",
    "contact_id": None,
    "handler": None,
    "needs_human": None,
}


class Recorder:
    """Implements tokens, records, conversations and campaigns; keeps the requests."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def create_token(self, request: TokenRequest) -> IssuedToken:
        self.seen.append(request)
        return IssuedToken(id="tok_1", token="secret-token-value", kind=request.kind, scopes=())

    def revoke_token(self, token_id: str) -> None:
        if token_id != "tok_1":
            raise Refusal.not_found("token")

    def create_record(self, request: RecordRequest) -> dict[str, Any]:
        self.seen.append(request)
        return {"id": "con_" + "1" * 32, "object": "contact"}

    def delete_record(self, record_id: str) -> None:
        raise RuntimeError("the database is down")

    def create_conversation(self, request: ConversationRequest) -> dict[str, Any]:
        self.seen.append(request)
        return {**CONV, "status": request.status}

    def create_campaign(self, request: CampaignRequest) -> dict[str, Any]:
        self.seen.append(request)
        return {"id": "camp_x", "object": "campaign"}  # no status: outside the contract


@pytest.fixture
def vendor() -> Recorder:
    return Recorder()


@pytest.fixture
def client(vendor: Recorder) -> Iterator[TestClient]:
    with TestClient(adapter_app(vendor)) as made:
        yield made


def error_of(response: Any) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["request_id"] == response.headers["X-Request-ID"]
    return dict(body["error"])


def fields_of(response: Any) -> set[str]:
    return {item["field"] for item in error_of(response)["detail"]}


def test_health_lists_what_the_objects_implement(client: TestClient) -> None:
    assert client.get("/v1/health").json() == {
        "ok": True,
        "features": ["tokens", "records", "conversations", "campaigns"],
    }


def test_the_kit_knows_every_feature_and_operation_of_the_contract() -> None:
    contract = load_contract()
    assert list(FEATURES) == list(contract.features)
    adapter_app()  # raises when the kit and the contract name different operations


def test_an_operation_of_a_feature_not_offered_answers_501(client: TestClient) -> None:
    response = client.get("/v1/fixtures", params={"workspace": "primary"})
    assert response.status_code == 501
    error = error_of(response)
    assert (error["type"], error["code"]) == ("api_error", "not_implemented")
    assert "tokens, records, conversations, campaigns" in error["message"]


def test_a_feature_half_implemented_or_implemented_twice_is_refused() -> None:
    class Half:
        def create_record(self, request: RecordRequest) -> dict[str, Any]:
            return {}

    with pytest.raises(TypeError, match="create_record of feature 'records' but not delete_rec"):
        adapter_app(Half())
    with pytest.raises(TypeError, match="'tokens' is implemented by both Recorder and Recorder"):
        adapter_app(Recorder(), Recorder())


def test_bodies_are_checked_against_the_contract_before_any_method_runs(
    client: TestClient, vendor: Recorder
) -> None:
    response = client.post("/v1/tokens", json={"workspace": "third", "kind": "x", "extra": 1})
    assert response.status_code == 422
    assert error_of(response)["code"] == "validation_failed"
    assert fields_of(response) == {"workspace", "kind", "extra"}
    missing = client.post("/v1/records", json={"workspace": "primary"})
    assert fields_of(missing) == {"kind", "fields"}
    assert error_of(client.post("/v1/tokens", content=b"{"))["code"] == "bad_request"
    assert fields_of(client.post("/v1/tokens")) == {"body"}
    both = client.post(
        "/v1/tokens", json={"workspace": "primary", "kind": "workspace", "user_id": "usr_1"}
    )
    assert fields_of(both) == {"user_id"}
    assert vendor.seen == []


def test_query_and_path_parameters_are_checked(client: TestClient) -> None:
    class Fixtures:
        def fixtures(self, workspace: str) -> Any:
            raise AssertionError("not reached")

    with TestClient(adapter_app(Fixtures())) as fixtures:
        for query in ({}, {"workspace": "third"}, {"workspace": "primary", "x": "1"}):
            response = fixtures.get("/v1/fixtures", params=query)
            assert (response.status_code, error_of(response)["code"]) == (400, "validation_failed")


def test_typed_requests_carry_the_documented_defaults(client: TestClient, vendor: Recorder) -> None:
    client.post("/v1/tokens", json={"workspace": "secondary", "kind": "oauth"})
    client.post(
        "/v1/records",
        json={
            "workspace": "primary",
            "kind": "contact",
            "fields": {"first_name": "Ada"},
            "created_at": "2025-01-02T03:04:05+01:00",
        },
    )
    client.post("/v1/conversations", json={"workspace": "primary", "status": "waiting"})
    token, record, conversation = vendor.seen
    assert token == TokenRequest(workspace="secondary", kind="oauth")
    stamp = datetime(2025, 1, 2, 2, 4, 5, tzinfo=UTC)
    assert (record.created_at, record.updated_at, record.fields) == (
        stamp,
        stamp,
        {"first_name": "Ada"},
    )
    assert (conversation.handler, conversation.new_contact, conversation.channel) == (
        None,
        True,
        "chatapp_api",
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"status": "waiting", "handler": "agent"}, "handler"),
        ({"status": "active", "handler": None}, "handler"),
        ({"status": "active", "agent_available": False}, "agent_available"),
        ({"status": "active", "handler": "agent", "user_id": "usr_1"}, "user_id"),
    ],
)
def test_holders_the_conversation_states_rule_out_are_refused(
    client: TestClient, body: dict[str, Any], field: str
) -> None:
    response = client.post("/v1/conversations", json={"workspace": "primary", **body})
    assert response.status_code == 422
    assert fields_of(response) == {field}


def test_derived_record_fields_and_offset_less_timestamps_are_refused(client: TestClient) -> None:
    derived = client.post(
        "/v1/records",
        json={"workspace": "primary", "kind": "deal", "fields": {"lost_reason": "Price"}},
    )
    assert fields_of(derived) == {"fields.lost_reason"}
    naive = client.post(
        "/v1/records",
        json={
            "workspace": "primary",
            "kind": "contact",
            "fields": {},
            "created_at": "2025-01-02T03:04:05",
        },
    )
    assert fields_of(naive) == {"created_at"}


def test_participants_are_checked_and_their_status_change_defaulted(
    client: TestClient, vendor: Recorder
) -> None:
    day = "2026-01-0{}T00:00:00Z"
    bad = client.post(
        "/v1/campaigns",
        json={
            "workspace": "primary",
            "status": "running",
            "participants": [
                {"enrolled_at": day.format(1), "replied_at": day.format(2)},
                {
                    "enrolled_at": day.format(1),
                    "contacted_at": day.format(2),
                    "not_contacted_reason": "meta_account",
                },
            ],
        },
    )
    assert fields_of(bad) == {"participants.0.replied_at", "participants.1.not_contacted_reason"}
    early = {"enrolled_at": day.format(1), "contacted_at": day.format(3)}
    reversed_events = client.post(
        "/v1/campaigns",
        json={
            "workspace": "primary",
            "status": "running",
            "participants": [{**early, "replied_at": day.format(2)}],
        },
    )
    assert fields_of(reversed_events) == {"participants.0.replied_at"}
    client.post(
        "/v1/campaigns",
        json={
            "workspace": "primary",
            "status": "running",
            "participants": [{"enrolled_at": day.format(1), "contacted_at": day.format(2)}],
        },
    )
    (campaign,) = vendor.seen
    assert campaign.participants[0].status_changed_at == datetime(2026, 1, 2, tzinfo=UTC)


def test_an_answer_outside_the_contract_is_a_500_naming_the_field(client: TestClient) -> None:
    response = client.post("/v1/campaigns", json={"workspace": "primary", "status": "draft"})
    assert response.status_code == 500
    error = error_of(response)
    assert error["code"] == "invalid_answer"
    assert "status: is required" in error["message"]


def test_refusals_and_failures_use_the_envelope(client: TestClient) -> None:
    unknown = client.post("/v1/tokens/tok_2/revoke")
    assert (unknown.status_code, error_of(unknown)["type"]) == (404, "not_found_error")
    assert client.post("/v1/tokens/tok_1/revoke").json() == {"id": "tok_1", "state": "revoked"}
    failed = client.delete("/v1/records/con_1")
    assert failed.status_code == 500
    assert error_of(failed)["message"].endswith("RuntimeError: the database is down")
    assert error_of(client.get("/v1/nope"))["code"] == "not_found"
    assert error_of(client.delete("/v1/tokens"))["code"] == "method_not_allowed"


def test_the_kit_imports_nothing_of_the_harness_but_paths() -> None:
    """The reference server builds on the kit and imports nothing else of the harness
    (the spec model's package is only its docstring)."""
    code = (
        "import sys, crm_conformance\n"
        "before = set(sys.modules)\n"
        "import crm_conformance.adapter_kit\n"
        "print(sorted(m for m in set(sys.modules) - before if m.startswith('crm_conformance.')"
        " and not m.startswith('crm_conformance.adapter_kit')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (
        out.stdout.strip() == "['crm_conformance.core.model', 'crm_conformance.core.model.paths']"
    )
