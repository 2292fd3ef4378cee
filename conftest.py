"""Root conftest: what every test folder of the project shares.

`slow` tests (building the wheel, the whole self-test) take minutes; they run when
CRM_SLOW_TESTS=1, as `.ci/run` sets it, and are skipped with that reason otherwise, so
a contributor's `pytest -n 2` stays quick without CI ever losing them.
"""

import os

import pytest

SLOW = os.environ.get("CRM_SLOW_TESTS") == "1"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if SLOW:
        return
    skip = pytest.mark.skip(reason="slow: set CRM_SLOW_TESTS=1 (CI does)")
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(skip)
