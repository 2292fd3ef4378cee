"""Transport faults at a rate: what gateways, load balancers and limiters do to a run.

The wire-fault proxy (`wire_faults.py`) commits one of these modes on a seeded share of
the API's requests, so the self-test can show that the harness's transport policy
(`retries.py`, `bounds.py`) keeps a conforming server green behind a faulty network:
no test fails, and the tests lost ("target unavailable") are few. The adapter's
requests are never faulted: it is the suite's own back door, not the API.
"""

import asyncio
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Receive, Scope, Send

SLOW_TAIL_SECONDS = 0.3
"""The delay of a late answer: small, so a CI run stays quick; bounds.py tests long ones."""

CHAOS_SEED = 0
"""The seed of the self-test's draws: a chaos job strikes the same requests each time."""

ADAPTER_PREFIX = "/_adapter"
"""Paths of the reference server's adapter, never faulted."""


@dataclass(frozen=True)
class ChaosMode:
    """A transport fault, the share of requests it strikes, and whether it can lose a
    test (a fault the harness may not retry, e.g. a 504 after a write keyed by the test)."""

    name: str
    rate: float
    summary: str
    loses_tests: bool = True


_MODES = (
    ChaosMode("gateway_502", 0.02, "502 Bad Gateway (nginx's HTML page) before the service"),
    ChaosMode(
        "gateway_504_after_work", 0.01, "504 Gateway Time-out (HTML) after the service answered"
    ),
    ChaosMode("dropped_mid_body", 0.01, "the connection drops half-way through the answer's body"),
    ChaosMode(
        "sporadic_429",
        0.03,
        "429 rate_limit_exceeded (the API's envelope) with Retry-After: 1 and rate headers",
    ),
    ChaosMode(
        "slow_tail",
        0.03,
        f"the answer comes {SLOW_TAIL_SECONDS} s late",
        loses_tests=False,
    ),
)

CHAOS_MODES: dict[str, ChaosMode] = {mode.name: mode for mode in _MODES}


def _nginx_page(status: int, reason: str) -> HTMLResponse:
    """A gateway's own error page: HTML, no error envelope, no X-Request-ID."""
    title = f"{status} {reason}"
    body = (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n"
        f"<center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n"
        "</body>\r\n</html>\r\n"
    )
    return HTMLResponse(body, status, headers={"server": "nginx"})


def rate_limited() -> JSONResponse:
    """A limiter's 429 in the API's own shape: the envelope, Retry-After: 1, rate headers."""
    from crm_conformance.reference.api_errors import ApiError

    request_id = "chaos-" + secrets.token_hex(8)
    problem = ApiError(429, "rate_limit_exceeded", "Too many requests; retry after 1 seconds.")
    return JSONResponse(
        problem.body(request_id),
        429,
        headers={
            "retry-after": "1",
            "x-ratelimit-limit": "100",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": "1",
            "x-request-id": request_id,
        },
    )


class DroppedOnPurpose(Exception):
    """Raised after half a body was sent: the server then drops the connection."""


Forward = Callable[[], Awaitable[Response]]
"""Sends the request on to the service; its answer, ready to send back."""


class Chaos:
    """One mode, drawn per request from a seeded RNG.

    The draws are reproducible: the n-th API request the proxy sees is struck or not
    whatever the run; which request is the n-th depends on the run's concurrency.
    """

    def __init__(
        self,
        mode: str,
        *,
        seed: int = CHAOS_SEED,
        rate: float | None = None,
        tail: float = SLOW_TAIL_SECONDS,
    ) -> None:
        if mode not in CHAOS_MODES:
            raise ValueError(f"unknown chaos mode: {mode!r}; known: {sorted(CHAOS_MODES)}")
        self.mode = CHAOS_MODES[mode]
        self.rate = self.mode.rate if rate is None else rate
        self.tail = tail
        """How late a `slow_tail` answer comes, in seconds."""
        self._rng = random.Random(seed)
        self.struck = 0
        """Requests faulted so far."""

    def strikes(self, path: str) -> bool:
        """Whether this request is faulted (never the adapter's; no draw for those)."""
        if path.startswith(ADAPTER_PREFIX):
            return False
        hit = self._rng.random() < self.rate
        self.struck += hit
        return hit

    async def answer(self, forward: Forward, scope: Scope, receive: Receive, send: Send) -> None:
        """Commit the mode on a struck request."""
        name = self.mode.name
        if name == "gateway_502":
            await _nginx_page(502, "Bad Gateway")(scope, receive, send)
        elif name == "sporadic_429":
            await rate_limited()(scope, receive, send)
        elif name == "gateway_504_after_work":
            await forward()
            await _nginx_page(504, "Gateway Time-out")(scope, receive, send)
        elif name == "slow_tail":
            answer = await forward()
            await asyncio.sleep(self.tail)
            await answer(scope, receive, send)
        else:
            await _cut(await forward(), send)


async def _cut(answer: Response, send: Send) -> None:
    """Send the head and half the body, then drop the connection."""
    half = answer.body[: len(answer.body) // 2]
    start = {"type": "http.response.start", "status": answer.status_code}
    await send({**start, "headers": answer.raw_headers})
    await send({"type": "http.response.body", "body": half, "more_body": True})
    raise DroppedOnPurpose(f"chaos: dropped after {len(answer.body) // 2} bytes")
