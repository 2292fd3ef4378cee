"""A pytest plugin: end the session at the first test the harness judges *failed*.

`run_suite(first_failure=True)` loads it instead of pytest's `-x`, which stops at any
red test: a blocked test or an adapter error would end a fault's run before the test
that can kill the fault had its turn, and neither of them judged the target. The
outcome is the outcome stream's record of the test (`pytest_crm_outcome`). With
`--crm-first-failure-of=IDS` the session ends once a failure was charged to each of
those ids (the records' `failed_requirements`): a failure of another rule is not the
fault's kill, and a fault breaking two rules is measured on both, so the kill matrix's
charged coverage says which rules a failing check proved.
"""

import pytest

from crm_conformance.core.verdicts.outcomes import Outcome, OutcomeRecord


class FirstFailure:
    """Ends the session after the first test whose record says `failed`; when `of` is
    given, after failures charged to every one of those ids."""

    def __init__(self, of: frozenset[str]) -> None:
        self.session: pytest.Session | None = None
        self.of = of
        self.charged: set[str] = set()

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_crm_outcome(self, config: pytest.Config, record: OutcomeRecord) -> None:
        if record.outcome != Outcome.FAILED or self.session is None:
            return
        self.charged |= record.charged & self.of
        if not self.of or self.charged >= self.of:
            # shouldfail, as -x sets it: shouldstop would end the session as interrupted
            # and spend a second of CPU printing the interruption's traceback.
            self.session.shouldfail = f"stopped at the first failed test: {record.nodeid}"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--crm-first-failure-of",
        default="",
        help="comma-separated requirement ids: end once a failure was charged to each",
    )


def pytest_configure(config: pytest.Config) -> None:
    raw = str(config.getoption("crm_first_failure_of") or "")
    of = frozenset(part.strip() for part in raw.split(",") if part.strip())
    config.pluginmanager.register(FirstFailure(of), "crm-first-failure")
