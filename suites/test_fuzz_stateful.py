"""Stateful fuzzing: scenarios that chain operations along the spec's OpenAPI links
(a created deal's contact is read back, a closed conversation is resumed, a paused
campaign's statistics are read), judged by schemathesis's checks and the harness's.

Replay-safe against a server that keeps its state: when Hypothesis replays a failing
scenario the server has moved on, so the replay may draw differently and end in
`FlakyStrategyDefinition` (schemathesis-4x-cookbook pitfall 9). The first failure seen
is kept and reported instead of that noise. Scenarios and steps are bounded by the
profile (the deep profile runs rounds of them, each with the next seed, for its share of
`--fuzz-minutes`); the seed is printed and `--hypothesis-seed=N` replays it.
"""

from typing import Any

import hypothesis
import pytest
from schemathesis.core.failures import FailureGroup

from crm_conformance import ApiClient, Target
from crm_conformance.fuzz import layer as fuzz

SEED = fuzz.run_seed()
CHECKS = fuzz.harness_checks()


def workflow(api: ApiClient, target: Target) -> type[Any]:
    """The state machine of this run: calls through `api`, remembers its first failure."""
    schema = fuzz.stateful_schema(fuzz.load(seed=SEED), embedded=fuzz.is_embedded(target))
    probes = fuzz.probe_kwargs(target)

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        first_failure: FailureGroup | None = None

        def call(self, case: Any, **kwargs: Any) -> Any:
            response = api.request(str(case.method), case.formatted_path, **fuzz.transport(case))
            return fuzz.as_schemathesis(response)

        def validate_response(
            self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
        ) -> None:
            try:
                fuzz.validate(
                    case,
                    response,
                    additional_checks=CHECKS,
                    transport_kwargs=probes,
                    recorder=self.recorder,
                )
            except FailureGroup as failure:
                if Workflow.first_failure is None:
                    Workflow.first_failure = failure
                raise

    Workflow._hypothesis_internal_use_seed = SEED
    return Workflow


@pytest.mark.req(*fuzz.requirement_ids())
@pytest.mark.generated("steps")
def test_linked_operations(api: ApiClient, target: Target, request: pytest.FixtureRequest) -> None:
    profile = fuzz.profile_of(request.config)
    fuzz.announce(request.config, seed=SEED, label="stateful fuzz")
    machine = workflow(api, target)
    before = api.log.mark()
    bounds = hypothesis.settings(
        max_examples=profile.scenarios,
        stateful_step_count=profile.steps,
        database=None,
        deadline=None,
    )

    rounds = 0  # started, a failing one included: what a replay must run

    def round_of(number: int) -> None:
        nonlocal rounds
        rounds = number + 1
        machine._hypothesis_internal_use_seed = SEED + number
        fuzz.run_replay_safe(machine, bounds)

    try:
        seconds = fuzz.time_share(request) if profile.timed else 0.0  # 0: one round
        exactly = fuzz.replayed_rounds(request) if profile.timed else None
        with fuzz.sent_through(api):  # schemathesis's own probes go through the harness client
            fuzz.in_rounds(round_of, seconds=seconds, exactly=exactly)
    finally:
        exchanges = api.log.since(before)
        ran = {"rounds": rounds} if profile.timed else {}
        fingerprint = {"requests": len(exchanges), "sent": fuzz.sent_digest(exchanges)}
        request.node.user_properties.append(
            ("fuzz", {"seed": SEED, "profile": profile.name, **fingerprint, **ran})
        )
