"""What a built fuzz test spends: its generated cases per run (the profile's), and the
deep profile's rounds within a time budget.

Why here and not in the test's decorators: the profile is an option, known after the
schema (and its tests) were built at import; Hypothesis reads a test's settings when it
runs, so they can change before.
"""

import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from crm_conformance.core.planning.profiles import Profile
from crm_conformance.fuzz import constraint_sample, internals
from crm_conformance.fuzz.request_constraints import constrained_places


def in_rounds(
    run_round: Callable[[int], None], *, seconds: float, exactly: int | None = None
) -> int:
    """Call `run_round(0)`, `run_round(1)`, ... while one more round, as long as the
    longest so far, still fits in `seconds`; at least one. With `exactly` (a replay,
    `replayed_rounds`), that many rounds whatever the time. Returns how many ran.

    A failing round ends the test at once: its exception carries the round's number.
    """
    started = time.monotonic()
    longest = 0.0
    rounds = 0
    while True:
        began = time.monotonic()
        try:
            run_round(rounds)
        except BaseException as exc:
            exc.add_note(
                f"(deep profile: in round {rounds + 1}; the seed of round r is seed + r - 1)"
            )
            raise
        rounds += 1
        longest = max(longest, time.monotonic() - began)
        if exactly is not None:
            if rounds >= exactly:
                return rounds
        elif time.monotonic() - started + longest > seconds:
            return rounds


def timed(
    test: Any, *, seconds: float, rounds: list[int], exactly: int | None = None
) -> Callable[..., None]:
    """The built Hypothesis test `test` as a test running `in_rounds` for `seconds` (or
    `exactly` rounds): round r with its seed + r, and after the first round generated
    cases only (the coverage phase's explicit cases would be the same again). Keeps in
    `rounds` the rounds started, a failing one included: what a replay must run."""
    from hypothesis import Phase
    from hypothesis import seed as hypothesis_seed
    from hypothesis import settings as hypothesis_settings

    seed = internals.seed_of(test)
    first = internals.settings_of(test)
    again = hypothesis_settings(first, phases=[Phase.generate, Phase.target, Phase.shrink])

    def run(**fixtures: Any) -> None:
        def round_of(number: int) -> None:
            rounds[:] = [number + 1]
            internals.set_settings(test, again if number else first)
            hypothesis_seed(seed + number)(test)
            test(**fixtures)

        in_rounds(round_of, seconds=seconds, exactly=exactly)

    return run


def use_examples(test: Any, examples: int) -> None:
    """Give the built Hypothesis test `test` `examples` generated cases per run, and let
    it take the per-test `fuzz_run` fixture.

    The profile is an option, known after the schema (and its tests) were built at
    import; Hypothesis reads these settings when the test runs, so they can change here.
    Hypothesis refuses a function-scoped fixture by default, as it is not reset between
    cases; `fuzz_run` is shared by a test's cases on purpose (the reads they passed).
    """
    from hypothesis import HealthCheck
    from hypothesis import settings as hypothesis_settings

    current = internals.settings_of(test)
    suppressed = [*current.suppress_health_check, HealthCheck.function_scoped_fixture]
    internals.set_settings(
        test,
        hypothesis_settings(current, max_examples=examples, suppress_health_check=suppressed),
    )


@dataclass
class FuzzRun:
    """What a generated test is given: the run's seed and profile, and its budget."""

    seed: int
    profile: Profile
    seconds: float
    """Its share of `--fuzz-minutes` under a timed profile; 0 (one round) otherwise."""
    exactly: int | None
    """The rounds to run when replaying an earlier run (`--fuzz-rounds`), else None."""
    before: int
    """The harness client's exchange log mark when the test began."""
    rounds: list[int] = field(default_factory=list)
    """The rounds started, a failing one included: what a replay must run."""
    passed_requests: set[Hashable] = field(default_factory=set)
    """The requests this test sent that passed every check (`already_passed`)."""
    sent_requests: set[Hashable] = field(default_factory=set)
    """The requests this test let through (`already_passed`), passed or not."""
    passed_breaks: set[tuple[str, ...]] = field(default_factory=set)
    """What the negative cases this test sent and passed broke (`constraint_sample.breaks_of`)."""
    places: Mapping[str, frozenset[str]] | None = None
    """The spec's constrained places, read from the first case's schema when needed."""

    def already_passed(self, case: Any) -> bool:
        """Whether sending `case` would only repeat what this test sent and passed.

        A GET sent already, to the byte but for schemathesis's per-case id header: the
        generated phase draws the coverage phase's very request again (an operation
        without parameters has one request to draw), and the same read asserts nothing
        new. Under the full profiles a write is always sent, a second one being a
        request of its own (a duplicate); under the quick profile
        (`Profile.each_constraint_once`) a generated write sent already is not, nor a
        generated negative case whose every break an earlier case broke
        (`constraint_sample`): the refusals it demands were demanded of those very
        places already.
        A case that failed is sent again, so Hypothesis, replaying a failing case, sees
        it fail again (never "flaky" because its breaks passed in another case since)."""
        request = _request_of(case)
        if request in self.sent_requests and request not in self.passed_requests:
            return False
        repeat = self._repeats(case, request)
        if not repeat:
            self.sent_requests.add(request)
        return repeat

    def passed(self, case: Any) -> None:
        """Note that `case` was sent and passed every check."""
        self.passed_requests.add(_request_of(case))
        if self.profile.each_constraint_once:
            self.passed_breaks |= self._breaks(case) or set()

    def _repeats(self, case: Any, request: Hashable) -> bool:
        sent = request in self.passed_requests
        if sent and str(case.method).upper() == "GET":
            return True
        if not self.profile.each_constraint_once or _is_explicit(case):
            return False
        if sent:
            return True
        breaks = self._breaks(case)
        return breaks is not None and constraint_sample.broken_before(breaks, self.passed_breaks)

    def _breaks(self, case: Any) -> frozenset[tuple[str, ...]] | None:
        if constraint_sample.mode_of(case) != "negative":
            return None
        if self.places is None:
            self.places = constrained_places(case.operation.schema.raw_schema)
        return constraint_sample.breaks_of(case, self.places)

    def in_rounds(self, run_round: Callable[[int], None]) -> None:
        """`run_round(0)`, `run_round(1)`, ... within this test's budget (`in_rounds`)."""

        def counted(number: int) -> None:
            self.rounds[:] = [number + 1]
            run_round(number)

        in_rounds(counted, seconds=self.seconds, exactly=self.exactly)


def _is_explicit(case: Any) -> bool:
    """Whether `case` is one of the coverage phase's own (never held back as a repeat:
    `constraint_sample.thinned` chose it)."""
    meta = getattr(case, "_meta", None)
    phase = getattr(getattr(meta, "phase", None), "name", None)
    return str(getattr(phase, "value", phase)) == "coverage"


def _request_of(case: Any) -> Hashable:
    """What identifies the request of `case` on the wire: all of it but schemathesis's
    per-case id header."""
    headers = {
        str(k).lower(): str(v)
        for k, v in (case.headers or {}).items()
        if str(k).lower() != "x-schemathesis-testcaseid"
    }
    return (
        str(case.method).upper(),
        case.formatted_path,
        repr(sorted((case.query or {}).items(), key=repr)),
        repr(sorted(headers.items())),
        repr(case.body),
        str(case.media_type),
    )
