"""Faults at the wire: a loopback proxy that breaks any server's answers on the way out.

The reference server's faults live in its code. These live between a server and the
suite, so the suite's catches can be shown against any deployment, a vendor's included:
start the proxy in front of it, point the target file's `base_url` at the proxy, and
the suite must fail naming the wire fault's requirement ids. Each fault is a small
edit of the status line's headers or the body, the kind a gateway or a careless
middleware makes.
"""

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import uvicorn
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from crm_conformance.selftest.chaos import Chaos, DroppedOnPurpose

Headers = dict[str, str]
"""Response headers, names lower-cased."""


@dataclass(frozen=True)
class WireFault:
    """A named edit of an answer: the requirement ids it breaks and how it breaks them."""

    name: str
    reqs: tuple[str, ...]
    summary: str
    alter: Callable[[int, Headers], Headers]
    """(status, headers) -> the headers sent instead."""


def _without(headers: Headers, *names: str) -> Headers:
    return {k: v for k, v in headers.items() if k not in names}


_RATE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")

_WIRE_FAULTS = (
    WireFault(
        "wire_rate_limit_headers_stripped",
        ("HDR-001",),
        "a gateway strips X-RateLimit-* from every answer",
        lambda status, headers: _without(headers, *_RATE_HEADERS),
    ),
    WireFault(
        "wire_request_id_dropped_on_errors",
        ("HDR-003", "ERR-005"),
        "X-Request-ID is missing on non-2xx answers (so error.request_id matches nothing)",
        lambda status, headers: headers if status < 400 else _without(headers, "x-request-id"),
    ),
    WireFault(
        "wire_request_id_replaced",
        ("ERR-005",),
        "a gateway sets its own X-Request-ID, so error.request_id no longer equals it",
        lambda status, headers: {
            **headers,
            "x-request-id": "gw-" + headers.get("x-request-id", ""),
        },
    ),
    WireFault(
        "wire_json_as_text",
        ("HDR-004",),
        "JSON error bodies are labelled Content-Type: text/plain",
        lambda status, headers: (
            headers if status < 400 else {**headers, "content-type": "text/plain; charset=utf-8"}
        ),
    ),
)

WIRE_FAULTS: dict[str, WireFault] = {fault.name: fault for fault in _WIRE_FAULTS}

_HOP_BY_HOP = ("connection", "keep-alive", "transfer-encoding", "content-length", "host")
"""Headers that describe one connection, not the message; the proxy sets its own."""


class WireFaultProxy:
    """An ASGI app forwarding every request to `upstream` and altering the answers; with
    `chaos`, also committing that transport fault on a seeded share of them (`chaos.py`).
    """

    def __init__(self, upstream: str, faults: Iterable[str], *, chaos: Chaos | None = None) -> None:
        names = list(faults)
        unknown = sorted(set(names) - WIRE_FAULTS.keys())
        if unknown:
            raise ValueError(f"unknown wire fault(s): {unknown}; known: {sorted(WIRE_FAULTS)}")
        self.faults = [WIRE_FAULTS[name] for name in names]
        self.upstream = upstream.rstrip("/")
        self.chaos = chaos
        self._client: httpx.AsyncClient | None = None
        """Made on the first request, inside the server's event loop; keeps connections."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http", scope["type"]
        request = Request(scope, receive)
        if self.chaos is not None and self.chaos.strikes(request.url.path):
            await self.chaos.answer(lambda: self._forward(request), scope, receive, send)
            return
        await (await self._forward(request))(scope, receive, send)

    async def _forward(self, request: Request) -> Response:
        """The service's answer to `request`, with the faults' edits."""
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=30)
        # The path as it came, still percent-encoded: a fuzz case's path may hold bytes
        # (a control character, a space) that a decoded path cannot be sent with again.
        upstream = httpx.URL(self.upstream)
        query = request.scope["query_string"]
        target = upstream.copy_with(
            raw_path=upstream.raw_path.rstrip(b"/")
            + request.scope["raw_path"]
            + (b"?" + query if query else b"")
        )
        answer = await self._client.request(
            request.method,
            target,
            headers=_without(dict(request.headers), *_HOP_BY_HOP),
            content=await request.body(),
        )
        headers = _without(
            {k.lower(): v for k, v in answer.headers.items()}, *_HOP_BY_HOP, "content-encoding"
        )
        for fault in self.faults:
            headers = fault.alter(answer.status_code, headers)
        return Response(answer.content, answer.status_code, headers)


def _not_on_purpose(record: logging.LogRecord) -> bool:
    """Keeps uvicorn from logging a connection the chaos dropped on purpose as a bug."""
    return not (record.exc_info and isinstance(record.exc_info[1], DroppedOnPurpose))


logging.getLogger("uvicorn.error").addFilter(_not_on_purpose)


@contextmanager
def running_wire_proxy(
    upstream: str, faults: Iterable[str], *, chaos: Chaos | None = None
) -> Iterator[str]:
    """Serve the proxy on a free 127.0.0.1 port until the block ends; yields its origin."""
    from crm_conformance.reference.server import HOST, bind

    proxy = WireFaultProxy(upstream, faults, chaos=chaos)
    sock = bind()
    server = uvicorn.Server(
        uvicorn.Config(proxy, log_level="warning", access_log=False, lifespan="off")
    )
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="wire-fault-proxy", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the wire-fault proxy did not start")
        time.sleep(0.01)
    try:
        yield f"http://{HOST}:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
