"""Campaigns: reads, pause and resume per the status table, stats over a window, and the
adapter operation that makes a campaign with participant histories."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from starlette.testclient import TestClient

from crm_conformance.reference.app import ReferenceApp

Make = Callable[..., dict[str, Any]]
WINDOW = {"window_start": "2026-01-01T00:00:00Z", "window_end": "2026-01-10T00:00:00Z"}
EARLY = "2025-12-01T00:00:00Z"


def jan(day: int, time: str = "00:00:00") -> str:
    return f"2026-01-{day:02d}T{time}Z"


HISTORIES: list[dict[str, Any]] = [
    {"enrolled_at": EARLY, "contacted_at": jan(2, "10:00:00"), "replied_at": jan(2, "11:00:00")},
    {
        "enrolled_at": EARLY,
        "contacted_at": jan(2, "10:00:00"),
        "replied_at": jan(2, "10:00:05"),
        "reply_automated": True,
    },
    {"enrolled_at": EARLY, "contacted_at": jan(3), "converted_at": jan(4)},
    {"enrolled_at": EARLY, "not_contacted_reason": "meta_account", "status_changed_at": jan(2)},
    {"enrolled_at": EARLY, "contacted_at": WINDOW["window_end"]},
    {"enrolled_at": jan(5)},
]
"""Inside the window: three contacted (one reply, one automated reply, one converted),
one not contacted; one contacted exactly at the window's end; one enrolled inside it."""


def code(response: Any) -> str:
    return str(response.json()["error"]["code"])


@pytest.fixture
def app(make_app: Callable[..., ReferenceApp], request: pytest.FixtureRequest) -> ReferenceApp:
    """A fresh app; parametrized indirectly with a set of fault names for fault tests."""
    return make_app(faults=getattr(request, "param", frozenset()))


@pytest.fixture
def make_campaign(client_for: Callable[[str | None], TestClient]) -> Make:
    adapter = client_for(None)

    def make(status: str = "running", **body: Any) -> dict[str, Any]:
        sent = {"workspace": "primary", "status": status, **body}
        response = adapter.post("/_adapter/v1/campaigns", json=sent)
        assert response.status_code == 201, response.text
        return response.json()

    return make


def stats_of(api: TestClient, campaign: dict[str, Any], **query: str) -> Any:
    return api.get(f"/v1/campaigns/{campaign['id']}/stats", params=query)


# --- reads ------------------------------------------------------------------------------


def test_campaign_rendering_list_and_retrieve(
    api: TestClient, other_api: TestClient, make_campaign: Make
) -> None:
    first = make_campaign(name="First")
    second = make_campaign("draft")
    assert first["object"] == "campaign"
    assert first["id"].startswith("camp_")
    assert (first["name"], first["status"]) == ("First", "running")
    assert isinstance(first["instructions"], str)
    listed = api.get("/v1/campaigns").json()
    assert [c["id"] for c in listed["data"]] == [second["id"], first["id"]]
    drafts = api.get("/v1/campaigns", params={"status": "draft"}).json()["data"]
    assert [c["id"] for c in drafts] == [second["id"]]
    assert api.get(f"/v1/campaigns/{first['id']}").json() == first
    assert other_api.get(f"/v1/campaigns/{first['id']}").status_code == 404
    assert api.get("/v1/campaigns/camp_x").status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {"workspace": "primary", "status": "live"},
        {"workspace": "primary", "status": "running", "participants": [{}]},
        {
            "workspace": "primary",
            "status": "running",
            "participants": [{"enrolled_at": EARLY, "replied_at": EARLY}],
        },
        {
            "workspace": "primary",
            "status": "running",
            "participants": [
                {"enrolled_at": EARLY, "contacted_at": EARLY, "not_contacted_reason": "x"}
            ],
        },
    ],
)
def test_adapter_refuses_inconsistent_campaigns(
    client_for: Callable[[str | None], TestClient], body: dict
) -> None:
    response = client_for(None).post("/_adapter/v1/campaigns", json=body)
    assert (response.status_code, code(response)) == (422, "validation_failed")


# --- pause and resume ------------------------------------------------------------------------


def test_pause_then_resume(api: TestClient, make_campaign: Make) -> None:
    campaign = make_campaign()
    paused = api.post(f"/v1/campaigns/{campaign['id']}/pause")
    assert paused.status_code == 200
    assert paused.json()["status"] == "paused"
    assert paused.json()["updated_at"] > campaign["updated_at"]
    again = api.post(f"/v1/campaigns/{campaign['id']}/pause")
    assert (again.status_code, code(again)) == (409, "campaign_not_running")
    resumed = api.post(f"/v1/campaigns/{campaign['id']}/resume")
    assert resumed.status_code == 200
    assert resumed.json()["status"] == "running"
    twice = api.post(f"/v1/campaigns/{campaign['id']}/resume")
    assert (twice.status_code, code(twice)) == (409, "campaign_not_paused")


@pytest.mark.parametrize("status", ["draft", "scheduled", "completed"])
def test_only_running_pauses_and_only_paused_resumes(
    api: TestClient, make_campaign: Make, status: str
) -> None:
    campaign = make_campaign(status)
    pause = api.post(f"/v1/campaigns/{campaign['id']}/pause")
    resume = api.post(f"/v1/campaigns/{campaign['id']}/resume")
    assert (code(pause), code(resume)) == ("campaign_not_running", "campaign_not_paused")
    assert api.get(f"/v1/campaigns/{campaign['id']}").json() == campaign


def test_writes_need_campaigns_write_and_admin_to_resume(
    make_campaign: Make, issue: Callable[..., TestClient], ids: dict
) -> None:
    campaign = make_campaign()
    reader = issue(scopes=["campaigns:read"])
    denied = reader.post(f"/v1/campaigns/{campaign['id']}/pause")
    assert (denied.status_code, denied.json()["error"]["param"]) == (403, "campaigns:write")
    member = issue(kind="oauth", user_id=ids["users"][1])
    assert member.post(f"/v1/campaigns/{campaign['id']}/pause").status_code == 200
    refused = member.post(f"/v1/campaigns/{campaign['id']}/resume")
    assert (refused.status_code, code(refused)) == (403, "campaign_dispatch_denied")
    admin = issue(kind="oauth", user_id=ids["users"][0])
    assert admin.post(f"/v1/campaigns/{campaign['id']}/resume").status_code == 200


def test_pause_takes_no_body_fields(api: TestClient, make_campaign: Make) -> None:
    response = api.post(f"/v1/campaigns/{make_campaign()['id']}/pause", json={"now": True})
    assert (response.status_code, code(response)) == (422, "validation_failed")


# --- stats --------------------------------------------------------------------------------


def test_stats_over_a_window(api: TestClient, make_campaign: Make) -> None:
    campaign = make_campaign(participants=HISTORIES)
    response = stats_of(api, campaign, **WINDOW)
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "campaign_stats"
    assert body["campaign_id"] == campaign["id"]
    assert (body["window_start"], body["window_end"]) == (
        "2026-01-01T00:00:00.000000Z",
        "2026-01-10T00:00:00.000000Z",
    )
    counts = [body[k] for k in ("contacted", "replied", "replied_automated", "converted")]
    assert counts == [3, 1, 1, 1]
    assert body["enrolled"] == len(HISTORIES)
    assert body["not_contacted"][0] == {"reason": "meta_account", "count": 1}
    assert all(item["count"] == 0 for item in body["not_contacted"][1:])
    assert body["reply_rate"] == pytest.approx(1 / 3)
    assert body["conversion_rate"] == pytest.approx(1 / 3)


def test_converted_participants_contacts_read_won(api: TestClient, make_campaign: Make) -> None:
    contact = api.post("/v1/contacts", json={"first_name": "Buyer"}).json()
    history = {**HISTORIES[2], "contact_id": contact["id"]}
    make_campaign(participants=[history])
    assert api.get(f"/v1/contacts/{contact['id']}").json()["status"] == "won"


def test_default_window_is_30_days_ending_now(api: TestClient, make_campaign: Make) -> None:
    before = datetime.now(UTC)
    body = stats_of(api, make_campaign(participants=HISTORIES)).json()
    end = datetime.fromisoformat(body["window_end"])
    start = datetime.fromisoformat(body["window_start"])
    assert before <= end <= datetime.now(UTC)
    assert end - start == timedelta(days=30)
    assert (body["contacted"], body["reply_rate"], body["conversion_rate"]) == (0, None, None)
    assert body["enrolled"] == len(HISTORIES)


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ({"window_start": "2026-01-01T00:00:00"}, "validation_failed"),
        ({"window_start": "soon"}, "validation_failed"),
        ({**WINDOW, "window_end": WINDOW["window_start"]}, "invalid_window"),
        ({"window_start": jan(10), "window_end": jan(1)}, "invalid_window"),
        ({"from": "2026-01-01T00:00:00Z"}, "validation_failed"),
    ],
)  # fmt: skip
def test_stats_window_errors(api: TestClient, make_campaign: Make, query: dict, error: str) -> None:
    response = stats_of(api, make_campaign(), **query)
    assert (response.status_code, code(response)) == (400, error)


def test_stats_of_missing_campaign_and_scope(
    api: TestClient, other_api: TestClient, make_campaign: Make, issue
) -> None:
    campaign = make_campaign()
    assert api.get(f"/v1/campaigns/camp_{'0' * 32}/stats").status_code == 404
    assert stats_of(other_api, campaign).status_code == 404
    denied = stats_of(issue(scopes=["contacts:read"]), campaign)
    assert (denied.status_code, denied.json()["error"]["param"]) == (403, "campaigns:read")


# --- faults -----------------------------------------------------------------------------


@pytest.mark.parametrize("app", [{"pause_paused_campaign_ok"}], indirect=True)
def test_fault_pause_paused_campaign_ok(api: TestClient, make_campaign: Make) -> None:
    assert api.post(f"/v1/campaigns/{make_campaign('paused')['id']}/pause").status_code == 200


@pytest.mark.parametrize("app", [{"resume_running_campaign_ok"}], indirect=True)
def test_fault_resume_running_campaign_ok(api: TestClient, make_campaign: Make) -> None:
    assert api.post(f"/v1/campaigns/{make_campaign()['id']}/resume").status_code == 200


STAT_FAULTS = [
    ("reply_rate_as_percentage", "reply_rate", pytest.approx(100 / 3)),
    ("automated_replies_counted", "replied", 2),
    ("window_end_inclusive", "contacted", 4),
    ("enrolled_windowed", "enrolled", 1),
    ("not_contacted_omits_zero_reasons", "not_contacted", [{"reason": "meta_account", "count": 1}]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("app", "field", "value"),
    [({name}, field, value) for name, field, value in STAT_FAULTS],
    ids=[name for name, _, _ in STAT_FAULTS],
    indirect=["app"],
)
def test_stats_faults(api: TestClient, make_campaign: Make, field: str, value: Any) -> None:
    body = stats_of(api, make_campaign(participants=HISTORIES), **WINDOW).json()
    assert body[field] == value
