"""The HTTP client every suite talks to the target through.

It is polite to someone else's server (DESIGN.md principle 4) and honest in what it
reports: it paces each token's requests by the rate-limit headers (`pacing.Pacer`),
waits out a 429's `Retry-After` up to a ceiling (`max_rate_limit_wait`, the target
file's key of that name), keeps a request budget per run, stops the run with one
message when the target keeps failing (circuit breaker), and records every exchange
with tokens redacted for the report, and every wait for the allowance. It retries
what a gateway or the network spoiled when that is safe, and nothing the service
answered (`retries`). A 429 that arrives without `Retry-After` is retried too, but
recorded in `ExchangeLog.missing_retry_after` so a header test can fail on it instead
of the client hiding it.

`ApiClient` builds the request; its `Delivery` (`delivery.py`) runs that loop with the
parts of the run every client shares (`Wiring`, built here).
"""

import enum
import json as jsonlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import httpx

from crm_conformance._errors import (
    BudgetExhausted,
    TargetUnreachable,
)
from crm_conformance.core.hygiene.redaction import Redactor
from crm_conformance.core.transport import retries
from crm_conformance.core.transport.bounds import (
    DEFAULT_MAX_RESPONSE_BYTES,
    bounded_transport,
)
from crm_conformance.core.transport.delivery import Delivery
from crm_conformance.core.transport.exchanges import (
    ExchangeLog,
)
from crm_conformance.core.transport.ledger import Ledger
from crm_conformance.core.transport.pacing import DEFAULT_MAX_WAIT, Pacer

if TYPE_CHECKING:
    from crm_conformance.core.model.target import Target


class _Default(enum.Enum):
    """Sentinel type: "argument not given", distinct from an explicit None."""

    VALUE = enum.auto()


DEFAULT = _Default.VALUE


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
    """Opens after `threshold` consecutive connection errors or 5xx answers, and stays open.

    A crashed target then shows as one clear error instead of dozens of failures.
    """

    def __init__(self, threshold: int = 8) -> None:
        if threshold < 1:
            raise ValueError(f"threshold={threshold!r}: must be at least 1")
        self.threshold = threshold
        self.consecutive = 0
        self.last_problem = ""
        self.opened: str | None = None

    def check(self) -> None:
        """Raise `TargetUnreachable` when the breaker is open."""
        if self.opened is not None:
            raise TargetUnreachable(self.opened)

    def record(self, *, problem: str | None) -> None:
        """Count a bad outcome (`problem` says what) or reset on a good one."""
        if problem is None:
            self.consecutive = 0
            return
        self.consecutive += 1
        self.last_problem = problem
        if self.consecutive >= self.threshold:
            self.opened = (
                f"circuit breaker open after {self.consecutive} consecutive connection errors "
                f"or 5xx answers from the target (last: {problem}); the run stops here"
            )


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

    def client(
        self,
        base_url: str,
        token: str | None,
        *,
        transport: httpx.BaseTransport | None = None,
        http: httpx.Client | None = None,
    ) -> "ApiClient":
        """A client of `base_url` sending `token`, wired to the rest of the run."""
        return ApiClient(
            base_url=base_url, token=token, wiring=self, transport=transport, http=http
        )


class ApiClient:
    """Sends requests to the target's public API as one token; see ARCHITECTURE.md.

    Build one through `Wiring.client`; the keywords beside `wiring` are for tests that
    drive one part (each replaces that field of `wiring`)."""

    def __init__(
        self,
        *,
        base_url: str,
        token: str | None,
        wiring: Wiring | None = None,
        transport: httpx.BaseTransport | None = None,
        http: httpx.Client | None = None,
        **parts: Any,
    ) -> None:
        wiring = replace(wiring or Wiring(), **parts) if parts else (wiring or Wiring())
        self.wiring = wiring
        self.base_url = base_url.rstrip("/")
        self.token = token
        # The parts, for short: the same objects every client of the wiring holds.
        self.redactor = wiring.redactor
        if token:
            self.redactor.add(token)
        self.log = wiring.log
        self.pacer = wiring.pacer
        self.breaker = wiring.breaker
        self.ledger = wiring.ledger
        self._http = http or httpx.Client(
            timeout=wiring.timeout,
            transport=transport or bounded_transport(),
            follow_redirects=False,
        )
        self._delivery = Delivery(wiring, self._http)

    def with_token(self, token: str | None) -> "ApiClient":
        """A client for another token sharing this one's connection and wiring."""
        return self.wiring.client(self.base_url, token, http=self._http)

    def close(self) -> None:
        """Close the connection pool (shared with clients made by `with_token`)."""
        self._http.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | list[tuple[str, Any]] | None = None,
        json: Any = DEFAULT,
        content: bytes | str | None = None,
        headers: Mapping[str, str] | None = None,
        token: str | _Default | None = DEFAULT,
        retry_429: bool = True,
        idempotency_key: str | bool | None = True,
    ) -> httpx.Response:
        """Send one request; `path` starts with /v1.

        `json` is serialised as given, so `json=None` sends the body `null`; leave it out
        for no body. `token=None` sends no Authorization header, `token="..."` sends
        `Bearer <that exact value>`; an explicit Authorization in `headers` wins.
        `retry_429=False` neither paces nor waits: the first 429 comes back as is, for
        the rate-limit suite, which spends a throwaway token's allowance on purpose.
        A write gets a fresh `Idempotency-Key` (so a transport fault may be retried,
        `retries`) unless `headers` carry one or `idempotency_key` names it (a value
        the harness may send again: the fuzz layer's generated one); pass
        `idempotency_key=None` to send a write without a key on purpose. A write sent
        with no key, or with the caller's own, is never sent twice.
        """
        sent_headers = {"Accept": "application/json"}
        bearer = self.token if token is DEFAULT else token
        if bearer is not None:
            self.redactor.add(bearer)
            sent_headers["Authorization"] = f"Bearer {bearer}"
        body: bytes | None = None
        if json is not DEFAULT:
            body = jsonlib.dumps(json).encode()
            sent_headers["Content-Type"] = "application/json"
        elif content is not None:
            body = content.encode() if isinstance(content, str) else content
        sent_headers.update(headers or {})
        keyed = retries.fresh_key(method, sent_headers, idempotency_key)
        request = self._http.build_request(
            method.upper(), self.base_url + path, params=params, content=body, headers=sent_headers
        )
        return self._delivery.deliver(request, pace=retry_429, keyed=keyed)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        """`request("GET", path, ...)`."""
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        """`request("POST", path, ...)`."""
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> httpx.Response:
        """`request("PUT", path, ...)`."""
        return self.request("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> httpx.Response:
        """`request("PATCH", path, ...)`."""
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        """`request("DELETE", path, ...)`."""
        return self.request("DELETE", path, **kwargs)
