"""The `run` command: the suites against a target, the embedded reference server when none is
given.
"""

from pathlib import Path

import click

from crm_conformance.cli.guard import guarded
from crm_conformance.core.planning import profiles
from crm_conformance.core.verdicts import waivers


@click.command(context_settings={"ignore_unknown_options": False})
@click.option("--target", type=click.Path(path_type=Path), help="target file (TOML)")
@click.option("--base-url", help="API root; overrides the target file's base_url")
@click.option(
    "--classes",
    help="only these conformance classes, e.g. deals,tags (core always); "
    "'all' adds the opt-in rate-limits class against your target",
)
@click.option(
    "-n",
    "workers",
    type=int,
    default=0,
    show_default=True,
    help="processes running tests at once (forks of one that collected them)",
)
@click.option("--seed", type=int, help="hypothesis seed, for a reproducible run")
@click.option(
    "--profile",
    type=click.Choice(profiles.NAMES),
    default=profiles.DEFAULT,
    show_default=True,
    help="generated cases of the fuzz tests; deep: rounds until --fuzz-minutes are spent",
)
@click.option(
    "--fuzz-minutes",
    type=click.FloatRange(min=0, min_open=True),
    metavar="M",
    help=f"the deep profile's time budget for all fuzz tests "
    f"(default {profiles.DEFAULT_FUZZ_MINUTES:g})",
)
@click.option(
    "--fuzz-rounds",
    type=click.Path(path_type=Path),
    metavar="RUN_DIR",
    help="with --profile deep, replay that run: each fuzz test runs the rounds it ran there "
    "(the summary's replay line gives it)",
)
@click.option(
    "--report-dir", type=click.Path(path_type=Path), help="default reports/<time>-<run id>"
)
@click.option("--list", "list_only", is_flag=True, help="list tests, ids and classes; send nothing")
@click.option(
    "--by-feature",
    is_flag=True,
    help="with --list: what each adapter feature unlocks (learnt by running the suites "
    "against the embedded reference server; nothing is sent to your target)",
)
@click.option(
    "--rerun-failed",
    type=click.Path(path_type=Path),
    metavar="RUN_DIR",
    help="rerun the failed, errored and blocked tests of an earlier run",
)
@click.option("--waivers", type=click.Path(path_type=Path), metavar="FILE", help=waivers.HELP)
@click.option("--certify", is_flag=True, help="every class, no filters; write a certificate")
@click.option(
    "--shard",
    metavar="K/N",
    help="run the K-th of N balanced parts of the tests (one per CI machine); "
    "merge the folders with `report --merge`",
)
@click.option(
    "--shard-by",
    type=click.Path(path_type=Path),
    metavar="RUN_DIR",
    help="balance the shards by the test durations of this earlier run (default: by module)",
)
@click.option(
    "--token-pool",
    type=click.IntRange(min=0),
    metavar="N",
    help="mint N full-scope tokens through the adapter (feature tokens) and spread the "
    "run's requests over them, one per worker; revoked at the end (target key token_pool)",
)
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def run(
    target: Path | None,
    base_url: str | None,
    classes: str | None,
    workers: int,
    seed: int | None,
    profile: str,
    fuzz_minutes: float | None,
    fuzz_rounds: Path | None,
    report_dir: Path | None,
    list_only: bool,
    by_feature: bool,
    rerun_failed: Path | None,
    waivers: Path | None,
    certify: bool,
    shard: str | None,
    shard_by: Path | None,
    token_pool: int | None,
    pytest_args: tuple[str, ...],
) -> None:
    """Run the suites against a target (the embedded reference server when none is given).

    Arguments after `--` go to pytest unchanged.
    """
    from crm_conformance.run import runner
    from crm_conformance.run.request import RunRequest
    from crm_conformance.run.verdict import verdict_text

    request = RunRequest(
        target=target,
        base_url=base_url,
        classes=classes,
        workers=workers,
        seed=seed,
        profile=profile,
        fuzz_minutes=fuzz_minutes,
        fuzz_rounds=fuzz_rounds,
        report_dir=report_dir,
        pytest_args=pytest_args,
        rerun_failed=rerun_failed,
        waivers=waivers,
        certify=certify,
        shard=shard,
        shard_by=shard_by,
        token_pool=token_pool,
    )

    def call() -> int:
        if by_feature:
            from crm_conformance.adapter import features as adapter_features

            click.echo(adapter_features.by_feature(request.suites_dir, list_only=list_only))
            return 0
        if list_only:
            for test in runner.list_tests(request):
                ids = ",".join(test["requirements"]) or "-"
                click.echo(f"{test['nodeid']}  [{ids}]  ({','.join(test['classes']) or '-'})")
            return 0
        result = runner.run(request)
        click.echo(verdict_text(result))
        return result.exit_code

    guarded("run", call)
