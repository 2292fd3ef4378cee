"""Project tests' tiers: each test is marked `unit` or `integration` (tests/README.md).

The tier is read from the test's code by `support/tiers.py`.
"""

import pytest
from support.tiers import mark_tiers

from crm_conformance.core.transport import answers


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_tiers(items)


@pytest.fixture(autouse=True)
def _fresh_answers() -> None:
    """Each project test starts with no answer remembered (`core.answers` is the run's
    memory of answers; a test's fake server may reuse an id another test's did)."""
    answers.forget()
