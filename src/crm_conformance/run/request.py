"""What `crm-conformance run` was asked to do, and the checks made of it before any test.

A contradiction between options, a missing file or a token pool the target cannot mint
is one usage error naming the option (exit 2), before a child process starts.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from crm_conformance._errors import TargetFileError, UsageError
from crm_conformance.core.model import paths
from crm_conformance.core.model.target import load_target
from crm_conformance.core.planning.partition import Shard, durations_of
from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """Everything `crm-conformance run` was asked to do."""

    target: Path | None = None
    base_url: str | None = None
    classes: str | None = None
    workers: int = 0
    seed: int | None = None
    profile: str = "quick"
    fuzz_minutes: float | None = None
    fuzz_rounds: Path | None = None
    """An earlier deep run's report folder: each fuzz test runs the rounds it ran there."""
    report_dir: Path | None = None
    pytest_args: Sequence[str] = ()
    rerun_failed: Path | None = None
    waivers: Path | None = None
    certify: bool = False
    shard: str | None = None
    """`K/N`: run the K-th of N balanced parts of the tests
    (`crm_conformance.core.planning.partition`)."""
    shard_by: Path | None = None
    """An earlier run's report folder whose test durations balance the shards."""
    token_pool: int | None = None
    """Full-scope tokens to mint for the run's pool (`token_pool`); None: the target's."""
    suites_dir: Path = field(default_factory=lambda: paths.SUITES_DIR)


def default_report_dir(run_id: str, now: datetime) -> Path:
    return Path("reports") / f"{now.strftime('%Y%m%dT%H%M%SZ')}-{run_id}"


def validate(request: RunRequest) -> None:
    """Refuse contradictory options up front, naming the option (exit 2)."""
    if request.certify:
        for name, given in (
            ("--classes", request.classes),
            ("--waivers", request.waivers),
            ("--rerun-failed", request.rerun_failed),
            ("-- pytest args", tuple(request.pytest_args)),
        ):
            if given:
                raise UsageError(f"--certify runs every class unfiltered: {name} is not allowed")
    if request.workers < 0:
        raise UsageError(f"-n={request.workers}: expected 0 or a positive number of workers")
    if request.target is not None and not request.target.is_file():
        raise TargetFileError(f"--target={request.target}: no such file")
    if request.fuzz_rounds is not None:
        _check_fuzz_rounds(request, request.fuzz_rounds)
    if request.rerun_failed is not None and not (request.rerun_failed / OUTCOMES_FILE).is_file():
        raise UsageError(
            f"--rerun-failed={request.rerun_failed}: no {OUTCOMES_FILE} there; "
            "give the report folder of an earlier run"
        )
    if not request.suites_dir.is_dir():
        raise UsageError(f"the suites folder {request.suites_dir} does not exist")
    if request.shard is not None:
        Shard.parse(request.shard)
        if request.rerun_failed is not None:
            raise UsageError("--rerun-failed reruns one run's failures: --shard is not allowed")
        if request.seed is None:
            raise UsageError(
                f"--shard {request.shard} needs --seed N: the shards of one run must draw the "
                "same generated cases; give every shard the same seed (e.g. the CI pipeline's id)"
            )
    if request.shard_by is not None:
        if request.shard is None:
            raise UsageError(f"--shard-by={request.shard_by}: give --shard K/N too")
        durations_of(request.shard_by)


def _check_fuzz_rounds(request: RunRequest, run_dir: Path) -> None:
    """`--fuzz-rounds RUN_DIR` replays a deep run's rounds: the deep profile, no minutes."""
    if request.profile != "deep":
        raise UsageError(
            f"--fuzz-rounds={run_dir}: rounds are the deep profile's; add --profile deep"
        )
    if request.fuzz_minutes is not None:
        raise UsageError("--fuzz-rounds replays rounds: --fuzz-minutes is not allowed with it")
    if not (run_dir / OUTCOMES_FILE).is_file():
        raise UsageError(
            f"--fuzz-rounds={run_dir}: no {OUTCOMES_FILE} there; "
            "give the report folder of the deep run to replay"
        )


def check_pool(request: RunRequest) -> None:
    """A token pool to mint needs a given target with an adapter: one usage error before
    any test when it has none (the plugin would stop the run at its start)."""
    if request.target is None and request.base_url is None:
        if request.token_pool:
            raise UsageError(
                "--token-pool spreads a given target's requests over several tokens: give "
                "--target (each worker of the embedded reference server tests its own)"
            )
        return
    target = load_target(path=request.target, base_url=request.base_url)
    count = request.token_pool if request.token_pool is not None else target.token_pool
    if count and target.adapter_url is None:
        raise UsageError(
            f"a token pool of {count} is minted through the adapter (feature tokens), and "
            "the target names no adapter_url: add it, or list the tokens in "
            "[tokens.full] values_env"
        )


def public_target(request: RunRequest) -> dict[str, Any]:
    """The target as reports show it: URLs and token role names, never token values.

    Loaded as the harness loads it (`target.load_target`), so a broken file is a usage
    error before any test runs.
    """
    if request.target is None and request.base_url is None:
        return {"base_url": "embedded reference server", "adapter_url": "embedded"}
    target = load_target(path=request.target, base_url=request.base_url)
    shown: dict[str, Any] = {
        "base_url": target.base_url,
        "adapter_url": target.adapter_url,
        "token_roles": sorted(target.tokens),
    }
    if request.target is not None:
        shown["file"] = request.target.name
    return shown
