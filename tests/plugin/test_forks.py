"""`--crm-forks N` (plugin.forks): the tests run in forks of the process that collected
them, each once, reported by the parent as by one process; a child that dies fails what
it held; -x stops the children; long tests are claimed first.

Each project runs in a subprocess (`runpytest_subprocess`): a fork of this test process,
which may have other threads, is what the plugin must never make.
"""

import itertools
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from support.fake_target import OTHER_TOKEN

from crm_conformance.core.planning import profiles
from crm_conformance.plugin.forks import queue_order

pytest_plugins = ["pytester"]

CONFTEST = """
import os
import pytest

def _note(what):
    with open(os.environ["FORK_NOTES"], "a") as notes:
        notes.write(f"{os.getpid()} {what}\\n")

@pytest.fixture(scope="module")
def module_resource(request):
    _note(f"setup {request.module.__name__}")
    yield
    _note(f"teardown {request.module.__name__}")

@pytest.fixture(autouse=True)
def ran(request, module_resource):
    _note(f"ran {request.node.name}")
"""

FIRST = """
import time
import pytest

@pytest.mark.parametrize("n", range(6))
def test_passes(n):
    for _ in range(10):  # printing while the other child prints
        print(f"output of passes {n}")
        time.sleep(0.01)

def test_fails():
    for _ in range(10):
        print("output of the failing test")
        time.sleep(0.01)
    assert False, "this one fails"

def test_skips():
    pytest.skip("not this time")
"""

SECOND = """
import time
import pytest

@pytest.mark.parametrize("n", range(6))
def test_more(n):
    for _ in range(10):
        print(f"output of passes {n}")
        time.sleep(0.01)

@pytest.mark.xfail(reason="known")
def test_expected_failure():
    assert False
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_first=FIRST, test_second=SECOND)
    notes = pytester.path / "notes.txt"
    monkeypatch.setenv("FORK_NOTES", str(notes))
    return notes


def _forked(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """The project run by pytest in a subprocess, its tests in 2 forks."""
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:xdist", "--crm-forks", "2", *args
    )


def _notes(path: Path) -> list[tuple[int, str]]:
    return [
        (int(pid), what)
        for pid, what in (line.split(" ", 1) for line in path.read_text().splitlines())
    ]


def test_every_test_runs_once_in_a_child_and_the_parent_reports_them(
    pytester: pytest.Pytester, project: Path
) -> None:
    result = _forked(pytester, "--junitxml=out.xml")
    result.assert_outcomes(passed=12, failed=1, skipped=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*AssertionError: this one fails*"])
    # Only the parent writes the progress: one mark per test.
    progress = [re.match(r"test_\w+\.py ([.sFx]+) +\[", line) for line in result.outlines]
    assert sum(len(match.group(1)) for match in progress if match) == 15
    notes = _notes(project)
    ran = [what for _, what in notes if what.startswith("ran ")]
    assert sorted(ran) == sorted(set(ran))
    assert len(ran) == 15
    pids = {pid for pid, what in notes if what.startswith("ran ")}
    assert len(pids) == 2  # both children ran tests (each test sleeps, so neither takes all)
    for pid in pids:  # each child set up each module's fixture at most once, and tore it down
        setups = sorted(
            what.split()[1] for p, what in notes if p == pid and what.startswith("setup")
        )
        downs = sorted(
            what.split()[1] for p, what in notes if p == pid and what.startswith("teardown")
        )
        assert setups == downs
        assert len(setups) == len(set(setups))
    cases = {
        case.get("name"): case for case in ET.parse(pytester.path / "out.xml").iter("testcase")
    }
    assert len(cases) == 15
    assert cases["test_skips"].find("skipped") is not None
    assert cases["test_fails"].find("failure") is not None
    # Each child captures into files of its own: the failure shows its test's output only.
    shown = result.stdout.str()
    assert "output of the failing test" in shown
    assert "output of passes" not in shown


def test_a_child_that_dies_errs_the_test_it_ran_and_the_one_it_held(
    pytester: pytest.Pytester, project: Path
) -> None:
    """A worker's death judged nothing of the target: the test it ran and the one it held
    are errors (of their setup), never failures charged to a rule."""
    pytester.makepyfile(
        test_third="""
import os

def test_dies():
    os._exit(7)
"""
    )
    result = _forked(pytester, "-rE")
    result.stdout.fnmatch_lines(["*test_dies*forked worker gw* died (exit 7) in this test*"])
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1  # test_fails alone
    held = outcomes.get("errors", 0) - 1  # test_dies, and what the child held
    assert held in (0, 1)
    if held:
        result.stdout.fnmatch_lines(["*not run: forked worker gw* died (exit 7) before it*"])
    assert outcomes["failed"] + outcomes.get("passed", 0) + outcomes["errors"] + 2 == 16


def test_a_first_failure_with_x_stops_the_children(
    pytester: pytest.Pytester, project: Path
) -> None:
    pytester.makepyfile(
        test_third="""
import time
import pytest

@pytest.mark.parametrize("n", range(30))
def test_slow(n):
    time.sleep(0.25)
"""
    )
    result = _forked(pytester, "-x")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1
    # The queue was emptied: the other child ended soon after the failure reached the
    # parent (about 0.5 s late: a child's first failure report imports what reporting
    # needs), not after the 30 slow tests queued behind it (44 would run).
    assert sum(outcomes.values()) <= 30, outcomes


def test_a_stop_one_child_decides_stops_the_run_and_leaves_the_rest_not_run(
    pytester: pytest.Pytester, project: Path
) -> None:
    """A target found unreachable in one child stops the run as in one process: the
    other child takes no more tests, and what no child ran is neither failed nor an
    error (a server that dies mid-run made 1,750 tests "failed", charged to nothing)."""
    pytester.makepyfile(
        test_third="""
import time
import pytest
from crm_conformance import TargetUnreachable

@pytest.mark.parametrize("n", range(30))
def test_slow(n):
    if n == 3:
        raise TargetUnreachable("the target stopped answering")
    time.sleep(0.25)
"""
    )
    result = _forked(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] <= 1  # test_fails of the first module, if it ran first
    assert outcomes.get("errors", 0) == 1  # the test that met the unreachable target
    assert sum(outcomes.values()) <= 30, outcomes
    assert "every forked worker ended" not in result.stdout.str()


def test_the_warnings_of_a_childs_tests_reach_the_parents_summary(
    pytester: pytest.Pytester, project: Path
) -> None:
    pytester.makepyfile(
        test_third="""
import warnings

def test_warns():
    warnings.warn(DeprecationWarning("an old way"))

def test_warns_its_own():
    class Local(Warning):  # a category no other process can import
        pass
    warnings.warn(Local("a local kind"))
"""
    )
    result = _forked(pytester)
    assert result.parseoutcomes()["warnings"] == 2
    result.stdout.fnmatch_lines_random(
        [
            "*test_third.py::test_warns",
            "*test_third.py:4: DeprecationWarning: an old way",
            "*test_third.py:9: UserWarning: Local: a local kind",
        ]
    )


SECOND_WORKSPACE = """
import os
import time
import pytest

@pytest.mark.req("TEN-001")
@pytest.mark.parametrize("n", range(4))
def test_in_the_second_workspace(other_api, n):
    began = time.monotonic()  # one clock for every process of the machine
    time.sleep(0.3)
    with open(os.environ["FORK_NOTES"], "a") as notes:
        notes.write(f"{os.getpid()} {began} {time.monotonic()}\\n")
"""


def test_tests_of_the_second_workspace_never_overlap_on_one_target(
    pytester: pytest.Pytester, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against one given target, a test using the second workspace runs while no other
    such test does (`run_lock`): the policy tests mirror its entities."""
    notes = pytester.path / "notes.txt"
    monkeypatch.setenv("FORK_NOTES", str(notes))
    monkeypatch.setenv("CRM_TOKEN_OTHER", OTHER_TOKEN)
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "test_tenancy_like.py").write_text(SECOND_WORKSPACE)
    result = _forked(pytester, "suites", "--base-url", base_url)
    result.assert_outcomes(passed=4)
    spans = sorted(
        (float(began), float(ended), int(pid))
        for pid, began, ended in (line.split() for line in notes.read_text().splitlines())
    )
    assert len({pid for _, _, pid in spans}) == 2  # both children ran some
    for (_, ended, _), (began, _, _) in itertools.pairwise(spans):
        assert began >= ended


class _Item:
    def __init__(self, marker: str | None, *args: str) -> None:
        self.marker = marker
        self.args = args

    def get_closest_marker(self, name: str) -> pytest.Mark | None:
        return getattr(pytest.mark, name)(*self.args).mark if name == self.marker else None


def test_weighed_tests_are_claimed_first_heaviest_first_then_the_collection_order() -> None:
    items = [_Item(None), _Item("generated", "examples"), _Item(None), _Item("waits")]
    assert queue_order(items, profiles.profile("quick")) == [3, 1, 0, 2]  # type: ignore[arg-type]  # a stand-in item
