"""What the client records of each exchange: the request and its answer (or transport
error), redacted and made inert, as the report shows it; the run's log of them, of the
429s retried without `Retry-After`, of every wait for an allowance and every transport
fault. The adapter's client records its exchanges the same way (`record_exchange`).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from crm_conformance.core.hygiene.inert import TEXT_LIMIT, inert
from crm_conformance.core.hygiene.redaction import Redactor
from crm_conformance.core.transport import retries
from crm_conformance.core.transport.reproduction import curl_command


@dataclass(frozen=True)
class Exchange:
    """One request and its response (or transport error), redacted, as the report shows it."""

    method: str
    url: str
    request_headers: Mapping[str, str]
    request_body: str | None
    status: int | None
    response_headers: Mapping[str, str]
    response_body: str | None
    elapsed: float
    error: str | None = None

    def curl(self) -> str:
        """The request as a curl line, with the token as `$TOKEN`."""
        return curl_command(
            method=self.method, url=self.url, headers=self.request_headers, body=self.request_body
        )

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form for reports and xdist transport."""
        return {
            "method": self.method,
            "url": self.url,
            "request_headers": dict(self.request_headers),
            "request_body": self.request_body,
            "status": self.status,
            "response_headers": dict(self.response_headers),
            "response_body": self.response_body,
            "elapsed": round(self.elapsed, 4),
            "error": self.error,
            "curl": self.curl(),
        }


@dataclass(frozen=True)
class Wait:
    """Seconds one request waited for its token's allowance, and whether a 429 asked for it."""

    seconds: float
    after_429: bool
    key: str = field(default="", compare=False)
    """The token's pacing key (`pacing.token_key`: a hash, never the token)."""


@dataclass
class ExchangeLog:
    """Every exchange of a run in order, the 429s retried without a usable Retry-After,
    and every wait for the allowance."""

    exchanges: list[Exchange] = field(default_factory=list)
    missing_retry_after: list[Exchange] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    faults: list[retries.Fault] = field(default_factory=list)
    """Every transport fault met, retried or not (`retries`)."""

    def mark(self) -> int:
        """A position to read `since` from (the plugin marks the start of each test)."""
        return len(self.exchanges)

    def since(self, mark: int) -> list[Exchange]:
        """The exchanges recorded after `mark`."""
        return self.exchanges[mark:]


def record_exchange(
    redactor: Redactor,
    request: httpx.Request,
    response: httpx.Response | None,
    elapsed: float,
    *,
    error: str | None = None,
) -> Exchange:
    """A redacted `Exchange` of one request and its response (shared with the adapter client)."""
    return Exchange(
        method=request.method,
        url=inert(redactor.text(str(request.url)), limit=TEXT_LIMIT),
        request_headers=_headers(redactor, _as_sent(request.headers)),
        request_body=_text(redactor, request.content),
        status=None if response is None else response.status_code,
        response_headers={}
        if response is None
        else _headers(redactor, response.headers.multi_items()),
        response_body=None if response is None else _text(redactor, response.content),
        elapsed=elapsed,
        error=None if error is None else inert(redactor.text(error)),
    )


def _headers(redactor: Redactor, headers: list[tuple[str, str]]) -> dict[str, str]:
    """Redacted, then inert: a header a target sends is one line of text (`inert`)."""
    # Names need no look: h11, which parses for httpx, takes only token characters in one.
    return {name: inert(value) for name, value in redactor.headers(headers).items()}


def _as_sent(headers: httpx.Headers) -> list[tuple[str, str]]:
    """Header names as they went over the wire (httpx lower-cases them in `items()`)."""
    return [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers.raw]


def _text(redactor: Redactor, body: bytes) -> str | None:
    if not body:
        return None
    # Redact before cutting, so no secret is cut in half and left readable.
    return inert(redactor.text(body.decode("utf-8", "replace")), limit=TEXT_LIMIT, lines=True)
