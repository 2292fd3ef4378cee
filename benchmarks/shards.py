"""Sharding measured: the slowest of N shards beside one unsharded run (issue 14, item 2).

    .venv/bin/python benchmarks/shards.py [--shards 2] [--seed 42] [--rounds 2] [-n 0]

Each run is `crm-conformance run --seed S` (quick profile) in a child process against
its own embedded reference server, as a CI machine of a shard matrix runs it:

1. the whole suite, unsharded (its report folder then gives per-test durations);
2. the N shards balanced by module (`--shard K/N`);
3. the N shards balanced by the whole run's durations (`--shard K/N --shard-by DIR`).

In CI each shard has a machine of its own; here they run one after the other, and each
is timed alone. It prints every run's wall time and CPU seconds (its process tree's),
and the ratio of the slowest shard to the whole run, by wall time and by CPU (the CPU
ratio moves less when other work shares the machine). The goal is a ratio of at most
0.6 for 2 shards. It prints the load average beside the figures; it asserts nothing.
Each round repeats the three steps, so that other work falls on all of them.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

CLI = [str(Path(sys.executable).with_name("crm-conformance"))]
"""The command beside this interpreter (run the benchmark with the checkout's .venv)."""


@dataclass(frozen=True)
class Timed:
    label: str
    wall: float
    cpu: float
    exit_code: int


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(label: str, report: Path, seed: int, workers: int, *options: str) -> Timed:
    command = [*CLI, "run", "--seed", str(seed), "-n", str(workers), "--report-dir", str(report)]
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [*command, *options], capture_output=True, text=True, timeout=3600, check=False
    )
    timed = Timed(label, time.perf_counter() - started, _children_cpu() - cpu, done.returncode)
    print(f"  {label}: {timed.wall:.1f} s wall, {timed.cpu:.1f} s CPU, exit {timed.exit_code}")
    return timed


def shards(
    label: str, scratch: Path, count: int, seed: int, workers: int, *options: str
) -> list[Timed]:
    return [
        timed_run(
            f"{label} {k}/{count}",
            scratch / f"{label}-{k}",
            seed,
            workers,
            "--shard",
            f"{k}/{count}",
            *options,
        )
        for k in range(1, count + 1)
    ]


def ratio(parts: list[Timed], whole: Timed) -> str:
    slowest_wall = max(part.wall for part in parts)
    slowest_cpu = max(part.cpu for part in parts)
    return (
        f"slowest shard {slowest_wall:.1f} s wall ({slowest_wall / whole.wall:.2f} of the "
        f"whole), {slowest_cpu:.1f} s CPU ({slowest_cpu / whole.cpu:.2f} of the whole)"
    )


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "-n", dest="workers", type=int, default=0, help="forked workers per run (run -n)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crm-bench-shards-") as folder:
        scratch = Path(folder)
        for number in range(1, args.rounds + 1):
            print(f"round {number} (load average {load()})")
            whole = timed_run("whole", scratch / "whole", args.seed, args.workers)
            by_module = shards("by-module", scratch, args.shards, args.seed, args.workers)
            by_durations = shards(
                "by-durations",
                scratch,
                args.shards,
                args.seed,
                args.workers,
                "--shard-by",
                str(scratch / "whole"),
            )
            print(f"  balanced by module: {ratio(by_module, whole)}")
            print(f"  balanced by the whole run's durations: {ratio(by_durations, whole)}")
            print(f"  (load average {load()})")


if __name__ == "__main__":
    main()
