"""The parts of a run every client shares: its budget, breaker, pacer, log and ledger.

A client made for another token (`ApiClient.with_token`) or another URL (the adapter's
`AdapterClient`) must count against the same budget, pace by the same allowances and
record into the same log, so these parts are the run's (`Wiring`), built once per
process (`plugin.state`), and every client holds them. `client.connect` builds an API
client of them; `Delivery` reads them where it uses each one.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from crm_conformance._errors import BudgetExhausted, TargetUnreachable
from crm_conformance.core.hygiene.redaction import Redactor
from crm_conformance.core.transport import retries
from crm_conformance.core.transport.bounds import DEFAULT_MAX_RESPONSE_BYTES
from crm_conformance.core.transport.exchanges import ExchangeLog
from crm_conformance.core.transport.ledger import Ledger
from crm_conformance.core.transport.pacing import DEFAULT_MAX_WAIT, Pacer

if TYPE_CHECKING:
    from crm_conformance.core.model.target import Target


class RequestBudget:
    """A cap on requests per run (per xdist worker); shared by the API and adapter clients."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"limit={limit!r}: a request budget must be at least 1")
        self.limit = limit
        self.used = 0

    def spend(self) -> None:
        """Count one request, or raise `BudgetExhausted` when none is left."""
        if self.used >= self.limit:
            raise BudgetExhausted(
                f"request budget exhausted: {self.used} requests sent, the limit is "
                f"{self.limit}; raise it with --request-budget N if the target can take it"
            )
        self.used += 1


class CircuitBreaker:
    """Opens after `threshold` consecutive connection errors or 5xx answers met on at least
    `spread` operations, and stays open.

    A crashed target then shows as one clear error instead of dozens of failures. One
    broken operation is no crashed target: a list that answers 500 to every request, met
    by eight tests in a row, would have stopped the run there, every test after it
    unjudged (an independent server's organization list did). The streak must reach
    `spread` operations (method and resource, `operation_of`): a target that is down
    fails whatever is asked of it.
    """

    def __init__(self, threshold: int = 8, *, spread: int = 3) -> None:
        if threshold < 1 or spread < 1:
            raise ValueError(f"threshold={threshold!r}, spread={spread!r}: must be at least 1")
        self.threshold = threshold
        self.spread = spread
        self.consecutive = 0
        self.operations: set[str] = set()
        self.last_problem = ""
        self.opened: str | None = None

    def check(self) -> None:
        """Raise `TargetUnreachable` when the breaker is open."""
        if self.opened is not None:
            raise TargetUnreachable(self.opened)

    def record(self, *, problem: str | None, operation: str = "") -> None:
        """Count a bad outcome of `operation` (`problem` says what) or reset on a good one."""
        if problem is None:
            self.consecutive = 0
            self.operations.clear()
            return
        self.consecutive += 1
        self.operations.add(operation)
        self.last_problem = problem
        if self.consecutive >= self.threshold and len(self.operations) >= self.spread:
            self.opened = (
                f"circuit breaker open after {self.consecutive} consecutive connection errors "
                f"or 5xx answers from the target on {len(self.operations)} operations "
                f"(last: {problem}); the run stops here"
            )


def operation_of(request: httpx.Request) -> str:
    """The method and the resource a request addresses (`GET organizations` for a list and
    a retrieve alike): what the breaker counts a streak's spread in."""
    parts = [part for part in request.url.path.split("/") if part]
    if parts[1:] and parts[0] == "v1":
        parts = parts[1:]
    return f"{request.method} {parts[0] if parts else ''}"


@dataclass(frozen=True)
class Wiring:
    """What every client of one process shares, and the one factory that builds them.

    Redaction, the exchange log, the request budget, the circuit breaker, the pacer and
    the ledger are the run's, not a client's: a client made for another token
    (`ApiClient.with_token`) or another URL (the adapter) must count against the same
    budget, pace by the same allowances and record into the same log. The bounds are
    the target file's (`for_target`), so no client of the run waits or reads by other
    ones. `retry`, `max_retries` and `sleep` are here so that tests can drive them.
    """

    redactor: Redactor = field(default_factory=Redactor)
    log: ExchangeLog = field(default_factory=ExchangeLog)
    budget: RequestBudget | None = field(default_factory=lambda: RequestBudget(10_000))
    """None: no cap (a sweep deletes every record its ledger lists)."""
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    pacer: Pacer = field(default_factory=Pacer)
    ledger: Ledger | None = None
    """Where the records the clients' POSTs create are noted (`ledger`), if anywhere."""
    timeout: float = 10.0
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_rate_limit_wait: float = DEFAULT_MAX_WAIT
    max_retries: int = 5
    retry: retries.RetryPolicy = field(default_factory=retries.RetryPolicy)
    sleep: Callable[[float], None] = time.sleep

    @classmethod
    def for_target(cls, target: "Target", **parts: Any) -> "Wiring":
        """The wiring of a run of `target`: its bounds, a redactor of its secrets unless
        `parts` give one, and the other `parts` (fields of this class) as given."""
        parts.setdefault("redactor", Redactor(target.secrets))
        return cls(
            timeout=target.timeout,
            max_response_bytes=target.max_response_bytes,
            max_rate_limit_wait=target.max_rate_limit_wait,
            **parts,
        )
