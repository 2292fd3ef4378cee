"""The command that replays a run: the summary's and the verdict's `replay:` line.

Every generating test draws from the run's seed, so the seed, the profile and the classes
give the same cases again, except under a timed profile (`deep`): there each fuzz test
ran rounds until its share of `--fuzz-minutes` was spent, a number another machine (or
the same one, busier) would not reach again. Its replay names the run's own folder
instead: `--fuzz-rounds RUN_DIR` runs each fuzz test as many rounds as its outcome
record says it ran (`OutcomeRecord.rounds`), whatever the time.

The target (`--target`) and pytest's arguments after `--` are the caller's to repeat: a
summary keeps no path of the target file and no pytest argument.
"""

import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from crm_conformance.core.planning import profiles


def classes_option(
    claimed: Iterable[str], every: Iterable[str], default: Iterable[str]
) -> list[str]:
    """`--classes` as the run claimed them: none when the run claimed what no option
    claims (`default`), `all` for every class, else the claimed ones but core."""
    claimed, every_class = list(claimed), list(every)
    if set(claimed) == set(default):
        return []
    if set(claimed) == set(every_class):
        return ["--classes", "all"]
    return ["--classes", ",".join(cls for cls in claimed if cls != "core") or "core"]


def replay_command(
    summary: dict[str, Any], *, report_dir: Path, default_claim: Iterable[str]
) -> str | None:
    """`crm-conformance run ...` drawing the same cases as the run `summary` describes
    (its folder `report_dir`; `default_claim`: what a run without `--classes` claims of
    the same target); None when the run had no seed."""
    seeds = summary.get("seeds") or []
    seed = summary.get("seed") if summary.get("seed") is not None else min(seeds, default=None)
    if seed is None:
        return None
    command = ["crm-conformance", "run", "--seed", str(seed)]
    profile = profiles.profile(summary["profile"])
    if profile.name != profiles.DEFAULT:
        command += ["--profile", profile.name]
    if profile.timed:
        command += ["--fuzz-rounds", str(report_dir)]
    command += classes_option(summary["claimed"], summary["classes"], default_claim)
    return shlex.join(command)
