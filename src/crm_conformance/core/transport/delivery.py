"""One request delivered to the target: the exchange loop every `ApiClient` runs.

Until the service itself answers, a request is paced by its token's allowance
(`pacing.Pacer`), held for the wait a 429 asks (up to `max_rate_limit_wait`), and sent
again after a transport fault where that is safe (`retries`). Each try is counted
against the run's budget and breaker, recorded (tokens redacted), noted in the run's
memory of answers (`answers`) and, for a create, in the ledger. The parts are the
run's (`Wiring`); `ApiClient` only builds the request.
"""

import time

import httpx

from crm_conformance._errors import ExchangeBoundExceeded, RateLimitWaitError, TargetUnavailable
from crm_conformance.core.transport import answers, retries
from crm_conformance.core.transport.bounds import ExchangeBounds, read_bounded
from crm_conformance.core.transport.exchanges import Exchange, Wait, record_exchange
from crm_conformance.core.transport.pacing import RESET_SLACK, token_key
from crm_conformance.core.transport.wiring import Wiring, operation_of


class Delivery:
    """The exchange loop over one connection pool, with the run's parts."""

    def __init__(self, parts: Wiring, http: httpx.Client) -> None:
        self.parts = parts
        """The run's parts (`Wiring`), read where they are used, never copied."""
        self._http = http
        self.bounds = ExchangeBounds(parts.timeout, parts.max_response_bytes)

    def deliver(self, request: httpx.Request, *, pace: bool, keyed: bool) -> httpx.Response:
        """Send `request` until an answer the service gave: paced and with 429s waited out
        when `pace`, transport faults retried when safe (`_after_fault`; `keyed`: the
        harness gave the request its Idempotency-Key)."""
        key = token_key(request.headers.get("Authorization"))
        throttled = 0
        faults: list[str] = []
        after_429 = False
        while True:
            ticket = self._wait_for_allowance(key, request, after_429=after_429) if pace else 0
            after_429 = False
            try:
                response = self._send(request)
            except httpx.TransportError as exc:
                reason = retries.fault_of_error(exc)
                if reason is None:
                    raise
                self._after_fault(request, faults, reason, keyed, retry_after=None, cause=exc)
                continue
            if pace:
                self.parts.pacer.observe(key, response.headers, ticket=ticket)
            if pace and response.status_code == 429:
                self._after_429(request, key, response, throttled)
                throttled += 1
                after_429 = True
                continue
            reason = retries.fault_of_answer(response, retry=bool(faults))
            if reason is None:
                return response
            self._after_fault(
                request, faults, reason, keyed, retry_after=response.headers.get("Retry-After")
            )

    def _after_429(
        self, request: httpx.Request, key: str, response: httpx.Response, throttled: int
    ) -> None:
        """Hold `key` for the wait a 429 asks, or raise when the run cannot wait it out."""
        if throttled == self.parts.max_retries:
            raise RateLimitWaitError(
                f"the target answered 429 to {request.method} {request.url.path} "
                f"{throttled + 1} times, after waiting each time as it asked; the run stops "
                "here rather than hand a test a refusal its server keeps making"
            )
        wait = _retry_after(response.headers.get("Retry-After"))
        if wait is None:
            # Recorded (not hidden) so a header test can fail on it; back off a little.
            self.parts.log.missing_retry_after.append(self.parts.log.exchanges[-1])
            wait = 0.5 * 2**throttled
        elif wait > self.parts.max_rate_limit_wait:
            raise self._too_long(request, f"Retry-After: {wait:g} on its 429")
        self.parts.pacer.hold(key, wait)

    def _after_fault(
        self,
        request: httpx.Request,
        faults: list[str],
        reason: str,
        keyed: bool,
        *,
        retry_after: str | None,
        cause: BaseException | None = None,
    ) -> None:
        """A transport fault (`reason`) met `request`: wait before sending it again, or
        raise `TargetUnavailable` when that is not safe or the retries are spent.
        `faults` (this request's so far) gets `reason`; the log records each fault."""
        faults.append(reason)
        said = f"{request.method} {request.url.path} met {retries.tally(faults)}"
        wait = _retry_after(retry_after)
        if wait is None:
            wait = self.parts.retry.backoff(len(faults) - 1)
        problem = None
        if not retries.safe_to_retry(request, keyed_by_harness=keyed):
            problem = (
                f"{said}; not sent again: a {request.method} without an "
                f"{retries.KEY_HEADER} of the harness's is not safe to repeat"
            )
        elif len(faults) >= self.parts.retry.attempts:
            problem = f"{said} in {len(faults)} tries; the retries are spent"
        elif wait > self.parts.max_rate_limit_wait:
            problem = (
                f"{said}; it asks to wait {wait:g} s (Retry-After), more than "
                f"max_rate_limit_wait = {self.parts.max_rate_limit_wait:g} s"
            )
        self.parts.log.faults.append(retries.Fault(reason, retried=problem is None))
        if problem is not None:
            raise TargetUnavailable(
                f"{problem} (transport faults, not the service's answer)"
            ) from cause
        self.parts.sleep(wait)

    def _wait_for_allowance(self, key: str, request: httpx.Request, *, after_429: bool) -> int:
        """Sleep until the pacer admits a request of `key`; log the wait when there was
        one. Returns the request's ticket."""
        waited = 0.0
        while (admission := self.parts.pacer.admit(key)).wait > 0:
            if admission.wait > self.parts.max_rate_limit_wait + RESET_SLACK:
                raise self._too_long(
                    request, f"X-RateLimit-Reset: the allowance refills in {admission.wait:.0f} s"
                )
            self.parts.sleep(admission.wait)
            waited += admission.wait
        if waited or after_429:
            self.parts.log.waits.append(Wait(waited, after_429, key))
        return admission.ticket

    def _too_long(self, request: httpx.Request, said: str) -> RateLimitWaitError:
        return RateLimitWaitError(
            f"the target's rate limit asks {request.method} {request.url.path} to wait longer "
            f"than max_rate_limit_wait = {self.parts.max_rate_limit_wait:g} s ({said}); raise "
            "max_rate_limit_wait in the target file to let the run wait that long"
        )

    def _send(self, request: httpx.Request) -> httpx.Response:
        self.parts.breaker.check()
        if self.parts.budget is not None:
            self.parts.budget.spend()
        started = time.perf_counter()
        try:
            response = read_bounded(self._http, request, self.bounds)
        except (httpx.TransportError, ExchangeBoundExceeded) as exc:
            elapsed = time.perf_counter() - started
            problem = f"{type(exc).__name__} on {request.method} {request.url.path}"
            self.parts.log.exchanges.append(self._record(request, None, elapsed, error=problem))
            self.parts.breaker.record(problem=problem, operation=operation_of(request))
            raise
        elapsed = time.perf_counter() - started
        self.parts.log.exchanges.append(self._record(request, response, elapsed))
        answers.note(response)
        self._note_created(request, response)
        server_error = response.status_code >= 500
        self.parts.breaker.record(
            problem=f"{response.status_code} on {request.method} {request.url.path}"
            if server_error
            else None,
            operation=operation_of(request),
        )
        return response

    def _note_created(self, request: httpx.Request, response: httpx.Response) -> None:
        """Tell the ledger of the record this answer created, if it created one."""
        if self.parts.ledger is not None:
            self.parts.ledger.observe_api(
                method=request.method,
                path=request.url.path,
                status=response.status_code,
                body=response.content,
                authorization=request.headers.get("Authorization"),
            )

    def _record(
        self,
        request: httpx.Request,
        response: httpx.Response | None,
        elapsed: float,
        *,
        error: str | None = None,
    ) -> Exchange:
        return record_exchange(self.parts.redactor, request, response, elapsed, error=error)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header the document defines as an integer; else None."""
    if value is None or not value.strip().isdigit():
        return None
    return float(int(value.strip()))
