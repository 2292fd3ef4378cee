"""The wire-fault proxy: transparent when no fault is on, and each fault is caught.

Each fault is shown against the reference server behind the proxy: the authentication
suite must pass through the proxy with no fault on, and one of its tests that gets an
error answer (the universal response checks run on every answer) must fail naming one of
the fault's ids.
"""

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from crm_conformance.core.model.paths import SUITES_DIR
from crm_conformance.reference import running_server
from crm_conformance.selftest.wire_faults import WIRE_FAULTS, WireFaultProxy, running_wire_proxy


def _suite_through_proxy(
    faults: list[str], tmp_path: Path, *pytest_args: str
) -> subprocess.CompletedProcess[str]:
    with running_server() as served, running_wire_proxy(served.base_url, faults) as proxy:
        target = served.write_target_file(tmp_path / "target.toml")
        text = target.read_text().replace(
            f'base_url = "{served.base_url}"', f'base_url = "{proxy}"'
        )
        target.write_text(text)
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                str(SUITES_DIR / "test_authentication.py"),
                "--target",
                str(target),
                "-p",
                "no:cacheprovider",
                "-x",
                "-q",
                *pytest_args,
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


def test_the_proxy_forwards_unchanged_without_faults(tmp_path: Path) -> None:
    with running_server() as served, running_wire_proxy(served.base_url, []) as proxy:
        token = {"Authorization": f"Bearer {served.tokens['full']}"}
        direct = httpx.get(f"{served.base_url}/v1/users", headers=token, params={"limit": 1})
        proxied = httpx.get(f"{proxy}/v1/users", headers=token, params={"limit": 1})
    assert proxied.status_code == direct.status_code == 200
    assert proxied.json()["data"] == direct.json()["data"]
    assert proxied.headers["X-RateLimit-Limit"] == direct.headers["X-RateLimit-Limit"]
    assert proxied.headers["Content-Type"] == direct.headers["Content-Type"]
    run = _suite_through_proxy([], tmp_path)
    assert run.returncode == 0, run.stdout[-3000:]


def test_an_unknown_fault_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown wire fault"):
        WireFaultProxy("http://127.0.0.1:1", ["no_such_fault"])


@pytest.mark.parametrize("name", sorted(WIRE_FAULTS))
def test_the_suite_catches_the_wire_fault(name: str, tmp_path: Path) -> None:
    run = _suite_through_proxy([name], tmp_path, "-k", "test_a_missing_token_is_unauthorized")
    assert run.returncode == 1, run.stdout[-3000:]
    assert any(req in run.stdout for req in WIRE_FAULTS[name].reqs), run.stdout[-3000:]
