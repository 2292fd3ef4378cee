"""A finished pytest process of a run ends at once, without the interpreter's teardown.

Freeing every object of a process that imported pytest, hypothesis, schemathesis and
the harness takes 0.25 to 0.55 s, in which nothing is written. Each pytest process of a
run pays it after its last word: the xdist controller waits for its workers' teardown
before it ends its own, and the runner waits for the controller's before it writes the
summary (issue 14, where the end of a `-n 2` quick run did not split).

Two roles, both used by `crm-conformance run` only (plain `pytest` is unchanged):

- `python -m crm_conformance.fast_exit ARGS` is `python -m pytest ARGS` that, once
  pytest has returned its exit code (every report written, every plugin unconfigured),
  runs the atexit handlers, flushes the standard streams and the logging handlers and
  ends with that code.
- Loaded with `-p`, as a plugin, it makes each xdist worker whose session finished
  (its results already sent to the controller) end the same way. It does so from an
  atexit handler registered as the plugin is imported, before the plugins and the
  tests register theirs: handlers run last registered first, so theirs have run by
  then. A worker that never finished its session ends as Python ends it.

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


_finished_worker: list[bool] = []
"""Holds True once this process is an xdist worker whose session finished."""


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None and "exitstatus" in workeroutput:  # set at its sessionfinish
        _finished_worker.append(True)


def _end_finished_worker() -> None:
    if _finished_worker:
        end_now(0)


if __name__ != "__main__":  # the plugin's copy; `python -m` runs a second, as __main__
    atexit.register(_end_finished_worker)


def main() -> None:
    """pytest with this process's arguments; the process ends with pytest's exit code."""
    sys.argv[0] = "pytest"  # usage messages say "pytest", as `python -m pytest` does
    code = pytest.main()
    atexit._run_exitfuncs()  # what the plugins registered, as Python would run it
    end_now(int(code))


if __name__ == "__main__":
    main()
