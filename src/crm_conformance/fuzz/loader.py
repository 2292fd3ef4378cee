"""spec/openapi.yaml as the fuzz layer loads it: overlaid, configured, sent through the
harness, and its coverage cases built when a test runs.
"""

from typing import Any

import schemathesis

from crm_conformance.core.model.paths import OPENAPI
from crm_conformance.fuzz import constraint_sample, internals
from crm_conformance.fuzz.overlay import (
    absent_may_be_null,
    declare_open_methods,
    is_not_shown,
    overlay,
)
from crm_conformance.fuzz.transport import routed

ACCEPTED_WHEN_VALID = ("2xx", "3xx", "400", "401", "403", "404", "409", "422", "429", "5xx")
"""What `positive_data_acceptance` accepts for a schema-valid request: besides its
defaults, 400 and 422. The document refuses schema-valid requests for reasons a schema
cannot say: a cursor it did not issue (`invalid_cursor`), a `sort`, `expand` or `fields`
name not on the resource (`unknown_*`), a body that is "well-formed but not applicable"
(422 `invalid_request`, `stage_not_in_pipeline`), and bodies whose shape is not shown.
Server errors stay failures through `not_a_server_error`."""


def settings(*, seed: int | None = None) -> dict[str, Any]:
    """The schemathesis configuration of a fuzz run (as `schemathesis.toml` data).

    Why each entry: `database = "none"` so a run replays nothing from an earlier one
    (the seed alone reproduces it); `with-security-parameters = false` because the
    harness client sends the token and `ignored_auth` probes missing and invalid ones;
    `allow_header_conformance` off because the document never mentions `Allow`;
    `content_type_conformance` off because the document asks only for JSON bodies, which
    the harness's HDR-004 check holds (any `+json` type, as `application/problem+json`).
    """
    config: dict[str, Any] = {
        "generation": {"database": "none", "with-security-parameters": False},
        "checks": {
            "allow_header_conformance": {"enabled": False},
            "content_type_conformance": {"enabled": False},
            "positive_data_acceptance": {"expected-statuses": list(ACCEPTED_WHEN_VALID)},
        },
        "phases": {"stateful": {"generation": {"mode": "positive"}}},
    }
    if seed is not None:
        config["seed"] = seed
    return config


def load(*, seed: int | None = None, coverage_when_run: bool = False) -> Any:
    """spec/openapi.yaml with the overlays applied (the file itself is unchanged), the
    run's `settings`, and the operations of `declare_open_methods` excluded.

    `coverage_when_run`: the tests parametrized by this schema get the coverage phase's
    cases when they run (`add_coverage_cases`), not when they are collected.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 8x faster when present
    raw = yaml.load(OPENAPI.read_text(encoding="utf-8"), Loader=loader)
    overlay(raw)
    absent_may_be_null(raw)
    declare_open_methods(raw)
    config = schemathesis.Config.from_dict(settings(seed=seed))
    schema = routed(schemathesis.openapi.from_dict(raw, config=config)).exclude(func=is_not_shown)
    if coverage_when_run:
        schema.config.phases.coverage.enabled = False
    return schema


def add_coverage_cases(item: Any, schema: Any, *, each_constraint_once: bool = False) -> None:
    """Give the built test of `item` (a `schema.parametrize()` test) the coverage phase's
    cases, as schemathesis gives them when it builds the test with that phase on; with
    `each_constraint_once` (the quick profile) only the first case of each constraint a
    negative case breaks, and no valid case that repeats another (`constraint_sample.thinned`).

    Why when the test runs: schemathesis builds every operation's coverage cases while
    it collects, in every process that collects, and they are most of a collection's
    CPU (about 1.5 s of 3). Under xdist each worker collected all 22 operations' cases to
    run its half of them; now each builds only the cases of the tests it runs. The cases
    are the same (tests/fuzz/test_fuzz_layer.py compares them with schemathesis's own),
    and they go in the same place: explicit examples, attached last, so Hypothesis runs
    them first. Schemathesis has no public call for this; these are the calls its test
    builder makes (`schemathesis.generation.hypothesis.builder.add_coverage`), pinned by
    that comparison.
    """
    import hypothesis
    from schemathesis.auths import AuthStorageMark
    from schemathesis.generation.hypothesis.builder import (
        ApiOperationMark,
        UnserializablePayloadMark,
    )
    from schemathesis.generation.meta import content_type_probes_first
    from schemathesis.hooks import HookDispatcherMark

    test = item.obj
    if getattr(test, _COVERAGE_ADDED, False):
        return
    operation = ApiOperationMark.get(test)
    assert operation is not None, "a test schemathesis built carries its operation"
    generator = coverage_generator(
        schema,
        operation,
        auth_storage=AuthStorageMark.get(item.test_function),
        hooks=HookDispatcherMark.get(item.test_function),
    )
    cases = content_type_probes_first(generator)
    if each_constraint_once:
        cases = constraint_sample.thinned(cases, schema.raw_schema)
    for case in cases:  # Hypothesis runs explicit examples in reverse order of attachment
        hypothesis.example(case=case)(test)
    unserializable = generator.controller.unserializable_media_types
    if unserializable:
        UnserializablePayloadMark.set(test, sorted(unserializable))
    setattr(test, _COVERAGE_ADDED, True)


def coverage_generator(
    schema: Any, operation: Any, *, auth_storage: Any = None, hooks: Any = None
) -> Any:
    """Schemathesis's coverage phase for `operation` of `schema` (iterating it gives the
    cases), configured as schemathesis's test builder configures it."""
    from schemathesis.generation import overrides
    from schemathesis.generation.drivers import CoverageGenerator
    from schemathesis.generation.feedback import FeedbackSources

    config = schema.config
    generation = config.generation_for(operation=operation, phase="coverage")
    return CoverageGenerator(
        operation=operation,
        generation_modes=generation.modes,
        generation_config=generation,
        auth_storage=auth_storage,
        override=overrides.with_config_headers(config, operation=operation),
        # the schema's constants steer generation; schemathesis caches them on the schema
        feedback=FeedbackSources(constants_value_source=internals.constants_source(schema)),
        hooks=hooks,
    )


def schema_of(item: Any) -> Any:
    """The schema whose `parametrize()` built the test of `item`; None when schemathesis
    did not build it."""
    from schemathesis.pytest.plugin import SchemaHandleMark

    function = getattr(item, "test_function", None)
    return None if function is None else SchemaHandleMark.get(function)


_COVERAGE_ADDED = "_crm_coverage_added"
"""Set on a built test once `add_coverage_cases` gave it its cases (never twice)."""
