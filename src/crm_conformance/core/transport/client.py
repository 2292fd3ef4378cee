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
parts of the run every client shares (`wiring.Wiring`); `connect` builds a client of them.
"""

import enum
import json as jsonlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import httpx

from crm_conformance.core.transport import retries
from crm_conformance.core.transport.bounds import bounded_transport
from crm_conformance.core.transport.delivery import Delivery
from crm_conformance.core.transport.wiring import Wiring


class _Default(enum.Enum):
    """Sentinel type: "argument not given", distinct from an explicit None."""

    VALUE = enum.auto()


DEFAULT = _Default.VALUE


def connect(
    wiring: Wiring,
    base_url: str,
    token: str | None,
    *,
    transport: httpx.BaseTransport | None = None,
    http: httpx.Client | None = None,
) -> "ApiClient":
    """A client of `base_url` sending `token`, wired to the rest of the run: the one
    factory every client of the API is built by."""
    return ApiClient(base_url=base_url, token=token, wiring=wiring, transport=transport, http=http)


class ApiClient:
    """Sends requests to the target's public API as one token; see ARCHITECTURE.md.

    Build one through `connect`; the keywords beside `wiring` are for tests that
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
        return connect(self.wiring, self.base_url, token, http=self._http)

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
