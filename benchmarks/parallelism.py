"""What a second CPU-bound Python process gains on this machine: printed, never asserted.

Why: `-n 2` can only take less than `-n 0` by what the machine gives a second process.
Two CPU counts may be two cores, or two hardware threads of one core, which share its
caches: there, two busy interpreters each run much slower than one alone. Each workload
runs alone, then twice at once (two processes started together), in turns; the speed-up
is the work done per second by the two over that of one (2.0: two cores' worth), and a
run that is all CPU-bound work split perfectly between two workers takes at least
1 / speed-up of the one-worker run. Two workloads: an integer loop (the arithmetic units
only) and JSON and dict work (what a quick run's test processes and servers do most:
building, encoding, decoding and checking bodies).

    .venv/bin/python benchmarks/parallelism.py [--rounds 3]
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass


def integer_loop() -> None:
    total = 0
    for number in range(12_000_000):
        total += number


def json_and_dicts() -> None:
    rows = [
        {
            "id": f"c_{n:06d}",
            "name": f"Contact {n}",
            "tags": [{"id": t, "color": "red"} for t in range(5)],
        }
        for n in range(2000)
    ]
    for _ in range(25):
        decoded = json.loads(json.dumps(rows))
        decoded.sort(key=lambda row: (row["name"], row["id"]))


WORKLOADS: dict[str, Callable[[], None]] = {
    "integer loop": integer_loop,
    "JSON and dicts": json_and_dicts,
}


@dataclass(frozen=True)
class Parallelism:
    """One workload: its seconds alone, and each of two processes' seconds at once."""

    name: str
    alone: list[float]
    together: list[float]

    @property
    def speedup(self) -> float:
        return 2 * statistics.median(self.alone) / statistics.median(self.together)

    def line(self) -> str:
        return (
            f"{self.name}: alone {statistics.median(self.alone):.2f} s, two at once "
            f"{statistics.median(self.together):.2f} s each (median of {len(self.alone)}); "
            f"speed-up of two processes {self.speedup:.2f}, so a perfectly split CPU-bound "
            f"run takes at least {1 / self.speedup:.2f} of one process's time"
        )


def _timed_children(name: str, count: int) -> list[float]:
    """Start `count` children running workload `name` together; their own seconds."""
    children = [
        subprocess.Popen(
            [sys.executable, __file__, "--work", name], stdout=subprocess.PIPE, text=True
        )
        for _ in range(count)
    ]
    return [float(child.communicate()[0]) for child in children]


def measure(name: str, *, rounds: int) -> Parallelism:
    alone: list[float] = []
    together: list[float] = []
    for _ in range(rounds):
        alone += _timed_children(name, 1)
        together += _timed_children(name, 2)
    return Parallelism(name, alone, together)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="turns of alone and together")
    parser.add_argument("--work", choices=sorted(WORKLOADS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.work:  # a child: run the workload once, print its seconds
        started = time.perf_counter()
        WORKLOADS[args.work]()
        print(time.perf_counter() - started)
        return
    for name in WORKLOADS:
        print(measure(name, rounds=args.rounds).line(), flush=True)


if __name__ == "__main__":
    main()
