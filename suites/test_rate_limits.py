"""Rate limits: a token over its allowance gets 429, and only that token, until the reset.

Limits: "Rate limits are per token", "`Retry-After` | integer | only on 429; seconds to
wait", "`X-RateLimit-Reset` | integer | seconds until the window resets and the
allowance refills"; Errors › 429: "`rate_limit_exceeded`: too many requests on the
token". The allowance and window are not shown, so each test spends a throwaway token
the adapter issues with a small allowance (`rate_limit` on `POST /v1/tokens`), never
the run's own token. A target whose adapter ignores `rate_limit` and gives more than
`BUDGET` requests is not applicable: the test says so instead of flooding it.

The class is opt-in (`--classes rate-limits`); it runs by default only against the
embedded reference server. Requests here go out with `retry_429=False`: the harness
client's own pacing and 429 handling would otherwise wait the refusal away. A 429 the
token's own limiter cannot have sent (a gateway's, in front of the service) is waited
out instead of judged (`_read`).
"""

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from crm_conformance import ApiClient, ConformanceFailure
from crm_conformance.steps import (
    RecordFactory,
    expect_error,
    expect_status,
    expect_true,
    refill_window,
    universal,
)

ALLOWANCE = {"limit": 5, "window_seconds": 3}
"""What the adapter is asked for: small enough to spend, long enough to see refused."""
BUDGET = 60
"""Most requests one test sends to reach a 429 (the target's allowance is not shown)."""
LONGEST_WAIT = 30
"""Most seconds a test waits for a window to reset; a longer Reset is recorded, not waited."""
READ = "/v1/users"
SEARCH = "/v1/contacts/search"
"""A cheap read every full-scope token may make."""
LIMIT, REMAINING, RESET = "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"
COUNTDOWN = {"limit": 5, "window_seconds": 20}
"""What the countdown asks for: a window much longer than the pause it makes."""
PAUSE = 2.0
"""Least seconds between the countdown's two requests."""


@dataclass(frozen=True)
class Throttled:
    """A throwaway token's client and the 429 it was refused with."""

    client: ApiClient
    refusal: httpx.Response
    allowance: int
    """The first answer's X-RateLimit-Limit."""
    answered: int
    """Requests answered 200 before the refusal."""
    in_one_window: bool
    """Whether every request was sent and answered within the first answer's Reset less a
    second (HDR-007's reading of "one window", whatever its shape): no refill between."""


STRAY_429S = 3
"""Most refusals of another limiter one read waits out before its answer is judged."""


def _read(client: ApiClient, allowance: int | None = None) -> httpx.Response:
    """One cheap read on `client`'s token, whose announced allowance is `allowance`
    (None before its first answer).

    A 429 this token's own limiter cannot have sent is another limiter's: a gateway's
    burst limiter in front of the service, which a real network has. That is a 429 on
    a token's first request (nothing was spent), or one whose `X-RateLimit-Limit` is not
    the allowance the token's answers announce. It is no answer to the test's question,
    so it is waited out (its `Retry-After`, at most `LONGEST_WAIT`) and the read sent
    again. A refusal carrying the token's own allowance is judged: a gateway that copies
    the service's rate headers cannot be told from the service."""
    for _ in range(STRAY_429S):
        response = client.get(READ, params={"limit": 1}, retry_429=False)
        limit = response.headers.get(LIMIT, "").strip()
        if response.status_code != 429 or (allowance is not None and limit == str(allowance)):
            return response
        retry_after = response.headers.get("Retry-After", "1").strip()
        time.sleep(min(int(retry_after) if retry_after.isdigit() else 1, LONGEST_WAIT))
    return client.get(READ, params={"limit": 1}, retry_429=False)


def _throttle(api: ApiClient, factory: RecordFactory) -> Throttled:
    """Spend a fresh small-allowance token until it is refused (at most BUDGET requests)."""
    client = api.with_token(factory.token(rate_limit=ALLOWANCE).token)
    started = time.monotonic()
    first = _read(client)
    expect_status(first, "AUTH-001", 200)
    allowance = _header(first, LIMIT)
    reset = _header(first, RESET)
    if allowance >= BUDGET:
        pytest.skip(
            f"the adapter's token has an allowance of {allowance} ({LIMIT}), more than the "
            f"{BUDGET} requests this test may spend: the adapter's POST /v1/tokens should "
            f"honour rate_limit {ALLOWANCE}"
        )
    for answered in range(1, BUDGET + 1):
        response = _read(client, allowance)
        if response.status_code != 200:
            in_one_window = time.monotonic() - started < reset - 1
            return Throttled(client, response, allowance, answered, in_one_window)
    raise ConformanceFailure(
        "RATE-002",
        expected=f"a 429 within {BUDGET} requests on a token whose {LIMIT} is {allowance}",
        got=f"{BUDGET} answers 200",
        response=response,
    )


@pytest.mark.req("RATE-002", "HDR-002", "HDR-006", "HDR-005")
def test_a_token_over_its_allowance_gets_429_with_retry_after(
    api: ApiClient, factory: RecordFactory
) -> None:
    """The universal checks on the refusal hold the integer `Retry-After` (HDR-002),
    the envelope, the type for a 429 and the rate-limit headers. `X-RateLimit-Limit`
    is "requests allowed in the current window": when every request fell in one window,
    exactly that many were answered before the refusal. A second refusal has an
    X-Request-ID of its own (HDR-005: a "unique request id", 429s included)."""
    throttled = _throttle(api, factory)
    refusal = throttled.refusal
    if throttled.in_one_window:
        expect_true(
            refusal,
            "HDR-006",
            throttled.answered == throttled.allowance,
            expected=f"{LIMIT} = {throttled.allowance} requests answered in one window, then a 429",
            got=f"{throttled.answered} answered before the 429",
        )
    expect_error(refusal, "RATE-002", status=429, code="rate_limit_exceeded")
    expect_true(
        refusal,
        "HDR-002",
        "Retry-After" in refusal.headers,
        expected="a Retry-After header on the 429",
        got=f"headers {sorted(refusal.headers)}",
    )
    # "only on 429": every 429, whatever the method: a POST refused in the same window
    posted = throttled.client.post(SEARCH, json={"limit": 1}, retry_429=False)
    if posted.status_code == 429:
        expect_true(
            posted,
            "HDR-002",
            "Retry-After" in posted.headers,
            expected="a Retry-After header on the 429 to a POST",
            got=f"headers {sorted(posted.headers)}",
        )
    again = _read(throttled.client, throttled.allowance)
    if again.status_code == 429:  # a second refusal: a "unique request id" of its own
        ids = [answer.headers.get("X-Request-ID") for answer in (refusal, again)]
        expect_true(
            again,
            "HDR-005",
            ids[0] != ids[1],
            expected="each 429 with its own X-Request-ID",
            got=f"both {ids[0]!r}",
        )


@pytest.mark.req("RATE-001")
def test_another_token_of_the_workspace_is_not_refused(
    api: ApiClient, factory: RecordFactory
) -> None:
    """Per token: a second token of the same workspace, fresh, is answered while the
    first is refused."""
    throttled = _throttle(api, factory)
    other = api.with_token(factory.token(rate_limit=ALLOWANCE).token)
    response = _read(other, throttled.allowance)  # given as the first token's was
    universal(response)
    expect_true(
        response,
        "RATE-001",
        response.status_code == 200,
        expected="200 for a fresh token while another token of the workspace is over its limit",
        got=f"{response.status_code} {response.text[:200]}",
    )


@pytest.mark.req("RATE-003", "HDR-008", "HDR-001")
@pytest.mark.waits
def test_the_allowance_refills_and_reset_counts_down(
    api: ApiClient, factory: RecordFactory, observe: Callable[[str, Any], None]
) -> None:
    """After the refusal's `X-RateLimit-Reset` seconds the same token is answered again
    (RATE-003), and meanwhile another fresh token's Reset counts down (HDR-008,
    `Countdown`). One test for both: the countdown's pause is spent inside the refill's
    wait, so the run waits once.

    Reset is an integer whose rounding is not shown: a server that rounds 2.7 s down to
    2 is as conforming as one that rounds it up to 3, so the test waits a second more
    than Reset says (`refill_window`), and cannot tell a server whose refill comes up to a
    second late (the catalogue's limitation on RATE-003)."""
    countdown = Countdown.begin(api, factory)
    throttled = _throttle(api, factory)
    reset = int(throttled.refusal.headers[RESET].strip())
    if reset > LONGEST_WAIT:
        countdown.end(observe)
        pytest.skip(f"{RESET} is {reset} s, longer than the {LONGEST_WAIT} s this test waits")
    time.sleep(refill_window(reset)[1])
    countdown.end(observe)
    response = _read(throttled.client, throttled.allowance)
    universal(response)
    expect_true(
        response,
        "RATE-003",
        response.status_code == 200,
        expected=f"200 once the {RESET} of {reset} s has passed",
        got=f"{response.status_code} {response.text[:200]}",
    )


def _header(response: httpx.Response, name: str) -> int:
    """An integer rate-limit header (HDR-001's checks have already held it is one)."""
    universal(response)
    return int(response.headers[name].strip())


@dataclass(frozen=True)
class Countdown:
    """`X-RateLimit-Reset` is "seconds until the window resets and the allowance
    refills", on a fresh token's window (`COUNTDOWN`), read twice at least `PAUSE`
    seconds apart. The time between the answers is bounded by when each request was
    sent and answered (a slow or paced request widens the bounds; nothing is asserted
    about durations), and each Reset may be a second off by rounding.

    - The second Reset is never larger than the first (the first request began the
      window), when the window refilled in between (Remaining did not go down) too.
    - In one window (Remaining went down) it is smaller by the time that passed, or,
      where each request restarts the wait for the whole allowance (a sliding window,
      whose Reset direction is not shown: HDR-007's decision), a whole window again.
    - Where the adapter gave the allowance asked for (`X-RateLimit-Limit` says so), no
      Reset exceeds its window: seconds until it resets, not an instant."""

    client: ApiClient
    first: httpx.Response
    sent_first: float
    answered_first: float

    @classmethod
    def begin(cls, api: ApiClient, factory: RecordFactory) -> "Countdown":
        client = api.with_token(factory.token(rate_limit=COUNTDOWN).token)
        sent_first = time.monotonic()
        first = _read(client)
        answered_first = time.monotonic()
        expect_status(first, "HDR-008", 200)
        return cls(client, first, sent_first, answered_first)

    def end(self, observe: Callable[[str, Any], None]) -> None:
        time.sleep(max(0.0, self.answered_first + PAUSE - time.monotonic()))
        first, sent_first, answered_first = self.first, self.sent_first, self.answered_first
        sent_second = time.monotonic()
        second = _read(self.client, _header(first, LIMIT))
        answered_second = time.monotonic()
        expect_status(second, "HDR-008", 200)
        resets = _header(first, RESET), _header(second, RESET)
        observe("X-RateLimit-Reset, twice", resets)
        window = COUNTDOWN["window_seconds"]
        honoured = _header(first, LIMIT) == COUNTDOWN["limit"]
        expect_true(
            second,
            "HDR-008",
            not honoured or max(resets) <= window + 1,
            expected=f"{RESET} at most the {window} s window asked for (±1 s), a number of seconds",
            got=f"{RESET}: {resets[0]}, then {resets[1]}",
        )
        expect_true(
            second,
            "HDR-008",
            resets[1] <= resets[0] + 1,
            expected=f"{RESET} later at most the first answer's {resets[0]} (±1 s)",
            got=f"{RESET}: {resets[0]}, then {resets[1]}",
        )
        if _header(second, REMAINING) >= _header(first, REMAINING):
            return  # refilled in between: the second is a fresh window's
        least = math.floor(sent_second - answered_first)
        most = math.ceil(answered_second - sent_first)
        counted_down = resets[0] - most - 1 <= resets[1] <= resets[0] - least + 1
        restarted = honoured and resets[1] >= window - 1
        expect_true(
            second,
            "HDR-008",
            counted_down or restarted,
            expected=f"{RESET} down by the {least} to {most} s between the answers in one window "
            f"(±1 s): {resets[0] - most - 1} to {resets[0] - least + 1}"
            + (f", or a whole {window} s window again" if honoured else ""),
            got=f"{RESET}: {resets[0]}, then {resets[1]}",
        )
