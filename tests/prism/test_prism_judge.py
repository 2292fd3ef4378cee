"""An independent judge: Stoplight Prism validates every response of a whole suite run.

Prism (pinned in tools/package.json) runs as a proxy between the suites and the
reference server, without `--errors` so the server's real answers reach the suite, and
with request validation off so negative tests still reach the server. Prism logs each
response that does not match `spec/openapi.yaml` as a violation (and sets the
`sl-violations` header); a whole run must produce none. Request violations are the
suite's negative tests doing their job and are not counted. The few tests that send a
body that is not JSON are left out: Prism answers those itself.

Slow (runs every suite module through the proxy): CI runs it (CRM_SLOW_TESTS=1), and so
does `tox -e prism`.
"""

import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from crm_conformance.core.model.paths import OPENAPI
from crm_conformance.selftest.suite_run import run_suite

ROOT = Path(__file__).resolve().parents[2]
PRISM = ROOT / "tools" / "node_modules" / ".bin" / "prism"
RESPONSE_VIOLATION = re.compile(r"Violation: response.*")

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PrismProxy:
    """A running `prism proxy`; `log` holds what it printed so far."""

    def __init__(self, upstream: str, log: Path) -> None:
        self.port = _free_port()
        self.log = log
        self._out = log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [
                str(PRISM),
                "proxy",
                str(OPENAPI),
                upstream,
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "--validate-request",
                "false",
                "--cors",
                "false",
            ],
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prism exited: {self.log.read_text()[-2000:]}")
            try:
                httpx.get(self.url + "/v1/contacts", timeout=2)
                return
            except httpx.TransportError:
                time.sleep(0.3)
        raise RuntimeError(f"prism did not start in {timeout} s: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self._out.close()

    def response_violations(self) -> list[str]:
        return RESPONSE_VIOLATION.findall(self.log.read_text(encoding="utf-8"))


@pytest.fixture
def prism(tmp_path: Path) -> Iterator[list[PrismProxy]]:
    if not PRISM.exists() or shutil.which("node") is None:
        pytest.fail("Prism is not installed: run `bash scripts/setup.sh` (needs Node 20 and npm)")
    started: list[PrismProxy] = []
    yield started
    for proxy in started:
        proxy.stop()


def test_a_whole_suite_run_through_prism_has_no_response_violations(
    prism: list[PrismProxy], tmp_path: Path
) -> None:
    @contextmanager
    def through_prism(upstream: str) -> Iterator[str]:
        proxy = PrismProxy(upstream, tmp_path / "prism.log")
        prism.append(proxy)
        proxy.wait_ready()
        yield proxy.url

    modules = sorted(p.name for p in (ROOT / "suites").glob("test_*.py") if "fuzz" not in p.name)
    # Prism parses request bodies itself and answers a malformed one without asking the
    # server, so the tests that send a body that is not JSON cannot pass through it; it
    # also answers a DELETE the description does not declare itself (no error envelope, no
    # rate headers), so the DELETE sent to a success event's own path cannot either.
    run = run_suite(modules, through=through_prism, timeout=1200, keyword="not json and not DELETE")
    (proxy,) = prism
    assert run.with_outcome("passed"), run.output[-3000:]
    assert not run.with_outcome("failed"), run.output[-3000:]
    violations = proxy.response_violations()
    assert not violations, "\n".join(sorted(set(violations))[:40])
