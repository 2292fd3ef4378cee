"""Success events: types, create with the value basis, append-only reversal (once, never
of a reversal), and the adapter operation that defines event types."""

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from crm_conformance.reference.app import ReferenceApp

Event = Callable[..., Any]


def code(response: Any) -> str:
    return str(response.json()["error"]["code"])


@pytest.fixture
def app(make_app: Callable[..., ReferenceApp], request: pytest.FixtureRequest) -> ReferenceApp:
    """A fresh app with event types `sale` (value required) and `signup` (forbidden);
    parametrized indirectly with a set of fault names for fault tests."""
    made = make_app(faults=getattr(request, "param", frozenset()))
    with TestClient(made) as adapter:
        for type_code, basis in (("sale", "required"), ("signup", "forbidden")):
            body = {"workspace": "primary", "code": type_code, "value": basis}
            assert adapter.post("/_adapter/v1/success-event-types", json=body).status_code == 201
    return made


@pytest.fixture
def report(api: TestClient) -> Event:
    def send(**body: Any) -> Any:
        return api.post("/v1/success-events", json=body)

    return send


def reverse(api: TestClient, event_id: str, **kwargs: Any) -> Any:
    return api.post(f"/v1/success-events/{event_id}/reverse", **kwargs)


# --- types ---------------------------------------------------------------------------------


def test_types_listed_per_workspace(api: TestClient, other_api: TestClient) -> None:
    listed = api.get("/v1/success-event-types").json()
    assert [(t["object"], t["code"], t["value"]) for t in listed["data"]] == [
        ("success_event_type", "sale", "required"),
        ("success_event_type", "signup", "forbidden"),
    ]
    assert listed["meta"]["has_more"] is False
    assert other_api.get("/v1/success-event-types").json()["data"] == []


def test_adapter_type_definition_rules(client_for: Callable[[str | None], TestClient]) -> None:
    adapter = client_for(None)
    same = adapter.post(
        "/_adapter/v1/success-event-types",
        json={"workspace": "primary", "code": "sale", "value": "required"},
    )
    assert same.status_code == 200
    assert same.json() == {"code": "sale", "value": "required"}
    other = adapter.post(
        "/_adapter/v1/success-event-types",
        json={"workspace": "primary", "code": "sale", "value": "forbidden"},
    )
    assert other.status_code == 409
    bad = adapter.post(
        "/_adapter/v1/success-event-types",
        json={"workspace": "primary", "code": "Big Sale", "value": "maybe"},
    )
    assert (bad.status_code, code(bad)) == (422, "validation_failed")


# --- create --------------------------------------------------------------------------------


def test_create_list_and_retrieve(api: TestClient, report: Event) -> None:
    contact = api.post("/v1/contacts", json={"first_name": "Buyer"}).json()
    created = report(code="sale", value=120.5, contact_id=contact["id"])
    assert created.status_code == 201
    event = created.json()
    assert event["id"].startswith("sev_")
    assert len(event["id"]) == 36
    assert (event["object"], event["code"], event["value"]) == ("success_event", "sale", 120.5)
    assert (event["reverses"], event["reversed_by"]) == (None, None)
    signup = report(code="signup", occurred_at="2026-01-01T00:00:00+02:00").json()
    assert signup["occurred_at"] == "2025-12-31T22:00:00.000000Z"
    assert signup["value"] is None
    listed = api.get("/v1/success-events").json()["data"]
    assert [e["id"] for e in listed] == [signup["id"], event["id"]]
    sales = api.get("/v1/success-events", params={"code": "sale"}).json()["data"]
    assert [e["id"] for e in sales] == [event["id"]]
    assert api.get(f"/v1/success-events/{event['id']}").json() == event


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"code": "refund_bonus", "value": 1}, 422, "unknown_event_code"),
        ({"code": "sale"}, 422, "value_basis_mismatch"),
        ({"code": "sale", "value": None}, 422, "value_basis_mismatch"),
        ({"code": "signup", "value": 5}, 422, "value_basis_mismatch"),
        ({"value": 5}, 422, "validation_failed"),
        ({"code": "sale", "value": -1}, 422, "validation_failed"),
        ({"code": "sale", "value": 1, "note": "x"}, 422, "validation_failed"),
        ({"code": "sale", "value": 1, "contact_id": "con_" + "0" * 32}, 404, "contact_not_found"),
    ],
)
def test_create_refusals(report: Event, body: dict, status: int, error: str) -> None:
    response = report(**body)
    assert (response.status_code, code(response)) == (status, error)


def test_scopes(app: ReferenceApp, issue: Callable[..., TestClient]) -> None:
    reader = issue(scopes=["success_events:read"])
    assert reader.get("/v1/success-events").status_code == 200
    denied = reader.post("/v1/success-events", json={"code": "signup"})
    assert (denied.status_code, denied.json()["error"]["param"]) == (403, "success_events:write")
    blind = issue(scopes=["contacts:read"]).get("/v1/success-event-types")
    assert blind.json()["error"]["param"] == "success_events:read"


# --- reversal ------------------------------------------------------------------------------


def test_reverse_once_and_never_a_reversal(api: TestClient, report: Event) -> None:
    original = report(code="sale", value=10).json()
    response = reverse(api, original["id"], json={"reason": "refund"})
    assert response.status_code == 201
    reversal = response.json()
    assert (reversal["reverses"], reversal["code"], reversal["value"]) == (
        original["id"],
        "sale",
        10,
    )
    after = api.get(f"/v1/success-events/{original['id']}").json()
    assert after == {**original, "reversed_by": reversal["id"]}
    again = reverse(api, original["id"])
    assert (again.status_code, code(again)) == (409, "already_reversed")
    nested = reverse(api, reversal["id"])
    assert (nested.status_code, code(nested)) == (409, "not_a_record")


def test_reverse_missing_other_workspace_and_bad_id(
    api: TestClient, other_api: TestClient, report: Event
) -> None:
    event = report(code="signup").json()
    assert reverse(other_api, event["id"]).status_code == 404
    assert reverse(api, "sev_" + "0" * 32).status_code == 404
    assert reverse(api, "evt_1").status_code == 400


def test_events_are_append_only(api: TestClient, report: Event) -> None:
    event = report(code="signup").json()
    assert api.patch(f"/v1/success-events/{event['id']}", json={}).status_code == 405
    assert api.delete(f"/v1/success-events/{event['id']}").status_code == 405


# --- faults -----------------------------------------------------------------------------


@pytest.mark.parametrize("app", [{"reversal_reversible"}], indirect=True)
def test_fault_reversal_reversible(api: TestClient, report: Event) -> None:
    reversal = reverse(api, report(code="signup").json()["id"]).json()
    assert reverse(api, reversal["id"]).status_code == 201


@pytest.mark.parametrize("app", [{"double_reversal_allowed"}], indirect=True)
def test_fault_double_reversal_allowed(api: TestClient, report: Event) -> None:
    event = report(code="signup").json()
    reverse(api, event["id"])
    assert reverse(api, event["id"]).status_code == 201


@pytest.mark.parametrize("app", [{"value_basis_unchecked"}], indirect=True)
def test_fault_value_basis_unchecked(report: Event) -> None:
    assert report(code="sale").status_code == 201
    assert report(code="signup", value=3).status_code == 201


@pytest.mark.parametrize("app", [{"unknown_event_code_accepted"}], indirect=True)
def test_fault_unknown_event_code_accepted(report: Event) -> None:
    assert report(code="mystery", value=1).status_code == 201
