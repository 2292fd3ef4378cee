"""The fuzz layer's pytest glue, for tests marked `@pytest.mark.generated(...)`, so the
suite files vendors read hold only the tests.

The `fuzz_run` fixture gives a generated test the run's seed (printed once, so any
failure can be replayed), its profile, its share of the deep profile's `--fuzz-minutes`
among the generated tests selected or the rounds an earlier run ran (`--fuzz-rounds
RUN_DIR`); while the test runs, what schemathesis sends itself goes through the harness
client (`api`); after it, the seed, profile, rounds, requests sent and their
fingerprint are recorded (JUnit property `fuzz`). A fuzz operation (`generated
("examples")`, a test schemathesis built) gets it without asking, and its built test is
rewritten: its coverage cases and the profile's examples, rounds under the deep
profile, its Allure parameter, and a skip when none of its cases was sent
(`skipped_unless_sent`). A stateful run (`generated("steps")`) asks for `fuzz_run` and
runs its rounds with `fuzz_run.in_rounds`.
"""

import functools
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from crm_conformance.core.planning import profiles
from crm_conformance.core.planning.profiles import Profile
from crm_conformance.fuzz.budget import FuzzRun

if TYPE_CHECKING:
    from crm_conformance.core.transport.client import ApiClient


def profile_of(config: Any) -> Profile:
    """The run's profile: `--profile` (an option of the harness plugin), else the
    environment's CRM_PROFILE, else `quick`; ValueError names the known profiles."""
    name = config.getoption("crm_profile", default=None) or os.environ.get("CRM_PROFILE")
    return profiles.profile(name or profiles.DEFAULT)


def time_share(request: Any) -> float:
    """Seconds of `--fuzz-minutes` (or CRM_FUZZ_MINUTES) this test may spend: an equal
    share for each generated test (`generated` marker) the run selected; ValueError
    names the accepted form."""
    minutes = profiles.fuzz_minutes(request.config.getoption("crm_fuzz_minutes", default=None))
    tests = sum(1 for item in request.session.items if item.get_closest_marker("generated"))
    return minutes * 60 / max(1, tests)


def replayed_rounds(request: Any) -> int | None:
    """The rounds this deep fuzz test runs to replay an earlier run (`--fuzz-rounds
    RUN_DIR`: as many as it ran there; one when it did not run there), else None (the
    time budget bounds it)."""
    run_dir = request.config.getoption("crm_fuzz_rounds", default=None)
    if run_dir is None:
        return None
    from crm_conformance.fuzz.seeding import rounds_of_run

    return rounds_of_run(str(run_dir)).get(request.node.nodeid, 1)


def announce(config: Any, *, seed: int, label: str = "fuzz") -> None:
    """Print the seed, the profile and how to replay them, past pytest's output capture."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    line = (
        f"{label}: seed {seed}, profile {profile_of(config).name} "
        f"(replay: --hypothesis-seed={seed})"
    )
    with capture.global_and_fixture_disabled():
        reporter.write_line(line)


def distinguish_in_allure(item: Any) -> None:
    """Name the operation as an Allure parameter, when Allure records the run.

    allure-pytest derives `historyId` from the test function and its parameters, and
    schemathesis's items have none, so without this every operation would share one
    history (schemathesis-4x-cookbook pitfall 2).
    """
    label = getattr(item, "operation_label", None)
    if label and item.config.getoption("allure_report_dir", None):
        import allure

        allure.dynamic.parameter("operation", label)


def skipped_unless_sent(test: Any, *, sent: Callable[[], int], label: str) -> Callable[..., None]:
    """The built test `test`, skipped (not applicable, with the reason) when none of its
    cases reached the target: `sent` counts the requests it sent.

    Outside the embedded server `sends_to` holds cases back without failing them; a test
    whose every case was held back checked nothing, and a pass would claim its ids.
    The wrapper keeps the Hypothesis test's attributes, so its plugin still reports it.
    """

    def run(**fixtures: Any) -> None:
        test(**fixtures)
        if sent() == 0:
            pytest.skip(
                f"every case generated for {label} was held back on this target (an "
                "undeclared method, or a write that could reach a record the run did not "
                "create: guard.sends_to); nothing was sent, nothing checked"
            )

    return functools.update_wrapper(run, test)


_ANNOUNCED = pytest.StashKey[set[str]]()
"""The labels whose seed this process printed already (one line each per run)."""


LABELS = {"examples": "fuzz", "steps": "stateful fuzz"}
"""The label of each kind of generated test's seed line."""


@pytest.fixture
def fuzz_run(request: pytest.FixtureRequest, api: "ApiClient") -> Iterator[FuzzRun]:
    """The run's seed, profile and budget for this generated test; while it runs, what
    schemathesis sends itself (`ignored_auth`'s probes) goes through the harness client;
    after it, its `fuzz` property."""
    from crm_conformance.fuzz.seeding import run_seed, sent_digest
    from crm_conformance.fuzz.transport import sent_through

    profile = profile_of(request.config)
    marker = request.node.get_closest_marker("generated")
    label = LABELS.get(marker.args[0] if marker and marker.args else "", "fuzz")
    seed = run_seed()
    announced = request.config.stash.setdefault(_ANNOUNCED, set())
    if label not in announced:
        announced.add(label)
        announce(request.config, seed=seed, label=label)
    run = FuzzRun(
        seed=seed,
        profile=profile,
        seconds=time_share(request) if profile.timed else 0.0,
        exactly=replayed_rounds(request) if profile.timed else None,
        before=api.log.mark(),
    )
    try:
        with sent_through(api):
            yield run
    finally:
        exchanges = api.log.since(run.before)
        ran = {"rounds": run.rounds[0]} if profile.timed and run.rounds else {}
        fingerprint = {"requests": len(exchanges), "sent": sent_digest(exchanges)}
        request.node.user_properties.append(
            ("fuzz", {"seed": seed, "profile": profile.name, **fingerprint, **ran})
        )


@pytest.fixture(autouse=True)
def _generated(request: pytest.FixtureRequest) -> None:
    """Rewrite the built test of a fuzz operation (marked `generated("examples")`, built
    by schemathesis) for this run: its coverage cases (built when it runs, so an xdist
    worker builds only its own tests'), the profile's examples, the deep profile's
    rounds, its Allure parameter and the held-back skip. Other tests are left alone; a
    stateful run asks for `fuzz_run` itself."""
    marker = request.node.get_closest_marker("generated")
    if marker is None or marker.args[:1] != ("examples",):
        return
    from crm_conformance.fuzz import budget, loader

    item: Any = request.node
    schema = loader.schema_of(item)
    if schema is None:
        return
    run: FuzzRun = request.getfixturevalue("fuzz_run")
    api: ApiClient = request.getfixturevalue("api")
    loader.add_coverage_cases(item, schema, each_constraint_once=run.profile.each_constraint_once)
    budget.use_examples(item.obj, run.profile.examples)
    if run.profile.timed:
        item.obj = budget.timed(
            item.obj, seconds=run.seconds, rounds=run.rounds, exactly=run.exactly
        )
    distinguish_in_allure(item)
    item.obj = skipped_unless_sent(
        item.obj,
        sent=lambda: api.log.mark() - run.before,
        label=getattr(item, "operation_label", item.name),
    )
