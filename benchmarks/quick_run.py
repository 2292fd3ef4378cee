"""A quick conformance run against the embedded server, timed and broken down.

`crm-conformance run -n N --seed S` in a child process with `run_breakdown.py` loaded in
every pytest process (`-- -p run_breakdown`); the figures each process wrote say where
the wall time went: before pytest (the runner and Python starting), start-up (plugins),
collection (schema loads among it), tests (setup, call, teardown; HTTP round trips,
sleeps, the wait for the embedded server), the end of the session, and the runner's
work after pytest (summary, Allure files). Printed, never asserted.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent


@dataclass(frozen=True)
class QuickRun:
    """One `crm-conformance run`: its wall time, verdict line and each process's figures."""

    workers: int
    started: float
    ended: float
    verdict: str
    processes: list[dict[str, Any]]

    @property
    def seconds(self) -> float:
        return self.ended - self.started


def quick_run(workers: int, *, seed: int, timeout: float, profile: str = "quick") -> QuickRun:
    """Run `profile` with `workers` forked workers (0: none) and read its figures."""
    with tempfile.TemporaryDirectory(prefix="crm-bench-run-") as scratch:
        figures = Path(scratch) / "figures"
        figures.mkdir()
        path = os.pathsep.join(filter(None, [str(BENCHMARKS), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path, "CRM_BENCH_BREAKDOWN_DIR": str(figures)}
        command = [
            sys.executable,
            "-c",
            "from crm_conformance.cli import main; main()",
            "run",
            "-n",
            str(workers),
            "--seed",
            str(seed),
            "--profile",
            profile,
            "--report-dir",
            str(Path(scratch) / "report"),
            "--",
            "-p",
            "run_breakdown",
        ]
        started = time.time()
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
        ended = time.time()
        verdict = next(
            (line for line in done.stdout.splitlines() if line.startswith("crm-conformance:")),
            f"no verdict (exit {done.returncode}): {done.stderr.strip()[-300:]}",
        )
        processes = [
            json.loads(file.read_text(encoding="utf-8")) for file in sorted(figures.glob("*.json"))
        ]
    processes.sort(key=lambda figures: (figures["process"] != "main", figures["process"]))
    return QuickRun(workers, started, ended, verdict, processes)


def two_worker_floor(run: QuickRun) -> float | None:
    """The wall time `-n 2` would take if its workers cost nothing to start and split the
    tests of this `-n 0` run evenly: the part before the first test and after the last,
    which no worker shares, plus half of the tests' span (sleeps included, as a worker
    sleeping in one test could run others meanwhile, so this is not a strict floor)."""
    main = next((p for p in run.processes if p["process"] == "main"), None)
    if run.workers != 0 or main is None or "first_test" not in main:
        return None
    tests = float(main["last_test"] - main["first_test"])
    return run.seconds - tests + tests / 2


def describe(run: QuickRun) -> list[str]:
    """Lines saying where the seconds of `run` went (+t: seconds since the run started)."""
    lines = [f"-n {run.workers}: {run.seconds:.1f} s wall, {run.verdict}"]
    if not run.processes:
        return [*lines, "  (no figures: the run did not reach pytest)"]
    first = min(process["imported"] for process in run.processes)
    last = max(process.get("unconfigured", run.ended) for process in run.processes)
    lines.append(f"  runner start (Python, runner, pytest imported): {first - run.started:.1f} s")
    for process in run.processes:
        lines += _process_lines(process, run.started)
    lines.append(f"  runner after pytest (summary, Allure files): {run.ended - last:.1f} s")
    return lines


def _process_lines(figures: dict[str, Any], origin: float) -> list[str]:
    def at(key: str) -> str:
        return f"+{figures[key] - origin:.1f}" if key in figures else "-"

    name = figures["process"]
    lines = [
        f"  [{name}] imported {at('imported')} s, start-up (plugins) "
        f"{figures['configured'] - figures['imported']:.1f} s, "
        f"CPU {figures['cpu']:.1f} s (+ {figures['children_cpu']:.1f} s in its children)"
    ]
    if "collection_end" in figures and "collection_start" in figures:
        loads = figures["schema_loads"]
        lines.append(
            f"  [{name}] collection {at('collection_start')} to {at('collection_end')} s: "
            f"{figures['collection_end'] - figures['collection_start']:.1f} s "
            f"(fuzz schema loads: {loads['count']}, {loads['seconds']:.1f} s in all)"
        )
    if "first_test" in figures:
        tests = figures["tests"]
        phases = {key: sum(m[key] for m in tests.values()) for key in ("setup", "call", "teardown")}
        http = figures["http"]
        requests = sum(spent["requests"] for spent in http.values())
        lines.append(
            f"  [{name}] tests {at('first_test')} to {at('last_test')} s: "
            f"{figures['last_test'] - figures['first_test']:.1f} s, "
            + ", ".join(f"{key} {value:.1f}" for key, value in phases.items())
        )
        lines.append(
            f"  [{name}]   HTTP {requests} requests, "
            + ", ".join(
                f"{phase} {spent['requests']} in {spent['seconds']:.1f} s"
                for phase, spent in sorted(http.items())
            )
            + f"; sleeps {figures['sleep']:.1f} s; "
            f"waiting for the embedded server {figures['server_start']:.1f} s"
        )
        slowest = sorted(tests.items(), key=lambda item: -sum(item[1][k] for k in phases))[:5]
        lines.append(
            f"  [{name}]   slowest modules: "
            + ", ".join(
                f"{Path(module).stem} {sum(spent[k] for k in phases):.1f} s ({spent['count']})"
                for module, spent in slowest
            )
        )
    if "session_finish" in figures:
        lines.append(
            f"  [{name}] session end {at('session_finish')} s, "
            f"unconfigured (server stopped) {at('unconfigured')} s"
        )
    return lines
