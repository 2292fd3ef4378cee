"""The run's pytest process ends at once, without the interpreter's teardown.

Freeing every object of a process that imported pytest, hypothesis, schemathesis and
the harness takes 0.25 to 0.55 s, in which nothing is written, and the runner waits for
it before it writes the summary (issue 14).

`python -m crm_conformance.run.fast_exit ARGS`, used by `crm-conformance run` only (plain
`pytest` is unchanged), is `python -m pytest ARGS` that, once pytest has returned its
exit code (every report written, every plugin unconfigured), runs the atexit handlers,
flushes the standard streams and the logging handlers and ends with that code. The
forked workers of `run -n N` end their own way (`plugin.forks`).

A run started under a debugger or coverage would lose what those write at teardown; a
run is neither, and the project's own tests use plain pytest.
"""

import atexit
import contextlib
import logging
import os
import sys

import pytest


def end_now(code: int) -> None:
    """Flush what Python would flush at exit, then end the process with `code`."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to lose
            stream.flush()
    os._exit(code)


def main() -> None:
    """pytest with this process's arguments; the process ends with pytest's exit code."""
    sys.argv[0] = "pytest"  # usage messages say "pytest", as `python -m pytest` does
    code = pytest.main()
    atexit._run_exitfuncs()  # what the plugins registered, as Python would run it
    end_now(int(code))


if __name__ == "__main__":
    main()
