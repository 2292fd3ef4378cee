"""Run profiles: how much generated data the fuzz layer spends, by name.

Pytest-free and import-light, so the command line and the plugin's options read the
names without loading schemathesis.

- `quick`: a CI gate; 5 generated cases per operation, 8 stateful scenarios of at most
  4 steps; the coverage phase breaks each constraint of a request once (the first of
  schemathesis's values for it) and sends no valid case that repeats another, and no
  generated case is sent that repeats one sent and passed
  (`crm_conformance.fuzz.constraint_sample`).
- `full`: nightly; 100 cases per operation, 100 scenarios of at most 8 steps, and every
  coverage case (each constraint broken with every value schemathesis has for it, every
  combination of optional members).
- `deep`: nightly, bounded by time rather than by cases: the `full` cases in rounds,
  each round of a test with the next seed (the first round also sends the coverage
  phase's cases), until the test's share of `--fuzz-minutes` is spent. The minutes are
  shared equally by the fuzz tests of the run; a round is started only when the last
  one would still fit, and every test runs at least one. A replay of a deep run
  (`--fuzz-rounds RUN_DIR`) runs each fuzz test the rounds it ran there instead, so
  another machine sends the same cases (`plugin.fuzz.replayed_rounds`).
"""

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """Generated cases per operation and the stateful phase's bounds, per round."""

    name: str
    examples: int
    scenarios: int
    steps: int
    timed: bool = False
    """Rounds until the time budget (`--fuzz-minutes`) is spent, instead of one round."""
    each_constraint_once: bool = False
    """The coverage phase's negative cases: the first of each constraint's, not all, and
    its valid cases but those repeating another; no generated case repeating one sent
    and passed (against a rate limit, each is a request of the token's allowance)."""


PROFILES: Mapping[str, Profile] = {
    profile.name: profile
    for profile in (
        Profile("quick", examples=5, scenarios=8, steps=4, each_constraint_once=True),
        Profile("full", examples=100, scenarios=100, steps=8),
        Profile("deep", examples=100, scenarios=100, steps=8, timed=True),
    )
}
NAMES = tuple(PROFILES)
DEFAULT = "quick"
DEFAULT_FUZZ_MINUTES = 30.0
"""The `deep` profile's budget when `--fuzz-minutes` (or CRM_FUZZ_MINUTES) is not given."""


def profile(name: str) -> Profile:
    """The profile called `name`; ValueError names the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"profile={name!r}: known profiles are {', '.join(NAMES)}") from None


def fuzz_minutes(raw: str | float | None) -> float:
    """The deep profile's budget from `--fuzz-minutes` (or CRM_FUZZ_MINUTES when None);
    ValueError names the accepted form."""
    value = raw if raw is not None else os.environ.get("CRM_FUZZ_MINUTES")
    if value is None:
        return DEFAULT_FUZZ_MINUTES
    try:
        minutes = float(value)
    except ValueError:
        minutes = math.nan
    if not (math.isfinite(minutes) and minutes > 0):
        raise ValueError(f"--fuzz-minutes={value!r}: expected a positive number, e.g. 60")
    return minutes
