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
client's own pacing and 429 handling would otherwise wait the refusal away.
"""

import time
from dataclasses import dataclass

import httpx
import pytest

from crm_conformance import (
    ApiClient,
    ConformanceFailure,
    RecordFactory,
    expect_error,
    expect_status,
    expect_true,
    refill_window,
    run_checks,
)

ALLOWANCE = {"limit": 5, "window_seconds": 3}
"""What the adapter is asked for: small enough to spend, long enough to see refused."""
BUDGET = 60
"""Most requests one test sends to reach a 429 (the target's allowance is not shown)."""
LONGEST_WAIT = 30
"""Most seconds a test waits for a window to reset; a longer Reset is recorded, not waited."""
READ = "/v1/users"
"""A cheap read every full-scope token may make."""
LIMIT, RESET = "X-RateLimit-Limit", "X-RateLimit-Reset"


@dataclass(frozen=True)
class Throttled:
    """A throwaway token's client and the 429 it was refused with."""

    client: ApiClient
    refusal: httpx.Response


def _read(client: ApiClient) -> httpx.Response:
    return client.get(READ, params={"limit": 1}, retry_429=False)


def _throttle(api: ApiClient, factory: RecordFactory) -> Throttled:
    """Spend a fresh small-allowance token until it is refused (at most BUDGET requests)."""
    client = api.with_token(factory.token(rate_limit=ALLOWANCE).token)
    first = _read(client)
    expect_status(first, "AUTH-001", 200)
    allowance = int(first.headers[LIMIT].strip())
    if allowance >= BUDGET:
        pytest.skip(
            f"the adapter's token has an allowance of {allowance} ({LIMIT}), more than the "
            f"{BUDGET} requests this test may spend: the adapter's POST /v1/tokens should "
            f"honour rate_limit {ALLOWANCE}"
        )
    for _ in range(BUDGET):
        response = _read(client)
        if response.status_code != 200:
            return Throttled(client, response)
    raise ConformanceFailure(
        "RATE-002",
        expected=f"a 429 within {BUDGET} requests on a token whose {LIMIT} is {allowance}",
        got=f"{BUDGET} answers 200",
        response=response,
    )


@pytest.mark.req("RATE-002", "HDR-002")
def test_a_token_over_its_allowance_gets_429_with_retry_after(
    api: ApiClient, factory: RecordFactory
) -> None:
    """The universal checks on the refusal hold the integer `Retry-After` (HDR-002),
    the envelope, the type for a 429 and the rate-limit headers."""
    refusal = _throttle(api, factory).refusal
    expect_error(refusal, "RATE-002", status=429, code="rate_limit_exceeded")
    expect_true(
        refusal,
        "HDR-002",
        "Retry-After" in refusal.headers,
        expected="a Retry-After header on the 429",
        got=f"headers {sorted(refusal.headers)}",
    )


@pytest.mark.req("RATE-001")
def test_another_token_of_the_workspace_is_not_refused(
    api: ApiClient, factory: RecordFactory
) -> None:
    """Per token: a second token of the same workspace, fresh, is answered while the
    first is refused."""
    _throttle(api, factory)
    other = api.with_token(factory.token(rate_limit=ALLOWANCE).token)
    response = _read(other)
    run_checks(response)
    expect_true(
        response,
        "RATE-001",
        response.status_code == 200,
        expected="200 for a fresh token while another token of the workspace is over its limit",
        got=f"{response.status_code} {response.text[:200]}",
    )


@pytest.mark.req("RATE-003", "HDR-008")
@pytest.mark.waits
def test_the_allowance_refills_once_reset_seconds_have_passed(
    api: ApiClient, factory: RecordFactory
) -> None:
    """After the refusal's `X-RateLimit-Reset` seconds, the same token is answered again.

    Reset is an integer whose rounding is not shown: a server that rounds 2.7 s down to
    2 is as conforming as one that rounds it up to 3, so the test waits a second more
    than Reset says (`refill_window`), and cannot tell a server whose refill comes up to a
    second late (the catalogue's limitation on RATE-003)."""
    throttled = _throttle(api, factory)
    reset = int(throttled.refusal.headers[RESET].strip())
    if reset > LONGEST_WAIT:
        pytest.skip(f"{RESET} is {reset} s, longer than the {LONGEST_WAIT} s this test waits")
    time.sleep(refill_window(reset)[1])
    response = _read(throttled.client)
    run_checks(response)
    expect_true(
        response,
        "RATE-003",
        response.status_code == 200,
        expected=f"200 once the {RESET} of {reset} s has passed",
        got=f"{response.status_code} {response.text[:200]}",
    )
