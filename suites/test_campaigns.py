"""Campaigns: pausing a running one, and the refusals of pause and resume.

Campaigns reach a status only by running (audience, channel, template, time), so the
adapter makes one in each status (`factory.campaign`). Pause is shown in full
(`POST /v1/campaigns/{campaign_id}/pause`, answering the Campaign). Resume is only named
("Resuming requires a paused campaign (409 `campaign_not_paused` otherwise)"): it is
tried at the path `spec/openapi.yaml` chose, and a test skips when the target offers
nothing there.
"""

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from crm_conformance import (
    AdapterClient,
    ApiClient,
    ConformanceFailure,
    RecordFactory,
    expect_enum,
    expect_error,
    expect_identifier,
    expect_present,
    expect_status,
    expect_value,
)

STATUSES = ("draft", "scheduled", "running", "paused", "completed")
NOT_OFFERED = (404, 405, 501)
"""Answers meaning the target has no resume operation at the chosen path (not shown)."""


@pytest.fixture
def campaigns(adapter: AdapterClient, factory: RecordFactory) -> RecordFactory:
    """The factory, once the adapter is known to make campaigns."""
    adapter.require("campaigns")
    return factory


def pause(api: ApiClient, campaign_id: str) -> httpx.Response:
    return api.post(f"/v1/campaigns/{campaign_id}/pause")


def resume(api: ApiClient, campaign_id: str) -> httpx.Response:
    """Resume at the chosen path; skips the test when the target offers nothing there."""
    response = api.post(f"/v1/campaigns/{campaign_id}/resume")
    if response.status_code in NOT_OFFERED:
        pytest.skip(
            f"POST /v1/campaigns/{{id}}/resume answered {response.status_code}: the resume "
            "operation's path is not shown, and the target does not offer it there"
        )
    return response


@pytest.mark.req("CAMP-004", "CAMP-008", "CAMP-001", "CAMP-002", "IDN-016")
def test_pausing_a_running_campaign_pauses_it(
    api: ApiClient, campaigns: RecordFactory, observe: Callable[[str, Any], None]
) -> None:
    """`instructions` may be null, and a null field may be left out, so it is observed."""
    campaign = campaigns.campaign(status="running")
    response = pause(api, campaign["id"])
    body = expect_status(response, "CAMP-004", 200)
    expect_present(response, "CAMP-008", body, ("id", "object", "status"))
    expect_value(response, "CAMP-008", "object", body.get("object"), "campaign")
    expect_value(response, "CAMP-008", "id", body.get("id"), campaign["id"])
    expect_identifier(response, "IDN-016", body, "id", "camp_")
    expect_enum(response, "CAMP-002", body, "status", STATUSES)
    expect_value(response, "CAMP-004", "status", body.get("status"), "paused")
    expect_present(
        response, "CAMP-001", body, ("id", "object", "name", "status", "created_at", "updated_at")
    )
    observe("paused_campaign_has_instructions_key", "instructions" in body)


@pytest.mark.req("CAMP-006", "CAMP-007", "CAMP-009")
@pytest.mark.parametrize("status", [s for s in STATUSES if s != "running"])
def test_pausing_a_campaign_that_is_not_running_is_a_conflict(
    api: ApiClient, campaigns: RecordFactory, status: str
) -> None:
    campaign = campaigns.campaign(status=status)
    expect_error(pause(api, campaign["id"]), "CAMP-006", status=409, code="campaign_not_running")
    # unchanged: a campaign that was not paused still cannot be resumed
    if status != "paused":
        response = resume(api, campaign["id"])
        expect_error(response, "CAMP-007", status=409, code="campaign_not_paused")


@pytest.mark.req("CAMP-009")
@pytest.mark.parametrize("status", [s for s in STATUSES if s != "paused"])
def test_resuming_a_campaign_that_is_not_paused_is_a_conflict(
    api: ApiClient, campaigns: RecordFactory, status: str
) -> None:
    campaign = campaigns.campaign(status=status)
    expect_error(resume(api, campaign["id"]), "CAMP-009", status=409, code="campaign_not_paused")


@pytest.mark.req("CAMP-009", "CAMP-007")
@pytest.mark.parametrize("how", ["made paused", "paused through the API"])
def test_resuming_a_paused_campaign_is_not_refused_as_not_paused(
    api: ApiClient,
    campaigns: RecordFactory,
    how: str,
    observe: Callable[[str, Any], None],
) -> None:
    """The resume's answer is not shown, and launching can fail for setup reasons
    (`campaign_not_ready` and others), so only `campaign_not_paused` is wrong here."""
    if how == "made paused":
        campaign = campaigns.campaign(status="paused")
    else:
        campaign = campaigns.campaign(status="running")
        expect_status(pause(api, campaign["id"]), "CAMP-004", 200)
    response = resume(api, campaign["id"])
    expect_status(response, "CAMP-009", *range(200, 300), 409)
    code = response.json().get("error", {}).get("code") if response.status_code == 409 else None
    observe("resume_of_paused_campaign", {"status": response.status_code, "code": code})
    if code == "campaign_not_paused":
        raise ConformanceFailure(
            "CAMP-009",
            expected="a paused campaign not refused as campaign_not_paused",
            got=f"{response.status_code} {response.text[:200]}",
            response=response,
        )


@pytest.mark.req("CAMP-016")
def test_pausing_an_unknown_campaign_is_not_found(api: ApiClient) -> None:
    expect_error(pause(api, "camp_" + "0" * 32), "CAMP-016", status=404, code="not_found")
