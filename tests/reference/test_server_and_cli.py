"""`running_server`, the target file it writes, and `crm-conformance serve`."""

import os
import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
from click.testing import CliRunner

from crm_conformance.cli import main
from crm_conformance.core.model.target import load_target
from crm_conformance.reference import ServerSettings, running_server


def test_running_server_serves_and_writes_a_loadable_target_file(tmp_path: Path) -> None:
    with running_server(ServerSettings()) as served:
        assert served.base_url.startswith("http://127.0.0.1:")
        path = served.write_target_file(tmp_path / "target.toml")
        assert oct(path.stat().st_mode & 0o777) == "0o600"
        data = tomllib.loads(path.read_text())
        assert data["tokens"]["full"]["value"].startswith("sk_test_")
        assert data["conventions"]["tag_catalogue_field"] == "kind"
        assert data["conventions"]["contact_filters"]["owner_id"] == "owner_id"
        target = load_target(path=path)
        assert target.base_url == served.base_url
        response = httpx.get(
            f"{served.base_url}/v1/users",
            headers={"Authorization": f"Bearer {served.tokens['other_workspace']}"},
        )
        assert response.status_code == 200


def test_serve_refuses_bad_options() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["serve", "--fault", "bogus"])
    assert result.exit_code == 2
    assert "bogus" in result.output
    result = runner.invoke(main, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "loopback" in result.output


def test_serve_writes_the_target_file_and_stops_on_sigterm(tmp_path: Path) -> None:
    target = tmp_path / "served.toml"
    process = subprocess.Popen(
        [sys.executable, "-c", "from crm_conformance.cli import main; main()", "serve",
         "--target-out", str(target), "--rate-limit", "50"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while not target.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        data = tomllib.loads(target.read_text())
        token = data["tokens"]["full"]["value"]
        response = httpx.get(
            f"{data['base_url']}/v1/users", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.headers["X-RateLimit-Limit"] == "50"
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "stopped" in out
    assert "GET /v1/users 200" in err
    assert token not in out + err


def test_listening_socket_names_tcp_so_responses_are_not_nagled() -> None:
    from crm_conformance.reference.server import bind

    sock = bind()
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
