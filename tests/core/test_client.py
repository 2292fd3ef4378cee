"""ApiClient against httpx.MockTransport: 429 handling, budget, breaker, recording, redaction."""

import json

import httpx
import pytest
from support.fake_target import TOKEN, FakeClock, conformant, rate_headers

from crm_conformance import (
    BudgetExhausted,
    RateLimitWaitError,
    TargetUnavailable,
    TargetUnreachable,
)
from crm_conformance.core.hygiene.redaction import FILTERED, Redactor
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.transport.exchanges import Wait
from crm_conformance.core.transport.pacing import Pacer
from crm_conformance.core.transport.retries import RetryPolicy
from crm_conformance.core.transport.wiring import CircuitBreaker, RequestBudget


def client(
    handler: httpx.MockTransport | None = None, **options: object
) -> tuple[ApiClient, list[float]]:
    """A client on a fake clock: its sleeps are recorded and move the clock, never wait."""
    clock = FakeClock()
    api = ApiClient(
        base_url="http://target",
        token=TOKEN,
        transport=handler or httpx.MockTransport(conformant),
        sleep=clock.sleep,
        pacer=Pacer(clock=clock.now),
        **options,  # type: ignore[arg-type]  # options passed through as the callee's
    )
    return api, clock.slept


def throttling(first: int, retry_after: str | None) -> httpx.MockTransport:
    """Answers 429 `first` times, then what a conforming server would."""
    calls = {"n": 0}

    def handle(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] <= first:
            headers = rate_headers()
            if retry_after is not None:
                headers["Retry-After"] = retry_after
            return httpx.Response(
                429, json={"error": {"type": "rate_limit_error"}}, headers=headers
            )
        return conformant(request)

    return httpx.MockTransport(handle)


def test_a_429_is_retried_after_the_seconds_it_names() -> None:
    api, slept = client(throttling(2, "3"))
    assert api.get("/v1/contacts").status_code == 200
    assert slept == [3.0, 3.0]
    assert api.log.missing_retry_after == []
    assert [e.status for e in api.log.exchanges] == [429, 429, 200]


def test_a_429_without_retry_after_is_retried_but_recorded() -> None:
    api, slept = client(throttling(1, None))
    assert api.get("/v1/contacts").status_code == 200
    assert slept == [0.5]
    assert [e.status for e in api.log.missing_retry_after] == [429]


def test_429s_that_go_on_after_every_wait_stop_the_run_with_one_error() -> None:
    api, slept = client(throttling(10, "1"), max_retries=2)
    with pytest.raises(RateLimitWaitError, match="answered 429 to GET /v1/contacts 3 times"):
        api.get("/v1/contacts")
    assert slept == [1.0, 1.0]


def test_a_retry_after_beyond_the_ceiling_is_one_error_naming_the_key() -> None:
    api, slept = client(throttling(1, "3600"), max_rate_limit_wait=120)
    with pytest.raises(
        RateLimitWaitError, match=r"max_rate_limit_wait = 120 s \(Retry-After: 3600"
    ):
        api.get("/v1/contacts")
    assert slept == []


def test_a_retry_after_up_to_the_ceiling_is_waited() -> None:
    api, slept = client(throttling(1, "120"), max_rate_limit_wait=120)
    assert api.get("/v1/contacts").status_code == 200
    assert slept == [120.0]
    assert api.log.waits == [Wait(120.0, after_429=True)]


def test_retry_can_be_turned_off_for_the_rate_limit_suite() -> None:
    api, slept = client(throttling(1, "1"))
    assert api.get("/v1/contacts", retry_429=False).status_code == 429
    assert slept == []


def test_the_budget_stops_requests_with_a_clear_error() -> None:
    api, _ = client(budget=RequestBudget(2))
    api.get("/v1/me")
    api.get("/v1/me")
    with pytest.raises(BudgetExhausted, match="--request-budget"):
        api.get("/v1/me")


def test_the_breaker_opens_after_consecutive_5xx_and_stays_open() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(500, text="boom"))
    api, _ = client(transport, breaker=CircuitBreaker(3))
    for path in ("/v1/me", "/v1/contacts", "/v1/deals/deal_1"):
        assert api.get(path).status_code == 500
    with pytest.raises(TargetUnreachable, match=r"open after 3 consecutive .* on 3 operations"):
        api.get("/v1/me")
    assert len(api.log.exchanges) == 3


def test_one_broken_operation_never_opens_the_breaker() -> None:
    """A list answering 500 to every request, met by many tests in a row, is that list's
    failure, not a target that is down: the streak opens the breaker only once it spans
    `spread` operations (a list and a retrieve of one resource are one)."""
    transport = httpx.MockTransport(lambda request: httpx.Response(500, text="boom"))
    api, _ = client(transport, breaker=CircuitBreaker(3, spread=2))
    for _ in range(5):
        assert api.get("/v1/organizations").status_code == 500
        assert api.get("/v1/organizations/org_1").status_code == 500
    assert api.breaker.opened is None
    assert api.post("/v1/organizations", json={}).status_code == 500
    with pytest.raises(TargetUnreachable, match="on 2 operations"):
        api.get("/v1/me")


def test_connection_errors_count_towards_the_breaker_and_are_recorded() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    api, _ = client(
        httpx.MockTransport(refuse),
        breaker=CircuitBreaker(2, spread=1),
        retry=RetryPolicy(attempts=1),
    )
    with pytest.raises(TargetUnavailable, match="met dropped connection"):
        api.get("/v1/me")
    with pytest.raises(TargetUnavailable):
        api.get("/v1/me")
    assert api.log.exchanges[0].error == "ConnectError on GET /v1/me"
    with pytest.raises(TargetUnreachable, match="last: ConnectError on GET /v1/me"):
        api.get("/v1/me")


def test_a_good_answer_resets_the_breaker() -> None:
    answers = iter([500, 500, 200, 500, 500, 200])
    transport = httpx.MockTransport(lambda request: httpx.Response(next(answers), json={}))
    api, _ = client(transport, breaker=CircuitBreaker(3))
    assert [api.get("/v1/me").status_code for _ in range(6)] == [500, 500, 200, 500, 500, 200]


def test_token_choices_and_bodies() -> None:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return conformant(request)

    api, _ = client(httpx.MockTransport(record))
    api.post("/v1/conversations/x/close", json=None)
    api.post("/v1/x", token=None)
    api.post("/v1/x", token="raw value", content=b"{}")
    api.with_token("sk_test_second.token").get("/v1/me")
    assert seen[0].content == b"null"
    assert seen[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert "Authorization" not in seen[1].headers
    assert seen[1].content == b""
    assert seen[2].headers["Authorization"] == "Bearer raw value"
    assert seen[3].headers["Authorization"] == "Bearer sk_test_second.token"
    assert len(api.log.exchanges) == 4  # with_token shares the log


def test_recorded_exchanges_never_hold_a_token() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        body = {"you_sent": request.headers["Authorization"], "token": TOKEN}
        return httpx.Response(200, json=body, headers={"X-Echo": TOKEN})

    api, _ = client(httpx.MockTransport(echo))
    api.post("/v1/tokens", json={"token": TOKEN})
    recorded = json.dumps(api.log.exchanges[0].as_dict())
    assert TOKEN not in recorded
    assert FILTERED in recorded
    assert '"Authorization: Bearer $TOKEN"' in api.log.exchanges[0].curl()


def test_redactor_filters_known_secrets_bearer_values_and_token_shapes() -> None:
    redactor = Redactor(["my-very-own-secret"])
    text = "a my-very-own-secret b Bearer abc.defgh c sk_live_x.y d oat_live_zz e"
    assert redactor.text(text) == (f"a {FILTERED} b Bearer {FILTERED} c {FILTERED} d {FILTERED} e")
    assert redactor.text("Bearer 0123456789abcdef") == f"Bearer {FILTERED}"
    headers = redactor.headers({"Authorization": "Bearer abc", "X-Other": "my-very-own-secret"})
    assert headers["Authorization"] == f"Bearer {FILTERED}"  # a header is masked whatever it holds
    assert headers == {"Authorization": f"Bearer {FILTERED}", "X-Other": FILTERED}


def test_a_secret_added_later_and_one_inside_another_are_filtered_whole() -> None:
    """The order of replacement is kept per `add`: longest first, whatever the order of
    adding; a short text still loses a token-shaped string it holds."""
    redactor = Redactor(["inner-secret"])
    redactor.add("outer-inner-secret-tail")
    text = "x outer-inner-secret-tail y inner-secret z"
    assert redactor.text(text) == f"x {FILTERED} y {FILTERED} z"
    assert redactor.text("sk_test_a") == FILTERED
    assert redactor.text("short") == "short"


@pytest.mark.parametrize(
    "prose",
    [
        "Rejects a request without a bearer token",
        "Every request carries `Authorization: Bearer <ACCESS_TOKEN>`.",
        "A bearer token. Bearer tokens expire.",
        "curl -H 'Authorization: Bearer $TOKEN'",
        f"Bearer {FILTERED}",
    ],
)
def test_redaction_leaves_prose_about_bearer_tokens_alone(prose: str) -> None:
    assert Redactor(["my-very-own-secret"]).text(prose) == prose
