"""Project tests' tiers: each test is marked `unit` or `integration` (see tests/README.md).

The tier is read from the test's code by `tiers.py`, so no test file carries a marker
line; an explicit `unit` or `integration` marker wins.
"""

import inspect
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tiers import tier


def _definitions(item: pytest.Function) -> list[tuple[Path, str]]:
    """The test function and every fixture function it uses, as (module path, qualname)."""
    found = [(Path(inspect.getfile(item.function)), item.function.__qualname__)]
    for defs in item._fixtureinfo.name2fixturedefs.values():
        for fixturedef in defs:
            func = inspect.unwrap(fixturedef.func)
            try:
                found.append((Path(inspect.getfile(func)), func.__qualname__))
            except TypeError:  # a built-in fixture
                continue
    return [(path, name) for path, name in found if path.suffix == ".py" and path.is_file()]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("unit") or item.get_closest_marker("integration"):
            continue
        if isinstance(item, pytest.Function):
            fixtures = item.fixturenames
            item.add_marker(tier(_definitions(item), fixtures))
        else:
            item.add_marker("integration")
