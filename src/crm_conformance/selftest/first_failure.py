"""A pytest plugin: end the session at the first test the harness judges *failed*.

`run_suite(first_failure=True)` loads it instead of pytest's `-x`, which stops at any
red test: a blocked test or an adapter error would end a fault's run before the test
that can kill the fault had its turn, and neither of them judged the target. The
outcome is the outcome stream's record of the test (`pytest_crm_outcome`). With
`--crm-first-failure-of=IDS` only a failure charged to one of those ids ends it (the
record's `failed_requirements`): a failure of another rule is not the fault's kill.
"""

import pytest

from crm_conformance.core.outcomes import Outcome, OutcomeRecord


class FirstFailure:
    """Ends the session after the first test whose record says `failed` (and, when `of`
    is given, whose failure is charged to one of those ids)."""

    def __init__(self, of: frozenset[str]) -> None:
        self.session: pytest.Session | None = None
        self.of = of

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_crm_outcome(self, config: pytest.Config, record: OutcomeRecord) -> None:
        if record.outcome != Outcome.FAILED or self.session is None:
            return
        if not self.of or record.charged & self.of:
            # shouldfail, as -x sets it: shouldstop would end the session as interrupted
            # and spend a second of CPU printing the interruption's traceback.
            self.session.shouldfail = f"stopped at the first failed test: {record.nodeid}"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--crm-first-failure-of",
        default="",
        help="comma-separated requirement ids: end at the first failure charged to one",
    )


def pytest_configure(config: pytest.Config) -> None:
    raw = str(config.getoption("crm_first_failure_of") or "")
    of = frozenset(part.strip() for part in raw.split(",") if part.strip())
    config.pluginmanager.register(FirstFailure(of), "crm-first-failure")
