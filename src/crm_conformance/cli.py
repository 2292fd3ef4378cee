"""The `crm-conformance` command: thin glue over the library modules.

Every error a user can cause is a `ConformanceError` carrying its exit code; this
module prints it with "Try 'crm-conformance COMMAND --help'" and exits with that code.
`run` exits 0 when nothing failed, 1 when a requirement failed (or tests could not run
for setup errors), 2 on a usage or target-file error, 3 when the target is unreachable,
4 on an internal error of pytest or the harness (README, "Exit codes").
"""

import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

import click

from crm_conformance._errors import ConformanceError, UsageError
from crm_conformance.core.hygiene.inert import TEXT_LIMIT, inert
from crm_conformance.core.planning import profiles
from crm_conformance.core.verdicts import waivers
from crm_conformance.run.interruptible import EXIT_INTERRUPTED


class _Exit(click.ClickException):
    """A ConformanceError as click prints it, with the command's help hint."""

    def __init__(self, message: str, command: str) -> None:
        # A message may quote the target (smoke's error code, a probe's Content-Type).
        shown = inert(message, limit=TEXT_LIMIT, lines=True)
        super().__init__(f"{shown}\nTry 'crm-conformance {command} --help'.")

    def show(self, file: Any = None) -> None:
        click.echo(clip_lines(f"Error: {self.format_message()}", sys.stderr), err=True)


LONGEST_LOG_LINE = 600
"""Most characters of one line written to stderr when it is not a terminal (a CI log)."""


def clip_lines(text: str, stream: TextIO) -> str:
    """`text`, each line cut to LONGEST_LOG_LINE characters unless `stream` is a terminal."""
    if stream.isatty():
        return text
    return "\n".join(
        line if len(line) <= LONGEST_LOG_LINE else line[: LONGEST_LOG_LINE - 3] + "..."
        for line in text.splitlines()
    )


def _fail(message: str, code: int, command: str) -> None:
    error = _Exit(message, command)
    error.exit_code = code  # type: ignore[misc]  # click reads the instance attribute
    raise error


def _guarded(command: str, call: Callable[[], int]) -> None:
    try:
        code = call()
    except ConformanceError as exc:
        _fail(str(exc), exc.exit_code, command)
        return
    except KeyboardInterrupt:  # before a run's child started, or in another command
        click.echo(f"crm-conformance {command}: interrupted (Ctrl-C)", err=True)
        code = EXIT_INTERRUPTED
    raise SystemExit(code)


@click.group()
@click.version_option(package_name="crm-conformance")
def main() -> None:
    """Contract-conformance suite for the Messaging and CRM service API."""


@main.command(context_settings={"ignore_unknown_options": False})
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

    request = runner.RunRequest(
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
        click.echo(runner.verdict_text(result))
        return result.exit_code

    _guarded("run", call)


@main.command()
@click.argument("run_dirs", nargs=-1, type=click.Path(path_type=Path), metavar="RUN_DIR...")
@click.option(
    "--history",
    type=click.Path(path_type=Path),
    metavar="PREVIOUS_RUN_DIR",
    help="carry the trend history of this earlier run's report",
)
@click.option(
    "--merge",
    is_flag=True,
    help="merge the report folders of a run's shards (RUN_DIR...) into --out",
)
@click.option("--out", type=click.Path(path_type=Path), metavar="DIR", help="with --merge")
@click.option(
    "--diff",
    "compare",
    is_flag=True,
    help="list the requirements whose verdict changed from OLD_RUN to NEW_RUN (RUN_DIR...)",
)
def report(
    run_dirs: tuple[Path, ...], history: Path | None, merge: bool, out: Path | None, compare: bool
) -> None:
    """Build the Allure HTML report of RUN_DIR (default: the newest folder under reports/).

    With --merge, join the shards' folders into one report folder instead (summary,
    junit.xml, allure-results, and the certificate of a certified run); the exit code
    is the merged run's. With --diff OLD_RUN NEW_RUN, list each requirement whose verdict
    changed, old → new with its cause; exit 1 when one passed before and fails now.
    """
    from crm_conformance.run import html_report

    def compared() -> int:
        from crm_conformance.reporting.diff import diff_runs

        if len(run_dirs) != 2 or merge:
            raise UsageError("--diff needs two report folders: OLD_RUN NEW_RUN")
        changes = diff_runs(*run_dirs)
        click.echo(changes.text())
        return changes.exit_code

    def merged() -> int:
        from crm_conformance.run import runner
        from crm_conformance.run.merge import merge_shards

        if out is None or not run_dirs:
            raise UsageError("--merge needs the shards' folders and --out DIR")
        result = merge_shards(run_dirs, out)
        click.echo(runner.verdict_text(result))
        return result.exit_code

    def call() -> int:
        if len(run_dirs) > 1:
            raise UsageError(f"{len(run_dirs)} folders given: one, or --merge for shards")
        from crm_conformance.reporting.views import rewrite_views

        run_dir = run_dirs[0] if run_dirs else html_report.latest_run(Path("reports"))
        if (run_dir / "summary.json").is_file():
            click.echo(f"The document coloured by verdict: {rewrite_views(run_dir)}")
        built = html_report.build(run_dir, history)
        click.echo(f"HTML report: {built.single_file}")
        click.echo(f"Multi-file report: {built.directory / 'index.html'}")
        return 0

    _guarded("report", compared if compare else merged if merge else call)


@main.command()
@click.option("--target", required=True, type=click.Path(path_type=Path), help="target file")
@click.option("--base-url", help="API root; overrides the target file's base_url")
def smoke(target: Path, base_url: str | None) -> None:
    """Check the setup: reachable, token accepted, a list answers JSON."""
    from crm_conformance.run import smoke as smoke_module

    def call() -> int:
        for line in smoke_module.check(target_path=target, base_url=base_url):
            click.echo(line)
        return 0

    _guarded("smoke", call)


@main.command("adapter-check")
@click.option("--target", required=True, type=click.Path(path_type=Path), help="target file")
@click.option("--base-url", help="API root; overrides the target file's base_url")
def adapter_check(target: Path, base_url: str | None) -> None:
    """Check the provisioning adapter feature by feature, before any conformance run.

    Exit 0 when every feature GET /v1/health lists is ready, 1 when one is broken.
    """
    from crm_conformance.adapter_check import command as adapter_check_module

    def call() -> int:
        checked = adapter_check_module.check_adapter(target_path=target, base_url=base_url)
        click.echo(checked.text())
        return checked.exit_code

    _guarded("adapter-check", call)


@main.command()
@click.option("--target", type=click.Path(path_type=Path), help="target file")
@click.option("--base-url", help="API root; overrides the target file's base_url")
@click.option("--prefix", default="cc-", show_default=True, help="run prefix of records to delete")
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
    help="a run's report folder: delete exactly the records its created.jsonl lists",
)
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
def sweep(
    target: Path | None, base_url: str | None, prefix: str, run_dir: Path | None, as_json: bool
) -> None:
    """Delete records earlier runs created; list what remains.

    With --run, the records the run's ledger lists (created.jsonl), through the adapter,
    whatever lists the server offers; --target defaults to the adapter the run's summary
    names. Else every record carrying the run prefix, found by listing each resource.
    Exit 0 when nothing found remains, 1 when something remains or a list could not be
    read.
    """
    from crm_conformance.run import ledger_sweep
    from crm_conformance.run import sweep as sweep_module

    def call() -> int:
        result: ledger_sweep.LedgerSweep | sweep_module.SweepResult
        if run_dir is not None:
            result = ledger_sweep.sweep_run(run_dir=run_dir, target_path=target, base_url=base_url)
        elif target is None:
            raise UsageError("give --target FILE (or --run RUN_DIR)")
        else:
            result = sweep_module.sweep(target_path=target, base_url=base_url, prefix=prefix)
        if as_json:
            click.echo(json.dumps(result.as_dict(), indent=2))
        else:
            click.echo(result.describe())
        return result.exit_code

    _guarded("sweep", call)


@main.command()
@click.option("--faults", metavar="NAMES", help="only these faults (comma-separated); default all")
@click.option(
    "--variants", metavar="NAMES", help="only these variants (comma-separated); default all"
)
@click.option(
    "--chaos",
    metavar="NAMES",
    help="only these chaos modes (transport faults at a rate; comma-separated); default all",
)
@click.option(
    "--sample", type=int, metavar="N", help="a fixed sample of N faults, variants, chaos modes"
)
@click.option("--workers", type=int, help="jobs at once; default one per core (2 on CI)")
@click.option(
    "--report-dir", type=click.Path(path_type=Path), help="default reports/selftest-<time>"
)
@click.option("--suites", metavar="NAMES", help="only these suite modules, e.g. test_tags.py")
def selftest(
    faults: str | None,
    variants: str | None,
    chaos: str | None,
    sample: int | None,
    workers: int | None,
    report_dir: Path | None,
    suites: str | None,
) -> None:
    """Run the suites against every fault, legal variant and chaos mode; write the kill
    matrix.

    Exit 0 only when every fault is killed, every variant (and the clean server) passes,
    and every chaos run passes (no test failed, few lost to its transport faults).
    """
    from crm_conformance import selftest as selftest_module

    request = selftest_module.SelftestRequest(
        faults=faults,
        variants=variants,
        chaos=chaos,
        sample=sample,
        workers=workers,
        report_dir=report_dir,
        suites=suites,
    )
    _guarded("selftest", lambda: selftest_module.run_selftest(request, echo=click.echo).exit_code)


_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _adapter_secret(name: str, environ: Mapping[str, str], no_adapter: bool) -> str:
    """The secret of `serve --adapter-token-env NAME`, or exit 2 saying what is wrong."""
    if no_adapter:
        _fail("--adapter-token-env with --no-adapter: there is no adapter to protect", 2, "serve")
    value = environ.get(name, "")
    if not value.strip() or value != value.strip():
        _fail(
            f"--adapter-token-env={name}: the environment variable {name} is not set, empty or "
            f"has surrounding whitespace; export {name}=<secret>",
            2,
            "serve",
        )
    return value


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="loopback address only")
@click.option("--port", type=int, default=0, show_default=True, help="0 picks a free port")
@click.option("--db", default=":memory:", show_default=True, help="SQLite file or :memory:")
@click.option(
    "--target-out",
    type=click.Path(path_type=Path),
    help="write the target file (TOML, tokens inline) here",
)
@click.option("--rate-limit", type=click.IntRange(min=1), help="requests per token per window")
@click.option("--rate-window", type=click.IntRange(min=1), help="rate-limit window in seconds")
@click.option("--fault", "faults", multiple=True, metavar="NAME", help="switch a fault on")
@click.option("--variant", "variants", multiple=True, metavar="NAME", help="switch a variant on")
@click.option("--no-adapter", is_flag=True, help="do not serve the provisioning adapter")
@click.option(
    "--adapter-fault",
    "adapter_faults",
    multiple=True,
    metavar="NAME",
    help="break the adapter (not the server), e.g. adapter_ignores_workspace",
)
@click.option(
    "--adapter-token-env",
    metavar="NAME",
    help="the adapter requires the secret in this environment variable "
    "(Authorization: Bearer); --target-out names the variable, never the value",
)
def serve(
    host: str,
    port: int,
    db: str,
    target_out: Path | None,
    rate_limit: int | None,
    rate_window: int | None,
    faults: tuple[str, ...],
    variants: tuple[str, ...],
    no_adapter: bool,
    adapter_faults: tuple[str, ...],
    adapter_token_env: str | None,
) -> None:
    """Serve the reference server on loopback until SIGINT or SIGTERM."""
    import logging
    import os
    import signal

    import uvicorn

    from crm_conformance.reference import ServerSettings, create_app
    from crm_conformance.reference.server import bind, served_target

    if host not in _LOOPBACK:
        _fail(f"--host={host}: the reference server binds loopback only", 2, "serve")
    options: dict[str, Any] = {
        "db": db,
        "adapter": not no_adapter,
        "adapter_faults": frozenset(adapter_faults),
    }
    if adapter_token_env is not None:
        options["adapter_token"] = _adapter_secret(adapter_token_env, os.environ, no_adapter)
    if rate_limit is not None:
        options["rate_limit"] = rate_limit
    if rate_window is not None:
        options["rate_window"] = rate_window
    try:
        settings = ServerSettings(faults=frozenset(faults), variants=frozenset(variants), **options)
    except ValueError as exc:
        _fail(str(exc), 2, "serve")
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    app = create_app(settings)
    try:
        sock = bind("127.0.0.1" if host == "localhost" else host, port)
    except OSError as exc:
        _fail(f"--port={port}: cannot listen ({exc})", 2, "serve")
        return
    bound_host, bound_port = sock.getsockname()[:2]
    served = served_target(
        bound_host,
        bound_port,
        app.seeded_tokens,
        app.adapter_mounted,
        app.conventions,
        adapter_token_env=adapter_token_env,
    )
    if target_out is not None:
        served.write_target_file(target_out)
    click.echo(f"Reference server at {served.base_url}")
    if served.adapter_url:
        guarded = f" (requires the secret in ${adapter_token_env})" if adapter_token_env else ""
        click.echo(f"Provisioning adapter at {served.adapter_url}{guarded}")
    if target_out is not None:
        click.echo(f"Target file: {target_out}")
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    )
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then re-raises the signal to the
    # handler that was in place before it; a no-op one makes the stop a clean exit 0.
    for stop_signal in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop_signal, lambda *_: None)
    server.run(sockets=[sock])
    app.store.close()
    click.echo("Reference server stopped.")
