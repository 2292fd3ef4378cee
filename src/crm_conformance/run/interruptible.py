"""A child process that Ctrl-C stops cleanly: the child winds down, the parent reports.

`crm-conformance run` runs pytest in a child. Left alone, Ctrl-C reaches both: the
parent's `subprocess.run` kills the child within a quarter second, so nothing is
written, and click prints "Aborted!" with exit 1, the code of a failed requirement.
Here the child runs in a process group of its own; a SIGINT to the parent is passed
on to that group once per signal (xdist's workers are in it), and the parent waits for
the child's own shutdown: pytest stops after the running test and writes its reports
(`reporting.graceful_stop`). The caller learns that it was interrupted and says so
(exit 130, a summary marked interrupted). A second Ctrl-C is passed on too, so pytest's
own abort still works.
"""

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, Any

EXIT_INTERRUPTED = 130
"""What a shell reports for a command stopped by SIGINT (128 + 2)."""


@dataclass(frozen=True)
class Finished:
    """How the child ended: its exit code, and whether the user interrupted it."""

    returncode: int
    interrupted: bool


def run_interruptible(
    command: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdout: IO[Any] | int | None = None,
    notice: str = "",
) -> Finished:
    """Run `command` to its end, passing each SIGINT on to its process group.

    The handler is in place before the child starts: a caught signal is reset to its
    default in an exec'd child, so the child hears SIGINT even when this process was
    started with it ignored (a background job of a non-interactive shell), where an
    inherited "ignore" would let the child run to its end under a report saying
    "interrupted". `notice`, when given, is printed to stderr at the first Ctrl-C: what
    the child does with it, and that a second one stops it at once.
    """
    process: subprocess.Popen[bytes] | None = None
    interrupted = False

    def forward(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupted
        if notice and not interrupted:
            sys.stderr.write(f"\n{notice}\n")
            sys.stderr.flush()
        interrupted = True
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGINT)

    previous = signal.signal(signal.SIGINT, forward)
    try:
        process = subprocess.Popen(
            list(command), cwd=cwd, env=dict(env), stdout=stdout, start_new_session=True
        )
        returncode = process.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    return Finished(returncode, interrupted)


def interrupted_text(
    *,
    target: Path | None,
    base_url: str | None,
    run_id: str,
    ran: int,
    report_dir: Path | None = None,
) -> str:
    """What an interrupted run says: what it covers, and how to sweep what it made (by
    its prefix, or exactly, by the ledger in its report folder)."""
    lines = [f"Interrupted (Ctrl-C) after {ran} tests: the report covers only those."]
    if target is None and base_url is None:
        return lines[0]  # the embedded server stopped with the run: nothing left to sweep
    prefix = f"cc-{run_id}-"
    where = f"--target {target}" if target is not None else "--target FILE"
    lines += [
        f"Records this run made carry the prefix {prefix}; delete them with:",
        f"  crm-conformance sweep {where} --prefix {prefix}",
    ]
    if report_dir is not None:
        lines.append(f"or, exactly those it made: crm-conformance sweep --run {report_dir} {where}")
    return "\n".join(lines)
