"""The embedded reference server, served from a child process of the test process.

Why a child process: served from a thread of the test process, the server and the
tests share one interpreter lock, so a run used one core however many xdist workers
it had (issue 14: 34.4 s with `-n 0`, 34.8 s with `-n 2`). Each pytest process that
needs the server (the only one with `-n 0`, each worker with `-n N`) starts its own
child, so workers never queue behind one another's server.
Why started early: `spawn` returns at once and `target` waits for the child's first
line, so the server boots while pytest collects the suites.
Why stdin: the child serves until its standard input closes, which happens when the
test process stops it or dies in any way, so no server outlives its run; and it ignores
Ctrl-C, which the run's whole process group receives while the run lets its running
tests finish against it. It then ends
at once (`os._exit`): its database is in memory and belongs to the run, so a graceful
shutdown and the interpreter's teardown would save nothing, and each test process
waited 0.25 s for them at its end (issue 14).
"""

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from crm_conformance.core.model.target import Target, target_from_served

START_TIMEOUT = 60.0
"""Seconds the child may take to print its address (generous: CI machines are loaded)."""
STOP_TIMEOUT = 10.0


@dataclass(frozen=True)
class _Served:
    """The child's first line, in the shape `target_from_served` reads."""

    base_url: str
    adapter_url: str | None
    tokens: Mapping[str, str]
    conventions: Mapping[str, Any]


class EmbeddedServer:
    """A reference server running in a child process; `target()` waits until it serves."""

    def __init__(self, process: "subprocess.Popen[bytes]", errors: IO[bytes]) -> None:
        self._process = process
        self._errors = errors
        self._target: Target | None = None

    @classmethod
    def spawn(cls) -> "EmbeddedServer":
        """Start the child and return without waiting for it."""
        # A file, not a pipe: a pipe nobody reads could fill and stall the child. Closed by stop().
        errors = tempfile.TemporaryFile()  # noqa: SIM115  # outlives this call: stop() closes it
        process = subprocess.Popen(
            [sys.executable, "-m", "crm_conformance.plugin.embedded"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        return cls(process, errors)

    @property
    def pid(self) -> int:
        """The child's process id (the benchmarks read its CPU time)."""
        return self._process.pid

    def target(self) -> Target:
        """The served target, once the child printed it; RuntimeError says why it did not."""
        if self._target is None:
            line = self._first_line()
            self._target = target_from_served(_Served(**json.loads(line)))
        return self._target

    def _first_line(self) -> bytes:
        stdout = self._process.stdout
        assert stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                if time.monotonic() >= deadline:
                    self.stop()
                    raise RuntimeError(f"no answer from the server process in {START_TIMEOUT} s")
        line = stdout.readline()
        if not line:
            self._process.wait(timeout=STOP_TIMEOUT)
            raise RuntimeError(
                f"the server process exited with code {self._process.returncode}: "
                + self._last_error_line()
            )
        return line

    def _last_error_line(self) -> str:
        self._errors.seek(0)
        lines = self._errors.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "(nothing on stderr)"

    def stop(self) -> None:
        """Close the child's stdin (it stops serving) and wait for it; kill it if it hangs."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._errors.close()


def serve_until_stdin_closes() -> None:
    """The child: serve a fresh reference server, print where as one JSON line, and end
    when stdin reaches its end (at once: nothing of it outlives the run)."""
    import importlib

    # Ctrl-C reaches every process of the run's group, this one too; the run lets its
    # running tests finish against this server, so it must not stop before they do (it
    # did, and the test running failed against a conforming server).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # By name: the harness does not type-check against the reference server.
    reference = importlib.import_module("crm_conformance.reference")
    with reference.running_server(reference.ServerSettings()) as served:
        served_line = {
            "base_url": served.base_url,
            "adapter_url": served.adapter_url,
            "tokens": dict(served.tokens),
            "conventions": dict(served.conventions),
        }
        sys.stdout.write(json.dumps(served_line) + "\n")
        sys.stdout.flush()
        sys.stdin.buffer.read()
        os._exit(0)


if __name__ == "__main__":
    serve_until_stdin_closes()
