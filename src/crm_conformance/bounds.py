"""Bounded exchanges: a total deadline and a size cap on every answer the run reads.

httpx's and requests's timeouts bound each read, not the exchange: a target that sends
its headers and then one byte a second, or a body that never ends, would hang the run
for ever. Here the target file's `timeout` covers the whole exchange (connect, send,
headers and body) and `max_response_bytes` caps the body as it arrives; either breach
is one `ExchangeBoundExceeded`, a transport fault (the test is an error, `smoke` and
`run` end with exit 3), never a conformance failure.

The deadline is checked as each piece of the body arrives, so it is overrun by at most
one read's timeout (the same `timeout`): an exchange ends within about twice it.
"""

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from crm_conformance._errors import ExchangeBoundExceeded

if TYPE_CHECKING:
    import requests

DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
"""The default size cap of one answer's body (10 MiB); `max_response_bytes` in the
target file changes it."""
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class ExchangeBounds:
    """The total seconds one exchange may take and the most bytes its body may hold."""

    timeout: float
    max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES

    def late(self, method: str, path: str) -> ExchangeBoundExceeded:
        """The error of an answer that did not end in time."""
        return ExchangeBoundExceeded(
            f"the answer to {method} {path} did not end within {self.timeout:g} s "
            "(the target file's timeout covers the whole exchange, body included)"
        )

    def too_big(self, method: str, path: str) -> ExchangeBoundExceeded:
        """The error of an answer whose body grew past the cap."""
        return ExchangeBoundExceeded(
            f"the answer to {method} {path} exceeded {_size(self.max_bytes)} "
            "(raise max_response_bytes in the target file if the target means it)"
        )


def read_bounded(
    http: httpx.Client, request: httpx.Request, bounds: ExchangeBounds
) -> httpx.Response:
    """Send `request` on `http` and read its answer whole, within `bounds`.

    The body is streamed and counted as it arrives (as received: compressed bytes when
    it is compressed), and the response handed back is read, like `Client.send`'s.
    Raises `ExchangeBoundExceeded` on a breach; other transport errors pass through.
    """
    deadline = time.monotonic() + bounds.timeout
    where = (request.method, request.url.path)
    try:
        streamed = http.send(request, stream=True)
    except httpx.TimeoutException:
        raise bounds.late(*where) from None
    if streamed.is_stream_consumed:  # an answer made in memory (a mock transport's): whole
        if len(streamed.content) > bounds.max_bytes:
            raise bounds.too_big(*where)
        return streamed
    try:
        body = bytearray()
        for chunk in streamed.iter_raw():
            body += chunk
            if len(body) > bounds.max_bytes:
                raise bounds.too_big(*where)
            if time.monotonic() > deadline:
                raise bounds.late(*where)
    except httpx.TimeoutException:
        raise bounds.late(*where) from None
    finally:
        streamed.close()
    # A response of the bytes as received: reading it decodes them as httpx would have.
    response = httpx.Response(
        streamed.status_code,
        headers=streamed.headers,
        stream=httpx.ByteStream(bytes(body)),
        request=request,
        extensions=streamed.extensions,
    )
    response.read()
    response.elapsed = streamed.elapsed
    return response


def get_bounded(
    url: str,
    *,
    bounds: ExchangeBounds,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> httpx.Response:
    """`httpx.get(url, ...)` within `bounds` (the setup checks: `smoke`, the run's probe)."""
    with httpx.Client(timeout=bounds.timeout) as http:
        request = http.build_request("GET", url, params=params, headers=headers)
        return read_bounded(http, request, bounds)


def requests_kwargs(bounds: ExchangeBounds) -> dict[str, Any]:
    """Keyword arguments for `requests` (schemathesis's transport) that bound an exchange:
    each read's `timeout`, and a response hook reading the body within the deadline and
    the cap. schemathesis passes them on to the requests its own checks send
    (`case.validate_response(..., transport_kwargs=...)`)."""
    return {"timeout": bounds.timeout, "hooks": {"response": [_requests_hook(bounds)]}}


def _requests_hook(bounds: ExchangeBounds) -> Callable[..., "requests.Response"]:
    def read_body(response: "requests.Response", **_: Any) -> "requests.Response":
        """Read the body now (the request streams it), within what is left of the deadline."""
        from urllib3.exceptions import ReadTimeoutError

        deadline = time.monotonic() + bounds.timeout - response.elapsed.total_seconds()
        where = (str(response.request.method), _path(response.request.url))
        body = bytearray()
        try:
            while chunk := response.raw.read1(_CHUNK, decode_content=True):
                body += chunk
                if len(body) > bounds.max_bytes:
                    raise bounds.too_big(*where)
                if time.monotonic() > deadline:
                    raise bounds.late(*where)
        except ReadTimeoutError:
            raise bounds.late(*where) from None
        except ExchangeBoundExceeded:
            response.close()
            raise
        # What `requests.Response.content` sets once it has read the body itself.
        response._content = bytes(body)
        response._content_consumed = True
        return response

    return read_body


def _path(url: str | bytes | None) -> str:
    from urllib.parse import urlsplit

    text = url.decode() if isinstance(url, bytes) else str(url or "")
    return urlsplit(text).path


def _size(count: int) -> str:
    """`10 MiB` for whole mebibytes, else the bytes."""
    mib = 1024 * 1024
    return f"{count // mib} MiB" if count % mib == 0 else f"{count} bytes"
