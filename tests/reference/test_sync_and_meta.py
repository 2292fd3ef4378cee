"""The deletion feed (`GET /v1/deleted-records`) and the meta endpoints (`GET /v1/me`,
`GET /v1/capabilities`)."""

from typing import Any

import pytest
from starlette.testclient import TestClient

from crm_conformance.reference.app import ReferenceApp


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
