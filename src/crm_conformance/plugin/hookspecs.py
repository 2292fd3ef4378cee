"""The hooks the harness plugin offers to other plugins (registered by `pytest_addhooks`)."""

import pytest

from crm_conformance.core.verdicts.outcomes import OutcomeRecord


@pytest.hookspec
def pytest_crm_outcome(config: pytest.Config, record: OutcomeRecord) -> None:
    """Called on the controller (the only process with `-n 0`) as each test finishes,
    with the record the outcome stream holds for it; e.g. the runner's progress line."""


@pytest.hookspec
def pytest_crm_fork_finished(config: pytest.Config, worker: str) -> None:
    """Called in a child of `--crm-forks N` once it has run its tests, just before it
    ends without pytest's session end or unconfigure (`plugin.forks`); `worker` is its
    name (`gw0`...). E.g. the benchmark's breakdown writes the child's figures here."""
