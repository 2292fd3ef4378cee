"""Tokens, OAuth visibility, scopes, workspace policy and tenancy."""

import pytest
from starlette.testclient import TestClient

from crm_conformance.reference import policy
from crm_conformance.reference.app import ReferenceApp
from crm_conformance.reference.tokens import issue_token, revoke_token


def code(response) -> str:
    return response.json()["error"]["code"]


@pytest.mark.parametrize(
    "header",
    [
        None,
        "Bearer",
        "Basic abc",
        "Bearer sk_test_x",
        "Bearer sk_test_aaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbb",
    ],
)
def test_missing_malformed_or_unknown_token_is_401(app: ReferenceApp, header) -> None:
    client = TestClient(app, headers={"Authorization": header} if header else {})
    response = client.get("/v1/contacts")
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"
    assert code(response) == "unauthorized"


def test_token_must_be_sent_exactly_as_issued(app: ReferenceApp, client_for) -> None:
    token = app.seeded_tokens["primary"]
    assert client_for(token).get("/v1/users").status_code == 200
    altered = token[:-1] + ("A" if token[-1] != "A" else "B")
    for variant in (altered, token.replace("sk_test_", "sk_live_"), token + "x", token.upper()):
        assert client_for(variant).get("/v1/users").status_code == 401


def test_only_selector_and_hash_are_stored(app: ReferenceApp) -> None:
    verifier = app.seeded_tokens["primary"].split(".")[1]
    with app.store.transaction() as tx:
        rows = tx.execute("SELECT * FROM tokens").fetchall()
    assert rows
    assert all(verifier not in str(row) for row in rows)


def test_live_tokens_are_accepted(issue) -> None:
    assert issue(live=True).get("/v1/users").status_code == 200


def test_revoked_and_expired_tokens(app: ReferenceApp, client_for) -> None:
    with app.store.transaction() as tx:
        user_id = tx.all("primary", "user")[1]["id"]
        live = issue_token(tx, app.settings.secret, workspace="primary")
        expired = issue_token(tx, app.settings.secret, workspace="primary", state="expired")
        oauth_expired = issue_token(
            tx, app.settings.secret, workspace="primary", kind="oauth", user_id=user_id,
            state="expired",
        )  # fmt: skip
    client = client_for(live.token)
    assert client.get("/v1/users").status_code == 200
    with app.store.transaction() as tx:
        assert revoke_token(tx, live.id)
    assert code(client.get("/v1/users")) == "unauthorized"
    assert code(client_for(expired.token).get("/v1/users")) == "unauthorized"
    response = client_for(oauth_expired.token).get("/v1/users")
    assert (response.status_code, code(response)) == (401, "token_expired")


def test_missing_scope_is_403_naming_the_missing_scopes(issue) -> None:
    reader = issue(scopes=("contacts:read",))
    assert reader.get("/v1/contacts").status_code == 200
    response = reader.post("/v1/contacts", json={"first_name": "No"})
    error = response.json()["error"]
    assert response.status_code == 403
    assert (error["type"], error["code"], error["param"]) == (
        "permission_error", "insufficient_scope", "contacts:write",
    )  # fmt: skip
    assert "contacts:write" in error["message"]
    nothing = issue(scopes=())
    for path, scope in (
        ("/v1/contacts", "contacts:read"),
        ("/v1/pipelines", "pipelines:read"),
        ("/v1/fields", "fields:read"),
        ("/v1/tags", "tags:read"),
        ("/v1/activities", "activities:read"),
    ):
        assert nothing.get(path).json()["error"]["param"] == scope


def test_scope_check_resource_only_fault(make_app) -> None:
    app = make_app(faults={"scope_check_resource_only"})
    with app.store.transaction() as tx:
        token = issue_token(tx, app.settings.secret, workspace="primary", scopes=("contacts:read",))
    client = TestClient(app, headers={"Authorization": f"Bearer {token.token}"})
    assert client.post("/v1/contacts", json={"first_name": "Oops"}).status_code == 201


def test_mirrored_entity_refuses_writes_for_every_token(app: ReferenceApp, api: TestClient) -> None:
    with app.store.transaction() as tx:
        policy.set_local_write(tx, "primary", "contacts", False)
    response = api.post("/v1/contacts", json={"first_name": "Mirror"})
    assert (response.status_code, code(response)) == (403, "local_write_denied")
    assert api.get("/v1/contacts").status_code == 200
    assert api.post("/v1/tags", json={"name": "still", "kind": "contact"}).status_code == 201


def test_oauth_token_sees_what_its_person_sees(
    app: ReferenceApp, api: TestClient, issue, ids
) -> None:
    ada, ben = ids["users"][:2]
    private = api.post(
        "/v1/contacts", json={"first_name": "Secret", "owner_id": ada, "visibility": "private"}
    ).json()
    company = api.post("/v1/contacts", json={"first_name": "Open", "owner_id": ada}).json()
    as_ben = issue(kind="oauth", user_id=ben)
    as_ada = issue(kind="oauth", user_id=ada)
    listed = {row["id"] for row in as_ben.get("/v1/contacts").json()["data"]}
    assert company["id"] in listed
    assert private["id"] not in listed
    assert code(as_ben.get(f"/v1/contacts/{private['id']}")) == "contact_not_found"
    assert as_ada.get(f"/v1/contacts/{private['id']}").status_code == 200
    assert api.get(f"/v1/contacts/{private['id']}").status_code == 200
    pipeline = ids["pipelines"][0]
    response = as_ben.post(
        "/v1/deals",
        json={
            "title": "Hidden", "pipeline_id": pipeline["id"],
            "stage_id": pipeline["stages"][0]["id"], "contact_id": private["id"],
        },
    )  # fmt: skip
    assert (response.status_code, code(response)) == (404, "record_not_found")
    assert response.json()["error"]["param"] == "contact_id"


def test_oauth_writes_are_owned_by_the_person(issue, ids) -> None:
    ben = ids["users"][1]
    contact = issue(kind="oauth", user_id=ben).post("/v1/contacts", json={"first_name": "Mine"})
    assert contact.json()["owner"] == {
        "id": ben, "kind": "user", "name": "Ben Member", "object": "owner",
    }  # fmt: skip


def test_workspaces_are_isolated(api: TestClient, other_api: TestClient) -> None:
    mine = api.post("/v1/contacts", json={"first_name": "Mine", "external_id": "shared-1"}).json()
    response = other_api.get(f"/v1/contacts/{mine['id']}")
    missing = other_api.get("/v1/contacts/con_" + "0" * 32)
    assert response.status_code == missing.status_code == 404
    assert code(response) == code(missing)
    assert other_api.get("/v1/contacts").json()["data"] == []
    theirs = other_api.post("/v1/contacts", json={"first_name": "T", "external_id": "shared-1"})
    assert theirs.status_code == 201
    assert mine["id"] not in {r["id"] for r in other_api.get("/v1/contacts").json()["data"]}


def test_workspace_header_is_ignored(api: TestClient, other_api: TestClient) -> None:
    api.post("/v1/contacts", json={"first_name": "Mine"})
    response = other_api.get("/v1/contacts", headers={"X-Workspace": "primary"})
    assert response.json()["data"] == []
