"""Retrying what the network cut, never what the service answered (DESIGN.md, "On a
real network").

Between the run and the service stand gateways, load balancers and limiters. Their
faults are not the service's answer and must never be judged as one: a dropped or
reset connection, a 502 or 504 whose body is not the API's error envelope (a gateway's
HTML page), and any 503. A 500, or a 502/504 carrying the envelope, is the service's
own answer: judged, never retried.

A fault is retried only where sending the request again is safe: a read (GET, HEAD),
or a write carrying an `Idempotency-Key` (the document: a repeat with the same key and
body "returns the original response"). So the client gives every write a fresh key
unless the caller set one or chose to send none (`fresh_key`); a write keyed by the
test is the test's to control, and is not sent again either. A retried write may
meet its own first attempt still processing (409 `idempotency_key_in_flight`): that
answer is to the retry, not to the test, and is waited out too.

When the retries are spent, or the request was not safe to send again, the test cannot
run: `TargetUnavailable`, an error (never a failure) the verdict names.
"""

import json
import uuid
from collections import Counter
from collections.abc import MutableMapping
from dataclasses import dataclass

import httpx

KEY_HEADER = "Idempotency-Key"
READS = frozenset({"GET", "HEAD"})
"""Methods always safe to send again."""
DROPPED = "dropped connection"
"""The reason recorded for a connection dropped or reset before the answer was read."""
IN_FLIGHT = "409 idempotency_key_in_flight after a retry"
"""The reason recorded when a retried write meets its own first attempt still running."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently one request meeting transport faults is sent again."""

    attempts: int = 4
    """Tries in all (the first included) before the target is called unavailable."""
    first_backoff: float = 0.25
    """Seconds before the first retry without a Retry-After; doubled for each next one."""
    longest_backoff: float = 4.0
    """The back-off never grows past this."""

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts={self.attempts!r}: at least one try")

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number `retry` (0 for the first)."""
        return float(min(self.longest_backoff, self.first_backoff * 2**retry))


@dataclass(frozen=True)
class Fault:
    """One exchange the network spoiled: why, and whether it was sent again."""

    reason: str
    retried: bool


def fault_of_answer(response: httpx.Response, *, retry: bool) -> str | None:
    """Why `response` is a transport fault rather than the service's answer; None when it
    is the service's own. `retry`: the request was already sent again."""
    status = response.status_code
    if status == 503:
        return "503"
    if status in (502, 504) and not carries_envelope(response):
        return str(status)
    if retry and status == 409 and _error_code(response) == "idempotency_key_in_flight":
        return IN_FLIGHT
    return None


def fault_of_error(exc: httpx.TransportError) -> str | None:
    """`DROPPED` when `exc` is a connection dropped, reset or refused before an answer
    was read; None for other transport errors (a read timeout: the service may be slow,
    which a deadline judges, not a retry)."""
    if isinstance(exc, httpx.NetworkError | httpx.RemoteProtocolError | httpx.ConnectTimeout):
        return DROPPED
    return None


def carries_envelope(response: httpx.Response) -> bool:
    """Whether the body is the API's error envelope `{"error": {...}}`."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and isinstance(body.get("error"), dict)


def _error_code(response: httpx.Response) -> object:
    if not carries_envelope(response):
        return None
    return json.loads(response.content)["error"].get("code")


def safe_to_retry(request: httpx.Request, *, keyed_by_harness: bool) -> bool:
    """A read, or a write carrying the key the harness gave it. A write whose key the
    test set is the test's to control: sent again after a gateway timed out, its first
    answer could be a replay (`Idempotent-Replay: true`), which an idempotency test
    would judge as the target's."""
    return request.method in READS or (keyed_by_harness and KEY_HEADER in request.headers)


def fresh_key(method: str, headers: MutableMapping[str, str], key: str | bool | None) -> bool:
    """Give a write its `Idempotency-Key`, in place: `key` itself when a string (the
    fuzz layer's generated value), none when None, a fresh UUID when True; a key
    already in `headers` (any case) is the caller's to control and stays, as does every
    read. Returns whether the harness keyed the write, so may send it again (not for an
    empty key, which keys nothing)."""
    if method.upper() in READS or key is None or key is False:
        return False
    if any(name.lower() == KEY_HEADER.lower() for name in headers):
        return False
    headers[KEY_HEADER] = str(uuid.uuid4()) if key is True else key
    return key is True or bool(key.strip())


def key_of(headers: MutableMapping[str, str]) -> str | None:
    """Take the `Idempotency-Key` (any case) out of `headers`, in place; None if none."""
    for name in [name for name in headers if name.lower() == KEY_HEADER.lower()]:
        return headers.pop(name)
    return None


def tally(reasons: list[str]) -> str:
    """`["502", "502", "503"]` as "502 ×2, 503 ×1"."""
    return ", ".join(f"{reason} ×{n}" for reason, n in Counter(reasons).items())
