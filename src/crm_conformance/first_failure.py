"""A pytest plugin: end the session at the first test the harness judges *failed*.

`run_suite(first_failure=True)` loads it instead of pytest's `-x`, which stops at any
red test: a blocked test or an adapter error would end a fault's run before the test
that can kill the fault had its turn, and neither of them judged the target. The
outcome is the outcome stream's record of the test (`pytest_crm_outcome`).
"""

import pytest

from crm_conformance.outcomes import Outcome, OutcomeRecord


class FirstFailure:
    """Ends the session after the first test whose record says `failed`."""

    def __init__(self) -> None:
        self.session: pytest.Session | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_crm_outcome(self, config: pytest.Config, record: OutcomeRecord) -> None:
        if record.outcome == Outcome.FAILED and self.session is not None:
            # shouldfail, as -x sets it: shouldstop would end the session as interrupted
            # and spend a second of CPU printing the interruption's traceback.
            self.session.shouldfail = f"stopped at the first failed test: {record.nodeid}"


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(FirstFailure(), "crm-first-failure")
