"""Deal creation per the Deal table, its errors, and stage moves."""

import pytest
from starlette.testclient import TestClient


def code(response) -> str:
    return response.json()["error"]["code"]


@pytest.fixture
def base(api: TestClient, ids) -> dict:
    contact = api.post("/v1/contacts", json={"first_name": "Buyer"}).json()
    pipeline = ids["pipelines"][0]
    return {
        "title": "Big deal",
        "pipeline_id": pipeline["id"],
        "stage_id": pipeline["stages"][1]["id"],
        "contact_id": contact["id"],
    }


def test_create_renders_the_deal(api: TestClient, base: dict, ids) -> None:
    response = api.post("/v1/deals", json={**base, "value": 1234.5, "owner_id": ids["users"][0]})
    assert response.status_code == 201
    deal = response.json()
    assert deal["object"] == "deal"
    assert deal["id"].startswith("deal_")
    assert deal["value"] == "1234.50"
    assert deal["probability"] == ids["pipelines"][0]["stages"][1]["default_probability"]
    assert deal["status"] == "open"
    assert deal["stage_changed_at"]
    assert deal["owner"]["kind"] == "user"
    assert deal["custom_fields"] == {"source": None}


def test_create_returns_200_variant(make_app, ids) -> None:
    app = make_app(variants={"create_returns_200"})
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    assert client.post("/v1/tags", json={"name": "t", "kind": "deal"}).status_code == 200


@pytest.mark.parametrize(
    ("change", "status", "error_code", "param"),
    [
        ({"pipeline_id": "pipe_" + "0" * 32}, 404, "pipeline_not_found", "pipeline_id"),
        ({"stage_id": "stg_" + "0" * 32}, 404, "stage_not_found", "stage_id"),
        ({"contact_id": "con_" + "0" * 32}, 404, "record_not_found", "contact_id"),
        ({"organization_id": "org_" + "0" * 32}, 404, "record_not_found", "organization_id"),
        ({"title": ""}, 422, "validation_failed", "title"),
        ({"title": None}, 422, "validation_failed", "title"),
        ({"probability": 101}, 422, "validation_failed", "probability"),
        ({"probability": -1}, 422, "validation_failed", "probability"),
        ({"probability": 5.5}, 422, "validation_failed", "probability"),
        ({"value": "12"}, 422, "validation_failed", "value"),
        ({"status": "lost"}, 422, "validation_failed", "lost_reason_id"),
        ({"stage_id": "not-an-id"}, 422, "validation_failed", "stage_id"),
        ({"score": "lukewarm"}, 422, "validation_failed", "score"),
        ({"external_id": ""}, 422, "validation_failed", "external_id"),
    ],
)
def test_create_errors(
    api: TestClient, base: dict, change: dict, status: int, error_code: str, param: str
) -> None:
    response = api.post("/v1/deals", json={**base, **change})
    assert (response.status_code, code(response)) == (status, error_code)
    assert response.json()["error"]["param"] == param


def test_required_fields(api: TestClient, base: dict) -> None:
    for missing in ("pipeline_id", "stage_id", "title"):
        body = {k: v for k, v in base.items() if k != missing}
        response = api.post("/v1/deals", json=body)
        assert code(response) == "validation_failed"
        assert missing in {item["field"] for item in response.json()["error"]["detail"]}
    no_party = {k: v for k, v in base.items() if k != "contact_id"}
    assert code(api.post("/v1/deals", json=no_party)) == "validation_failed"


def test_stage_of_another_pipeline_is_422(api: TestClient, base: dict, ids) -> None:
    other_stage = ids["pipelines"][1]["stages"][0]["id"]
    response = api.post("/v1/deals", json={**base, "stage_id": other_stage})
    assert (response.status_code, code(response)) == (422, "stage_not_in_pipeline")


def test_lost_deal_and_probability(api: TestClient, base: dict, ids) -> None:
    lost = api.post(
        "/v1/deals",
        json={
            **base,
            "status": "lost",
            "lost_reason_id": ids["lost_reasons"][0],
            "lost_justification": "Too pricey",
            "probability": 0,
        },
    ).json()
    assert (lost["lost_reason"], lost["probability"]) == ("Price", 0)
    explicit_null = api.post("/v1/deals", json={**base, "probability": None}).json()
    assert explicit_null["probability"] == ids["pipelines"][0]["stages"][1]["default_probability"]


def test_external_id_taken(api: TestClient, base: dict) -> None:
    api.post("/v1/deals", json={**base, "external_id": "d-1"})
    response = api.post("/v1/deals", json={**base, "external_id": "d-1"})
    assert (response.status_code, code(response)) == (409, "external_id_taken")


def test_moving_stage_updates_stage_changed_at(api: TestClient, base: dict, ids) -> None:
    deal = api.post("/v1/deals", json=base).json()
    renamed = api.patch(f"/v1/deals/{deal['id']}", json={"title": "Renamed"}).json()
    assert renamed["stage_changed_at"] == deal["stage_changed_at"]
    moved = api.patch(
        f"/v1/deals/{deal['id']}", json={"stage_id": ids["pipelines"][0]["stages"][2]["id"]}
    ).json()
    assert moved["stage_changed_at"] > deal["stage_changed_at"]


def test_expand_and_retrieve(api: TestClient, base: dict) -> None:
    org = api.post("/v1/organizations", json={"name": "Deal Org"}).json()
    deal = api.post(
        "/v1/deals", json={**base, "organization_id": org["id"]}, params={"expand": "organization"}
    ).json()
    assert deal["organization"]["id"] == org["id"]
    fetched = api.get(f"/v1/deals/{deal['id']}", params={"expand": "contact"}).json()
    assert fetched["contact"]["id"] == base["contact_id"]
    assert "organization" not in fetched
    assert code(api.get("/v1/deals/deal_" + "0" * 32)) == "not_found"
