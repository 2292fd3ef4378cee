"""The deletion feed (`GET /v1/deleted-records`) and the meta endpoints (`GET /v1/me`,
`GET /v1/capabilities`)."""

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.core.model.capabilities import discover
from crm_conformance.core.model.target import target_from_served
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.reference import ServerSettings, policy, running_server
from crm_conformance.reference.app import ReferenceApp
from crm_conformance.reference.scopes import ALL_SCOPES
from crm_conformance.reference.tokens import issue_token


def code(response: Any) -> str:
    return str(response.json()["error"]["code"])


def adapter_contact(app: ReferenceApp, workspace: str = "primary") -> str:
    with TestClient(app) as control:
        response = control.post(
            "/_adapter/v1/records", json={"workspace": workspace, "kind": "contact", "fields": {}}
        )
        return str(response.json()["id"])


def adapter_delete(app: ReferenceApp, record_id: str) -> None:
    with TestClient(app) as control:
        assert control.delete(f"/_adapter/v1/records/{record_id}").status_code == 204


def feed(api: TestClient, **params: Any) -> Any:
    response = api.get("/v1/deleted-records", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_feed_lists_api_and_adapter_deletions(app: ReferenceApp, api: TestClient) -> None:
    by_api = api.post("/v1/contacts", json={"first_name": "api"}).json()["id"]
    assert api.delete(f"/v1/contacts/{by_api}").status_code == 204
    by_adapter = adapter_contact(app)
    adapter_delete(app, by_adapter)
    body = feed(api, entity="contacts")
    assert [item["id"] for item in body["data"]] == [by_api, by_adapter]
    assert body["data"][0]["object"] == "deleted_record"
    assert body["data"][0]["entity"] == "contacts"
    assert body["data"][0]["deleted_at"].endswith("Z")
    assert body["meta"] == {"has_more": False, "limit": 50}
    assert body["links"] == {"next": None}


def test_the_feed_is_per_entity_and_per_workspace(
    app: ReferenceApp, api: TestClient, other_api: TestClient
) -> None:
    organization = api.post("/v1/organizations", json={"name": "Gone"}).json()["id"]
    api.delete(f"/v1/organizations/{organization}")
    theirs = adapter_contact(app, "secondary")
    adapter_delete(app, theirs)
    assert feed(api, entity="contacts")["data"] == []
    assert [i["id"] for i in feed(api, entity="organizations")["data"]] == [organization]
    assert [i["id"] for i in feed(other_api, entity="contacts")["data"]] == [theirs]
    assert feed(api, entity="deals")["data"] == []


def test_deleted_since_is_inclusive(app: ReferenceApp, api: TestClient) -> None:
    first, second = adapter_contact(app), adapter_contact(app)
    adapter_delete(app, first)
    adapter_delete(app, second)
    items = feed(api, entity="contacts")["data"]
    since = items[1]["deleted_at"]
    kept = [i["id"] for i in feed(api, entity="contacts", deleted_since=since)["data"]]
    assert second in kept  # at the instant counts
    assert first not in kept or items[0]["deleted_at"] == since
    later = "2999-01-01T00:00:00+00:00"
    assert feed(api, entity="contacts", deleted_since=later)["data"] == []
    bad = api.get("/v1/deleted-records", params={"entity": "contacts", "deleted_since": "today"})
    assert (bad.status_code, code(bad)) == (400, "validation_failed")


def test_the_feed_pages_without_skipping_new_deletions(app: ReferenceApp, api: TestClient) -> None:
    made = [adapter_contact(app) for _ in range(4)]
    for record_id in made[:3]:
        adapter_delete(app, record_id)
    page = feed(api, entity="contacts", limit=2)
    assert page["meta"] == {"has_more": True, "limit": 2}
    adapter_delete(app, made[3])
    rest = feed(api, entity="contacts", limit=2, cursor=page["links"]["next"])
    seen = [i["id"] for i in page["data"] + rest["data"]]
    assert seen == made
    other = api.get(
        "/v1/deleted-records", params={"entity": "deals", "cursor": page["links"]["next"]}
    )
    assert code(other) == "invalid_cursor"


@pytest.mark.parametrize(
    ("params", "status", "error"),
    [
        ({}, 400, "validation_failed"),
        ({"entity": "widgets"}, 400, "unknown_entity"),
        ({"entity": "contacts", "color": "red"}, 400, "validation_failed"),
        ({"entity": "contacts", "sort": "deleted_at"}, 400, "unsupported_sort"),
        ({"entity": "contacts", "limit": "0"}, 400, "validation_failed"),
    ],
)
def test_bad_feed_queries(api: TestClient, params: dict[str, str], status: int, error: str) -> None:
    response = api.get("/v1/deleted-records", params=params)
    assert (response.status_code, code(response)) == (status, error)


def test_the_feed_needs_the_read_scope_of_the_resource_listed(issue) -> None:
    reader = issue(scopes=("contacts:read",))
    assert reader.get("/v1/deleted-records", params={"entity": "contacts"}).status_code == 200
    denied = reader.get("/v1/deleted-records", params={"entity": "deals"})
    assert (denied.status_code, code(denied)) == (403, "insufficient_scope")
    assert denied.json()["error"]["param"] == "deals:read"


def test_me_lists_the_tokens_scopes_kind_and_person(api: TestClient, issue, ids) -> None:
    assert api.get("/v1/me").json() == {
        "object": "token",
        "kind": "workspace",
        "scopes": sorted(ALL_SCOPES),
        "user_id": None,
    }
    person = ids["users"][2]
    oauth = issue(kind="oauth", user_id=person, scopes=("deals:read", "contacts:read"))
    assert oauth.get("/v1/me").json() == {
        "object": "token",
        "kind": "oauth",
        "scopes": ["contacts:read", "deals:read"],
        "user_id": person,
    }
    assert issue(scopes=()).get("/v1/me").json()["scopes"] == []
    assert code(api.get("/v1/me", params={"x": "1"})) == "validation_failed"


def test_capabilities_report_the_write_policy_per_entity(
    app: ReferenceApp, api: TestClient
) -> None:
    entities = api.get("/v1/capabilities").json()["entities"]
    assert entities == {entity: {"local_write": True} for entity in policy.ENTITIES}
    with TestClient(app) as control:
        control.put(
            "/_adapter/v1/policy/deals", json={"workspace": "primary", "local_write": False}
        )
    after = api.get("/v1/capabilities").json()
    assert after["object"] == "capabilities"
    assert after["entities"]["deals"] == {"local_write": False}
    assert after["entities"]["contacts"] == {"local_write": True}


def test_the_harness_reads_scopes_and_policy_from_the_server() -> None:
    with running_server(ServerSettings()) as served:
        assert served.adapter_url is not None
        adapter = AdapterClient(adapter_url=served.adapter_url)
        full = ApiClient(base_url=served.base_url, token=served.tokens["full"])
        reader = full.with_token(adapter.create_token(scopes=["contacts:read"]).token)
        try:
            adapter.set_policy("notes", local_write=False)
            found = discover(
                target=target_from_served(served), clients={"full": full, "reader": reader}
            )
        finally:
            adapter.close()
            full.close()
            reader.close()
    assert found.scopes == {"full": frozenset(ALL_SCOPES), "reader": {"contacts:read"}}
    assert found.scopes_source == {"full": "GET /v1/me", "reader": "GET /v1/me"}
    assert found.write_policy_source == "GET /v1/capabilities"
    assert found.write_policy["notes"] is False
    assert found.write_policy["contacts"] is True


def adapter_deletion_listed(app: ReferenceApp) -> bool:
    record_id = adapter_contact(app)
    adapter_delete(app, record_id)
    api = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    return record_id in [i["id"] for i in feed(api, entity="contacts")["data"]]


def feed_scope_checked(app: ReferenceApp) -> bool:
    with app.store.transaction() as tx:
        token = issue_token(tx, app.settings.secret, workspace="primary", scopes=("deals:read",))
    response = TestClient(app, headers={"Authorization": f"Bearer {token.token}"}).get(
        "/v1/deleted-records", params={"entity": "contacts"}
    )
    return response.status_code == 403


def me_lists_own_scopes(app: ReferenceApp) -> bool:
    with app.store.transaction() as tx:
        token = issue_token(tx, app.settings.secret, workspace="primary", scopes=("deals:read",))
    client = TestClient(app, headers={"Authorization": f"Bearer {token.token}"})
    return client.get("/v1/me").json()["scopes"] == ["deals:read"]


def capabilities_follow_policy(app: ReferenceApp) -> bool:
    with app.store.transaction() as tx:
        policy.set_local_write(tx, "primary", "tags", False)
    api = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    return api.get("/v1/capabilities").json()["entities"]["tags"] == {"local_write": False}


@pytest.mark.parametrize(
    ("fault", "holds"),
    [
        ("deletion_feed_misses_adapter_deletes", adapter_deletion_listed),
        ("deleted_records_without_scope_check", feed_scope_checked),
        ("me_lists_all_scopes", me_lists_own_scopes),
        ("capabilities_ignore_policy", capabilities_follow_policy),
    ],
)
def test_each_fault_breaks_its_rule(
    make_app, fault: str, holds: Callable[[ReferenceApp], bool]
) -> None:
    assert holds(make_app())
    assert not holds(make_app(faults={fault}))
