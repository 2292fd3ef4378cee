"""The tier of a project test is read from its code (tests/support/tiers.py, tests/README.md)."""

import textwrap
from pathlib import Path

import pytest
from support.tiers import tier

MODULE = """
import subprocess

def _helper():
    return subprocess.run(["true"])

def _indirect():
    return _helper()

def _pure():
    return 1

def test_calls_a_helper_that_starts_a_process():
    _indirect()

def test_starts_a_server():
    with serve_unending("trickle") as url:
        pass

def test_pure():
    assert _pure() == 1

class TestGroup:
    def test_method(self):
        _helper()
"""


@pytest.fixture
def module(tmp_path: Path) -> Path:
    path = tmp_path / "test_sample.py"
    path.write_text(textwrap.dedent(MODULE), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("test_calls_a_helper_that_starts_a_process", "integration"),
        ("test_starts_a_server", "integration"),
        ("TestGroup.test_method", "integration"),
        ("test_pure", "unit"),
    ],
)
def test_a_test_starting_something_through_its_code_is_integration(
    module: Path, name: str, expected: str
) -> None:
    assert tier([(module, name)], fixtures=[]) == expected


def test_a_fixture_that_starts_something_makes_the_test_integration(module: Path) -> None:
    assert tier([(module, "test_pure"), (module, "_helper")], fixtures=[]) == "integration"
    assert tier([(module, "test_pure")], fixtures=["pytester"]) == "integration"
    assert tier([(module, "test_pure")], fixtures=["tmp_path"]) == "unit"


def test_this_file_is_unit_and_a_pytester_test_is_integration(
    request: pytest.FixtureRequest,
) -> None:
    """The conftest hook marks collected tests; this test starts nothing."""
    assert request.node.get_closest_marker("unit")
    assert not request.node.get_closest_marker("integration")
