"""How every command ends: an error a user can cause is one message and its exit code.

Every error a user can cause is a `ConformanceError` carrying its exit code; it is
printed with "Try 'crm-conformance COMMAND --help'" and the command exits with that code.
"""

import sys
from collections.abc import Callable
from typing import Any, TextIO

import click

from crm_conformance._errors import ConformanceError
from crm_conformance.core.hygiene.inert import TEXT_LIMIT, inert
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


def fail(message: str, code: int, command: str) -> None:
    """Exit with `code`, printing `message` with the help hint of `command`."""
    error = _Exit(message, command)
    error.exit_code = code  # type: ignore[misc]  # click reads the instance attribute
    raise error


def guarded(command: str, call: Callable[[], int]) -> None:
    """Run `call` and exit with its code; a `ConformanceError` is one message (`fail`)."""
    try:
        code = call()
    except ConformanceError as exc:
        fail(str(exc), exc.exit_code, command)
        return
    except KeyboardInterrupt:  # before a run's child started, or in another command
        click.echo(f"crm-conformance {command}: interrupted (Ctrl-C)", err=True)
        code = EXIT_INTERRUPTED
    raise SystemExit(code)
