"""The private attributes of Hypothesis and schemathesis the fuzz layer relies on, each
read or written in one function here, where no public call does the same.

Why: a built Hypothesis test keeps its settings and its seed in attributes
(`_hypothesis_internal_use_settings`, `_hypothesis_internal_use_seed`) that Hypothesis
reads when the test runs. `hypothesis.seed(n)(test)` is the public way to set the seed
(the fuzz layer uses it), but nothing public reads the seed back or replaces the settings
of a test already decorated (`settings(...)(test)` refuses a second time). Schemathesis
builds a test's coverage cases with the schema's constants from a private module. And
the seed `--hypothesis-seed` gives is a module global Hypothesis does not document.
tests/fuzz/test_internals.py fails when an upgrade moves any of them.
"""

from typing import Any

SETTINGS = "_hypothesis_internal_use_settings"
"""Where a built Hypothesis test keeps the settings it runs with."""

SEED = "_hypothesis_internal_use_seed"
"""Where a built Hypothesis test keeps the seed `hypothesis.seed` gave it (None: none)."""


def settings_of(test: Any) -> Any:
    """The `hypothesis.settings` the built test `test` runs with."""
    return getattr(test, SETTINGS)


def set_settings(test: Any, settings: Any) -> None:
    """Make the built test `test` run with `settings` from its next call on."""
    setattr(test, SETTINGS, settings)


def seed_of(test: Any) -> int:
    """The seed the built test `test` was given (`hypothesis.seed`, as schemathesis
    gives one from its config)."""
    return int(getattr(test, SEED))


def constants_source(schema: Any) -> Any:
    """The value source of the schema's constants that steers schemathesis's generation
    (cached on the schema by schemathesis), as its test builder passes it."""
    from schemathesis.python._constants.orchestrator import make_constants_value_source

    return make_constants_value_source(schema)


def forced_seed() -> int | None:
    """The seed of `--hypothesis-seed` (Hypothesis's pytest plugin sets it), else None."""
    from hypothesis import core

    seed = core.global_force_seed
    return None if seed is None else int(seed)
