"""The proxy's chaos modes: each commits its transport fault, on a seeded share of the
API's requests, never on the adapter's."""

import json

import httpx
import pytest
from support.fake_target import conformant, serve

from crm_conformance.selftest.chaos import CHAOS_MODES, Chaos
from crm_conformance.selftest.wire_faults import running_wire_proxy

TOKEN_HEADERS = {"Authorization": "Bearer sk_test_fakeSelector.fakeVerifierSecret123"}


def _through(mode: str, *paths: str, rate: float = 1.0) -> tuple[list[object], list[str]]:
    """What the client got for each path (a response or the exception), and the paths
    the service saw, with `mode` striking every request (`rate` 1)."""
    seen: list[str] = []

    def recording(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return conformant(request)

    got: list[object] = []
    with (
        serve(recording) as upstream,
        running_wire_proxy(upstream, [], chaos=Chaos(mode, rate=rate)) as proxy,
    ):
        for path in paths:
            try:
                got.append(httpx.get(proxy + path, headers=TOKEN_HEADERS))
            except httpx.TransportError as error:
                got.append(error)
    return got, seen


def test_a_502_is_nginx_html_and_never_reaches_the_service() -> None:
    (answer,), seen = _through("gateway_502", "/v1/contacts")
    assert isinstance(answer, httpx.Response)
    assert answer.status_code == 502
    assert answer.headers["content-type"].startswith("text/html")
    assert "502 Bad Gateway" in answer.text
    assert seen == []


def test_a_504_comes_after_the_service_answered() -> None:
    (answer,), seen = _through("gateway_504_after_work", "/v1/contacts")
    assert isinstance(answer, httpx.Response)
    assert answer.status_code == 504
    assert answer.headers["content-type"].startswith("text/html")
    assert seen == ["/v1/contacts"]


def test_a_dropped_answer_is_cut_half_way_through_its_body() -> None:
    (answer,), seen = _through("dropped_mid_body", "/v1/contacts")
    assert isinstance(answer, httpx.RemoteProtocolError), answer
    assert seen == ["/v1/contacts"]


def test_a_sporadic_429_is_the_apis_own_envelope_with_retry_after_1() -> None:
    (answer,), seen = _through("sporadic_429", "/v1/contacts")
    assert isinstance(answer, httpx.Response)
    assert answer.status_code == 429
    assert answer.headers["retry-after"] == "1"
    assert answer.headers["x-ratelimit-remaining"] == "0"
    error = json.loads(answer.content)["error"]
    assert error["code"] == "rate_limit_exceeded"
    assert error["request_id"] == answer.headers["x-request-id"]
    assert seen == []


def test_a_slow_answer_is_the_services_own() -> None:
    (answer,), seen = _through("slow_tail", "/v1/contacts")
    assert isinstance(answer, httpx.Response)
    assert answer.status_code == 200
    assert seen == ["/v1/contacts"]


def test_the_adapters_requests_are_never_faulted() -> None:
    (answer,), seen = _through("gateway_502", "/_adapter/reset")
    assert isinstance(answer, httpx.Response)
    assert answer.status_code == 404  # the fake's own answer: it was forwarded
    assert seen == ["/_adapter/reset"]


@pytest.mark.parametrize("mode", sorted(CHAOS_MODES))
def test_the_draws_are_the_seeds(mode: str) -> None:
    def draws(seed: int) -> list[bool]:
        chaos = Chaos(mode, seed=seed)
        return [chaos.strikes("/v1/contacts") for _ in range(2000)]

    assert draws(7) == draws(7)
    assert draws(7) != draws(8)
    assert 0 < sum(draws(7)) < 2000 * CHAOS_MODES[mode].rate * 2


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown chaos mode"):
        Chaos("no_such_mode")
