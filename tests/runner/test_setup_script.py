"""`scripts/setup.sh` does what the command to run needs, nothing more: `npm ci` only when
the Node tools are missing or their lock changed, the dev extras and Chromium only for
the project's own tests (`--dev`, or CI). Run in a scratch copy with stand-ins for pip,
npm and apt-get that log their calls."""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = ("bash", "dirname", "cat", "id", "mkdir", "touch")
"""What the script and the stand-ins call besides python, npm and apt-get."""

STUB = """#!/usr/bin/env bash
echo "{name} $*" >> "$SETUP_LOG"
{extra}
"""


def stub(folder: Path, name: str, extra: str = "") -> None:
    path = folder / name
    path.write_text(STUB.format(name=name, extra=extra), encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """scripts/setup.sh and tools/package-lock.json, with a .venv whose python is a stub."""
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    (root / "tools").mkdir()
    shutil.copy(REPO / "scripts" / "setup.sh", root / "scripts" / "setup.sh")
    shutil.copy(REPO / "tools" / "package-lock.json", root / "tools" / "package-lock.json")
    (root / ".venv" / "bin").mkdir(parents=True)
    stub(root / ".venv" / "bin", "python")
    return root


def setup(checkout: Path, *args: str, ci: bool = False) -> list[str]:
    """Run the script; the stand-ins' calls, in order."""
    bin_dir = checkout.parent / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in TOOLS:  # only these on PATH: no chromium, whatever the machine has
        found = shutil.which(tool)
        assert found is not None, tool
        if not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    stub(bin_dir, "npm", "mkdir -p tools/node_modules && touch tools/node_modules/.installed")
    stub(bin_dir, "apt-get")
    log = checkout.parent / "calls.log"
    log.write_text("", encoding="utf-8")
    env = {
        "PATH": str(bin_dir),
        "SETUP_LOG": str(log),
        "PYTHON": sys.executable,
        "HOME": str(checkout.parent),
    }
    if ci:
        env["CI"] = "true"
    done = subprocess.run(
        ["bash", str(checkout / "scripts" / "setup.sh"), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return log.read_text(encoding="utf-8").splitlines()


def test_a_second_setup_does_not_reinstall_the_node_tools(checkout: Path) -> None:
    first = setup(checkout)
    assert [call for call in first if call.startswith("npm ci")]
    assert not [call for call in setup(checkout) if call.startswith("npm")]
    lock = checkout / "tools" / "package-lock.json"
    lock.write_text(lock.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert [call for call in setup(checkout) if call.startswith("npm ci")]


def test_the_suite_set_up_installs_no_dev_extras_and_no_browser(checkout: Path) -> None:
    calls = setup(checkout)
    assert "python -m pip install -q --disable-pip-version-check -e ." in calls
    assert not [call for call in calls if "[dev]" in call or call.startswith("apt-get")]


@pytest.mark.skipif(os.geteuid() != 0, reason="Chromium is installed only as root")
@pytest.mark.parametrize(("args", "ci"), [(("--dev",), False), ((), True)])
def test_the_dev_set_up_adds_the_extras_and_chromium(
    checkout: Path, args: tuple[str, ...], ci: bool
) -> None:
    calls = setup(checkout, *args, ci=ci)
    assert "python -m pip install -q --disable-pip-version-check -e .[dev]" in calls
    assert [call for call in calls if call.startswith("apt-get install")]
