"""The hooks the harness plugin offers to other plugins (registered by `pytest_addhooks`)."""

import pytest

from crm_conformance.outcomes import OutcomeRecord


@pytest.hookspec
def pytest_crm_outcome(config: pytest.Config, record: OutcomeRecord) -> None:
    """Called on the controller (the only process with `-n 0`) as each test finishes,
    with the record the outcome stream holds for it; e.g. the runner's progress line."""
