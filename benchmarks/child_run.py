"""One `crm-conformance run` in a child process against a server this process serves:
what the benchmarks that load a whole run (`rate_limited_run.py`, `chaos_table.py`) share.

The server stays in the benchmark's process, so a benchmark can watch or shape what
reaches it (count each token's requests, commit transport faults); the run goes through
the target file as a vendor's does.
"""

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crm_conformance.reference.server import ServedTarget


@dataclass(frozen=True)
class ChildRun:
    """What one run gave: its process, start, wall time and report folder."""

    done: subprocess.CompletedProcess[str]
    started: float
    """`time.perf_counter()` as the child was launched."""
    wall: float
    report: Path
    summary: dict[str, Any]


def run_against(served: ServedTarget, scratch: Path, *args: str, timeout: float) -> ChildRun:
    """`crm-conformance run --target <served's target file> ARGS`, its report folder in
    `scratch`, timed from start to exit; bounded by `timeout` seconds."""
    target = served.write_target_file(scratch / "target.toml")
    report = scratch / "report"
    command = [
        str(Path(sys.executable).parent / "crm-conformance"),
        "run",
        "--target",
        str(target),
        *args,
        "--report-dir",
        str(report),
    ]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    wall = time.perf_counter() - started
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    return ChildRun(done, started, wall, report, summary)
