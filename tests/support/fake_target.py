"""Tiny fake targets for the harness's own tests: conformant JSON, 500s, HTML, dropped links.

`conformant_response` builds what a conforming server would answer (headers included),
usable both in an `httpx.MockTransport` handler and behind the threaded HTTP server
`serve`, which the pytester runs of the plugin point `--base-url` at.
"""

import json
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

TOKEN = "sk_test_fakeSelector.fakeVerifierSecret123"
OTHER_TOKEN = "sk_test_otherSelector.otherVerifierSecret456"


class FakeClock:
    """Time for pacing tests: `sleep` records the seconds and moves `now`, nothing waits."""

    def __init__(self) -> None:
        self.time = 1000.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.time

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.time += seconds


def hexid(prefix: str) -> str:
    """A well-formed identifier of `prefix` (e.g. `con_`)."""
    return prefix + uuid.uuid4().hex


def rate_headers(request_id: str | None = None) -> dict[str, str]:
    """The headers every conforming response carries."""
    return {
        "X-RateLimit-Limit": "100",
        "X-RateLimit-Remaining": "99",
        "X-RateLimit-Reset": "60",
        "X-Request-ID": request_id or "req_" + uuid.uuid4().hex,
    }


def error_body(
    error_type: str, code: str, *, request_id: str, message: str = "no", **extra: Any
) -> dict[str, Any]:
    """A conforming error envelope."""
    return {
        "error": {
            "type": error_type,
            "code": code,
            "message": message,
            "param": None,
            "detail": None,
            "documentation_url": None,
            "request_id": request_id,
            **extra,
        }
    }


def contact() -> dict[str, Any]:
    """A conforming contact."""
    return {
        "id": hexid("con_"),
        "object": "contact",
        "status": "open",
        "visibility": "company",
        "owner_id": hexid("usr_"),
        "owner": {"id": hexid("usr_"), "kind": "user", "name": "A", "object": "owner"},
        "custom_fields": {"partner_id": "not-an-id"},
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
    }


def conformant(request: httpx.Request) -> httpx.Response:
    """What a conforming server answers: /v1/me, /v1/contacts, 401 without a token, 404."""
    request_id = "req_" + uuid.uuid4().hex
    headers = rate_headers(request_id)
    auth = request.headers.get("Authorization")
    if auth not in (f"Bearer {TOKEN}", f"Bearer {OTHER_TOKEN}"):
        body = error_body("authentication_error", "unauthorized", request_id=request_id)
        return httpx.Response(401, json=body, headers=headers, request=request)
    path = request.url.path
    if path == "/v1/me":
        return httpx.Response(
            200, json={"scopes": ["contacts:read", "contacts:write"]}, headers=headers
        )
    if path == "/v1/contacts" and request.method == "GET":
        body = {
            "data": [contact()],
            "meta": {"has_more": False, "limit": 20},
            "links": {"next": None},
        }
        return httpx.Response(200, json=body, headers=headers, request=request)
    body = error_body("not_found_error", "not_found", request_id=request_id)
    return httpx.Response(404, json=body, headers=headers, request=request)


Handler = Callable[[httpx.Request], httpx.Response]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serve(handler: Handler = conformant, *, mode: str = "ok") -> Iterator[str]:
    """Serve `handler` on 127.0.0.1; `mode` "drop" closes every connection unanswered.

    Yields the base URL.
    """

    class Handle(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            if mode == "drop":
                self.connection.close()
                return
            length = int(self.headers.get("Content-Length") or 0)
            request = httpx.Request(
                self.command,
                f"http://fake{self.path}",
                headers=dict(self.headers.items()),
                content=self.rfile.read(length) if length else b"",
            )
            response = handler(request)
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in ("content-length", "connection"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(response.content)))
            self.end_headers()
            self.wfile.write(response.content)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", _free_port()), Handle)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def as_json(response: httpx.Response) -> Any:
    """The body of a response, parsed."""
    return json.loads(response.content)
