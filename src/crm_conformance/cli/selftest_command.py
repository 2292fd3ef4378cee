"""The `selftest` command: the kill matrix of the suites."""

from pathlib import Path

import click

from crm_conformance.cli.guard import guarded


@click.command()
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
    guarded("selftest", lambda: selftest_module.run_selftest(request, echo=click.echo).exit_code)
