"""The private attributes of Hypothesis and schemathesis that `crm_conformance.fuzz.internals`
wraps still exist and still do what the fuzz layer relies on: an upgrade that moves one
fails here, not in a run against a vendor's server."""

from typing import Any

import hypothesis
import pytest
from hypothesis import Phase, given
from hypothesis import strategies as st

from crm_conformance.fuzz import internals, loader

pytest_plugins = ["pytester"]


def _counting(calls: list[int]) -> Any:
    @hypothesis.settings(max_examples=3, database=None, phases=[Phase.generate])
    @given(st.integers())
    def test(number: int) -> None:
        calls.append(number)

    return test


def test_settings_replaced_on_a_built_test_are_the_ones_it_runs_with() -> None:
    calls: list[int] = []
    test = _counting(calls)
    assert internals.settings_of(test).max_examples == 3
    internals.set_settings(test, hypothesis.settings(internals.settings_of(test), max_examples=7))
    test()
    assert len(calls) == 7


def test_the_seed_a_test_was_given_is_read_back_and_decides_its_cases() -> None:
    drawn: list[list[int]] = []
    for seed in (1234, 1234, 99):
        calls: list[int] = []
        test = hypothesis.seed(seed)(_counting(calls))
        assert internals.seed_of(test) == seed
        test()
        drawn.append(calls)
    assert drawn[0] == drawn[1] != drawn[2]


def test_the_schemas_constants_source_is_still_built_from_a_schema() -> None:
    """Called as the test builder calls it; None when the schema has no constants (no
    application to read them from, as here). The coverage cases it steers are compared
    with schemathesis's own in test_fuzz_layer.py."""
    source = internals.constants_source(loader.load(seed=7))
    assert source is None or not source.is_empty()


def test_the_seed_of_the_command_line_is_read(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from crm_conformance.fuzz import internals

        def test_seed():
            assert internals.forced_seed() == 4242
        """
    )
    pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--hypothesis-seed=4242"
    ).assert_outcomes(passed=1)
