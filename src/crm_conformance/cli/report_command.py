"""The `report` command: the Allure HTML report of a run, shards merged, two runs compared."""

from pathlib import Path

import click

from crm_conformance._errors import UsageError
from crm_conformance.cli.guard import guarded


@click.command()
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
        from crm_conformance.run.merge import merge_shards
        from crm_conformance.run.verdict import verdict_text

        if out is None or not run_dirs:
            raise UsageError("--merge needs the shards' folders and --out DIR")
        result = merge_shards(run_dirs, out)
        click.echo(verdict_text(result))
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

    guarded("report", compared if compare else merged if merge else call)
