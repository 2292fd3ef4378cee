"""Tags, users, audiences, pipelines, fields, lost reasons, channels and notes."""

import pytest
from starlette.testclient import TestClient


def code(response) -> str:
    return response.json()["error"]["code"]


def test_tag_rules(api: TestClient) -> None:
    tag = api.post("/v1/tags", json={"name": "Gold", "kind": "contact", "color": "#fc0"})
    assert tag.status_code == 201
    assert tag.json()["color"] == "#fc0"
    assert tag.json()["object"] == "tag"
    again = api.post("/v1/tags", json={"name": "gold", "kind": "contact"})
    assert (again.status_code, code(again)) == (409, "tag_already_exists")
    assert tag.json()["id"] in again.json()["error"]["message"]
    assert api.post("/v1/tags", json={"name": "Gold", "kind": "deal"}).status_code == 201
    grey = api.post("/v1/tags", json={"name": "Plain", "kind": "organization"}).json()
    assert grey["color"] == "#808080"
    assert api.post("/v1/tags", json={"name": "x" * 100, "kind": "deal"}).status_code == 201
    listed = api.get("/v1/tags", params={"kind": "deal"}).json()["data"]
    assert {t["kind"] for t in listed} == {"deal"}


@pytest.mark.parametrize(
    "change",
    [
        {"name": ""},
        {"name": "x" * 101},
        {"color": "red"},
        {"color": "#abcd"},
        {"color": "#ggg"},
        {"kind": "user"},
        {"kind": None},
    ],
)
def test_tag_validation(api: TestClient, change: dict) -> None:
    response = api.post("/v1/tags", json={"name": "t", "kind": "contact", **change})
    assert (response.status_code, code(response)) == (422, "validation_failed")


def test_users_in_join_order_and_paged(api: TestClient) -> None:
    first = api.get("/v1/users", params={"limit": 2}).json()
    assert [u["name"] for u in first["data"]] == ["Ada Admin", "Ben Member"]
    assert set(first["data"][0]) == {
        "id",
        "object",
        "name",
        "email",
        "role",
        "status",
        "created_at",
    }
    rest = api.get("/v1/users", params={"limit": 2, "cursor": first["links"]["next"]}).json()
    assert [u["name"] for u in rest["data"]] == ["Cleo Member"]
    assert rest["links"]["next"] is None


def test_audiences_newest_first(api: TestClient) -> None:
    rows = api.get("/v1/audiences").json()["data"]
    stamps = [a["created_at"] for a in rows]
    assert stamps == sorted(stamps, reverse=True)
    assert len(set(stamps)) == len(stamps)
    assert rows[0]["object"] == "audience"


def test_pipelines_fields_lost_reasons_channels(api: TestClient) -> None:
    pipelines = api.get("/v1/pipelines").json()["data"]
    assert len(pipelines) == 2
    assert all(p["stages"] for p in pipelines)
    assert all(s["id"].startswith("stg_") for s in pipelines[0]["stages"])
    fields = api.get("/v1/fields", params={"limit": 200}).json()["data"]
    custom = {(f["resource"], f["key"]) for f in fields if not f["built_in"]}
    assert ("contact", "industry") in custom
    assert all(f["id"].startswith("fld_") and len(f["id"]) == 36 for f in fields)
    reasons = api.get("/v1/lost-reasons").json()["data"]
    assert reasons[0]["id"].startswith("lrsn_")
    assert api.get("/v1/channels").json()["data"][0]["id"].startswith("chn_")


def test_notes_only_author_may_change(api: TestClient, issue, ids) -> None:
    contact = api.post("/v1/contacts", json={"first_name": "Noted"}).json()
    ada = issue(kind="oauth", user_id=ids["users"][0])
    ben = issue(kind="oauth", user_id=ids["users"][1])
    note = ada.post("/v1/notes", json={"content": "hello", "record_id": contact["id"]})
    assert note.status_code == 201
    path = f"/v1/notes/{note.json()['id']}"
    for client in (ben, api):
        response = client.patch(path, json={"content": "changed"})
        assert (response.status_code, code(response)) == (403, "note_author_only")
    assert ada.patch(path, json={"content": "edited"}).json()["content"] == "edited"
    assert code(ben.delete(path)) == "note_author_only"
    assert ada.delete(path).status_code == 204
    integration = api.post("/v1/notes", json={"content": "sync", "record_id": contact["id"]}).json()
    assert ben.patch(f"/v1/notes/{integration['id']}", json={"content": "ok"}).status_code == 200


def test_organizations_crud(api: TestClient) -> None:
    org = api.post("/v1/organizations", json={"name": "Org", "website": "https://org.example"})
    assert org.status_code == 201
    assert org.json()["custom_fields"] == {"segment": None}
    path = f"/v1/organizations/{org.json()['id']}"
    assert api.patch(path, json={"name": "Org 2"}).json()["name"] == "Org 2"
    assert api.get(path, params={"fields": "name"}).json() == {
        "id": org.json()["id"],
        "object": "organization",
        "name": "Org 2",
    }
    assert api.delete(path).status_code == 204
    assert code(api.get(path)) == "not_found"
