"""The commands a target's owner runs around a run: `smoke` and `adapter-check` before it,
`sweep` after it.
"""

import json
from pathlib import Path

import click

from crm_conformance._errors import UsageError
from crm_conformance.cli.guard import guarded


@click.command()
@click.option("--target", required=True, type=click.Path(path_type=Path), help="target file")
@click.option("--base-url", help="API root; overrides the target file's base_url")
def smoke(target: Path, base_url: str | None) -> None:
    """Check the setup: reachable, token accepted, a list answers JSON."""
    from crm_conformance.run import smoke as smoke_module

    def call() -> int:
        for line in smoke_module.check(target_path=target, base_url=base_url):
            click.echo(line)
        return 0

    guarded("smoke", call)


@click.command("adapter-check")
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

    guarded("adapter-check", call)


@click.command()
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

    guarded("sweep", call)
