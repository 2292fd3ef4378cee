"""Tenancy: the bearer token picks the workspace, and other workspaces do not show.

"The workspace is implied by the bearer token. No tenant or workspace header exists."
"A 404 does not distinguish a missing record from one in another workspace." So the
id of a record in the second workspace (`tokens.other_workspace`, made through the
adapter) must answer the first workspace's token exactly as a well-formed id that
names nothing: same status, type, code, param, detail and body keys, and no wording
about another workspace. Comparing with a missing id, not with a fixed expectation,
accepts whatever the target answers for a missing record.
"""

import secrets
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import httpx
import pytest

from crm_conformance import (
    AdapterClient,
    ApiClient,
    expect_error,
    expect_pages,
    expect_success,
    expect_true,
    strings_in,
)

TENANT_HEADERS = {
    "X-Workspace-Id": "secondary",
    "X-Tenant-Id": "secondary",
    "Workspace": "secondary",
}
"""Headers a client might try; the document says none exists, so they change nothing."""


@pytest.fixture
def elsewhere(
    other_api: ApiClient, adapter: AdapterClient, unique: Callable[[str], str]
) -> dict[str, Any]:
    """A contact of the second workspace."""
    return adapter.create_record(
        kind="contact",
        fields={"first_name": unique("tenant"), "last_name": "Conformance"},
        workspace="secondary",
    )


def _missing_contact_id() -> str:
    return f"con_{secrets.token_hex(16)}"


def _error(response: httpx.Response) -> dict[str, Any]:
    body = response.json() if response.content else None
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def expect_same_as_missing(req_id: str, elsewhere: httpx.Response, missing: httpx.Response) -> None:
    """`elsewhere` answers as `missing` does, and says nothing of another workspace."""
    seen, wanted = _error(elsewhere), _error(missing)
    for what, got, expected in (
        ("status", elsewhere.status_code, missing.status_code),
        ("body keys", sorted(elsewhere.json()), sorted(missing.json())),
        ("error keys", sorted(seen), sorted(wanted)),
        *((f"error.{key}", seen.get(key), wanted.get(key)) for key in ("type", "code", "param")),
        ("error.detail", seen.get("detail"), wanted.get("detail")),
    ):
        expect_true(
            elsewhere,
            req_id,
            got == expected,
            expected=f"{what} as for an id that names nothing: {expected!r}",
            got=f"{what} = {got!r}",
        )
    message, reference = str(seen.get("message", "")), str(wanted.get("message", ""))
    expect_true(
        elsewhere,
        req_id,
        "workspace" not in message.lower() or "workspace" in reference.lower(),
        expected="a message that does not mention another workspace",
        got=f"error.message = {message!r}",
    )


@pytest.mark.req("TEN-003", "TEN-001")
def test_another_workspaces_record_answers_like_a_missing_one(
    api: ApiClient, elsewhere: dict[str, Any], observe: Callable[[str, Any], None]
) -> None:
    missing = api.get(f"/v1/contacts/{_missing_contact_id()}")
    expect_error(missing, "TEN-003", status=404, code=("not_found", "contact_not_found"))
    observe("retrieve of a missing contact id", {"status": 404, "code": _error(missing)["code"]})
    expect_same_as_missing("TEN-003", api.get(f"/v1/contacts/{elsewhere['id']}"), missing)


@pytest.mark.req("TEN-004", "TEN-003")
def test_another_workspaces_record_in_a_body_is_record_not_found(
    api: ApiClient, elsewhere: dict[str, Any]
) -> None:
    def create_on(record_id: str) -> httpx.Response:
        body = {"title": "Tenancy check", "due_at": elsewhere["created_at"], "record_id": record_id}
        return api.post("/v1/activities", json=body)

    response = create_on(elsewhere["id"])
    expect_error(response, "TEN-004", status=404, code="record_not_found", param="record_id")
    expect_same_as_missing("TEN-003", response, create_on(_missing_contact_id()))


@pytest.mark.req("TEN-002", "TEN-001")
def test_a_workspace_header_changes_nothing(api: ApiClient, elsewhere: dict[str, Any]) -> None:
    plain = api.get(f"/v1/contacts/{elsewhere['id']}")
    with_headers = api.get(f"/v1/contacts/{elsewhere['id']}", headers=TENANT_HEADERS)
    expect_same_as_missing("TEN-002", with_headers, plain)


def expect_listed_only_to_its_workspace(
    record_id: str, path: str, query: Mapping[str, str], second: ApiClient, first: ApiClient
) -> None:
    """`record_id`, of the second workspace, is in `path`'s answer to that workspace's
    token and not in the first's (each read through every page, bounded)."""
    for client, should_list, whose in ((second, True, "second"), (first, False, "first")):
        listed = record_id in strings_in(expect_pages(client, path, "TEN-001", query))
        expect_true(
            client.get(path, params={**query, "limit": "200"}),
            "TEN-001",
            listed is should_list,
            expected=f"{record_id} of the second workspace in {path} to its own token only",
            got=f"in the answer to the {whose} workspace's token: {listed}",
        )


@pytest.mark.req("TEN-001")
def test_a_list_shows_only_the_tokens_workspace(
    api: ApiClient, other_api: ApiClient, elsewhere: dict[str, Any]
) -> None:
    since = datetime.fromisoformat(elsewhere["updated_at"].replace("Z", "+00:00")).isoformat()
    query = {"updated_since": since, "sort": "updated_at"}
    expect_listed_only_to_its_workspace(elsewhere["id"], "/v1/contacts", query, other_api, api)


@pytest.mark.req("TEN-005")
def test_two_workspaces_may_share_an_external_id(
    api: ApiClient, other_api: ApiClient, adapter: AdapterClient, unique: Callable[[str], str]
) -> None:
    shared = unique("ext")
    for client, workspace in ((api, "primary"), (other_api, "secondary")):
        pipelines = adapter.fixtures(workspace=workspace).pipelines
        if not pipelines or not pipelines[0].stages:
            pytest.skip(f"the adapter's GET /v1/fixtures lists no pipeline in {workspace}")
        contact = adapter.create_record(
            kind="contact", fields={"first_name": unique("tenant")}, workspace=workspace
        )
        body = {
            "pipeline_id": pipelines[0].id,
            "stage_id": pipelines[0].stages[0].id,
            "title": unique("deal"),
            "contact_id": contact["id"],
            "external_id": shared,
        }
        expect_success(client.post("/v1/deals", json=body), "TEN-005")


@pytest.mark.req("TEN-001", "SYNC-004")
def test_the_deletion_feed_shows_only_the_tokens_workspace(
    api: ApiClient,
    other_api: ApiClient,
    adapter: AdapterClient,
    elsewhere: dict[str, Any],
    convention: Callable[[str], str],
) -> None:
    query = {convention("deleted_records_entity_param"): "contacts"}
    adapter.delete_record(elsewhere["id"])
    expect_listed_only_to_its_workspace(
        elsewhere["id"], "/v1/deleted-records", query, other_api, api
    )
