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

PARENT = """
import sys
from pathlib import Path
from crm_conformance.interruptible import run_interruptible

finished = run_interruptible(
    [sys.executable, sys.argv[1], sys.argv[2], sys.argv[3]], cwd=Path.cwd(), env={}
)
print(finished.returncode, finished.interrupted)
"""


def test_sigint_to_the_parent_is_passed_on_and_the_child_winds_down(tmp_path: Path) -> None:
    child = tmp_path / "child.py"
    child.write_text(textwrap.dedent(CHILD), encoding="utf-8")
    ready, done = tmp_path / "ready", tmp_path / "done"
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(child), str(ready), str(done)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    for _ in range(600):  # bounded wait for the child to start
        if ready.exists():
            break
        time.sleep(0.1)
    parent.send_signal(signal.SIGINT)
    out, _ = parent.communicate(timeout=60)
    assert out.split() == ["2", "True"]
    assert done.read_text() == "wound down"
