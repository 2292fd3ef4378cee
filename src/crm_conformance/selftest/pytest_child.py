"""pytest in a child process: a fresh interpreter, or a fork of a warmed-up one.

`run_suite` runs each suite session in a child, since the plugin's session state is per
process. A fresh interpreter spends about 3 s of CPU before the first test (importing
pytest, hypothesis, schemathesis and the harness, finding the pytest11 plugins); the
kill matrix runs a hundred sessions. Its workers call `warm_up` once, and each session
then runs in a fork of the worker, which has all of that in memory already.

A fork copies only the forking thread, and any lock another thread held stays locked in
the child. So a `Forked` child is made first, while the process has no other thread,
and waits on a pipe for its command line; the server and proxy threads start after.
A process with other threads (a pytest-xdist worker, for one) gets a fresh interpreter.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType

_TIMED_OUT = -9
"""Exit code reported when the child was killed at its deadline (as subprocess does)."""


def warm_up() -> None:
    """Import what every suite session imports, so that forks of this process start fast.

    For a process that will fork many sessions (a self-test worker), nothing else: the
    pytest plugins (entry points `pytest11`), every harness module, and the suite
    modules under the names pytest gives them (their folder has no `__init__.py`), so a
    session's collection finds them imported. A suite module that cannot be imported is
    left to the session, which reports it.
    """
    import importlib
    import importlib.metadata
    import pkgutil

    import pytest  # noqa: F401  # imported to be warm in the forks, not used here

    from crm_conformance.core.model.catalogue import load_catalogue
    from crm_conformance.core.model.paths import PACKAGE_DIR, SUITES_DIR

    for entry_point in importlib.metadata.entry_points(group="pytest11"):
        entry_point.load()
    for module in pkgutil.walk_packages([str(PACKAGE_DIR)], "crm_conformance."):
        importlib.import_module(module.name)
    load_catalogue()  # read and checked against its schema once, not per session
    sys.path.insert(0, str(SUITES_DIR))
    for path in sorted(SUITES_DIR.glob("test_*.py")):
        try:
            importlib.import_module(path.stem)
        except Exception:  # the session imports it again and reports why
            continue


def can_fork() -> bool:
    """Forking is safe only while this thread is the process's only one."""
    return hasattr(os, "fork") and threading.active_count() == 1


class PytestChild:
    """One pytest session in a child: made before any thread starts, run once."""

    def __init__(self, *, fork: bool) -> None:
        self.pid: int | None = None
        self._pipe: int | None = None
        if fork and can_fork():
            self._fork()

    def _fork(self) -> None:
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: wait for the command line, run it, exit
            os.close(write)
            _child_main(read)
        os.close(read)
        self.pid, self._pipe = pid, write

    def run(self, args: list[str], *, cwd: Path, timeout: float) -> tuple[int, str]:
        """pytest with `args` in `cwd`: its exit code and its output (stdout and stderr)."""
        if self.pid is None:
            done = subprocess.run(
                [sys.executable, "-m", "pytest", *args],
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            return done.returncode, done.stdout + done.stderr
        assert self._pipe is not None
        output = cwd / "pytest-output.txt"
        with os.fdopen(self._pipe, "w", encoding="utf-8") as pipe:
            self._pipe = None
            json.dump({"args": args, "cwd": str(cwd), "output": str(output)}, pipe)
        code = self._wait(timeout)
        text = output.read_text(encoding="utf-8", errors="replace") if output.exists() else ""
        if code == _TIMED_OUT:
            raise subprocess.TimeoutExpired(["pytest", *args], timeout, output=text)
        return code, text

    def _wait(self, timeout: float) -> int:
        assert self.pid is not None
        deadline = time.monotonic() + timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.pid = None
                return os.waitstatus_to_exitcode(status)
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                self.pid = None
                return _TIMED_OUT
            time.sleep(0.02)

    def close(self) -> None:
        """End a child that was never given its command line (its parent failed first)."""
        if self._pipe is not None:
            os.close(self._pipe)  # the child reads nothing and exits
            self._pipe = None
        if self.pid is not None:
            os.waitpid(self.pid, 0)
            self.pid = None

    def __enter__(self) -> "PytestChild":
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _child_main(pipe: int) -> None:
    """In the forked child: read the command line, run pytest, never return."""
    code = 1
    try:
        with os.fdopen(pipe, encoding="utf-8") as source:
            text = source.read()
        if not text:
            os._exit(0)
        order = json.loads(text)
        os.chdir(order["cwd"])
        out = os.open(order["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        import pytest

        code = int(pytest.main(order["args"]))
    except BaseException as exc:  # the child must never return into the parent's code
        sys.stderr.write(f"pytest child failed: {type(exc).__name__}: {exc}\n")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
