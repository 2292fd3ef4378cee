"""Stateful fuzzing: scenarios that chain operations along the spec's OpenAPI links
(a created deal's contact is read back, a closed conversation is resumed, a paused
campaign's statistics are read), judged by schemathesis's checks and the harness's.

Replay-safe against a server that keeps its state: when Hypothesis replays a failing
scenario the server has moved on, so the replay may draw differently and end in
`FlakyStrategyDefinition` (schemathesis-4x-cookbook pitfall 9). The first failure seen
is kept and reported instead of that noise. Scenarios and steps are bounded by the
profile (the deep profile runs rounds of them, each with the next seed, for its share of
`--fuzz-minutes`); the seed is printed and `--hypothesis-seed=N` replays it. The plugin
gives a test marked `generated("steps")` its `fuzz_run` (`crm_conformance.plugin.fuzz`).
"""

from typing import Any

import hypothesis
import pytest
from schemathesis.core.failures import FailureGroup

from crm_conformance import ApiClient, Target
from crm_conformance.fuzz import budget, checking, exchange, guard, loader, seeding

CHECKS = checking.harness_checks()


def workflow(api: ApiClient, target: Target, seed: int) -> type[Any]:
    """The state machine of this run: calls through `api`, remembers its first failure."""
    schema = guard.stateful_schema(loader.load(seed=seed), embedded=guard.is_embedded(target))
    probes = exchange.probe_kwargs(target)

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]  # a base built at runtime
        first_failure: FailureGroup | None = None

        def call(self, case: Any, **kwargs: Any) -> Any:
            response = api.request(
                str(case.method), case.formatted_path, **exchange.transport(case)
            )
            return exchange.as_schemathesis(response)

        def validate_response(
            self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any
        ) -> None:
            try:
                checking.validate(
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

    return hypothesis.seed(seed)(Workflow)


@pytest.mark.req(*checking.requirement_ids())
@pytest.mark.generated("steps")
def test_linked_operations(api: ApiClient, target: Target, fuzz_run: budget.FuzzRun) -> None:
    machine = workflow(api, target, fuzz_run.seed)
    bounds = hypothesis.settings(
        max_examples=fuzz_run.profile.scenarios,
        stateful_step_count=fuzz_run.profile.steps,
        database=None,
        deadline=None,
    )

    def round_of(number: int) -> None:
        hypothesis.seed(fuzz_run.seed + number)(machine)
        seeding.run_replay_safe(machine, bounds)

    fuzz_run.in_rounds(round_of)
