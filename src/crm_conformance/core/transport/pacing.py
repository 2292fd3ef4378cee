"""Pacing: spend each token's rate allowance without tripping 429s, across xdist workers.

The document: "Rate limits are per token." Every response carries
`X-RateLimit-Remaining` ("requests left in the window") and `X-RateLimit-Reset`
("seconds until the window resets and the allowance refills"); a 429
`rate_limit_exceeded` says "wait `Retry-After` seconds". The allowance and the window
are "not shown", so the client learns them from the answers: once a token has no
request left, the next request of that token waits until the window has reset.

A `Pacer` keeps, per token, what the newest answer said: how many requests are left
and when the window refills. Sending a request reserves one of the remaining ones
first, so two workers that share a token never both spend its last request, and each
admitted request gets a ticket, so an answer is read knowing how many requests were
admitted after it (a server whose Remaining stays put, refilling as fast as the run
spends, is never mistaken for one running dry). The state
lives in a `Ledger`: in memory for one process, or in small files under a run-scoped
directory (one per token, named by a hash of the token, never the token itself) with
an exclusive lock, so xdist workers share one token's allowance. The clock is
`time.monotonic`, which on Linux and macOS is one clock for every process of the
machine, so the workers' deadlines compare.

`X-RateLimit-Reset` is an integer whose rounding is not shown: a server that rounds
down refills up to a second later than it says, so the pacer waits `RESET_SLACK` more.
A `Retry-After` is the server's own instruction and is waited as given.
"""

import fcntl
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

DEFAULT_MAX_WAIT = 300.0
"""Default ceiling on one wait for the allowance (target key `max_rate_limit_wait`).

Five minutes covers per-minute windows and multi-minute ones with room, the
production-like allowance DESIGN.md names ("a few hundred requests a minute per
token"); a longer wait is more likely an hourly or daily quota, which would stall a run
for that long, so a vendor raises it knowingly."""

RESET_SLACK = 1.0
"""Seconds added to `X-RateLimit-Reset`: an integer rounded down is up to 1 s short."""

REMAINING, RESET = "X-RateLimit-Remaining", "X-RateLimit-Reset"


@dataclass
class Allowance:
    """What the answers said about one token's window, in the pacer's clock."""

    remaining: int | None = None
    """Requests that may still be sent before `refills_at`; None while unknown."""
    refills_at: float = 0.0
    """When the window has surely reset (Reset plus the slack, or Retry-After)."""
    sent: int = 0
    """Tickets handed out: requests admitted so far, numbered from 1."""
    seen: int = 0
    """The newest ticket whose answer was read."""


@dataclass(frozen=True)
class Admission:
    """The pacer's answer to "may this token send now?"."""

    wait: float
    """0 when the request may go now; else the seconds to wait before asking again."""
    ticket: int = 0
    """The request's place among the token's requests, for `Pacer.observe`."""


class Ledger(Protocol):
    """Where the pacer keeps each token's `Allowance`, changed under a lock."""

    def locked(self, key: str) -> AbstractContextManager[Allowance]:
        """The allowance of `key`, held exclusively; changes made inside are kept."""
        ...


class MemoryLedger:
    """The ledger of one process (a run without xdist workers)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._allowances: dict[str, Allowance] = {}

    @contextmanager
    def locked(self, key: str) -> Iterator[Allowance]:
        with self._lock:
            yield self._allowances.setdefault(key, Allowance())


class FileLedger:
    """A ledger in `directory`, shared by the processes of one run (xdist workers).

    One small JSON file per token key, locked with `flock` while read and written. The
    record is rewritten in place, padded to a fixed size, never truncated: truncating a
    file on every request cost about 0.3 ms each on ext4 (two per request).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def locked(self, key: str) -> Iterator[Allowance]:
        descriptor = os.open(self.directory / f"{key}.json", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)  # released when the descriptor closes
            yield (allowance := _read(os.pread(descriptor, _RECORD_BYTES, 0).decode()))
            os.pwrite(descriptor, _record(allowance), 0)
        finally:
            os.close(descriptor)


_RECORD_BYTES = 512
"""Size of a ledger file: an allowance is four numbers, well under it in JSON."""


def _record(allowance: Allowance) -> bytes:
    text = json.dumps(asdict(allowance)).encode()
    if len(text) > _RECORD_BYTES:
        raise ValueError(f"an allowance of {len(text)} bytes does not fit a ledger record")
    return text.ljust(_RECORD_BYTES)


def refill_window(reset: int) -> tuple[float, float]:
    """When a window refills, in seconds from an answer saying `X-RateLimit-Reset: reset`:
    not before the first figure, surely by the second. The integer's rounding is not
    shown, so either way it may be a second off (`RESET_SLACK`)."""
    return max(0.0, reset - RESET_SLACK), reset + RESET_SLACK


def _read(text: str) -> Allowance:
    """The allowance a ledger file holds; a file cut short (a worker killed mid-write)
    reads as unknown, which only costs the pacing what it knew."""
    try:
        return Allowance(**json.loads(text))
    except (ValueError, TypeError):
        return Allowance()


def token_key(authorization: str | None) -> str:
    """The ledger key of a request's credential: a hash, so no token reaches a file."""
    return hashlib.sha256((authorization or "").encode()).hexdigest()[:32]


class Pacer:
    """Decides when a token may send its next request; shared by every client of a process."""

    def __init__(
        self,
        ledger: Ledger | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ledger: Ledger = ledger if ledger is not None else MemoryLedger()
        self.clock = clock

    def admit(self, key: str) -> Admission:
        """Whether a request of `key` may go now; if so, one remaining request is its own."""
        with self.ledger.locked(key) as allowance:
            now = self.clock()
            if allowance.remaining is not None and now >= allowance.refills_at:
                allowance.remaining = None  # a new window: unknown until the next answer
            if allowance.remaining is not None:
                if allowance.remaining <= 0:
                    return Admission(allowance.refills_at - now)
                allowance.remaining -= 1
            allowance.sent += 1
            return Admission(0.0, allowance.sent)

    def observe(self, key: str, headers: Mapping[str, str], *, ticket: int) -> None:
        """Learn from the answer to request `ticket`: its `X-RateLimit-Remaining` less the
        requests admitted after it (which the server may not have counted yet), and its
        `X-RateLimit-Reset`.

        Answers arrive out of order across workers: an older answer of the same window
        may only lower the count; one of an earlier window teaches nothing. Headers that
        are missing or not integers teach nothing (a header check fails on them).
        """
        remaining, reset = _integer(headers.get(REMAINING)), _integer(headers.get(RESET))
        if remaining is None or reset is None:
            return
        with self.ledger.locked(key) as allowance:
            refills_at = self.clock() + refill_window(reset)[1]
            left = remaining - (allowance.sent - ticket)
            if ticket > allowance.seen:
                allowance.seen = ticket
                allowance.remaining, allowance.refills_at = left, refills_at
            elif allowance.remaining is not None and refills_at >= allowance.refills_at - (
                RESET_SLACK
            ):
                allowance.remaining = min(allowance.remaining, left)

    def hold(self, key: str, seconds: float) -> None:
        """A 429 told `key` to wait `seconds` (Retry-After): no request of it goes before."""
        with self.ledger.locked(key) as allowance:
            allowance.remaining, allowance.refills_at = 0, self.clock() + seconds


def _integer(value: str | None) -> int | None:
    if value is None or not value.strip().isdigit():
        return None
    return int(value.strip())
