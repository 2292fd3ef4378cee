"""Pacing by X-RateLimit-Remaining and X-RateLimit-Reset, on a fake clock (nothing sleeps).

The fake servers count each token's requests in windows the way a real one could (fixed
windows with Reset rounded up, a sliding log with Reset rounded down) and answer 429
past the allowance, so "no 429" means the client spent the allowance without tripping.
"""

import math
import subprocess
import sys
import textwrap
from collections import deque
from pathlib import Path

import httpx
import pytest
from support.fake_target import OTHER_TOKEN, TOKEN, FakeClock, conformant

from crm_conformance import RateLimitWaitError
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.transport.exchanges import Wait
from crm_conformance.core.transport.pacing import (
    Admission,
    FileLedger,
    MemoryLedger,
    Pacer,
    token_key,
)


class FixedWindow:
    """`limit` requests per token per `window` seconds; Reset rounded up."""

    def __init__(self, clock: FakeClock, limit: int, window: int) -> None:
        self.clock, self.limit, self.window = clock, limit, window
        self.windows: dict[str, tuple[float, int]] = {}
        self.statuses: list[int] = []

    def allowance(self, key: str) -> tuple[bool, int, float]:
        """(allowed, remaining, seconds to reset) after counting one request of `key`."""
        now = self.clock.now()
        start, used = self.windows.get(key, (now, 0))
        if now - start >= self.window:
            start, used = now, 0
        allowed = used < self.limit
        used += allowed
        self.windows[key] = (start, used)
        return allowed, self.limit - used, start + self.window - now

    def reset_header(self, seconds: float) -> int:
        return math.ceil(seconds)

    def handle(self, request: httpx.Request) -> httpx.Response:
        allowed, remaining, seconds = self.allowance(request.headers.get("Authorization", ""))
        reset = self.reset_header(seconds)
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": str(reset),
            "X-Request-ID": "req_1",
        }
        if not allowed:
            self.statuses.append(429)
            headers["Retry-After"] = str(max(1, math.ceil(seconds)))
            return httpx.Response(
                429, json={"error": {"type": "rate_limit_error"}}, headers=headers
            )
        self.statuses.append(200)
        return httpx.Response(200, json={"data": []}, headers=headers)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)


class SlidingLog(FixedWindow):
    """`limit` requests in any `window` seconds; Reset is the time until the oldest
    counted request leaves the window, rounded down."""

    def __init__(self, clock: FakeClock, limit: int, window: int) -> None:
        super().__init__(clock, limit, window)
        self.logs: dict[str, deque[float]] = {}

    def allowance(self, key: str) -> tuple[bool, int, float]:
        now = self.clock.now()
        log = self.logs.setdefault(key, deque())
        while log and now - log[0] >= self.window:
            log.popleft()
        allowed = len(log) < self.limit
        if allowed:
            log.append(now)
        return allowed, self.limit - len(log), log[0] + self.window - now

    def reset_header(self, seconds: float) -> int:
        return math.floor(seconds)


def paced(
    server: FixedWindow, clock: FakeClock, *, pacer: Pacer | None = None, **options: object
) -> ApiClient:
    return ApiClient(
        base_url="http://target",
        token=TOKEN,
        transport=server.transport(),
        sleep=clock.sleep,
        pacer=pacer or Pacer(clock=clock.now),
        **options,  # type: ignore[arg-type]  # options passed through as the callee's
    )


@pytest.mark.parametrize("shape", [FixedWindow, SlidingLog])
def test_a_run_spends_the_allowance_without_a_429(shape: type[FixedWindow]) -> None:
    clock = FakeClock()
    server = shape(clock, limit=5, window=60)
    api = paced(server, clock)
    for _ in range(23):
        api.get("/v1/users")
    assert server.statuses == [200] * 23
    assert api.log.waits
    assert not any(wait.after_429 for wait in api.log.waits)
    # 23 requests at 5 per 60 s need four refills: about 4 windows, not much more.
    assert 4 * 60 <= sum(clock.slept) <= 4 * 62


def test_another_token_is_not_held_by_a_spent_one() -> None:
    clock = FakeClock()
    server = FixedWindow(clock, limit=2, window=60)
    api = paced(server, clock)
    for _ in range(2):
        api.get("/v1/users")
    api.with_token(OTHER_TOKEN).get("/v1/users")
    assert clock.slept == []
    api.get("/v1/users")
    assert clock.slept == [61.0]  # Reset 60 and a second for a Reset rounded down


def test_two_clients_sharing_a_ledger_share_the_allowance(tmp_path: Path) -> None:
    """Two xdist workers: two pacers, one directory. Alone, each would trip 429s."""
    clock = FakeClock()
    server = FixedWindow(clock, limit=4, window=30)
    first, second = (
        paced(server, clock, pacer=Pacer(FileLedger(tmp_path), clock=clock.now)) for _ in range(2)
    )
    for _ in range(6):
        first.get("/v1/users")
        second.get("/v1/users")
    assert server.statuses == [200] * 12

    apart = FixedWindow(clock, limit=4, window=30)
    first, second = (paced(apart, clock) for _ in range(2))  # a ledger each
    for _ in range(3):
        first.get("/v1/users")
        second.get("/v1/users")
    assert 429 in apart.statuses


def test_a_reservation_made_in_another_process_is_seen(tmp_path: Path) -> None:
    """The ledger crosses processes: a request another process reserved is not
    offered again (the clock is pinned in both, so nothing depends on time)."""
    pacer = Pacer(FileLedger(tmp_path), clock=lambda: 1000.0)
    key = token_key(f"Bearer {TOKEN}")
    ticket = pacer.admit(key).ticket
    pacer.observe(key, {"X-RateLimit-Remaining": "1", "X-RateLimit-Reset": "30"}, ticket=ticket)
    other_process = textwrap.dedent(
        f"""
        from pathlib import Path
        from crm_conformance.core.transport.pacing import FileLedger, Pacer
        pacer = Pacer(FileLedger(Path({str(tmp_path)!r})), clock=lambda: 1000.0)
        print(pacer.admit({key!r}).wait)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", other_process], capture_output=True, text=True, check=True
    )
    assert float(done.stdout) == 0.0  # the last request went to the other process
    assert pacer.admit(key).wait == 31.0  # Reset 30 and the slack
    assert TOKEN not in "".join(p.read_text() + p.name for p in tmp_path.iterdir())


def test_a_window_longer_than_the_ceiling_is_one_error_naming_the_key() -> None:
    clock = FakeClock()
    server = FixedWindow(clock, limit=1, window=3600)
    api = paced(server, clock, max_rate_limit_wait=300)
    api.get("/v1/users")
    with pytest.raises(RateLimitWaitError, match="max_rate_limit_wait = 300 s"):
        api.get("/v1/users")
    assert clock.slept == []
    assert server.statuses == [200]

    raised = paced(server, clock, max_rate_limit_wait=3600)
    raised.get("/v1/users")  # a fresh pacer knows nothing yet: a 429, waited out
    raised.get("/v1/users")  # then it knows: no 429
    assert server.statuses == [200, 429, 200, 200]
    assert clock.slept == [3600.0, 3601.0]


def test_a_429_is_waited_out_and_the_other_workers_hold_too() -> None:
    clock = FakeClock()
    server = FixedWindow(clock, limit=1, window=10)
    pacer = Pacer(clock=clock.now)
    server.allowance(f"Bearer {TOKEN}")  # spent by someone the pacer never saw
    api = paced(server, clock, pacer=pacer)
    assert api.get("/v1/users").status_code == 200
    assert server.statuses == [429, 200]
    assert api.log.waits == [Wait(10.0, after_429=True)]


def test_the_rate_limit_suite_path_neither_paces_nor_retries() -> None:
    clock = FakeClock()
    server = FixedWindow(clock, limit=1, window=10)
    api = paced(server, clock)
    statuses = [api.get("/v1/users", retry_429=False).status_code for _ in range(3)]
    assert statuses == [200, 429, 429]
    assert clock.slept == []


def test_answers_without_rate_headers_are_not_paced() -> None:
    clock = FakeClock()
    api = ApiClient(
        base_url="http://target",
        token=TOKEN,
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json={})),
        sleep=clock.sleep,
        pacer=Pacer(clock=clock.now),
    )
    for _ in range(5):
        api.get("/v1/users")
    assert clock.slept == []


def test_an_older_answer_only_lowers_the_count_and_a_newer_one_sets_it() -> None:
    """Answers of two workers arrive out of order; each counts the requests admitted
    after its own as maybe not yet counted by the server."""
    clock = FakeClock()
    pacer = Pacer(MemoryLedger(), clock=clock.now)
    first, second = pacer.admit("k").ticket, pacer.admit("k").ticket
    pacer.observe("k", {"X-RateLimit-Remaining": "8", "X-RateLimit-Reset": "20"}, ticket=second)
    pacer.observe("k", {"X-RateLimit-Remaining": "8", "X-RateLimit-Reset": "20"}, ticket=first)
    assert [pacer.admit("k").wait for _ in range(8)] == [0.0] * 7 + [21.0]  # 8 - 1 left
    clock.sleep(25)
    assert pacer.admit("k").wait == 0.0  # refilled: unknown again, so it may go


def test_a_server_whose_remaining_stays_put_is_never_taken_for_running_dry() -> None:
    """A token bucket refilling as fast as the run spends reports the same Remaining."""
    clock = FakeClock()
    pacer = Pacer(MemoryLedger(), clock=clock.now)
    for _ in range(50):
        admission = pacer.admit("k")
        assert admission.wait == 0.0
        pacer.observe(
            "k", {"X-RateLimit-Remaining": "3", "X-RateLimit-Reset": "1"}, ticket=admission.ticket
        )


def test_conformant_fake_target_is_never_held() -> None:
    clock = FakeClock()
    api = ApiClient(
        base_url="http://target",
        token=TOKEN,
        transport=httpx.MockTransport(conformant),
        sleep=clock.sleep,
        pacer=Pacer(clock=clock.now),
    )
    for _ in range(120):
        api.get("/v1/users")
    assert clock.slept == []


def test_a_ledger_file_cut_short_reads_as_unknown(tmp_path: Path) -> None:
    (tmp_path / "k.json").write_text('{"remaining": 3, "refi')
    pacer = Pacer(FileLedger(tmp_path), clock=lambda: 1000.0)
    assert pacer.admit("k") == Admission(0.0, ticket=1)


def test_a_ledger_record_is_rewritten_in_place_and_read_back(tmp_path: Path) -> None:
    ledger = FileLedger(tmp_path)
    with ledger.locked("k") as allowance:
        allowance.remaining, allowance.refills_at, allowance.sent = 123456789, 1.5, 7
    with ledger.locked("k") as allowance:
        allowance.remaining = 1
    with ledger.locked("k") as allowance:
        assert (allowance.remaining, allowance.refills_at, allowance.sent) == (1, 1.5, 7)


def test_workers_share_the_given_targets_allowances_and_pace_their_own_server_alone(
    tmp_path: Path,
) -> None:
    """Each xdist worker's embedded server counts only that worker's requests."""
    from crm_conformance.core.model.target import Target
    from crm_conformance.plugin.options import Options
    from crm_conformance.plugin.state import RunState

    options = Options(target_path=None, base_url=None, classes=None, run_id="r", request_budget=100)
    state = RunState(options, worker="gw0", worker_count=2, pacing_dir=str(tmp_path))
    state.adopt(Target("http://127.0.0.1:1"))
    assert state.wiring is not None
    assert isinstance(state.wiring.pacer.ledger, FileLedger)
    state.adopt(Target("http://127.0.0.1:1"), shared=False)
    assert isinstance(state.wiring.pacer.ledger, MemoryLedger)
