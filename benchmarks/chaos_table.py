"""A whole run behind each transport fault: the verdict a vendor gets through a bad network.

For each chaos mode (`chaos.py`: a gateway's 502 before the service, a 504 after it did
the work, a connection dropped mid-body, sporadic 429s, a slow tail), starts a fresh
reference server with the wire-fault proxy committing that mode in front of it, runs
`crm-conformance run` through the proxy in a child process, and prints one row: the
requests struck, the tests by outcome, the share passed, the requirements failed, what
the summary counts as retried and lost, and the headline. Printed, never asserted; the
self-test's chaos rows are the asserted form, on fewer modules.

    .venv/bin/python benchmarks/chaos_table.py [--modes gateway_502,...] [-n 2]
        [--classes all] [--tail 2.5] [--seed 0] [--timeout 1800] [--keep DIR]

The slow tail defaults to 2.5 s late (the self-test uses 0.3 s to stay quick). Each
run is bounded by --timeout seconds.
"""

import argparse
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from child_run import run_against

from crm_conformance.reference import running_server
from crm_conformance.selftest.chaos import CHAOS_MODES, CHAOS_SEED, Chaos
from crm_conformance.selftest.wire_faults import running_wire_proxy


def run_behind(mode: str, options: argparse.Namespace) -> dict[str, Any]:
    """One whole run through the proxy committing `mode`; what its report folder says."""
    chaos = Chaos(mode, seed=options.seed, tail=options.tail)
    with (
        tempfile.TemporaryDirectory(prefix="crm-chaos-bench-") as scratch,
        running_server() as served,
        running_wire_proxy(served.base_url, [], chaos=chaos) as origin,
    ):
        ran = run_against(
            served,
            Path(scratch),
            *("--base-url", origin, "--classes", options.classes, "-n", str(options.workers)),
            timeout=options.timeout,
        )
        if options.keep:
            shutil.copytree(ran.report, options.keep / mode, dirs_exist_ok=True)
    summary = ran.summary
    outcomes = Counter(summary["tests"])
    failed = sorted(
        rid for rid, row in summary["requirements"].items() if row["verdict"] == "failed"
    )
    return {
        "mode": mode,
        "struck": chaos.struck,
        "exit": ran.done.returncode,
        "wall": ran.wall,
        "outcomes": outcomes,
        "failed": failed,
        "retried": summary["retried"],
        "unavailable": summary["unavailable"],
        "waited": summary["rate_limit_wait"],
        "headline": summary["headline"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default=",".join(CHAOS_MODES))
    parser.add_argument("-n", dest="workers", type=int, default=2)
    parser.add_argument("--classes", default="all")
    parser.add_argument("--tail", type=float, default=2.5, help="seconds a slow answer is late")
    parser.add_argument("--seed", type=int, default=CHAOS_SEED)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--keep", type=Path, help="copy each run's report folder to KEEP/MODE")
    options = parser.parse_args()
    print(
        "| Fault on the wire | Struck | Tests | Passed (of applicable) | Failed requirements "
        "| Retried | 429s waited | Lost | Wall | Verdict |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mode in options.modes.split(","):
        row = run_behind(mode, options)
        judged = sum(row["outcomes"].values()) - row["outcomes"]["not_applicable"]
        share = row["outcomes"]["passed"] / judged if judged else 0.0
        by_outcome = ", ".join(f"{n} {name}" for name, n in sorted(row["outcomes"].items()))
        print(
            f"| {mode} ({CHAOS_MODES[mode].rate:.0%}) | {row['struck']} | {by_outcome} "
            f"| {share:.1%} | {len(row['failed'])} {' '.join(row['failed'])} "
            f"| {row['retried']} | {row['waited']['429s']} ({row['waited']['seconds']} s) "
            f"| {row['unavailable']} | {row['wall']:.0f} s "
            f"| exit {row['exit']}: {row['headline']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
