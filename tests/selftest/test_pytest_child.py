"""pytest in a child: the fork of a process with no other thread, a fresh interpreter
otherwise, the same exit code and output either way, and a deadline that holds.

The project's own test process may have threads (an xdist worker has), so the fork is
shown in a fresh Python process of its own.
"""

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from crm_conformance.selftest.pytest_child import PytestChild, can_fork

TESTS = """
def test_passes():
    pass

def test_fails():
    assert 1 == 2
"""


@pytest.fixture
def tests(tmp_path: Path) -> Path:
    (tmp_path / "test_sample.py").write_text(TESTS, encoding="utf-8")
    return tmp_path


def _args(folder: Path) -> list[str]:
    return [str(folder / "test_sample.py"), "-p", "no:cacheprovider", "-q"]


def test_a_process_with_another_thread_gets_a_fresh_interpreter(tests: Path) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not can_fork()
        with PytestChild(fork=True) as child:
            assert child.pid is None
            code, output = child.run(_args(tests), cwd=tests, timeout=120)
    finally:
        stop.set()
        other.join()
    assert code == 1, output
    assert "1 failed, 1 passed" in output


def test_a_fork_runs_the_session_and_reports_like_a_fresh_interpreter(tests: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from crm_conformance.selftest.pytest_child import PytestChild
        folder = Path({str(tests)!r})
        with PytestChild(fork=True) as child:
            assert child.pid is not None, "no fork"
            code, output = child.run({_args(tests)!r}, cwd=folder, timeout=120)
        print("exit", code)
        print(output)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "exit 1" in done.stdout, done.stdout
    assert "1 failed, 1 passed" in done.stdout


def test_a_fork_past_its_deadline_is_killed(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(
        "import time\n\ndef test_sleeps():\n    time.sleep(60)\n", encoding="utf-8"
    )
    script = textwrap.dedent(
        f"""
        import subprocess
        from pathlib import Path
        from crm_conformance.selftest.pytest_child import PytestChild
        folder = Path({str(tmp_path)!r})
        with PytestChild(fork=True) as child:
            try:
                child.run({_args(tmp_path)!r}, cwd=folder, timeout=3)
            except subprocess.TimeoutExpired:
                print("timed out")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert "timed out" in done.stdout, done.stdout + done.stderr


def test_a_fork_never_given_its_command_line_ends_with_its_parent() -> None:
    script = textwrap.dedent(
        """
        import os
        from crm_conformance.selftest.pytest_child import PytestChild
        child = PytestChild(fork=True)
        pid = child.pid
        child.close()
        try:
            os.kill(pid, 0)
            print("still there")
        except ProcessLookupError:
            print("gone")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip() == "gone", done.stdout + done.stderr
