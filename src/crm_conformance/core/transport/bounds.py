"""Bounded exchanges: a total deadline and a size cap on every answer the run reads.

httpx's and requests's timeouts bound each read, not the exchange: a target that sends
its headers and then one byte a second, or a body that never ends, would hang the run
for ever. Here the target file's `timeout` covers the whole exchange (connect, send,
headers and body) and `max_response_bytes` caps the body as it arrives; either breach
is one `ExchangeBoundExceeded`, a transport fault (the test is an error, `smoke` and
`run` end with exit 3), never a conformance failure.

The deadline is checked as each piece of the body arrives; on the connections of
`bounded_transport` (the harness's clients, the setup checks) every socket operation
also waits no longer than what is left of it, so headers trickled byte by byte end at the
deadline too. Elsewhere (schemathesis's `requests`) it is overrun by at most one read's
timeout: about twice `timeout` in all. The harness's clients, given a transport, send
nothing through a proxy named in the environment (httpx reads `HTTP_PROXY` and the like
only for a client without one); `requests` does.
"""

import time
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

from crm_conformance._errors import ExchangeBoundExceeded
from crm_conformance.core.model.target import (
    DEFAULT_MAX_RESPONSE_BYTES as DEFAULT_MAX_RESPONSE_BYTES,
)

if TYPE_CHECKING:
    import requests

_CHUNK = 64 * 1024
_DEADLINE: ContextVar[float | None] = ContextVar("crm_exchange_deadline", default=None)
"""The monotonic time the exchange being read must end by (set by `read_bounded`)."""


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
    held = _DEADLINE.set(deadline)
    try:
        return _read(http, request, bounds, deadline, where)
    finally:
        _DEADLINE.reset(held)


def _read(
    http: httpx.Client,
    request: httpx.Request,
    bounds: ExchangeBounds,
    deadline: float,
    where: tuple[str, str],
) -> httpx.Response:
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


def bounded_transport() -> httpx.HTTPTransport:
    """httpx's default transport, its sockets waiting no longer than what is left of the
    deadline of the exchange `read_bounded` is reading (each read, write, connect).

    httpx offers no hook for this: the network backend of its connection pool is
    replaced, and if a new httpx has none where this looks, the transport is left as it
    is (the body is still bounded; tests/core/test_bounds.py's trickled headers fail).
    """
    transport = httpx.HTTPTransport()
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if isinstance(backend, httpcore.NetworkBackend):
        pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]  # httpcore private
    return transport


def _left(timeout: float | None) -> float | None:
    """`timeout`, or what is left of the exchange's deadline when that is shorter."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the exchange's deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every wait is cut to the exchange's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, _left(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """Connects as `inner` does, within the exchange's deadline, to `_DeadlineStream`s."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, _left(timeout), local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_unix_socket(path, _left(timeout), socket_options)
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def get_bounded(
    url: str,
    *,
    bounds: ExchangeBounds,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> httpx.Response:
    """`httpx.get(url, ...)` within `bounds` (the setup checks: `smoke`, the run's probe)."""
    with httpx.Client(timeout=bounds.timeout, transport=bounded_transport()) as http:
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
