"""The order of tests under xdist (`plugin.ordering`): long tests dealt to the fronts of
worksteal's blocks, longest first to the block with least, the others in their order."""

import pytest

from crm_conformance.core.planning import profiles
from crm_conformance.plugin.ordering import (
    COVERAGE_CASES,
    LONG_CASES,
    WAIT_CASES,
    dealt,
    weight,
)

LONG = LONG_CASES
WEIGHTS = {"a": 0, "b": 0, "long5": 5 * LONG, "c": 0, "long3": 3 * LONG, "long2": 2 * LONG}
WEIGHTS |= {"short": LONG - 1, "e": 0}


def test_long_tests_go_to_the_fronts_of_the_blocks_longest_first_to_the_least_loaded() -> None:
    order = dealt(list(WEIGHTS), 2, WEIGHTS.__getitem__)
    assert order[:4] == ["long5", "a", "b", "c"]  # worksteal's first block: 8 // 2 tests
    assert order[4:] == ["long3", "long2", "short", "e"]  # 3 + 2 beside 5; short stays


def test_blocks_have_worksteal_sizes_and_every_test_once() -> None:
    items = [f"t{n}" for n in range(7)]
    heavy = {"t5": LONG, "t6": LONG, "t4": LONG}
    order = dealt(items, 3, lambda item: heavy.get(item, 0))
    assert sorted(order) == sorted(items)
    assert [order[0], order[2], order[4]] == ["t4", "t5", "t6"]  # blocks of 2, 2 and 3


def test_without_long_tests_the_order_is_the_collection_order() -> None:
    items = list("abcdefg")
    assert dealt(items, 2, lambda item: 0) == items


def test_more_long_tests_than_a_block_holds_spill_into_the_next() -> None:
    order = dealt(["x", "y", "z"], 2, {"x": LONG, "y": 3 * LONG, "z": 2 * LONG}.__getitem__)
    assert order == ["y", "z", "x"]  # x would go beside y, but that block holds 1 of 3


class _Item:
    """Just the marker lookup of a pytest item."""

    def __init__(self, *marks: pytest.MarkDecorator) -> None:
        self.marks = {mark.mark.name: mark.mark for mark in marks}
        self.nodeid = "suites/test_x.py::test_x"

    def get_closest_marker(self, name: str) -> pytest.Mark | None:
        return self.marks.get(name)


def test_weights_follow_the_profile() -> None:
    quick, full = profiles.profile("quick"), profiles.profile("full")
    fuzz = _Item(pytest.mark.generated("examples"))
    stateful = _Item(pytest.mark.generated(per="steps"))
    assert weight(fuzz, full) == full.examples + COVERAGE_CASES  # type: ignore[arg-type]  # a stand-in item
    assert weight(stateful, quick) == quick.scenarios * quick.steps  # type: ignore[arg-type]  # a stand-in item
    assert weight(_Item(pytest.mark.waits), quick) == WAIT_CASES  # type: ignore[arg-type]  # a stand-in item
    assert weight(_Item(), full) == 0  # type: ignore[arg-type]  # a stand-in item
    with pytest.raises(pytest.UsageError, match="per is 'examples' or 'steps'"):
        weight(_Item(pytest.mark.generated("cases")), full)  # type: ignore[arg-type]  # a stand-in item
