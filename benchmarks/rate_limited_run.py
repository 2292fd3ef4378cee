"""A whole run against a rate-limited reference variant: wall time beside requests ÷ allowance.

Starts the reference server with a rate-limit variant in this process (counting, per
rate-limit bucket, the requests its limiter sees), runs `crm-conformance run` against it
in a child process, and prints the wall time of the run beside the least time the
busiest token's requests need at the variant's allowance (its requests ÷ the allowance
× the window), the tests' outcomes, and what the run's summary says it waited for the
allowance. Printed, never asserted.

    .venv/bin/python benchmarks/rate_limited_run.py [--variant rate_limit_300_per_minute]
        [-n 2] [--classes all] [--timeout 5400]

The run is bounded by --timeout seconds.
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

from crm_conformance.reference import ServerSettings, running_server
from crm_conformance.reference.rate_limits import RateLimiter, SlidingLog

ALLOWANCES = {
    "rate_limit_300_per_minute": (300, 60),
    "sliding_rate_limit": (300, 120),
    "none": (100_000, 60),
}
"""Each variant's per-token allowance: (requests, window seconds); `none` is the reference
server's own generous default, for the run's wall time with no wait at all."""


def counting(seen: dict[str, list[float]], count: Any) -> Any:
    """`count` of a limiter that also notes when each bucket's requests came."""

    def tallied(self: Any, key: str, *args: Any, **kwargs: Any) -> Any:
        seen.setdefault(key, []).append(time.perf_counter())
        return count(self, key, *args, **kwargs)

    return tallied


def fixed_windows(times: list[float], window: int) -> list[tuple[float, int]]:
    """(start, requests) of each fixed window, each starting at the first request after
    the last one ended (the reference's windows)."""
    windows: list[tuple[float, int]] = []
    for moment in times:
        if windows and moment - windows[-1][0] < window:
            windows[-1] = (windows[-1][0], windows[-1][1] + 1)
        else:
            windows.append((moment, 1))
    return windows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--variant", choices=sorted(ALLOWANCES), default="rate_limit_300_per_minute"
    )
    parser.add_argument("-n", dest="workers", type=int, default=2)
    parser.add_argument("--classes", default="all")
    parser.add_argument("--timeout", type=float, default=5400)
    parser.add_argument("--keep", type=Path, help="copy the run's report folder here")
    options = parser.parse_args()
    limit, window = ALLOWANCES[options.variant]
    seen: dict[str, list[float]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="crm-rate-bench-") as scratch,
        mock.patch.object(RateLimiter, "count", counting(seen, RateLimiter.count)),
        mock.patch.object(SlidingLog, "count", counting(seen, SlidingLog.count)),
        running_server(ServerSettings(variants=frozenset({options.variant} - {"none"}))) as served,
    ):
        target = served.write_target_file(Path(scratch) / "target.toml")
        report = Path(scratch) / "report"
        command = [
            str(Path(sys.executable).parent / "crm-conformance"),
            "run",
            "--target",
            str(target),
            "--classes",
            options.classes,
            "-n",
            str(options.workers),
            "--report-dir",
            str(report),
        ]
        started = time.perf_counter()
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=options.timeout, check=False
        )
        wall = time.perf_counter() - started
        summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
        if options.keep:
            shutil.copytree(report, options.keep, dirs_exist_ok=True)
    tally = Counter({key: len(times) for key, times in seen.items()})
    tokens = {key: n for key, n in tally.items() if key.startswith("token:")}
    busiest_key = max(tokens, key=tokens.__getitem__, default="")
    busiest = tokens.get(busiest_key, 0)
    times = seen.get(busiest_key, [])
    windows = fixed_windows(times, window)
    least = busiest / limit * window
    ratio = f" ({wall / least:.2f} × requests ÷ allowance)" if least else ""
    print(f"variant {options.variant}: {limit} requests per {window} s per token")
    print(f"exit code {done.returncode}; tests {summary['tests']}")
    print(f"requests the limiter counted: {sum(tally.values())}, {sum(tokens.values())} on tokens")
    print(f"busiest token: {busiest} requests ÷ allowance = {busiest / limit:.2f} windows")
    print(f"requests ÷ allowance: {least:.0f} s; wall time of the run: {wall:.0f} s{ratio}")
    print(f"the summary's wait for the allowance: {summary.get('rate_limit_wait')}")
    if times:
        print(
            f"the busiest token's requests per {window}-s window from its first (s into the run: "
            "requests): " + ", ".join(f"{start - started:.0f}: {n}" for start, n in windows)
        )
        print(f"its last request: {times[-1] - started:.0f} s into the run")
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")


if __name__ == "__main__":
    main()
