"""The plugin's command-line options, all registered here in one group, validated eagerly.

`--shard`, `--shard-by` (read by `plugin.sharding`) and `--crm-forks` (`plugin.forks`) too.

A bad value is a `pytest.UsageError` naming the flag, the value and the accepted form
(exit 4 under plain pytest; `crm-conformance run` maps it to its usage exit code).
"""

import os
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pytest

from crm_conformance._errors import CatalogueError, UsageError
from crm_conformance.core.planning import profiles
from crm_conformance.core.verdicts import waivers

DEFAULT_REQUEST_BUDGET = 20_000
_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crm-conformance", "contract conformance of the Messaging and CRM API")
    group.addoption(
        "--target",
        dest="crm_target",
        metavar="FILE",
        help="target file (TOML) naming base_url, tokens, adapter_url and conventions",
    )
    group.addoption(
        "--base-url",
        dest="crm_base_url",
        metavar="URL",
        help="API root to test; overrides the target file's base_url (not adapter_url). "
        "Without --target, tokens come from CRM_TOKEN_FULL and CRM_TOKEN_OTHER",
    )
    group.addoption(
        "--classes",
        dest="crm_classes",
        metavar="A,B",
        help="run only these conformance classes (core always runs), e.g. --classes deals,tags; "
        "'all' claims every class, the opt-in ones (rate-limits) included",
    )
    group.addoption(
        "--run-id",
        dest="crm_run_id",
        metavar="ID",
        help="id of this run, used in the prefix of every record it creates (default: random)",
    )
    group.addoption(
        "--request-budget",
        dest="crm_request_budget",
        metavar="N",
        help=f"most requests the run may send, split across workers "
        f"(default {DEFAULT_REQUEST_BUDGET})",
    )
    group.addoption(
        "--profile",
        dest="crm_profile",
        choices=profiles.NAMES,
        help="quick, full or deep: how many generated cases the fuzz tests run; deep runs "
        "rounds until --fuzz-minutes are spent (default: $CRM_PROFILE, else quick)",
    )
    group.addoption(
        "--fuzz-minutes",
        dest="crm_fuzz_minutes",
        metavar="M",
        help=f"the deep profile's time budget, shared by all fuzz tests "
        f"(default: $CRM_FUZZ_MINUTES, else {profiles.DEFAULT_FUZZ_MINUTES:g})",
    )
    group.addoption(
        "--fuzz-rounds",
        dest="crm_fuzz_rounds",
        metavar="RUN_DIR",
        help="the deep profile replaying an earlier run: each fuzz test runs as many rounds "
        "as it ran in that run's outcomes.jsonl (one if it did not run there), not minutes",
    )
    group.addoption(
        "--token-pool",
        dest="crm_token_pool",
        metavar="N",
        help="mint N full-scope tokens through the adapter's tokens feature and give each "
        "forked worker its own (overrides the target file's token_pool)",
    )
    group.addoption("--waivers", dest="crm_waivers", metavar="FILE", help=waivers.HELP)
    group.addoption(
        "--crm-outcomes",
        dest="crm_outcomes",
        metavar="FILE",
        help="write the outcome records of the run (JSON lines, core.outcomes) here",
    )
    group.addoption(
        "--shard",
        dest="crm_shard",
        metavar="K/N",
        help="run only the K-th of N balanced parts of the tests (one per machine of a CI "
        "matrix); merge the report folders with `crm-conformance report --merge`",
    )
    group.addoption(
        "--shard-by",
        dest="crm_shard_by",
        metavar="RUN_DIR",
        help="balance the shards by the test durations of this earlier run's report folder "
        "(default: whole modules, by their number of tests)",
    )
    group.addoption(
        "--crm-shard-record",
        dest="crm_shard_record",
        metavar="FILE",
        help="write what this shard collected and kept (JSON) here",
    )
    group.addoption(
        "--crm-forks",
        type=int,
        default=0,
        metavar="N",
        help="run the collected tests in N forks of this process (crm-conformance run -n N)",
    )


@dataclass(frozen=True)
class Options:
    """The plugin's command-line options, validated."""

    target_path: Path | None
    base_url: str | None
    classes: frozenset[str] | None
    run_id: str
    request_budget: int
    profile: str = profiles.DEFAULT
    fuzz_minutes: float = profiles.DEFAULT_FUZZ_MINUTES
    outcomes: Path | None = None
    waived: Mapping[str, waivers.Waiver] = field(default_factory=dict)
    """Waivers in force, by requirement id."""
    waiver_warnings: tuple[str, ...] = ()
    token_pool: int | None = None
    """`--token-pool N`: tokens to mint for the run's pool; None: the target file's."""

    @property
    def names_a_target(self) -> bool:
        """Whether the run tests a given target (else the embedded reference server)."""
        return self.target_path is not None or self.base_url is not None


def read_options(config: pytest.Config) -> Options:
    """The options of `config`, validated; a bad one raises `pytest.UsageError`."""
    target = config.getoption("crm_target")
    outcomes = config.getoption("crm_outcomes")
    waived, warnings = _waivers(config.getoption("crm_waivers"))
    return Options(
        target_path=Path(target) if target else None,
        base_url=config.getoption("crm_base_url"),
        classes=_classes(config.getoption("crm_classes")),
        run_id=_run_id(config),
        request_budget=_budget(config.getoption("crm_request_budget")),
        profile=_profile(config.getoption("crm_profile")),
        fuzz_minutes=_fuzz_minutes(config.getoption("crm_fuzz_minutes")),
        outcomes=Path(outcomes) if outcomes else None,
        waived=waived,
        waiver_warnings=tuple(warnings),
        token_pool=_token_pool(config.getoption("crm_token_pool")),
    )


def _token_pool(raw: str | None) -> int | None:
    from crm_conformance._errors import TargetFileError
    from crm_conformance.core.model.target import pool_size

    if raw is None:
        return None
    try:
        return pool_size(int(raw) if raw.strip().isdigit() else raw, "--token-pool")
    except TargetFileError as exc:
        raise pytest.UsageError(str(exc)) from None


def _profile(raw: str | None) -> str:
    try:
        return profiles.profile(raw or os.environ.get("CRM_PROFILE") or profiles.DEFAULT).name
    except ValueError as exc:
        raise pytest.UsageError(f"{exc} (from --profile or CRM_PROFILE)") from None


def _fuzz_minutes(raw: str | None) -> float:
    try:
        return profiles.fuzz_minutes(raw)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


def _budget(raw: str | None) -> int:
    if raw is None:
        return DEFAULT_REQUEST_BUDGET
    if not str(raw).isdigit() or int(raw) < 1:
        raise pytest.UsageError(
            f"--request-budget={raw!r}: expected a positive integer, e.g. --request-budget 5000"
        )
    return int(raw)


def _run_id(config: pytest.Config) -> str:
    run_id: str | None = config.getoption("crm_run_id")
    if run_id is not None and not _RUN_ID.match(run_id):
        raise pytest.UsageError(
            f"--run-id={run_id!r}: expected 1 to 40 letters, digits, '-' or '_', "
            "e.g. --run-id nightly-42"
        )
    if run_id is not None:
        return run_id
    workerinput = getattr(config, "workerinput", None)
    return str(workerinput["testrunuid"][:8]) if workerinput else uuid.uuid4().hex[:8]


def _classes(raw: str | None) -> frozenset[str] | None:
    """The claimed classes (core always), from the catalogue's names; None claims none."""
    if raw is None:
        return None
    from crm_conformance.core.model.catalogue import load_catalogue

    try:
        known = list(load_catalogue().classes)
    except CatalogueError as exc:
        raise pytest.UsageError(f"--classes={raw!r}: {exc}") from None
    names = [name.strip() for name in raw.split(",") if name.strip()]
    if names == ["all"]:
        names = known
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        raise pytest.UsageError(
            f"--classes={raw!r}: "
            + (f"unknown class {unknown[0]!r}; " if unknown else "no class named; ")
            + f"expected 'all' or a comma-separated list of: {', '.join(known)}"
        )
    return frozenset({"core", *names})


def _waivers(raw: str | None) -> tuple[dict[str, waivers.Waiver], list[str]]:
    if raw is None:
        return {}, []
    try:
        return waivers.in_force(waivers.load_waivers(Path(raw)), date.today())
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
