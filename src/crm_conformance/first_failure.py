"""A pytest plugin: end the session at the first test the harness judges *failed*.

`run_suite(first_failure=True)` loads it instead of pytest's `-x`, which stops at any
red test: a blocked test or an adapter error would end a fault's run before the test
that can kill the fault had its turn, and neither of them judged the target. The
outcome is the collector's classification (`outcome_record`), the one every report uses.
"""

import pytest

from crm_conformance.reporting.collector import outcome_record


class FirstFailure:
    """Ends the session after the first call the harness classifies `failed`."""

    def __init__(self) -> None:
        self.session: pytest.Session | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """The call report carries the harness's outcome by now (its makereport hook)."""
        if report.when != "call" or not report.failed or self.session is None:
            return
        if outcome_record([report], {}).outcome == "failed":
            # shouldfail, as -x sets it: shouldstop would end the session as interrupted
            # and spend a second of CPU printing the interruption's traceback.
            self.session.shouldfail = f"stopped at the first failed test: {report.nodeid}"


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(FirstFailure(), "crm-first-failure")
