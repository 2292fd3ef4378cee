"""Whole runs against a rate-limited reference variant: wall time beside requests ÷ allowance.

For each configuration, starts the reference server with a rate-limit variant in this
process (counting, per rate-limit bucket, the requests its limiter sees), runs
`crm-conformance run` against it in a child process (with `--token-pool N` when the
configuration has a pool), and prints the wall time beside the least time the tokens'
requests need at the variant's allowance (requests ÷ (allowance × tokens) × window, and
the busiest token's requests ÷ allowance × window), the requests per token, the tests'
outcomes and what the summary says each token waited. Then the 20 heaviest tests and
requirements by requests sent (the outcome records' `requests`). Printed, never asserted.

    .venv/bin/python benchmarks/rate_limited_run.py [--config issue22 | VARIANT:N:POOL ...]
        [--classes all] [--timeout 5400] [--keep DIR]

`--config` takes `variant:workers:pool` (e.g. `rate_limit_300_per_minute:4:4`), or
`issue22` for issue 22's three: no pool `-n 2`; a pool of 4 `-n 4`; the sliding window
300/120 s with a pool of 4 `-n 4`. Each run is bounded by --timeout seconds.
"""

import argparse
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from child_run import run_against

from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE, read_records
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


ISSUE22 = (
    "rate_limit_300_per_minute:2:0",
    "rate_limit_300_per_minute:4:4",
    "sliding_rate_limit:4:4",
)
"""Issue 22's configurations: no pool `-n 2`; a pool of 4 `-n 4`; 300/120 s, pool of 4."""

HEAVIEST = 20


@dataclass(frozen=True)
class Config:
    variant: str
    workers: int
    pool: int

    @classmethod
    def parse(cls, text: str) -> "Config":
        variant, workers, pool = text.split(":")
        if variant not in ALLOWANCES:
            raise SystemExit(f"{variant}: not one of {', '.join(sorted(ALLOWANCES))}")
        return cls(variant, int(workers), int(pool))

    def __str__(self) -> str:
        pool = f"pool of {self.pool}" if self.pool else "no pool"
        return f"{self.variant}, {pool}, -n {self.workers}"


def run_one(config: Config, classes: str, timeout: float, keep: Path | None) -> list[Any]:
    """Run the suites once under `config`; print its figures; return its outcome records."""
    limit, window = ALLOWANCES[config.variant]
    seen: dict[str, list[float]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="crm-rate-bench-") as scratch,
        mock.patch.object(RateLimiter, "count", counting(seen, RateLimiter.count)),
        mock.patch.object(SlidingLog, "count", counting(seen, SlidingLog.count)),
        running_server(ServerSettings(variants=frozenset({config.variant} - {"none"}))) as served,
    ):
        pool = ["--token-pool", str(config.pool)] if config.pool else []
        ran = run_against(
            served,
            Path(scratch),
            *("--classes", classes, "-n", str(config.workers), *pool),
            timeout=timeout,
        )
        done, started, wall = ran.done, ran.started, ran.wall
        report, summary = ran.report, ran.summary
        records = list(read_records(report / OUTCOMES_FILE))
        if keep:
            shutil.copytree(report, keep / config.variant / str(config.pool), dirs_exist_ok=True)
    tally = Counter({key: len(times) for key, times in seen.items()})
    tokens = {key: n for key, n in tally.items() if key.startswith("token:")}
    carriers = sorted(tokens.values(), reverse=True)[: max(1, config.pool)]
    busiest_key = max(tokens, key=tokens.__getitem__, default="")
    busiest = tokens.get(busiest_key, 0)
    times = seen.get(busiest_key, [])
    least = busiest / limit * window
    spread = sum(carriers) / (limit * len(carriers)) * window if carriers else 0.0
    print(f"== {config}: {limit} requests per {window} s per token, --classes {classes}")
    print(f"exit code {done.returncode}; tests {summary['tests']}")
    print(f"requests the limiter counted: {sum(tally.values())}, {sum(tokens.values())} on tokens")
    per_token = ", ".join(map(str, sorted(tokens.values(), reverse=True)))
    print(f"requests per token, busiest first: {per_token}")
    print(f"the {len(carriers)} busiest tokens (the run's api tokens) carried {sum(carriers)}")
    print(
        f"requests ÷ (allowance × tokens): {spread:.0f} s; busiest token ÷ allowance: {least:.0f} s"
    )
    print(
        f"wall time of the run: {wall:.0f} s"
        + (f" ({wall / least:.2f} × busiest)" if least else "")
    )
    print(f"the summary's wait for the allowance: {summary.get('rate_limit_wait')}")
    print(f"the summary's tokens: {summary.get('tokens')}")
    if times:
        windows = fixed_windows(times, window)
        print(
            f"the busiest token's requests per {window}-s window from its first (s into the run: "
            "requests): " + ", ".join(f"{start - started:.0f}: {n}" for start, n in windows)
        )
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
    return records


def print_heaviest(records: list[Any]) -> None:
    """The tests and requirements that sent the most requests to the API."""
    print(f"total requests the tests sent: {sum(r.requests for r in records)}")
    print(f"the {HEAVIEST} heaviest tests (requests):")
    for record in sorted(records, key=lambda r: -r.requests)[:HEAVIEST]:
        print(f"  {record.requests:5d}  {record.nodeid}")
    per_requirement: Counter[str] = Counter()
    for record in records:
        for req_id in record.requirements:
            per_requirement[req_id] += record.requests
    print(f"the {HEAVIEST} heaviest requirements (requests of the tests naming them):")
    for req_id, n in per_requirement.most_common(HEAVIEST):
        print(f"  {n:5d}  {req_id}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", nargs="+", default=["rate_limit_300_per_minute:2:0"])
    parser.add_argument("--classes", default="all")
    parser.add_argument("--timeout", type=float, default=5400)
    parser.add_argument("--keep", type=Path, help="copy the runs' report folders here")
    options = parser.parse_args()
    texts = ISSUE22 if options.config == ["issue22"] else options.config
    records: list[Any] = []
    for text in texts:
        records = run_one(Config.parse(text), options.classes, options.timeout, options.keep)
        print_heaviest(records)


if __name__ == "__main__":
    main()
