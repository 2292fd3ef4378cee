"""Serving the reference server: uvicorn in a thread on a free loopback port."""

import socket
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn

from crm_conformance.reference.app import create_app
from crm_conformance.reference.choices import CONVENTIONS
from crm_conformance.reference.settings import ServerSettings

HOST = "127.0.0.1"


@dataclass(frozen=True)
class ServedTarget:
    """Where a running reference server answers, and the tokens it seeded."""

    base_url: str
    adapter_url: str | None
    tokens: Mapping[str, str]
    """Role → token: `full` (primary workspace) and `other_workspace` (secondary)."""
    conventions: Mapping[str, Any] = field(default_factory=lambda: dict(CONVENTIONS))
    adapter_token_env: str | None = None
    """The environment variable holding the adapter's secret (`serve --adapter-token-env`),
    named in the target file; the value itself is never written."""

    def target_file_text(self) -> str:
        """The target file (TOML) describing this server, tokens inline, the adapter's
        secret by the name of its environment variable."""
        lines = [f"base_url = {_toml(self.base_url)}"]
        if self.adapter_url:
            lines.append(f"adapter_url = {_toml(self.adapter_url)}")
        lines.append("allow_live = false")
        for role, value in self.tokens.items():
            lines += ["", f"[tokens.{role}]", f"value = {_toml(value)}"]
        if self.adapter_url and self.adapter_token_env:
            lines += ["", "[adapter_token]", f"value_env = {_toml(self.adapter_token_env)}"]
        lines += ["", "[conventions]"]
        nested = {k: v for k, v in self.conventions.items() if isinstance(v, Mapping)}
        lines += [f"{k} = {_toml(v)}" for k, v in self.conventions.items() if k not in nested]
        for name, table in nested.items():
            lines += ["", f"[conventions.{name}]"]
            lines += [f"{k} = {_toml(v)}" for k, v in table.items()]
        return "\n".join(lines) + "\n"

    def write_target_file(self, path: Path) -> Path:
        """Write the target file to `path` (mode 600: it holds tokens)."""
        path.write_text(self.target_file_text(), encoding="utf-8")
        path.chmod(0o600)
        return path


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def bind(host: str = HOST, port: int = 0) -> socket.socket:
    """A listening socket; port 0 picks a free one.

    The protocol is named (IPPROTO_TCP) because asyncio sets TCP_NODELAY only on sockets
    that say so; without it, uvicorn's separate header and body writes meet Nagle and
    delayed ACKs and every keep-alive response waits about 40 ms.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def served_target(
    host: str,
    port: int,
    tokens: Mapping[str, str],
    adapter: bool,
    conventions: Mapping[str, Any] = CONVENTIONS,
    adapter_token_env: str | None = None,
) -> ServedTarget:
    origin = f"http://{host}:{port}"
    return ServedTarget(
        base_url=origin,
        adapter_url=f"{origin}/_adapter" if adapter else None,
        tokens={"full": tokens["primary"], "other_workspace": tokens["secondary"]},
        conventions=conventions,
        adapter_token_env=adapter_token_env,
    )


@contextmanager
def running_server(settings: ServerSettings | None = None) -> Iterator[ServedTarget]:
    """Serve a fresh reference server on a free 127.0.0.1 port until the block ends."""
    settings = settings or ServerSettings()
    app = create_app(settings)
    sock = bind()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="reference-server", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the reference server did not start")
        time.sleep(0.01)
    port = sock.getsockname()[1]
    try:
        yield served_target(HOST, port, app.seeded_tokens, app.adapter_mounted, app.conventions)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        app.store.close()
