"""The provisioning adapter: its operations in-process, and the harness's
`AdapterClient` and `RecordFactory` against a running reference server."""

from collections.abc import Iterator
from typing import Any, NoReturn

import pytest
from starlette.testclient import TestClient

from crm_conformance.adapter.provisioning import FEATURES, AdapterClient
from crm_conformance.adapter_kit import load_contract
from crm_conformance.core.model.target import target_from_served
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.reference import ServerSettings, running_server
from crm_conformance.reference.app import ReferenceApp
from crm_conformance.steps.factories import RecordFactory


@pytest.fixture
def control(app: ReferenceApp) -> Iterator[TestClient]:
    """A client of the adapter: no token."""
    with TestClient(app) as client:
        yield client


def make(control: TestClient, kind: str, workspace: str = "primary", **body: Any) -> Any:
    response = control.post(
        "/_adapter/v1/records",
        json={"workspace": workspace, "kind": kind, "fields": body.pop("fields", {}), **body},
    )
    assert response.status_code == 201, response.text
    return response.json()


def code(response: Any) -> str:
    return str(response.json()["error"]["code"])


def test_health_lists_every_feature_of_the_contract(control: TestClient) -> None:
    body = control.get("/_adapter/v1/health").json()
    assert body == {"ok": True, "features": list(load_contract().features)}
    assert set(body["features"]) == set(FEATURES)


def test_adapter_requests_are_not_authenticated_counted_or_limited(make_app) -> None:
    app = make_app(rate_limit=2)
    with TestClient(app) as control:
        for _ in range(4):
            response = control.get("/_adapter/v1/health")
            assert response.status_code == 200
            assert "X-RateLimit-Limit" not in response.headers
            assert response.headers["X-Request-ID"]
        assert control.get("/v1/users").status_code == 401  # the API still needs a token


def test_adapter_errors_use_the_envelope(control: TestClient) -> None:
    response = control.post("/_adapter/v1/records", json={"kind": "nope", "extra": 1})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "validation_failed"
    assert {item["field"] for item in error["detail"]} == {"workspace", "kind", "fields", "extra"}
    assert error["request_id"] == response.headers["X-Request-ID"]
    assert code(control.post("/_adapter/v1/records", content=b"{")) == "bad_request"
    assert code(control.get("/_adapter/v1/nope")) == "not_found"


def test_fixtures_name_pipelines_reasons_users_and_custom_fields(
    control: TestClient, ids: dict[str, Any]
) -> None:
    body = control.get("/_adapter/v1/fixtures", params={"workspace": "primary"}).json()
    first = ids["pipelines"][0]
    assert body["pipelines"][0] == {
        "id": first["id"],
        "stages": [
            {"id": s["id"], "default_probability": s["default_probability"]}
            for s in first["stages"]
        ],
    }
    assert body["lost_reasons"] == ids["lost_reasons"]
    assert body["users"] == ids["users"]
    assert body["contact_custom_fields"] == ["industry", "lifetime_value"]
    for query in ({}, {"workspace": "third"}, {"workspace": "primary", "x": "1"}):
        response = control.get("/_adapter/v1/fixtures", params=query)
        assert (response.status_code, code(response)) == (400, "validation_failed")


def test_tokens_with_scopes_kinds_and_states(control: TestClient, client_for) -> None:
    def token(**body: Any) -> Any:
        return control.post("/_adapter/v1/tokens", json={"workspace": "primary", **body})

    reader = token(kind="workspace", scopes=["contacts:read"])
    assert reader.status_code == 201
    assert reader.json()["scopes"] == ["contacts:read"]
    api = client_for(reader.json()["token"])
    assert api.get("/v1/contacts").status_code == 200
    assert code(api.post("/v1/contacts", json={})) == "insufficient_scope"
    assert len(token(kind="workspace").json()["scopes"]) > 20
    assert token(kind="workspace", live=True).json()["token"].startswith("sk_live_")

    oauth = token(kind="oauth").json()
    assert oauth["token"].startswith("oat_test_")
    assert oauth["user_id"].startswith("usr_")
    expired = token(kind="oauth", state="expired").json()["token"]
    assert code(client_for(expired).get("/v1/users")) == "token_expired"
    revoked = token(kind="workspace", state="revoked").json()["token"]
    assert code(client_for(revoked).get("/v1/users")) == "unauthorized"

    for bad in (
        {"kind": "workspace", "scopes": ["contacts:admin"]},
        {"kind": "workspace", "user_id": oauth["user_id"]},
        {"kind": "oauth", "user_id": "usr_" + "0" * 32},
        {"kind": "workspace", "rate_limit": {"limit": 0}},
        {"kind": "robot"},
    ):
        assert token(**bad).status_code == 422, bad


def test_a_rate_limited_token_reaches_429(control: TestClient, client_for) -> None:
    issued = control.post(
        "/_adapter/v1/tokens",
        json={
            "workspace": "primary",
            "kind": "workspace",
            "rate_limit": {"limit": 2, "window_seconds": 60},
        },
    ).json()
    api = client_for(issued["token"])
    statuses = [api.get("/v1/users").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]


def test_revocation_is_immediate(control: TestClient, client_for) -> None:
    issued = control.post(
        "/_adapter/v1/tokens", json={"workspace": "primary", "kind": "workspace"}
    ).json()
    api = client_for(issued["token"])
    assert api.get("/v1/users").status_code == 200
    revoked = control.post(f"/_adapter/v1/tokens/{issued['id']}/revoke")
    assert revoked.json() == {"id": issued["id"], "state": "revoked"}
    assert api.get("/v1/users").status_code == 401
    assert control.post(f"/_adapter/v1/tokens/{issued['id']}/revoke").status_code == 200
    assert code(control.post("/_adapter/v1/tokens/tok_nope/revoke")) == "not_found"


def test_a_new_user_owns_records_and_sees_only_theirs(
    control: TestClient, api: TestClient, client_for
) -> None:
    user = control.post("/_adapter/v1/users", json={"workspace": "primary", "name": "Pat"})
    assert user.status_code == 201
    person = user.json()
    assert person["object"] == "user"
    assert person["name"] == "Pat"
    assert person["id"] in [u["id"] for u in api.get("/v1/users?limit=200").json()["data"]]
    mine = make(control, "contact", fields={"visibility": "private", "owner_id": person["id"]})
    theirs = make(control, "contact", fields={"visibility": "private", "owner_id": None})
    token = control.post(
        "/_adapter/v1/tokens",
        json={"workspace": "primary", "kind": "oauth", "user_id": person["id"]},
    ).json()["token"]
    seen = {c["id"] for c in client_for(token).get("/v1/contacts?limit=200").json()["data"]}
    assert mine["id"] in seen
    assert theirs["id"] not in seen


def test_records_in_any_rendered_state_read_back_through_the_api(
    control: TestClient, api: TestClient, ids: dict[str, Any]
) -> None:
    owner = ids["users"][1]
    contact = make(
        control,
        "contact",
        fields={"first_name": "Won", "status": "won", "visibility": "private", "owner_id": owner},
        created_at="2025-01-02T03:04:05Z",
    )
    assert contact["status"] == "won"
    assert contact["owner"]["id"] == owner
    assert contact["created_at"] == contact["updated_at"] == "2025-01-02T03:04:05.000000Z"
    assert api.get(f"/v1/contacts/{contact['id']}").json() == contact

    organization = make(control, "organization", fields={"name": "Acme"})
    assert api.get(f"/v1/organizations/{organization['id']}").json() == organization

    deal = make(control, "deal", fields={"contact_id": contact["id"]})
    first = ids["pipelines"][0]
    assert (deal["pipeline_id"], deal["stage_id"]) == (first["id"], first["stages"][0]["id"])
    assert deal["probability"] == first["stages"][0]["default_probability"]
    assert api.get(f"/v1/deals/{deal['id']}").json() == deal

    plan = make(
        control,
        "activity",
        fields={
            "type": "resume_conversation",
            "title": "Follow up",
            "due_at": "2026-01-02T09:00:00Z",
            "record_id": contact["id"],
            "status": "suggested",
        },
        created_at="2025-01-01T00:00:00Z",
        updated_at="2025-02-01T00:00:00Z",
    )
    assert plan["type"] == "resume_conversation"
    assert plan["status"] == "suggested"
    assert plan["created_by"] == {
        "id": ids["agent"],
        "kind": "agent",
        "name": "AI agent",
        "object": "owner",
    }
    assert plan["updated_at"] == "2025-02-01T00:00:00.000000Z"
    assert api.get(f"/v1/activities/{plan['id']}").json() == plan


def test_records_are_validated_as_the_api_validates_them(control: TestClient) -> None:
    def status(kind: str, fields: dict[str, Any], workspace: str = "primary") -> tuple[int, str]:
        response = control.post(
            "/_adapter/v1/records", json={"workspace": workspace, "kind": kind, "fields": fields}
        )
        return response.status_code, code(response)

    assert status("contact", {"name": "derived"}) == (422, "validation_failed")
    assert status("contact", {"status": "gone"}) == (422, "validation_failed")
    assert status("deal", {}) == (422, "validation_failed")  # needs a contact or organization
    assert status("activity", {"title": "x"}) == (422, "validation_failed")
    missing = {"title": "x", "due_at": "2026-01-02T09:00:00Z", "record_id": "con_" + "0" * 32}
    assert status("activity", missing) == (404, "record_not_found")
    contact = make(control, "contact", workspace="secondary")
    assert status("deal", {"contact_id": contact["id"]}) == (404, "record_not_found")


def test_deleting_a_record_hides_it_and_records_the_deletion(
    app: ReferenceApp, control: TestClient, api: TestClient
) -> None:
    contact = make(control, "contact")
    assert control.delete(f"/_adapter/v1/records/{contact['id']}").status_code == 204
    assert api.get(f"/v1/contacts/{contact['id']}").status_code == 404
    with app.store.transaction() as tx:
        assert [d["id"] for d in tx.deletions("primary")] == [contact["id"]]
    assert code(control.delete(f"/_adapter/v1/records/{contact['id']}")) == "not_found"
    assert code(control.delete("/_adapter/v1/records/stg_" + "0" * 32)) == "validation_failed"


def test_policy_mirrors_an_entity_and_gives_it_back(control: TestClient, api: TestClient) -> None:
    def put(entity: str, body: dict[str, Any]) -> Any:
        return control.put(f"/_adapter/v1/policy/{entity}", json=body)

    assert put("contacts", {"workspace": "primary", "local_write": False}).json() == {
        "entity": "contacts",
        "local_write": False,
    }
    assert code(api.post("/v1/contacts", json={})) == "local_write_denied"
    put("contacts", {"workspace": "primary", "local_write": True})
    assert api.post("/v1/contacts", json={}).status_code == 201
    widgets = put("widgets", {"workspace": "primary", "local_write": False})
    assert (widgets.status_code, code(widgets)) == (400, "validation_failed")
    assert put("contacts", {"workspace": "primary"}).status_code == 422


def skip(reason: str) -> NoReturn:
    raise AssertionError(f"unexpected skip: {reason}")


def test_the_harness_adapter_client_and_factory_work_against_the_server() -> None:
    with running_server(ServerSettings()) as served:
        assert served.adapter_url is not None
        client = AdapterClient(adapter_url=served.adapter_url)
        api = ApiClient(base_url=served.base_url, token=served.tokens["full"])
        try:
            assert client.features == set(FEATURES)
            fixtures = client.fixtures()
            assert fixtures.pipelines[0].stages[0].default_probability == 10
            factory = RecordFactory(
                api=api,
                adapter=client,
                target=target_from_served(served),
                unique=lambda label: f"cc-test-{label}",
                skip=skip,
            )
            contact = factory.contact(status="lost", lost_reason="Price")
            assert contact["status"] == "lost"
            deal = factory.deal()
            assert deal["stage_id"] == fixtures.pipelines[0].stages[0].id
            assert factory.activity(record_id=deal["id"])["record_id"] == deal["id"]
            assert factory.organization()["object"] == "organization"
            person = factory.user()
            issued = factory.token(kind="oauth", scopes=["contacts:read"], user_id=person["id"])
            assert api.with_token(issued.token).get("/v1/contacts").status_code == 200
            assert client.revoke_token(issued.id)["state"] == "revoked"
            client.delete_record(contact["id"])
            assert api.get(f"/v1/contacts/{contact['id']}").status_code == 404
            assert client.set_policy("deals", local_write=False) == {
                "entity": "deals",
                "local_write": False,
            }
        finally:
            client.close()
            api.close()


@pytest.mark.parametrize("faults", [frozenset(), frozenset({"policy_ignored_for_oauth"})])
def test_policy_binds_oauth_tokens_too_unless_the_fault_is_on(make_app, faults) -> None:
    app = make_app(faults=faults)
    with TestClient(app) as control:
        control.put(
            "/_adapter/v1/policy/contacts", json={"workspace": "primary", "local_write": False}
        )
        token = control.post(
            "/_adapter/v1/tokens", json={"workspace": "primary", "kind": "oauth"}
        ).json()["token"]
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as oauth:
        status = oauth.post("/v1/contacts", json={}).status_code
    assert status == (201 if faults else 403)
