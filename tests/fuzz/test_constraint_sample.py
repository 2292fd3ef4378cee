"""The quick profile's coverage cases break each constraint once, and a fuzz test does
not send a read it already passed (issue 22: fewer requests per verdict, same rules)."""

from collections import Counter
from functools import cache
from types import SimpleNamespace
from typing import Any

import pytest

from crm_conformance.core import profiles
from crm_conformance.fuzz import budget, loader
from crm_conformance.fuzz.constraint_sample import constraint_of, one_per_constraint
from crm_conformance.fuzz.request_constraints import constrained_places


@cache
def _schema() -> Any:
    return loader.load(seed=7)


def _coverage_cases() -> dict[str, list[Any]]:
    """Every operation's coverage cases for spec/openapi.yaml, as schemathesis makes them."""
    return {
        result.ok().label: list(loader.coverage_generator(_schema(), result.ok()))
        for result in _schema().get_all_operations()
    }


def _thinned(cases: list[Any]) -> list[Any]:
    return one_per_constraint(cases, _schema().raw_schema)


def _constraint(case: Any) -> Any:
    return constraint_of(case, constrained_places(_schema().raw_schema))


@pytest.fixture(scope="module")
def coverage_cases() -> dict[str, list[Any]]:
    return _coverage_cases()


def test_each_constraint_is_broken_once_and_every_other_case_is_kept(
    coverage_cases: dict[str, list[Any]],
) -> None:
    every, kept_in_all = 0, 0
    for label, cases in coverage_cases.items():
        kept = _thinned(cases)
        every, kept_in_all = every + len(cases), kept_in_all + len(kept)
        kept_ids = {id(c) for c in kept}
        assert [id(c) for c in cases if id(c) in kept_ids] == [id(c) for c in kept], label
        constraints = Counter(_constraint(c) for c in kept)
        del constraints[None]
        assert set(constraints) == {_constraint(c) for c in cases} - {None}, label
        assert max(constraints.values(), default=1) == 1, label
        assert [id(c) for c in cases if _constraint(c) is None] == [
            id(c) for c in kept if _constraint(c) is None
        ], f"{label}: positive cases and request-shape probes all kept"
    assert kept_in_all < 0.7 * every, (kept_in_all, every)


def _query(cases: list[Any], name: str, scenario: str) -> list[Any]:
    return [
        c
        for c in cases
        if str(c._meta.phase.data.scenario) == scenario and c._meta.phase.data.parameter == name
    ]


def test_a_typed_query_value_keeps_its_first_wrong_type_and_its_bounds(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """`limit` is an integer: five wrong types (the first is a fraction, the value a
    lenient parser truncates) become one, beside one value below and one above."""
    cases = coverage_cases["GET /v1/contacts"]
    kept = _thinned(cases)
    assert len(_query(cases, "limit", "incorrect_type")) >= 4
    assert [c.query["limit"] for c in _query(kept, "limit", "incorrect_type")] == ["0.5"]
    assert len(_query(kept, "limit", "value_below_minimum")) == 1
    assert len(_query(kept, "limit", "value_above_maximum")) == 1


def test_a_path_id_has_no_type_on_the_wire_so_its_breaks_are_one(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """`contact_id` is a string: its "wrong type" values arrive as strings breaking the
    pattern, one constraint with the pattern's own case."""
    cases = coverage_cases["GET /v1/contacts/{contact_id}"]
    breaks = [
        c
        for c in cases
        if c._meta.generation.mode.value == "negative"
        and c._meta.phase.data.parameter == "contact_id"
    ]
    assert len(breaks) >= 3
    kept = {id(c) for c in _thinned(cases)}
    assert len([c for c in breaks if id(c) in kept]) == 1


def test_each_missing_required_member_is_its_own_constraint(
    coverage_cases: dict[str, list[Any]],
) -> None:
    cases = coverage_cases["POST /v1/deals"]
    missing = [c for c in cases if "missing_required" in str(c._meta.phase.data.scenario)]
    assert len(missing) >= 3
    kept = {id(c) for c in _thinned(cases)}
    assert all(id(c) in kept for c in missing)


def test_only_the_quick_profile_thins_the_coverage_cases() -> None:
    assert profiles.profile("quick").each_constraint_once
    assert not profiles.profile("full").each_constraint_once
    assert not profiles.profile("deep").each_constraint_once


def test_the_quick_coverage_cases_attached_are_the_thinned_ones() -> None:
    from schemathesis.generation.feedback import FeedbackSources
    from schemathesis.pytest._test_builder import build_operation_test

    def test_operation(case: Any) -> None:
        """Stands for the suite's test."""

    schema = loader.load(seed=7, coverage_when_run=True)
    operation = next(r.ok() for r in schema.get_all_operations() if r.ok().label == "POST /v1/tags")
    attached = {}
    for once in (False, True):
        test = build_operation_test(
            config=schema.config,
            operation=operation,
            test_func=test_operation,
            given_kwargs={},
            feedback=FeedbackSources(),
        )
        item = SimpleNamespace(obj=test, test_function=test_operation)
        loader.add_coverage_cases(item, schema, each_constraint_once=once)
        attached[once] = [e.kwargs["case"] for e in test.hypothesis_explicit_examples]
    assert len(attached[True]) < len(attached[False])
    assert {_constraint(c) for c in attached[True]} == {_constraint(c) for c in attached[False]}


def _case(method: str, path: str = "/v1/me", **parts: Any) -> Any:
    return SimpleNamespace(
        method=method,
        formatted_path=path,
        query=parts.get("query"),
        headers=parts.get("headers"),
        body=parts.get("body"),
        media_type=parts.get("media_type"),
    )


def _run() -> budget.FuzzRun:
    return budget.FuzzRun(
        seed=1, profile=profiles.profile("quick"), seconds=0, exactly=None, before=0
    )


def test_a_read_that_passed_is_not_sent_again_but_a_write_is() -> None:
    run = _run()
    read = _case("GET", query={"limit": "1"}, headers={"X-Schemathesis-TestCaseId": "a"})
    assert not run.read_already_passed(read)
    run.passed(read)
    again = _case("GET", query={"limit": "1"}, headers={"X-Schemathesis-TestCaseId": "b"})
    assert run.read_already_passed(again), "the case id header is schemathesis's own"
    assert not run.read_already_passed(_case("GET", query={"limit": "2"}))
    assert not run.read_already_passed(_case("GET", "/v1/users", query={"limit": "1"}))
    write = _case("POST", "/v1/tags", body={"name": "x"})
    run.passed(write)
    assert not run.read_already_passed(write)


def test_a_read_that_failed_is_sent_again() -> None:
    """Hypothesis replays a failing case: it must fail again, never pass as a repeat."""
    run = _run()
    assert not run.read_already_passed(_case("GET"))
    assert not run.read_already_passed(_case("GET")), "never noted as passed"
