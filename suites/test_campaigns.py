"""Campaigns: pausing a running one, and the refusals of pause and resume.

Campaigns reach a status only by running (audience, channel, template, time), so the
adapter makes one in each status (`factory.campaign`). Pause is shown in full
(`POST /v1/campaigns/{campaign_id}/pause`, answering the Campaign). Resume is only named
("Resuming requires a paused campaign (409 `campaign_not_paused` otherwise)"): it is
sent to the path the target file names (`[conventions.campaigns] resume_path`). Without
that key the resume tests skip, naming it; with it, the target offers resume there, so
a 404 or 405 there fails like any other wrong answer.
"""

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    RecordFactory,
    error_of,
    expect_enum,
    expect_error,
    expect_field,
    expect_identifier,
    expect_present,
    expect_status,
    expect_success,
    expect_true,
    later,
    settle,
)

STATUSES = document.enum("Campaign", "status")


@pytest.fixture
def campaigns(factory: RecordFactory) -> RecordFactory:
    """The factory, once the adapter is known to make campaigns."""
    return factory.requiring("campaigns")


def pause(api: ApiClient, campaign_id: str) -> httpx.Response:
    return api.post(f"/v1/campaigns/{campaign_id}/pause")


def resume(api: ApiClient, convention: conventions.Lookup, campaign_id: str) -> httpx.Response:
    """Resume at the target's path (skipped, naming the key, when the file has none)."""
    return api.post(conventions.path(convention, "campaigns.resume_path", campaign_id=campaign_id))


@pytest.mark.req("CAMP-004", "CAMP-008", "CAMP-001", "CAMP-002", "IDN-016")
def test_pausing_a_running_campaign_pauses_it(
    api: ApiClient, campaigns: RecordFactory, observe: Callable[[str, Any], None]
) -> None:
    """The document pins 200 on the close operation only; pause answers "Campaign", so
    any 2xx with it passes and the status is observed. `instructions` may be null, and a
    null field may be left out, so it is observed too."""
    campaign = campaigns.campaign(status="running")
    response = pause(api, campaign["id"])
    body = expect_success(response, "CAMP-004")
    observe("pause status", response.status_code)
    expect_present(response, "CAMP-008", body, ("id", "object", "status"))
    expect_field(response, "CAMP-008", body, "object", expected="campaign")
    expect_field(response, "CAMP-008", body, "id", expected=campaign["id"])
    expect_identifier(response, "IDN-016", body, "id", "camp_")
    expect_enum(response, "CAMP-002", body, "status", STATUSES)
    expect_field(response, "CAMP-004", body, "status", expected="paused")
    expect_present(
        response, "CAMP-001", body, ("id", "object", "name", "status", "created_at", "updated_at")
    )
    observe("paused_campaign_has_instructions_key", "instructions" in body)


READ_STATUSES = [
    pytest.param("draft", False, "draft", "CAMP-002", id="draft"),
    pytest.param("running", True, "paused", "CAMP-004", id="running, paused"),
    pytest.param("paused", False, "paused", "CAMP-002", id="paused"),
    pytest.param("completed", False, "completed", "CAMP-002", id="completed"),
]
"""(the status a campaign is made in, whether it is paused then, the status it then
reads, the sentence that says so)."""


@pytest.mark.req("CAMP-004", "CAMP-002", "CAMP-001")
@pytest.mark.parametrize(("made_in", "paused", "reads", "req_id"), READ_STATUSES)
def test_a_campaign_reads_its_status_at_the_targets_retrieve(
    api: ApiClient,
    campaigns: RecordFactory,
    convention: conventions.Lookup,
    made_in: str,
    paused: bool,
    reads: str,
    req_id: str,
) -> None:
    """Where the target file names a campaign's retrieve, a campaign the adapter made in
    each status reads that status and the Campaign's fields there; a running one paused
    then reads `paused` ("`running` | pause | ... | `paused`"), not only in the pause's
    own answer."""
    made = campaigns.campaign(status=made_in)
    path = conventions.path(convention, "retrieve.campaign_path", campaign_id=str(made["id"]))
    if paused:
        expect_success(pause(api, made["id"]), "CAMP-004")
    response = api.get(path)
    read = expect_success(response, "CAMP-001")
    expect_present(
        response, "CAMP-001", read, ("id", "object", "name", "status", "created_at", "updated_at")
    )
    expect_enum(response, "CAMP-002", read, "status", STATUSES)
    why = "after the pause" if paused else "as made"
    expect_field(response, req_id, read, "status", expected=reads, why=why)


@pytest.mark.req("CAMP-001", "CAMP-004")
@pytest.mark.parametrize("move", ["pause", "resume"])
def test_a_pause_or_a_resume_moves_the_campaigns_updated_at(
    api: ApiClient, campaigns: RecordFactory, convention: conventions.Lookup, move: str
) -> None:
    """A campaign's `updated_at` is when it last changed, and a pause or a resume changes
    its status: the move's answer, and the campaign's retrieve where the target names
    one, read a later `updated_at` than the campaign had (a move writing the status
    alone leaves it)."""
    made = campaigns.campaign(status="running" if move == "pause" else "paused")
    settle(made.get("updated_at"))
    response = pause(api, made["id"]) if move == "pause" else resume(api, convention, made["id"])
    reads = [("the answer", response, expect_success(response, "CAMP-004"))]
    if campaigns.target.conventions.get("retrieve.campaign_path") is not None:
        path = conventions.path(convention, "retrieve.campaign_path", campaign_id=str(made["id"]))
        read = api.get(path)
        reads.append((f"GET {path}", read, expect_success(read, "CAMP-001")))
    for where, answer, campaign in reads:
        expect_true(
            answer,
            "CAMP-001",
            later(campaign.get("updated_at"), made.get("updated_at")),
            expected=f"{where}: updated_at later than {made.get('updated_at')!r} after the {move}",
            got=f"updated_at = {campaign.get('updated_at')!r}",
        )


@pytest.mark.req("CAMP-006")
@pytest.mark.parametrize("status", [s for s in STATUSES if s != "running"])
def test_pausing_a_campaign_that_is_not_running_is_a_conflict(
    api: ApiClient, campaigns: RecordFactory, status: str
) -> None:
    campaign = campaigns.campaign(status=status)
    expect_error(pause(api, campaign["id"]), "CAMP-006", status=409, code="campaign_not_running")


@pytest.mark.req("CAMP-006", "CAMP-007", "CAMP-009")
@pytest.mark.parametrize("status", [s for s in STATUSES if s not in ("running", "paused")])
def test_a_refused_pause_leaves_the_campaign_unchanged(
    api: ApiClient, campaigns: RecordFactory, convention: conventions.Lookup, status: str
) -> None:
    """A campaign the pause refused did not become paused: resuming it is still refused
    as not paused (a campaign's status is read by no documented operation)."""
    campaign = campaigns.campaign(status=status)
    expect_error(pause(api, campaign["id"]), "CAMP-006", status=409, code="campaign_not_running")
    response = resume(api, convention, campaign["id"])
    expect_error(response, "CAMP-007", status=409, code="campaign_not_paused")


@pytest.mark.req("CAMP-009")
@pytest.mark.parametrize("status", [s for s in STATUSES if s != "paused"])
def test_resuming_a_campaign_that_is_not_paused_is_a_conflict(
    api: ApiClient, campaigns: RecordFactory, convention: conventions.Lookup, status: str
) -> None:
    campaign = campaigns.campaign(status=status)
    response = resume(api, convention, campaign["id"])
    expect_error(response, "CAMP-009", status=409, code="campaign_not_paused")


@pytest.mark.req("CAMP-004", "CAMP-009")
@pytest.mark.parametrize("how", ["made paused", "paused through the API"])
def test_resuming_a_paused_campaign_is_not_refused_as_not_paused(
    api: ApiClient,
    campaigns: RecordFactory,
    convention: conventions.Lookup,
    how: str,
    observe: Callable[[str, Any], None],
) -> None:
    """The resume's answer is not shown, and launching can fail for setup reasons
    (`campaign_not_ready` and others), so only `campaign_not_paused` is wrong here."""
    if how == "made paused":
        campaign = campaigns.campaign(status="paused")
    else:
        campaign = campaigns.campaign(status="running")
        expect_success(pause(api, campaign["id"]), "CAMP-004")
    response = resume(api, convention, campaign["id"])
    expect_status(response, "CAMP-009", *range(200, 300), 409)
    code = error_of(response).get("code") if response.status_code == 409 else None
    observe("resume_of_paused_campaign", {"status": response.status_code, "code": code})
    # refused as not paused right after the pause answered: the pause did not pause
    expect_true(
        response,
        "CAMP-004" if how == "paused through the API" else "CAMP-009",
        code != "campaign_not_paused",
        expected="a paused campaign not refused as campaign_not_paused",
        got=f"{response.status_code} {response.text[:200]}",
    )


@pytest.mark.req("CAMP-016")
def test_pausing_an_unknown_campaign_is_not_found(api: ApiClient) -> None:
    expect_error(pause(api, "camp_" + "0" * 32), "CAMP-016", status=404, code="not_found")
