"""Run suite modules against the reference server with faults or variants switched on.

This is how the suite is tested like a product: a fault must make a test carrying one
of the fault's requirement ids fail, and a legal variant must leave every test green.
The project's tests (`tests/catches/`) and `crm-conformance selftest` both call
`run_suite`, so "killed" means the same thing everywhere.

Each run is pytest in a subprocess (the plugin's session state is per process) against
a fresh in-memory reference server in this process, through a target file, exactly as
a vendor's run goes through theirs. The results are the harness's own outcome stream
(`outcomes.jsonl`, `--crm-outcomes`), not JUnit: JUnit writes a blocked test and an
adapter error as `<failure>`, and neither is the target breaking a rule.
"""

import tempfile
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from crm_conformance.core.model.paths import SUITES_DIR
from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE, Outcome, read_records
from crm_conformance.reference import ServerSettings, running_server
from crm_conformance.selftest.pytest_child import PytestChild

FAILED = Outcome.FAILED.value
"""The one outcome that is a target failure; only it kills a fault."""
PROBLEMS = (Outcome.ERROR.value, Outcome.BLOCKED.value, Outcome.SUITE_ERROR.value)
"""Outcomes of a test that could not judge the target: a harness, adapter or setup
failure. Never a kill, never a pass."""


@dataclass(frozen=True)
class TestResult:
    """One test's outcome, as the harness classified it, and the requirement ids it names."""

    nodeid: str
    outcome: str
    """An `outcomes.Outcome` value (`passed`, `failed`, `error`, `blocked`,
    `not_applicable`, `expected_failure`), or `flaky`, which the self-test sets."""
    requirements: frozenset[str]
    message: str = ""
    duration: float = 0.0
    charged: frozenset[str] = frozenset()
    """For a failed test, the ids its failure was charged to (the record's
    `failed_requirements`, as the run's report charges it); empty otherwise."""
    requests: int = 0
    """The requests the test sent to the API (the record's `requests`)."""

    @property
    def selector(self) -> str:
        """The test function as `run_suite` takes it (`test_a.py::test_b`), parameters cut.

        A parameter id may hold a repr that differs between two processes
        (`<object object at 0x...>`), so a full node id may not be found again.
        """
        path, _, name = self.nodeid.partition("::")
        return f"{path.rsplit('/', 1)[-1]}::{name.split('[', 1)[0]}"


@dataclass(frozen=True)
class SuiteRun:
    """What one subprocess run of the suites gave."""

    exit_code: int
    results: tuple[TestResult, ...]
    output: str = field(repr=False)

    def with_outcome(self, *outcomes: str) -> tuple[TestResult, ...]:
        return tuple(r for r in self.results if r.outcome in outcomes)

    def killers(self, reqs: Iterable[str]) -> tuple[TestResult, ...]:
        """The failed tests whose failure was charged to one of `reqs` (the record's
        `failed_requirements`, as the run's report charges it): a test naming several ids
        kills a fault only when the fault's own requirement is the one it found broken."""
        wanted = set(reqs)
        return tuple(r for r in self.with_outcome(FAILED) if r.charged & wanted)

    def kills(self, reqs: Iterable[str]) -> bool:
        """Whether a failed test was charged with one of `reqs`: caught where it lives.

        A blocked or errored test names its ids too, but it never judged the target.
        """
        return bool(self.killers(reqs))

    def kills_alone(self, reqs: Iterable[str], *, also: Iterable[str] = ()) -> bool:
        """Whether the run kills `reqs` and charges nothing else (but the rules in `also`,
        which the fault breaks with them): a fault caught where it lives and nowhere
        beside it, since a test standing on the broken rule to judge another charges the
        broken one."""
        wanted = set(reqs)
        charged = {req for result in self.with_outcome(FAILED) for req in result.charged}
        return self.kills(wanted) and charged <= wanted | set(also)


def run_suite(
    modules: Sequence[str],
    *,
    faults: Iterable[str] = (),
    variants: Iterable[str] = (),
    keyword: str | None = None,
    first_failure: bool = False,
    first_failure_of: Iterable[str] = (),
    extra_args: Sequence[str] = (),
    timeout: float = 600,
    through: Callable[[str], AbstractContextManager[str]] | None = None,
    fork: bool = False,
) -> SuiteRun:
    """Run `modules` (names under `suites/`, e.g. `test_tags.py`) against a fresh server.

    `first_failure` ends the run at the first test the harness judges failed (a
    blocked or errored test does not end it); with `first_failure_of`, at the first
    failure charged to one of those ids. `through(base_url)` may wrap the server's
    API in a proxy (a validating proxy, a wire-level fault) and yield the URL the suite
    should use instead. `fork` runs pytest in a fork of this process rather than a fresh
    interpreter, when that is safe (`pytest_child`): for a process that imported the
    harness once (`pytest_child.warm_up`) to run many sessions.
    """
    settings = ServerSettings(faults=frozenset(faults), variants=frozenset(variants))
    with (
        PytestChild(fork=fork) as child,  # first: a fork is made before any thread starts
        tempfile.TemporaryDirectory(prefix="crm-suite-run-") as scratch,
        running_server(settings) as served,
        (through or nullcontext)(served.base_url) as base_url,
    ):
        workdir = Path(scratch)
        target = served.write_target_file(workdir / "target.toml")
        outcomes = workdir / OUTCOMES_FILE
        args = [
            *(str(SUITES_DIR / module) for module in modules),
            "--target",
            str(target),
            "--base-url",
            base_url,
            "--classes",
            "all",  # the opt-in classes too: this server's allowance is nobody else's
            f"--crm-outcomes={outcomes}",
            "-p",
            "no:cacheprovider",
            "-q",
            "--no-header",
            "--tb=native",  # Python's own traceback: pytest's costs a second of CPU each
            # No assertion rewriting: uncached here (no bytecode written), it re-rewrites
            # hypothesis and schemathesis in every session; the suites assert by `expect`.
            "--assert=plain",
            *(["-k", keyword] if keyword else []),
            *(["-p", "crm_conformance.selftest.first_failure"] if first_failure else []),
            *(
                [f"--crm-first-failure-of={','.join(sorted(first_failure_of))}"]
                if first_failure and first_failure_of
                else []
            ),
            *extra_args,
        ]
        exit_code, output = child.run(args, cwd=workdir, timeout=timeout)
        results = tuple(
            TestResult(
                r.nodeid,
                r.outcome.value,
                frozenset(r.requirements),
                r.cause[:500],
                r.duration,
                r.charged if r.outcome == Outcome.FAILED else frozenset(),
                r.requests,
            )
            for r in read_records(outcomes)
        )
    return SuiteRun(exit_code, results, output)
