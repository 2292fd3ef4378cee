"""Per-token rate limits, reported on every response.

The reference counts in fixed windows, which keep the three headers exact: Limit is the
window's allowance, Remaining never exceeds it, Reset counts whole seconds (rounded up)
until the allowance refills. The `sliding_rate_limit` variant counts in a sliding log
instead (`SlidingLog`). Requests without a valid token are counted per presented
credential (or per client), so a flood of bad tokens cannot spend a real token's
allowance.
"""

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Allowance:
    """The state of one bucket after counting a request."""

    limit: int
    remaining: int
    reset: int
    allowed: bool
    retry_after: int = 0
    """Seconds a refused request is told to wait, when not `reset` (at least 1 is sent)."""

    def headers(self) -> dict[str, str]:
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }
        if not self.allowed:
            headers["Retry-After"] = str(max(1, self.retry_after or self.reset))
        return headers


class RateLimiter:
    """Counts requests per key in fixed windows; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}

    def count(self, key: str, limit: int, window: int, *, sticky: bool = False) -> Allowance:
        """Count one request on `key`; over the limit it is refused (and not counted).

        `sticky` is the fault `rate_limit_never_refills`: a spent window is never renewed.
        """
        now = self._clock()
        with self._lock:
            start, used = self._windows.get(key, (now, 0))
            if now - start >= window and not (sticky and used >= limit):
                start, used = now, 0
            allowed = used < limit
            if allowed:
                used += 1
            self._windows[key] = (start, used)
        # The time left from the time elapsed: `start + window - now` rounds `start + window`
        # first, and with `start == now` it read 61 on a 60 s window for about a quarter of
        # the instants before an uptime crossed a power of two (issue 24, item 6).
        reset = max(0, math.ceil(window - (now - start)))
        return Allowance(limit, max(0, limit - used), reset, allowed)


class SlidingLog:
    """Counts requests per key in the last `window` seconds (a sliding log); thread-safe.

    The `sliding_rate_limit` variant, another shape the document allows ("Numeric rate
    allowance and window length: not shown"): a request is allowed while fewer than
    `limit` were counted in the window before it, so the allowance refills one request
    at a time as the oldest leave. Reset is the whole seconds until the oldest counted
    request leaves the window, rounded down; Retry-After rounds the same wait up.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._logs: dict[str, deque[float]] = {}

    def count(self, key: str, limit: int, window: int, *, sticky: bool = False) -> Allowance:
        """Count one request on `key`; over the limit it is refused (and not counted).

        `sticky` belongs to the fixed windows' fault and is not modelled here.
        """
        now = self._clock()
        with self._lock:
            log = self._logs.setdefault(key, deque())
            while log and now - log[0] >= window:
                log.popleft()
            allowed = len(log) < limit
            if allowed:
                log.append(now)
            until_oldest_leaves = log[0] + window - now
            used = len(log)
        return Allowance(
            limit,
            limit - used,
            max(0, math.floor(until_oldest_leaves)),
            allowed,
            retry_after=math.ceil(until_oldest_leaves),
        )
