"""A SIGINT to the parent reaches the child once, and the parent waits for its shutdown."""

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

CHILD = """
import signal, sys, time
from pathlib import Path

ready, done = Path(sys.argv[1]), Path(sys.argv[2])
signal.signal(signal.SIGINT, lambda *_: (done.write_text("wound down"), sys.exit(2)))
ready.write_text("ready")
for _ in range(600):  # bounded: gives up after about a minute
    time.sleep(0.1)
"""

CHILD_WITH_DEFAULTS = """
import sys, time
from pathlib import Path

ready, done = Path(sys.argv[1]), Path(sys.argv[2])
ready.write_text("ready")
try:
    for _ in range(600):  # bounded: gives up after about a minute
        time.sleep(0.1)
except KeyboardInterrupt:
    done.write_text("wound down")
    sys.exit(2)
"""

PARENT = """
import sys
from pathlib import Path
from crm_conformance.run.interruptible import run_interruptible

finished = run_interruptible(
    [sys.executable, sys.argv[1], sys.argv[2], sys.argv[3]], cwd=Path.cwd(), env={}
)
print(finished.returncode, finished.interrupted)
"""


def _interrupt(tmp_path: Path, child_code: str, *, parent_ignores: bool = False) -> str:
    """Start the parent (which runs the child), SIGINT it once the child is up, and
    return what the parent printed: the child's exit code and `interrupted`."""
    child = tmp_path / "child.py"
    child.write_text(textwrap.dedent(child_code), encoding="utf-8")
    ready, done = tmp_path / "ready", tmp_path / "done"
    ignoring = "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (ignoring if parent_ignores else "") + PARENT,
            str(child),
            str(ready),
            str(done),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    for _ in range(600):  # bounded wait for the child to start
        if ready.exists():
            break
        time.sleep(0.1)
    parent.send_signal(signal.SIGINT)
    out, _ = parent.communicate(timeout=90)
    assert done.read_text() == "wound down", out
    return out


def test_sigint_to_the_parent_is_passed_on_and_the_child_winds_down(tmp_path: Path) -> None:
    assert _interrupt(tmp_path, CHILD).split() == ["2", "True"]


def test_a_parent_started_with_sigint_ignored_still_stops_its_child(tmp_path: Path) -> None:
    """A background job of a non-interactive shell starts with SIGINT ignored; the child
    must not inherit that and run on under a report that says it was interrupted."""
    assert _interrupt(tmp_path, CHILD_WITH_DEFAULTS, parent_ignores=True).split() == [
        "2",
        "True",
    ]
