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
    with mock.patch("crm_conformance.reference.routing.asyncio.sleep") as sleep:
        client.get("/v1/users")
    return [0.005 <= call.args[0] <= 0.02 for call in sleep.call_args_list]


def _statuses_of_50(client: TestClient) -> tuple[list[int], list[int]]:
    """With the token, and without one (a request without a token still answers 401)."""
    with_token = sorted({client.get("/v1/users").status_code for _ in range(50)})
    without = sorted(
        {client.get("/v1/users", headers={"Authorization": ""}).status_code for _ in range(50)}
    )
    return with_token, without


OBSERVATIONS: dict[str, Callable[[TestClient], Any]] = {
    "create_returns_200": lambda c: _created_contact(c).status_code,
    "default_page_size_20": lambda c: c.get("/v1/contacts").json()["meta"]["limit"],
    "default_page_size_100": lambda c: c.get("/v1/contacts").json()["meta"]["limit"],
    "extra_response_fields": lambda c: "livemode" in c.get("/v1/users").json()["data"][0],
    "uuid_request_ids": lambda c: c.get("/v1/users").headers["X-Request-ID"][:4],
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
