"""Every legal variant is actually on: it changes something a client can observe.

A variant that changes nothing would pass the kill matrix for free. Each variant has an
observation here, taken against a clean server and against the variant; they differ.
"""

import string
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from crm_conformance.reference import ServerSettings, create_app
from crm_conformance.reference.variants import VARIANTS

MISSING_CONTACT = "/v1/contacts/con_" + "0" * 32


def _created_contact(client: TestClient) -> Any:
    return client.post("/v1/contacts", json={"first_name": "Ada"})


def _next_cursor_shape(client: TestClient) -> tuple[bool, int]:
    _created_contact(client)
    _created_contact(client)
    cursor = client.get("/v1/contacts", params={"limit": 1}).json()["links"]["next"]
    follow = client.get("/v1/contacts", params={"limit": 1, "cursor": cursor})
    return set(cursor) <= set(string.hexdigits + "."), follow.status_code


def _delays(client: TestClient) -> list[bool]:
    """Whether each delay the server slept is 5 to 20 ms (timing itself is load-bound)."""
    with mock.patch("crm_conformance.reference.dispatch.asyncio.sleep") as sleep:
        client.get("/v1/users")
    return [0.005 <= call.args[0] <= 0.02 for call in sleep.call_args_list]


def _statuses_of_50(client: TestClient) -> tuple[list[int], list[int]]:
    """With the token, and without one (a request without a token still answers 401)."""
    with_token = sorted({client.get("/v1/users").status_code for _ in range(50)})
    without = sorted(
        {client.get("/v1/users", headers={"Authorization": ""}).status_code for _ in range(50)}
    )
    return with_token, without


def _deal_in(client: TestClient, **fields: Any) -> Any:
    """POST /v1/deals in the first pipeline's first stage, on a new contact, with `fields`."""
    pipeline = client.get("/v1/pipelines").json()["data"][0]
    body = {
        "pipeline_id": pipeline["id"],
        "stage_id": pipeline["stages"][0]["id"],
        "title": "Deal",
        "contact_id": _created_contact(client).json()["id"],
        **fields,
    }
    return client.post("/v1/deals", json=body)


def _lost_deal_status(client: TestClient) -> int:
    """The status of creating a deal lost with a reason and no justification."""
    reason = client.get("/v1/lost-reasons").json()["data"][0]["id"]
    return int(_deal_in(client, status="lost", lost_reason_id=reason).status_code)


def _reopened_reasons(client: TestClient) -> tuple[Any, Any]:
    """What a contact and a deal, updated from lost to open, show of their reason."""
    contact = _created_contact(client).json()["id"]
    client.patch(f"/v1/contacts/{contact}", json={"status": "lost", "lost_reason": "Price"})
    reopened = client.patch(f"/v1/contacts/{contact}", json={"status": "open"}).json()
    reason = client.get("/v1/lost-reasons").json()["data"][0]["id"]
    deal = _deal_in(client, status="lost", lost_reason_id=reason, lost_justification="x")
    deal_id = deal.json()["id"]
    client.patch(f"/v1/deals/{deal_id}", json={"status": "open"})
    return reopened.get("lost_reason"), client.get(f"/v1/deals/{deal_id}").json()["lost_reason"]


def _deleted_item(client: TestClient) -> Any:
    contact_id = _created_contact(client).json()["id"]
    client.delete(f"/v1/contacts/{contact_id}")
    return client.get("/v1/deleted-records", params={"entity": "contacts"}).json()["data"][-1]


def _campaign(client: TestClient, status: str) -> str:
    made = client.post("/_adapter/v1/campaigns", json={"workspace": "primary", "status": status})
    return str(made.json()["id"])


def _pause_status(client: TestClient) -> int:
    return int(client.post(f"/v1/campaigns/{_campaign(client, 'running')}/pause").status_code)


def _rate_of_one_in_three(client: TestClient) -> Any:
    """reply_rate of a campaign where one of three contacted participants replied."""
    sent = {"enrolled_at": "2026-01-01T00:00:00Z", "contacted_at": "2026-01-02T00:00:00Z"}
    participants = [{**sent, "replied_at": "2026-01-02T00:01:00Z"}, sent, sent]
    made = client.post(
        "/_adapter/v1/campaigns",
        json={"workspace": "primary", "status": "running", "participants": participants},
    )
    window = {"window_start": "2026-01-01T00:00:00Z", "window_end": "2026-01-05T00:00:00Z"}
    stats = client.get(f"/v1/campaigns/{made.json()['id']}/stats", params=window)
    return stats.json()["reply_rate"]


def _mirrored_oauth_write(client: TestClient) -> Any:
    """The error code of an OAuth token's tag create while tags are mirrored."""
    adapter = "/_adapter/v1"
    client.put(f"{adapter}/policy/tags", json={"workspace": "primary", "local_write": False})
    made = client.post(f"{adapter}/tokens", json={"workspace": "primary", "kind": "oauth"})
    headers = {"Authorization": f"Bearer {made.json()['token']}"}
    refused = client.post("/v1/tags", json={"name": "t", "kind": "contact"}, headers=headers)
    return refused.json()["error"]["code"]


def _forbidden_type(client: TestClient) -> Any:
    """The error type of a 403 insufficient_scope."""
    made = client.post(
        "/_adapter/v1/tokens",
        json={"workspace": "primary", "kind": "workspace", "scopes": ["deals:read"]},
    )
    headers = {"Authorization": f"Bearer {made.json()['token']}"}
    return client.get("/v1/contacts", headers=headers).json()["error"]["type"]


def _token_header(client: TestClient, scopes: list[str]) -> dict[str, str]:
    made = client.post(
        "/_adapter/v1/tokens", json={"workspace": "primary", "kind": "workspace", "scopes": scopes}
    )
    return {"Authorization": f"Bearer {made.json()['token']}"}


def _conversation(client: TestClient) -> dict[str, Any]:
    made = client.post(
        "/_adapter/v1/conversations",
        json={"workspace": "primary", "status": "active"},
    )
    return dict(made.json())


def _status_after_spam(client: TestClient) -> Any:
    conversation = _conversation(client)
    client.post(f"/v1/conversations/{conversation['id']}/close", json={"outcome": "spam"})
    return client.get(f"/v1/contacts/{conversation['contact_id']}").json()["status"]


def _status_at_final_stage(client: TestClient) -> Any:
    """A deal moved to a stage whose default probability is 100, in that stage's pipeline."""
    pipeline, stage = next(
        (p, s)
        for p in client.get("/v1/pipelines").json()["data"]
        for s in p["stages"]
        if s["default_probability"] == 100
    )
    deal = _deal_in(client, pipeline_id=pipeline["id"], stage_id=pipeline["stages"][0]["id"])
    moved = client.patch(f"/v1/deals/{deal.json()['id']}", json={"stage_id": stage["id"]})
    return moved.json()["status"]


def _close_without_scopes(client: TestClient) -> int:
    conversation = _conversation(client)
    headers = _token_header(client, ["deals:read"])
    return int(
        client.post(f"/v1/conversations/{conversation['id']}/close", headers=headers).status_code
    )


OBSERVATIONS: dict[str, Callable[[TestClient], Any]] = {
    "create_returns_200": lambda c: _created_contact(c).status_code,
    "lengths_in_utf16_units": lambda c: (
        c.post(
            "/v1/contacts", json={"first_name": "Ada", "external_id": "\U0001d11e" * 255}
        ).status_code
    ),
    "default_page_size_20": lambda c: c.get("/v1/contacts").json()["meta"]["limit"],
    "default_page_size_100": lambda c: c.get("/v1/contacts").json()["meta"]["limit"],
    "extra_response_fields": lambda c: "livemode" in c.get("/v1/users").json()["data"][0],
    "uuid_request_ids": lambda c: c.get("/v1/users").headers["X-Request-ID"][:4],
    "numeric_strings_taken": lambda c: (
        _deal_in(c, value="100", probability="50").json().get("value"),
        _deal_in(c, value="one hundred").status_code,
    ),
    "hex_cursors": _next_cursor_shape,
    "reworded_messages": lambda c: (
        c.get(MISSING_CONTACT).json()["error"]["message"],
        c.get(MISSING_CONTACT).json()["error"]["documentation_url"],
    ),
    "coarse_error_types": lambda c: c.get(MISSING_CONTACT).json()["error"]["type"],
    "empty_detail_array": lambda c: c.get(MISSING_CONTACT).json()["error"]["detail"],
    "charset_utf8": lambda c: c.get("/v1/users").headers["Content-Type"],
    "pretty_json": lambda c: "\n" in c.get("/v1/users").text,
    "added_latency": _delays,
    "omit_null_optional_fields": lambda c: "email" in _created_contact(c).json(),
    "small_rate_limit": lambda c: c.get("/v1/users").headers["X-RateLimit-Limit"],
    "rate_limit_300_per_minute": lambda c: c.get("/v1/users").headers["X-RateLimit-Limit"],
    "sliding_rate_limit": lambda c: c.get("/v1/users").headers["X-RateLimit-Limit"],
    "occasional_429": _statuses_of_50,
    "offset_timestamps": lambda c: _created_contact(c).json()["created_at"][-1],
    "singular_deletion_entities": lambda c: (
        c.get("/v1/deleted-records", params={"entity": "contact"}).status_code
    ),
    "me_scope_string": lambda c: sorted(c.get("/v1/me").json()),
    "lost_needs_justification": _lost_deal_status,
    "lost_reason_kept_when_reopened": _reopened_reasons,
    "put_contact_update": lambda c: c.put("/v1/contacts/search", json={}).status_code,
    "fields_need_resource": lambda c: c.get("/v1/fields").status_code,
    "upsert_validates_first": lambda c: (
        c.post("/v1/contacts/upsert", json={"external_id": "x"}).status_code
    ),
    "empty_cursor_rejected": lambda c: c.get("/v1/users", params={"cursor": ""}).status_code,
    "deletion_items_as_objects": _deleted_item,
    "campaign_start": lambda c: c.post(f"/v1/campaigns/{_campaign(c, 'paused')}/start").status_code,
    "pause_answers_202": _pause_status,
    "moves_as_one_operation": lambda c: c.post(
        f"/v1/conversations/conv_{'0' * 32}/handler", json={"action": "resume"}
    ).json()["error"]["message"],
    "success_events_as_outcomes": lambda c: c.post("/v1/outcomes", json={}).status_code,
    "owner_null_when_unowned": lambda c: "owner" in _created_contact(c).json(),
    "organization_null_when_unlinked": lambda c: (
        "organization"
        in c.get(
            f"/v1/contacts/{_created_contact(c).json()['id']}", params={"expand": "organization"}
        ).json()
    ),
    "rates_rounded": _rate_of_one_in_three,
    "stage_checked_first": lambda c: _deal_in(c, pipeline_id=f"pipe_{'0' * 32}").status_code,
    "stage_of_other_pipeline_not_found": lambda c: (
        _deal_in(
            c, stage_id=c.get("/v1/pipelines").json()["data"][1]["stages"][0]["id"]
        ).status_code
    ),
    "mirrored_refused_as_grant": _mirrored_oauth_write,
    "search_ignores_idempotency_key": lambda c: (
        c.post("/v1/contacts/search", json={}, headers={"Idempotency-Key": "k" * 256}).status_code
    ),
    "replays_refusals": lambda c: [
        c.post("/v1/contacts", json={"email": "no"}, headers={"Idempotency-Key": "k"}).headers.get(
            "Idempotent-Replay"
        )
        for _ in range(2)
    ],
    "every_contact_field_sortable": lambda c: (
        c.get("/v1/contacts", params={"sort": "job_title"}).status_code
    ),
    "unknown_path_400": lambda c: c.get("/v1/no-such-resource").status_code,
    "tag_color_null_default": lambda c: c.post(
        "/v1/tags", json={"name": "grey", "kind": "contact"}
    ).json()["color"],
    "forbidden_typed_authentication": _forbidden_type,
    "fields_keeps_always_present": lambda c: sorted(
        c.get(
            f"/v1/contacts/{_created_contact(c).json()['id']}", params={"fields": "first_name"}
        ).json()
    ),
    "problem_json_errors": lambda c: c.get(MISSING_CONTACT).headers["Content-Type"],
    "search_null_join_absent": lambda c: (
        c.post("/v1/contacts/search", json={"filter": {"conditions": [], "join": None}}).status_code
    ),
    "tag_catalogue_field_record_kind": lambda c: (
        c.post("/v1/tags", json={"name": "t", "record_kind": "contact"}).status_code
    ),
    "activity_defaults_follow_up": lambda c: c.post(
        "/v1/activities",
        json={
            "title": "t",
            "due_at": "2026-01-01T00:00:00Z",
            "record_id": _created_contact(c).json()["id"],
        },
    ).json()["type"],
    "user_roles_beyond_examples": lambda c: sorted(
        {u["role"] for u in c.get("/v1/users").json()["data"]}
    ),
    "more_not_contacted_reasons": lambda c: [
        item["reason"]
        for item in c.get(f"/v1/campaigns/{_campaign(c, 'running')}/stats").json()["not_contacted"]
    ],
    "pipelines_as_plain_list": lambda c: sorted(c.get("/v1/pipelines").json()),
    "spam_close_puts_contact_on_hold": _status_after_spam,
    "deal_won_at_final_stage": _status_at_final_stage,
    "activity_complete_action": lambda c: c.post(f"/v1/activities/act_{'0' * 32}/complete").json()[
        "error"
    ]["message"],
    "resume_schedules": lambda c: c.post(f"/v1/campaigns/{_campaign(c, 'paused')}/resume").json()[
        "status"
    ],
    "bracket_filter_names": lambda c: (
        c.get("/v1/contacts", params={"filter[status]": "open"}).status_code
    ),
    "search_equals_only": lambda c: (
        c.post(
            "/v1/contacts/search",
            json={
                "filter": {"conditions": [{"field": "email", "operator": "contains", "value": "a"}]}
            },
        ).status_code
    ),
    "close_needs_no_scope": _close_without_scopes,
    "capabilities_as_list": lambda c: sorted(c.get("/v1/capabilities").json()),
    "directory_needs_contacts_read": lambda c: (
        c.get("/v1/users", headers=_token_header(c, ["deals:read"])).status_code
    ),
    "oauth_token_endpoint": lambda c: c.post("/v1/oauth/token", json={}).status_code,
    "webhook_endpoints": lambda c: c.get("/v1/webhook-endpoints").status_code,
    "pydantic_detail_codes": lambda c: c.post(
        "/v1/tags", json={"kind": "contact", "name": "n" * 101}
    ).json()["error"]["detail"][0]["code"],
    "small_body_limit": lambda c: (
        c.post("/v1/contacts/search", json={"q": "x" * 70_000}).status_code
    ),
    "sunset_headers": lambda c: "Sunset" in c.get("/v1/users").headers,
    "unknown_keys_bad_request": lambda c: c.post("/v1/contacts/search", json={"x": 1}).status_code,
    "gzip_answers": lambda c: c.get("/v1/users").headers.get("Content-Encoding"),
    "no_unshown_lists": lambda c: [
        c.get(f"/v1/{name}").status_code
        for name in ("organizations", "deals", "activities", "tags", "campaigns")
    ],
    "cancel_by_update_only": lambda c: c.post("/v1/activities/x/cancel").status_code,
}


@pytest.fixture
def client_with() -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def make(*variants: str) -> TestClient:
        app = create_app(ServerSettings(variants=frozenset(variants)))
        token = app.seeded_tokens["primary"]
        client = TestClient(app, headers={"Authorization": f"Bearer {token}"})
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def test_every_variant_has_an_observation() -> None:
    assert sorted(OBSERVATIONS) == sorted(VARIANTS)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_variant_changes_what_a_client_sees(
    name: str, client_with: Callable[..., TestClient]
) -> None:
    observe = OBSERVATIONS[name]
    clean, varied = observe(client_with()), observe(client_with(name))
    assert clean != varied, f"{name}: {clean!r} both ways"


def test_occasional_429_refuses_only_requests_with_a_valid_token(
    client_with: Callable[..., TestClient],
) -> None:
    """A 429 is "too many requests on the token": a request without one still gets 401."""
    assert _statuses_of_50(client_with("occasional_429")) == ([200, 429], [401])
