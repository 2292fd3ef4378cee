"""Contacts: write rules, filters, retrieve, delete, upsert and search."""

import pytest
from starlette.datastructures import Headers, QueryParams
from starlette.testclient import TestClient

from crm_conformance.reference import contacts
from crm_conformance.reference.app import ReferenceApp
from crm_conformance.reference.routing import Call


def code(response) -> str:
    return response.json()["error"]["code"]


def create(api: TestClient, **fields) -> dict:
    response = api.post("/v1/contacts", json=fields)
    assert response.status_code == 201, response.text
    return response.json()


def test_rendered_contact(api: TestClient, ids) -> None:
    contact = create(api, first_name=" Ada ", last_name="Lovelace", owner_id=ids["users"][0])
    assert contact["object"] == "contact"
    assert contact["name"] == "Ada Lovelace"
    assert (contact["status"], contact["visibility"]) == ("open", "company")
    assert contact["owner"] == {
        "id": ids["users"][0], "kind": "user", "name": "Ada Admin", "object": "owner",
    }  # fmt: skip
    assert contact["custom_fields"] == {"industry": None, "lifetime_value": None}
    assert contact["tags"] == []
    assert contact["channels"] == []
    assert contact["id"].startswith("con_")
    assert len(contact["id"]) == 36


def test_owner_and_expanded_organization_are_absent_when_none(api: TestClient) -> None:
    contact = create(api, first_name="Solo")
    assert "owner" not in contact
    assert contact["owner_id"] is None
    expanded = api.get(f"/v1/contacts/{contact['id']}", params={"expand": "organization"}).json()
    assert "organization" not in expanded
    assert expanded["organization_id"] is None


@pytest.mark.parametrize(
    ("raw", "e164"),
    [
        ("+1 (555) 123-4567", "+15551234567"),
        ("0044 20 7946 0018", "+442079460018"),
        ("4915112345678", "+4915112345678"),
    ],
)
def test_phone_is_normalized_to_e164(api: TestClient, raw: str, e164: str) -> None:
    assert create(api, phone=raw)["phone"] == e164


def test_unusable_phone_is_422(api: TestClient) -> None:
    response = api.post("/v1/contacts", json={"phone": "call me"})
    assert code(response) == "validation_failed"
    assert response.json()["error"]["detail"][0]["field"] == "phone"


def test_duplicate_phone_is_409(api: TestClient) -> None:
    create(api, phone="+15550001111")
    response = api.post("/v1/contacts", json={"phone": "+1 555 000 1111"})
    assert (response.status_code, code(response)) == (409, "contact_already_exists")


def test_company_name_links_existing_or_new_organization(api: TestClient) -> None:
    org = api.post("/v1/organizations", json={"name": "Acme"}).json()
    linked = create(api, first_name="A", company_name="acme")
    assert linked["company_name"] == "acme"
    assert linked["organization_id"] == org["id"]
    fresh = create(api, first_name="B", company_name="Brand New Ltd")
    assert fresh["organization_id"] not in (None, org["id"])
    again = create(api, first_name="C", company_name="Brand New Ltd")
    assert again["organization_id"] == fresh["organization_id"]


def test_organization_on_write_reports_resolution(api: TestClient) -> None:
    org = api.post("/v1/organizations", json={"name": "Globex"}).json()
    matched = create(api, organization={"name": "GLOBEX"})
    assert matched["organization_resolution"]["outcome"] == "matched_name"
    assert matched["organization_id"] == org["id"]
    created = create(api, organization={"name": "Initech"})
    assert created["organization_resolution"]["outcome"] == "created"
    assert "organization_resolution" not in api.get(f"/v1/contacts/{created['id']}").json()
    missing = api.post("/v1/contacts", json={"organization_id": "org_" + "1" * 32})
    assert (code(missing), missing.json()["error"]["param"]) == (
        "record_not_found",
        "organization_id",
    )


def test_external_id_unique_and_null_clears(api: TestClient) -> None:
    first = create(api, external_id="ext-1")
    response = api.post("/v1/contacts", json={"external_id": "ext-1"})
    assert (response.status_code, code(response)) == (409, "external_id_taken")
    cleared = api.patch(f"/v1/contacts/{first['id']}", json={"external_id": None}).json()
    assert cleared["external_id"] is None
    assert create(api, external_id="ext-1")["external_id"] == "ext-1"
    assert api.post("/v1/contacts", json={"external_id": ""}).status_code == 422
    assert api.post("/v1/contacts", json={"external_id": "x" * 256}).status_code == 422


def test_custom_fields_tags_and_channels(api: TestClient) -> None:
    tag = api.post("/v1/tags", json={"name": "vip", "kind": "contact"}).json()
    deal_tag = api.post("/v1/tags", json={"name": "big", "kind": "deal"}).json()
    contact = create(
        api,
        custom_fields={"industry": "Retail"},
        tags=[tag["id"]],
        channels=[{"identifier": "+15551112222", "platform": "chatapp", "username": "ada"}],
    )
    assert contact["custom_fields"] == {"industry": "Retail", "lifetime_value": None}
    assert contact["tags"][0]["id"] == tag["id"]
    assert contact["tags"][0]["object"] == "tag"
    assert set(contact["channels"][0]) == {"identifier", "platform", "status", "username"}
    for body in (
        {"tags": [deal_tag["id"]]},
        {"custom_fields": {"shoe": 1}},
        {"custom_fields": {"industry": 3}},
    ):
        assert api.post("/v1/contacts", json=body).status_code == 422, body


def test_lost_reason_only_when_lost(api: TestClient) -> None:
    contact = create(api, status="lost", lost_reason="Price")
    assert contact["lost_reason"] == "Price"
    reopened = api.patch(f"/v1/contacts/{contact['id']}", json={"status": "open"}).json()
    assert reopened["lost_reason"] is None


def test_update_touches_updated_at_and_404s(api: TestClient) -> None:
    contact = create(api, first_name="Old")
    updated = api.patch(f"/v1/contacts/{contact['id']}", json={"first_name": "New"}).json()
    assert updated["name"] == "New"
    assert updated["updated_at"] > contact["updated_at"]
    missing = api.patch("/v1/contacts/con_" + "0" * 32, json={})
    assert (missing.status_code, code(missing)) == (404, "contact_not_found")
    assert code(api.get("/v1/contacts/con_" + "0" * 32)) == "contact_not_found"


def test_delete_appears_in_the_deletion_feed(app: ReferenceApp, api: TestClient) -> None:
    contact = create(api, first_name="Gone")
    assert api.delete(f"/v1/contacts/{contact['id']}").status_code == 204
    assert api.get(f"/v1/contacts/{contact['id']}").status_code == 404
    with app.store.transaction() as tx:
        assert [d["id"] for d in tx.deletions("primary")] == [contact["id"]]


def test_filters_or_within_and_across(api: TestClient, ids) -> None:
    a = create(api, status="open", score="hot", email="a@example.com")
    b = create(api, status="won", score="hot", email="b@example.com", owner_id=ids["users"][1])
    create(api, status="lost", score="cold", email="c@example.com")

    def listed(**params) -> set[str]:
        return {row["id"] for row in api.get("/v1/contacts", params=params).json()["data"]}

    assert listed(status=["open", "won"]) == {a["id"], b["id"]}
    assert listed(status=["open", "won", "lost"], score="hot") == {a["id"], b["id"]}
    assert listed(email="b@example.com") == {b["id"]}
    assert listed(owner_id=ids["users"][1]) == {b["id"]}


def test_filter_values_are_capped_at_100(api: TestClient) -> None:
    assert (
        api.get("/v1/contacts", params={"email": [f"{n}@x.io" for n in range(100)]}).status_code
        == 200
    )
    response = api.get("/v1/contacts", params={"email": [f"{n}@x.io" for n in range(101)]})
    assert (response.status_code, code(response)) == (400, "too_many_filter_values")
    assert response.json()["error"]["param"] == "email"
    assert code(api.get("/v1/contacts", params={"status": "sleepy"})) == "validation_failed"


def test_updated_since_and_created_since(api: TestClient) -> None:
    old = create(api, first_name="Old")
    new = create(api, first_name="New")
    rows = api.get("/v1/contacts", params={"updated_since": new["updated_at"]}).json()["data"]
    assert [r["id"] for r in rows] == [new["id"]]
    api.patch(f"/v1/contacts/{old['id']}", json={"city": "Paris"})
    rows = api.get(
        "/v1/contacts", params={"updated_since": new["updated_at"], "sort": "updated_at"}
    ).json()["data"]
    assert [r["id"] for r in rows] == [new["id"], old["id"]]
    rows = api.get("/v1/contacts", params={"created_since": new["created_at"]}).json()["data"]
    assert [r["id"] for r in rows] == [new["id"]]
    naive = api.get("/v1/contacts", params={"updated_since": "2026-01-01T00:00:00"})
    assert (naive.status_code, code(naive)) == (400, "validation_failed")
    offset = api.get("/v1/contacts", params={"updated_since": "2026-01-01T00:00:00+02:00"})
    assert offset.status_code == 200


def test_upsert_creates_updates_and_refuses_conflicts(api: TestClient) -> None:
    created = api.post(
        "/v1/contacts/upsert",
        json={"external_id": "u-1", "phone": "+15550002222", "first_name": "U"},
    )
    assert created.status_code == 201
    updated = api.post("/v1/contacts/upsert", json={"external_id": "u-1", "city": "Rome"})
    assert updated.status_code == 200
    assert updated.json()["id"] == created.json()["id"]
    assert updated.json()["phone"] == "+15550002222"
    mismatch = api.post("/v1/contacts/upsert", json={"external_id": "u-1", "phone": "+15550003333"})
    assert (mismatch.status_code, code(mismatch)) == (409, "phone_mismatch")
    other = create(api, phone="+15550004444", external_id="u-2")
    both = api.post("/v1/contacts/upsert", json={"external_id": "u-1", "phone": "+15550004444"})
    assert code(both) == "external_id_conflict"
    by_phone = api.post("/v1/contacts/upsert", json={"external_id": "u-3", "phone": "+15550004444"})
    assert code(by_phone) == "external_id_conflict"
    same = api.post("/v1/contacts/upsert", json={"phone": "+1 555 000 4444", "city": "Oslo"})
    assert same.json()["id"] == other["id"]
    assert code(api.post("/v1/contacts/upsert", json={"city": "Nowhere"})) == "validation_failed"


def test_search_nested_groups_q_and_paging(api: TestClient) -> None:
    a = create(api, first_name="Ann", city="Rome", score="hot", email="ann@example.com")
    b = create(api, first_name="Bob", city="Oslo", score="hot", phone="+4790012345")
    create(api, first_name="Cid", city="Rome", score="cold")
    body = {
        "filter": {
            "join": "and",
            "conditions": [
                {"field": "score", "operator": "equals", "value": "hot"},
                {
                    "join": "or",
                    "conditions": [
                        {"field": "city", "operator": "equals", "value": "rome"},
                        {"field": "first_name", "operator": "starts_with", "value": "Bo"},
                    ],
                },
            ],
        },
        "sort": "first_name",
        "limit": 1,
    }
    first = api.post("/v1/contacts/search", json=body).json()
    assert [r["id"] for r in first["data"]] == [a["id"]]
    assert first["meta"]["has_more"]
    second = api.post("/v1/contacts/search", json={**body, "cursor": first["links"]["next"]}).json()
    assert [r["id"] for r in second["data"]] == [b["id"]]
    assert second["links"]["next"] is None
    assert api.post("/v1/contacts/search", json={"q": "ANN@"}).json()["data"][0]["id"] == a["id"]
    assert api.post("/v1/contacts/search", json={"q": "900123"}).json()["data"][0]["id"] == b["id"]
    narrowed = api.post("/v1/contacts/search", json={"q": "ann", "fields": "city"}).json()["data"][
        0
    ]
    assert set(narrowed) == {"id", "object", "city"}
    moved = api.post(
        "/v1/contacts/search",
        json={**body, "sort": "-first_name", "cursor": first["links"]["next"]},
    )
    assert code(moved) == "invalid_cursor"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"filtre": {}}, "filtre"),
        (
            {"filter": {"conditions": [{"field": "shoe", "operator": "equals", "value": 1}]}},
            "filter.conditions.0.field",
        ),
        (
            {"filter": {"conditions": [{"field": "city", "operator": "like", "value": "x"}]}},
            "filter.conditions.0.operator",
        ),
        (
            {
                "filter": {
                    "conditions": [
                        {"field": "city", "operator": "equals", "value": "x", "extra": 1}
                    ]
                }
            },
            "filter.conditions.0.extra",
        ),
        ({"filter": {"join": "xor", "conditions": []}}, "filter.join"),
        (
            {
                "filter": {
                    "conditions": [{"field": "created_at", "operator": "gt", "value": "yesterday"}]
                }
            },
            "filter.conditions.0.value",
        ),
        ({"limit": 0}, "limit"),
        ({"limit": "5"}, "limit"),
    ],
)
def test_search_rejects_bad_bodies(api: TestClient, body: dict, field: str) -> None:
    response = api.post("/v1/contacts/search", json=body)
    assert (response.status_code, code(response)) == (422, "validation_failed")
    assert field in {item["field"] for item in response.json()["error"]["detail"]}


def test_search_depth_is_bounded(api: TestClient) -> None:
    group: dict = {"field": "city", "operator": "equals", "value": "x"}
    for _ in range(10):
        group = {"join": "and", "conditions": [group]}
    assert api.post("/v1/contacts/search", json={"filter": group}).status_code == 422


def test_adapter_can_reuse_contact_rules_through_as_workspace(app: ReferenceApp) -> None:
    call = Call(
        settings=app.settings, store=app.store, method="POST", path="/_adapter/v1/records",
        path_params={}, query=QueryParams(""), headers=Headers({}), raw_body=b"",
        request_id="req_test", principal=None,
    )  # fmt: skip
    acting = call.as_workspace("secondary")
    with app.store.transaction() as tx:
        changes, _ = contacts.read_changes(acting, tx, {"phone": "0044 20 7946 0018"}, None)
        record = tx.insert(
            "secondary", "contact", changes, created_at="2020-01-01T00:00:00.000000Z"
        )
        rendered = contacts.render(tx, "secondary", record)
    assert rendered["phone"] == "+442079460018"
    assert rendered["created_at"].startswith("2020")
