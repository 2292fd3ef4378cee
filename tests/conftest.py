"""Project tests' tiers: each test is marked `unit` or `integration` (tests/README.md).

The tier is read from the test's code by `tiers.py` (type-checked there; mypy skips this
file, whose module name `conftest` tests/harness/conftest.py holds already).
"""

import sys
from pathlib import Path

import pytest

from crm_conformance.core import answers

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tiers import mark_tiers


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_tiers(items)


@pytest.fixture(autouse=True)
def _fresh_answers() -> None:
    """Each project test starts with no answer remembered (`core.answers` is the run's
    memory of answers; a test's fake server may reuse an id another test's did)."""
    answers.forget()
