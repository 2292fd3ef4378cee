"""Why pytest is pinned below 9.2, and the probe that says when the pin can go.

pytest 9.2.0 gives every schemathesis-parametrized item the same node id
(shared notes, schemathesis cookbook §0 #1). The probe below collects a tiny
schemathesis test and asserts the ids are distinct. It passes under the pin; the
tox env `pin-probe` runs it against the newest pytest: when it passes there too,
the pin in pyproject.toml can be lifted.
"""

import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import schemathesis

schema = schemathesis.openapi.from_dict({
    "openapi": "3.1.0",
    "info": {"title": "probe", "version": "1"},
    "paths": {
        "/a": {"get": {"responses": {"200": {"description": "ok"}}}},
        "/b": {"post": {"responses": {"200": {"description": "ok"}}}},
    },
})

@schema.parametrize()
def test_api(case):
    pass
"""


def test_pytest_pin_carries_its_reason() -> None:
    """The pin exists only with the reason beside it."""
    text = (ROOT / "pyproject.toml").read_text()
    deps = tomllib.loads(text)["project"]["dependencies"]
    assert "pytest>=9.0,<9.2" in deps
    assert "pytest 9.2.0 gives every schemathesis-parametrized item the same node id" in text


def test_schemathesis_items_get_distinct_node_ids(pytester: pytest.Pytester) -> None:
    """Fails on a pytest that collapses schemathesis node ids: the pin is still needed there."""
    pytester.makepyfile(test_probe=PROBE)
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider")
    ids = [line for line in result.outlines if line.startswith("test_probe.py::")]
    assert sorted(ids) == ["test_probe.py::test_api[GET /a]", "test_probe.py::test_api[POST /b]"]
