"""Layer 9, the command line: `crm-conformance`, thin glue over the library modules.

One module a command (or a family of them), each a click command added to `main` here;
`guard` ends every one the same way: an error a user can cause is a `ConformanceError`
carrying its exit code, printed with "Try 'crm-conformance COMMAND --help'".
`run` exits 0 when nothing failed, 1 when a requirement failed (or tests could not run
for setup errors), 2 on a usage or target-file error, 3 when the target is unreachable,
4 on an internal error of pytest or the harness (README, "Exit codes").
"""

import click

from crm_conformance.cli.report_command import report
from crm_conformance.cli.run_command import run
from crm_conformance.cli.selftest_command import selftest
from crm_conformance.cli.serve_command import serve
from crm_conformance.cli.target_commands import adapter_check, smoke, sweep


@click.group()
@click.version_option(package_name="crm-conformance")
def main() -> None:
    """Contract-conformance suite for the Messaging and CRM service API."""


for command in (run, report, smoke, adapter_check, sweep, selftest, serve):
    main.add_command(command)
