"""A run's pytest process ends without the interpreter's teardown, and lose nothing.

Each project here is a pytest project in a temporary folder. Its conftest keeps an
object whose finaliser writes a file during the interpreter's teardown, which a fast
exit skips; and it registers an atexit handler at configure time, which must still run.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = """
import atexit, os, pytest

MARK = os.path.join(os.environ["MARKS"], "teardown-" + str(os.getpid()))

class _Torndown:
    # Bound now: by teardown time the module's globals and the builtins may be gone.
    def __del__(self, _open=open, _path=MARK):
        _open(_path, "w").close()

KEPT = _Torndown()

def _said_at_exit(who):
    open(os.path.join(os.environ["MARKS"], "atexit-" + who), "w").close()

def pytest_configure(config):
    atexit.register(_said_at_exit, "main")
"""

TESTS = """
import pytest

@pytest.mark.parametrize("n", range(4))
def test_passes(n):
    assert n >= 0

def test_fails_when_asked(request):
    assert not request.config.getoption("--fail", False)
"""

OPTION = """
def pytest_addoption(parser):
    parser.addoption("--fail", action="store_true")
"""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "marks").mkdir(parents=True)
    (project / "conftest.py").write_text(CONFTEST + OPTION)
    (project / "test_some.py").write_text(TESTS)
    return project


def _run(project: Path, *args: str) -> tuple[int, str]:
    """`python -m crm_conformance.run.fast_exit`, as the runner starts it; its output goes to
    a file, as the runner's goes to pytest.log (block-buffered)."""
    output = project / "output.txt"
    command = [sys.executable, "-m", "crm_conformance.run.fast_exit"]
    with output.open("w") as out:
        done = subprocess.run(
            [*command, "-p", "no:cacheprovider", "-p", "no:xdist", "-q", *args],
            cwd=project,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**_env(), "MARKS": str(project / "marks")},
            timeout=120,
            check=False,
        )
    return done.returncode, output.read_text()


def _env() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}


@pytest.mark.parametrize(
    ("args", "code", "last"), [([], 0, "5 passed"), (["--fail"], 1, "1 failed, 4 passed")]
)
def test_the_process_keeps_pytests_exit_code_and_every_line_of_output(
    tmp_path: Path, args: list[str], code: int, last: str
) -> None:
    project = _project(tmp_path)
    returned, output = _run(project, *args)
    assert returned == code, output
    assert last in output.strip().splitlines()[-1]
    marks = {path.name for path in (project / "marks").iterdir()}
    assert "atexit-main" in marks  # the atexit handlers ran; the teardown did not
    assert not any(mark.startswith("teardown-") for mark in marks)


def test_a_usage_error_keeps_its_exit_code(tmp_path: Path) -> None:
    returned, output = _run(_project(tmp_path), "--no-such-option")
    assert returned == 4
    assert "usage: pytest" in output
