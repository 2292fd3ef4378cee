"""Start `crm-conformance run` as a terminal would, to interrupt it with Ctrl-C (a SIGINT
to its process group) once a test has got somewhere."""

import subprocess
import sys
import time
from pathlib import Path

CLI = """
import sys
from pathlib import Path

from crm_conformance.core.model import paths
from crm_conformance.cli import main

paths.SUITES_DIR = Path(sys.argv[1])
main(sys.argv[2:])
"""


def run_until(marker: Path, suites: Path, target_file: Path, *args: str) -> subprocess.Popen[str]:
    """Start `crm-conformance run` in a session of its own (a terminal's Ctrl-C goes to its
    whole foreground group) and return once a test has written `marker`."""
    command = [sys.executable, "-c", CLI, str(suites), "run", "--target", str(target_file)]
    run = subprocess.Popen(
        [*command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    for _ in range(1200):  # bounded: about two minutes for the first test to get there
        if marker.is_file():
            return run
        assert run.poll() is None, run.communicate()
        time.sleep(0.1)
    run.kill()
    raise AssertionError(f"no test wrote {marker} in two minutes: {run.communicate()}")
