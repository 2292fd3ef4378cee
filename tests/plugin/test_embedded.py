"""The embedded reference server in a child process: serves, says why it did not, stops."""

import os
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import httpx
import pytest

from crm_conformance.plugin.embedded import EmbeddedServer

pytest_plugins = ["pytester"]


def test_the_server_process_serves_until_stopped() -> None:
    server = EmbeddedServer.spawn()
    try:
        target = server.target()
        assert target.sources["base_url"] == "embedded reference server"
        assert sorted(target.tokens) == ["full", "other_workspace"]
        answer = httpx.get(
            f"{target.base_url}/v1/me", headers={"Authorization": f"Bearer {target.tokens['full']}"}
        )
        assert answer.status_code == 200
    finally:
        server.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{target.base_url}/v1/me")


def test_the_server_process_serves_on_through_ctrl_c() -> None:
    """Ctrl-C reaches the run's whole process group; the run's running tests finish
    against this server, so it serves until its stdin closes."""
    server = EmbeddedServer.spawn()
    try:
        target = server.target()
        os.kill(server.pid, signal.SIGINT)
        time.sleep(0.5)  # time enough for a KeyboardInterrupt to stop it
        headers = {"Authorization": f"Bearer {target.tokens['full']}"}
        assert httpx.get(f"{target.base_url}/v1/me", headers=headers).status_code == 200
    finally:
        server.stop()


def test_a_server_process_that_dies_at_start_says_why() -> None:
    errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed by server.stop())
    dying = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stderr.write('boom: port in use\\n'); sys.exit(3)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
    )
    server = EmbeddedServer(dying, errors)
    with pytest.raises(RuntimeError, match="exited with code 3: boom: port in use"):
        server.target()
    server.stop()


SEEN = """
import pytest

@pytest.mark.req("HDR-001")
def test_sees(target, api, request):
    assert api.get("/v1/me").status_code == 200
    request.node.user_properties.append(("served_by", target.base_url))
"""


def test_each_xdist_worker_serves_its_own_embedded_server(pytester: pytest.Pytester) -> None:
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "test_area.py").write_text(SEEN)
    result = pytester.runpytest(
        "suites", "-p", "no:cacheprovider", "-n", "2", "--dist", "each", "--junitxml=out.xml"
    )
    result.assert_outcomes(passed=2)
    root = ET.parse(pytester.path / "out.xml").getroot()
    served = {p.get("value") for p in root.iter("property") if p.get("name") == "served_by"}
    assert len(served) == 2


BOOTING = """
from crm_conformance.plugin.state import STATE

def pytest_collection_finish(session):
    print("booting during collection:", session.config.stash[STATE].booting is not None)
"""


def test_the_server_boots_while_the_suites_are_collected(pytester: pytest.Pytester) -> None:
    """Started as collection begins (not at the first test), and the tests use it."""
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "test_area.py").write_text(SEEN)
    (pytester.path / "conftest.py").write_text(BOOTING)
    result = pytester.runpytest_subprocess("suites", "-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*booting during collection: True*"])
    listed = pytester.runpytest_subprocess("suites", "-p", "no:cacheprovider", "-s", "--co")
    listed.stdout.fnmatch_lines(["*booting during collection: False*"])
