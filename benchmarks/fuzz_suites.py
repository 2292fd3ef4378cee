"""The fuzz suites run on their own, and the requests they sent (shared by the benchmarks)."""

import ast
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUZZ_MODULES = ("suites/test_fuzz.py", "suites/test_fuzz_stateful.py")


@dataclass(frozen=True)
class FuzzRun:
    profile: str
    seconds: float
    tests: int
    failed: int
    requests: int


def fuzz_run(profile: str, *, keyword: str | None, timeout: float, seed: int) -> FuzzRun:
    """Both fuzz suites in a child pytest against the embedded reference server."""
    with tempfile.TemporaryDirectory(prefix="crm-bench-") as scratch:
        junit = Path(scratch) / "junit.xml"
        command = [
            sys.executable,
            "-m",
            "pytest",
            *(str(ROOT / module) for module in FUZZ_MODULES),
            "-q",
            "-p",
            "no:cacheprovider",
            f"--hypothesis-seed={seed}",
            f"--junitxml={junit}",
            *(["-k", keyword] if keyword else []),
        ]
        env = {**os.environ, "CRM_PROFILE": profile}
        started = time.perf_counter()
        subprocess.run(command, cwd=scratch, env=env, capture_output=True, timeout=timeout)
        seconds = time.perf_counter() - started
        cases = list(ET.parse(junit).getroot().iter("testcase"))
        failed = sum(1 for case in cases if case.find("failure") is not None)
        return FuzzRun(profile, seconds, len(cases), failed, fuzz_requests(junit))


def fuzz_requests(junit: Path) -> int:
    """The requests the fuzz suites' harness client sent: the JUnit property `fuzz`, summed."""
    sent = 0
    for prop in ET.parse(junit).getroot().iter("property"):
        if prop.get("name") == "fuzz":
            sent += int(ast.literal_eval(prop.get("value", "{}")).get("requests", 0))
    return sent
