"""Activity creation per the Activity table and the agent's read-only resume plans."""

import pytest
from starlette.testclient import TestClient

from crm_conformance.reference.app import ReferenceApp


def code(response) -> str:
    return response.json()["error"]["code"]


@pytest.fixture
def contact(api: TestClient) -> dict:
    return api.post("/v1/contacts", json={"first_name": "Target"}).json()


def body(contact: dict, **fields) -> dict:
    return {
        "title": "Call back",
        "due_at": "2026-01-01T09:00:00+01:00",
        "record_id": contact["id"],
        **fields,
    }


def test_defaults_and_rendering(api: TestClient, contact: dict) -> None:
    response = api.post("/v1/activities", json=body(contact))
    assert response.status_code == 201
    activity = response.json()
    assert (activity["object"], activity["type"], activity["status"]) == (
        "activity",
        "task",
        "open",
    )
    assert activity["description"] == ""
    assert activity["created_by"] is None
    assert activity["due_at"] == "2026-01-01T08:00:00.000000Z"


def test_logged_activity_with_assignee(api: TestClient, contact: dict, ids, issue) -> None:
    user = ids["users"][1]
    activity = api.post(
        "/v1/activities", json=body(contact, status="completed", type="call", assignee_id=user)
    ).json()
    assert activity["status"] == "completed"
    assert activity["assignee"]["id"] == user
    by_person = issue(kind="oauth", user_id=user).post("/v1/activities", json=body(contact)).json()
    assert by_person["created_by"] == {
        "id": user,
        "kind": "user",
        "name": "Ben Member",
        "object": "owner",
    }


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"title": ""}, "title"),
        ({"title": "x" * 501}, "title"),
        ({"type": "resume_conversation"}, "type"),
        ({"status": "canceled"}, "status"),
        ({"due_at": "tomorrow"}, "due_at"),
        ({"record_id": "usr_" + "0" * 32}, "record_id"),
        ({"assignee_id": "usr_" + "0" * 32}, "assignee_id"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_create_validation(api: TestClient, contact: dict, change: dict, field: str) -> None:
    response = api.post("/v1/activities", json=body(contact, **change))
    assert (response.status_code, code(response)) == (422, "validation_failed")
    assert field in {item["field"] for item in response.json()["error"]["detail"]}


def test_title_of_500_characters_is_accepted(api: TestClient, contact: dict) -> None:
    assert api.post("/v1/activities", json=body(contact, title="x" * 500)).status_code == 201


def test_required_fields(api: TestClient) -> None:
    response = api.post("/v1/activities", json={})
    fields = {item["field"] for item in response.json()["error"]["detail"]}
    assert fields == {"title", "due_at", "record_id"}


def test_unknown_record_is_404_naming_the_field(api: TestClient, contact: dict) -> None:
    for record_id in ("con_" + "0" * 32, "deal_" + "0" * 32, "org_" + "0" * 32):
        response = api.post("/v1/activities", json=body(contact, record_id=record_id))
        assert (response.status_code, code(response)) == (404, "record_not_found")
        assert response.json()["error"]["param"] == "record_id"


def test_resume_plan_can_only_be_completed_or_canceled(
    app: ReferenceApp, api: TestClient, contact: dict, ids
) -> None:
    with app.store.transaction() as tx:
        plan = tx.insert(
            "primary",
            "activity",
            {
                "title": "Resume", "description": "", "type": "resume_conversation",
                "status": "open", "due_at": "2026-01-01T00:00:00.000000Z",
                "record_id": contact["id"], "record_kind": "contact",
                "assignee_id": None, "created_by": ids["agent"], "status_reason": None,
            },
        )  # fmt: skip
    path = f"/v1/activities/{plan['id']}"
    assert api.get(path).json()["created_by"]["kind"] == "agent"
    for change in ({"title": "Mine now"}, {"status": "open"}, {"due_at": "2026-02-01T00:00:00Z"}):
        response = api.patch(path, json=change)
        assert (response.status_code, code(response)) == (422, "agent_activity_read_only")
    assert code(api.delete(path)) == "agent_activity_read_only"
    canceled = api.patch(path, json={"status": "canceled", "status_reason": "contact replied"})
    assert canceled.json()["status"] == "canceled"


def test_list_and_filter_by_record(api: TestClient, contact: dict) -> None:
    other = api.post("/v1/contacts", json={"first_name": "Other"}).json()
    mine = api.post("/v1/activities", json=body(contact)).json()
    api.post("/v1/activities", json=body(other))
    rows = api.get("/v1/activities", params={"record_id": contact["id"]}).json()["data"]
    assert [r["id"] for r in rows] == [mine["id"]]
