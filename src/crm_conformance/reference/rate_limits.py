"""Per-token fixed-window rate limits, reported on every response.

Fixed windows keep the three headers exact: Limit is the window's allowance, Remaining
never exceeds it, Reset counts whole seconds until the allowance refills. Requests
without a valid token are counted per presented credential (or per client), so a flood
of bad tokens cannot spend a real token's allowance.
"""

import math
import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Allowance:
    """The state of one bucket after counting a request."""

    limit: int
    remaining: int
    reset: int
    allowed: bool

    def headers(self) -> dict[str, str]:
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }
        if not self.allowed:
            headers["Retry-After"] = str(max(1, self.reset))
        return headers


class RateLimiter:
    """Counts requests per key in fixed windows; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}

    def count(self, key: str, limit: int, window: int, *, sticky: bool = False) -> Allowance:
        """Count one request on `key`; over the limit it is refused (and not counted).

        `sticky` is the fault `rate_limit_never_refills`: a spent window is never renewed.
        """
        now = time.monotonic()
        with self._lock:
            start, used = self._windows.get(key, (now, 0))
            if now - start >= window and not (sticky and used >= limit):
                start, used = now, 0
            allowed = used < limit
            if allowed:
                used += 1
            self._windows[key] = (start, used)
        reset = max(0, math.ceil(start + window - now))
        return Allowance(limit, max(0, limit - used), reset, allowed)
