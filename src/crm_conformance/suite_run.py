"""Run suite modules against the reference server with faults or variants switched on.

This is how the suite is tested like a product: a fault must make a test carrying one
of the fault's requirement ids fail, and a legal variant must leave every test green.
The project's tests (`tests/suites/`) and `crm-conformance selftest` both call
`run_suite`, so "killed" means the same thing everywhere.

Each run is pytest in a subprocess (the plugin's session state is per process) against
a fresh in-memory reference server in this process, through a target file, exactly as
a vendor's run goes through theirs.
"""

import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from crm_conformance.paths import SUITES_DIR
from crm_conformance.reference import ServerSettings, running_server


@dataclass(frozen=True)
class TestResult:
    """One test's outcome and the requirement ids its markers name."""

    nodeid: str
    outcome: str
    """`passed`, `failed`, `error` or `skipped`."""
    requirements: frozenset[str]
    message: str = ""


@dataclass(frozen=True)
class SuiteRun:
    """What one subprocess run of the suites gave."""

    exit_code: int
    results: tuple[TestResult, ...]
    output: str = field(repr=False)

    def with_outcome(self, outcome: str) -> tuple[TestResult, ...]:
        return tuple(r for r in self.results if r.outcome == outcome)

    @property
    def failed_requirements(self) -> frozenset[str]:
        """Ids named by the tests that failed (target failures, not setup errors)."""
        return frozenset(req for r in self.with_outcome("failed") for req in r.requirements)

    def kills(self, reqs: Iterable[str]) -> bool:
        """Whether a failed test names one of `reqs`: the fault was caught where it lives."""
        return bool(self.failed_requirements & set(reqs))


def run_suite(
    modules: Sequence[str],
    *,
    faults: Iterable[str] = (),
    variants: Iterable[str] = (),
    keyword: str | None = None,
    first_failure: bool = False,
    extra_args: Sequence[str] = (),
    timeout: float = 600,
    through: Callable[[str], AbstractContextManager[str]] | None = None,
) -> SuiteRun:
    """Run `modules` (names under `suites/`, e.g. `test_tags.py`) against a fresh server.

    `through(base_url)` may wrap the server's API in a proxy (a validating proxy, a
    wire-level fault) and yield the URL the suite should use instead.
    """
    settings = ServerSettings(faults=frozenset(faults), variants=frozenset(variants))
    with (
        tempfile.TemporaryDirectory(prefix="crm-suite-run-") as scratch,
        running_server(settings) as served,
        (through or nullcontext)(served.base_url) as base_url,
    ):
        workdir = Path(scratch)
        target = served.write_target_file(workdir / "target.toml")
        junit = workdir / "junit.xml"
        args = [
            sys.executable,
            "-m",
            "pytest",
            *(str(SUITES_DIR / module) for module in modules),
            "--target",
            str(target),
            "--base-url",
            base_url,
            "--classes",
            "all",  # the opt-in classes too: this server's allowance is nobody else's
            f"--junitxml={junit}",
            "-p",
            "no:cacheprovider",
            "-q",
            "--no-header",
            *(["-k", keyword] if keyword else []),
            *(["-x"] if first_failure else []),
            *extra_args,
        ]
        done = subprocess.run(
            args,
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        results = _results(junit) if junit.exists() else ()
    return SuiteRun(done.returncode, results, done.stdout + done.stderr)


def _results(junit: Path) -> tuple[TestResult, ...]:
    found = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        nodeid = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            element = case.find(tag)
            if element is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                message = (element.get("message") or "")[:500]
                break
        reqs = frozenset(
            str(p.get("value")) for p in case.iter("property") if p.get("name") == "requirement"
        )
        found.append(TestResult(nodeid, outcome, reqs, message))
    return tuple(found)
