"""The order tests run in under xdist: the long ones are dealt out first.

xdist's worksteal gives each of N workers a contiguous block of the collection (the
first `len // N` tests to the first worker, and so on), and a worker that runs out
steals the back half of the pending tests of the worker with most. Stealing balances
short tests, never a long one: a stateful run of 15 s, or a rate-limit window slept
out, that starts near the end leaves the other workers idle (issue 14: in the full
profile one worker finished 1.7 s before the other, its last test a fuzz operation).

So every worker sorts its collection the same way (xdist runs only identical ones):
the long tests go to the fronts of the blocks, longest first, each to the block with
the least estimated work so far (LPT, longest processing time first), and the others
follow in collection order. Modules stay together, and the backs of the blocks, which
stealing moves, hold short tests. `crm-conformance run` asks xdist for worksteal; under
another `--dist` the order is harmless, and without xdist nothing moves.

What makes a test long is marked on it, and its weight is an estimate in generated
cases, from the run's profile: `@pytest.mark.waits` (it sleeps out a rate-limit
window), `@pytest.mark.generated("examples")` (a fuzz operation: the profile's
examples and its coverage cases) and `@pytest.mark.generated("steps")` (a stateful
run: scenarios times steps). Only tests of `LONG_CASES` or more are dealt: the quick
profile's generated tests are short, and stay where they are. The weights only order
tests; a wrong estimate makes a run slower, never different.
"""

from collections.abc import Callable, Sequence
from typing import TypeVar

import pytest

from crm_conformance.core.planning import profiles
from crm_conformance.plugin.state import is_worker, state_of

T = TypeVar("T")

COVERAGE_CASES = 34
"""A fuzz operation's coverage cases, about: 748 over the spec's 22 operations."""

WAIT_CASES = 250
"""A rate-limit window slept out (about 5 s), in the cases a stateful run sends in as
long (about 50 a second against the embedded server)."""

LONG_CASES = 100
"""Below this a test is short enough for stealing to balance (a quick profile's fuzz
operation, 39 cases, takes 0.3 s). Dealing such tests out would only make every worker
pay the fuzz layer's first use (measured: the quick run 0.2-0.5 s slower under -n 2)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "waits: the test sleeps out a wait (a rate-limit window); dealt first"
    )
    config.addinivalue_line(
        "markers",
        "generated(per): the test sends what the profile generates, per 'examples' (a fuzz "
        "operation) or 'steps' (a stateful run); dealt first under xdist",
    )


def weight(item: pytest.Item, profile: profiles.Profile) -> int:
    """The estimated work of `item` in generated cases; 0 for a test that is not long."""
    if item.get_closest_marker("waits") is not None:
        return WAIT_CASES
    marker = item.get_closest_marker("generated")
    if marker is None:
        return 0
    per = marker.args[0] if marker.args else marker.kwargs.get("per")
    if per == "examples":
        return profile.examples + COVERAGE_CASES
    if per == "steps":
        return profile.scenarios * profile.steps
    raise pytest.UsageError(f"{item.nodeid}: generated({per!r}): per is 'examples' or 'steps'")


def dealt(items: Sequence[T], workers: int, weigh: Callable[[T], int]) -> list[T]:
    """`items` in blocks as worksteal splits them among `workers`, the long ones (weight
    `LONG_CASES` or more) dealt longest first to the fronts of the blocks, the others
    after them in their order."""
    sizes = []
    remaining = len(items)
    for index in range(workers):  # worksteal's first split: pending // nodes left
        sizes.append(remaining // (workers - index))
        remaining -= sizes[-1]
    weighed = [(weigh(item), item) for item in items]
    long = sorted((pair for pair in weighed if pair[0] >= LONG_CASES), key=lambda pair: -pair[0])
    rest = iter([item for cases, item in weighed if cases < LONG_CASES])
    fronts: list[list[T]] = [[] for _ in sizes]
    loads = [0] * len(sizes)
    for cases, item in long:  # sorted() is stable: equal weights keep collection order
        open_blocks = [k for k in range(len(sizes)) if len(fronts[k]) < sizes[k]]
        block = min(open_blocks, key=lambda k: (loads[k], k))
        fronts[block].append(item)
        loads[block] += cases
    ordered: list[T] = []
    for front, size in zip(fronts, sizes, strict=True):
        ordered += front
        ordered += [next(rest) for _ in range(size - len(front))]
    return ordered


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not is_worker(config):
        return
    state = state_of(config)
    profile = profiles.profile(state.options.profile)
    items[:] = dealt(items, state.worker_count, lambda item: weight(item, profile))
