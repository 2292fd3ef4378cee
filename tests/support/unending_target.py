"""A loopback server whose answers never end in time: a trickled body, or an endless one.

Each answer stops by itself after `lasts` seconds (or when the client hangs up), so a
test that meets it cannot hang, whatever the code under test does.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread
from typing import Any, Literal

Kind = Literal["trickle", "endless", "slow-headers"]


@contextmanager
def serve_unending(kind: Kind, *, lasts: float = 5.0) -> Iterator[str]:
    """Serve every request with headers at once, then `kind`: "trickle" one byte of a
    long JSON body each 0.05 s, "endless" 64 KiB chunks as fast as the client reads;
    or "slow-headers": the status line, then header bytes one each 0.05 s.
    Yields the base URL."""

    class Handle(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            if kind == "slow-headers":
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                self._trickle(b"X", 0.05)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if kind == "trickle":
                self.send_header("Content-Length", "1000000")
            else:
                self.send_header("Connection", "close")  # the body ends when the socket does
            self.end_headers()
            self.wfile.flush()
            self._trickle(*((b" ", 0.05) if kind == "trickle" else (b" " * 65536, 0.0)))

        def _trickle(self, chunk: bytes, pause: float) -> None:
            ends = time.monotonic() + lasts
            try:
                while time.monotonic() < ends:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    if pause:
                        time.sleep(pause)
            except OSError:  # the client hung up, as it should
                pass
            self.close_connection = True

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handle)
    thread = Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
