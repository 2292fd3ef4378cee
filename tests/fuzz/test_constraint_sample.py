"""The quick profile's coverage cases break each constraint once and send each valid
value once, and a fuzz test does not send a read it already passed nor, under quick, a
generated break it already made (issue 22: fewer requests per verdict, same rules)."""

from collections import Counter
from functools import cache
from types import SimpleNamespace
from typing import Any

import pytest

from crm_conformance.core.planning import profiles
from crm_conformance.fuzz import budget, loader
from crm_conformance.fuzz.constraint_sample import (
    bounds_sent,
    constraint_of,
    repeats_a_valid_case,
    thinned,
)
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
    return thinned(cases, _schema().raw_schema)


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
        own_points = [c for c in cases if _constraint(c) is None and not _repeat(c, cases)]
        assert [id(c) for c in own_points] == [id(c) for c in kept if _constraint(c) is None], (
            f"{label}: valid cases but repeats, and request-shape probes, all kept"
        )
    assert kept_in_all < 0.6 * every, (kept_in_all, every)


def _repeat(case: Any, cases: list[Any]) -> bool:
    return repeats_a_valid_case(case, bounds_sent(cases))


def _descriptions(cases: list[Any], mode: str = "positive") -> list[str]:
    return [
        str(c._meta.phase.data.description)
        for c in cases
        if c._meta.generation.mode.value == mode and c._meta.phase.data.description
    ]


def test_combinations_of_optional_members_are_left_to_the_full_profile(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """Each member is sent present (all of them at once) and absent (required ones only);
    its values each have a case of their own."""
    cases = coverage_cases["POST /v1/contacts/search"]
    every, kept = _descriptions(cases), _descriptions(_thinned(cases))
    assert any("subset of optional properties" in d for d in every)
    assert any(d.startswith("Object with all required properties and '") for d in every)
    assert not any("subset of optional" in d or "required properties and '" in d for d in kept)
    assert "Object with only required properties" in kept
    assert "Valid object" in kept
    assert sum(d.endswith("Enum value") for d in kept) >= 2, "each join value"
    queries = _descriptions(_thinned(coverage_cases["GET /v1/contacts"]))
    assert not any(d.startswith("All required") for d in queries)
    assert "Default positive test case" in queries


def test_a_value_inside_a_bound_is_sent_only_where_the_bound_is_not(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """`limit`'s 200 is sent (and 1, the default), so 199 and 2 are not; the
    Idempotency-Key's 254 characters are, as schemathesis sends no 255 there."""
    kept = _thinned(coverage_cases["GET /v1/users"])
    limits = [c.query.get("limit") for c in kept if c._meta.generation.mode.value == "positive"]
    assert "200" in limits
    assert "199" not in limits
    assert "2" not in limits
    tags = _descriptions(_thinned(coverage_cases["POST /v1/tags"]))
    assert "Near-boundary length string" in tags, "the key's only valid bound"
    assert "Object with valid 'name' value: Maximum length string" in tags
    assert "Object with valid 'name' value: Near-boundary length string" not in tags


def test_a_nested_group_is_sent_one_level_deep_not_two(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """The items of a nested group's conditions are the filter's conditions again, as
    `request_constraints` reads them (one place)."""
    cases = coverage_cases["POST /v1/contacts/search"]
    step = "Object with valid 'conditions' value: Single-item array"
    every = _descriptions(cases)
    kept = _descriptions(_thinned(cases)) + _descriptions(_thinned(cases), "negative")
    assert any(d.count(step) == 2 for d in every)
    assert any(d.count(step) == 1 for d in kept), "a nested group is still sent"
    assert not any(d.count(step) > 1 for d in kept)
    negative = "conditions -> Array with invalid items"
    assert any(d.count(negative) == 2 for d in _descriptions(cases, "negative"))
    assert not any(d.count(negative) > 1 for d in kept)


def test_a_nullable_patterned_member_sent_a_string_breaks_its_pattern_once(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """`contact_id` on a deal may be null: schemathesis breaks its null alternative with
    a string, which breaks the pattern, and its pattern with another; one is sent, beside
    the wrong types (a number...), a constraint of their own."""
    cases = coverage_cases["POST /v1/deals"]
    breaks = [
        c
        for c in cases
        if c._meta.generation.mode.value == "negative"
        and "contact_id:" in str(c._meta.phase.data.description)
    ]
    kept = {id(c) for c in _thinned(cases)}
    strings = [c for c in breaks if isinstance(c.body.get("contact_id"), str)]
    others = [c for c in breaks if not isinstance(c.body.get("contact_id"), str)]
    assert len(strings) >= 2
    assert others
    assert len([c for c in strings if id(c) in kept]) == 1
    assert {_constraint(c) for c in others} == {_constraint(c) for c in others if id(c) in kept}


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
        examples = test.hypothesis_explicit_examples  # type: ignore[attr-defined]  # set by hypothesis
        attached[once] = [e.kwargs["case"] for e in examples]
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


def _run(profile: str = "quick") -> budget.FuzzRun:
    return budget.FuzzRun(
        seed=1, profile=profiles.profile(profile), seconds=0, exactly=None, before=0
    )


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_a_read_that_passed_is_not_sent_again(profile: str) -> None:
    run = _run(profile)
    read = _case("GET", query={"limit": "1"}, headers={"X-Schemathesis-TestCaseId": "a"})
    assert not run.already_passed(read)
    run.passed(read)
    again = _case("GET", query={"limit": "1"}, headers={"X-Schemathesis-TestCaseId": "b"})
    assert run.already_passed(again), "the case id header is schemathesis's own"
    assert not run.already_passed(_case("GET", query={"limit": "2"}))
    assert not run.already_passed(_case("GET", "/v1/users", query={"limit": "1"}))


def test_a_generated_write_sent_already_is_sent_again_only_under_the_full_profiles() -> None:
    """A second identical create is a duplicate, a request of its own; the quick profile
    leaves it to the suites that test duplicates."""
    for profile, again in (("quick", True), ("full", False)):
        run = _run(profile)
        write = _case("POST", "/v1/tags", body={"name": "x"})
        assert not run.already_passed(write)
        run.passed(write)
        assert run.already_passed(_case("POST", "/v1/tags", body={"name": "x"})) is again
        assert not run.already_passed(_case("POST", "/v1/tags", body={"name": "y"}))


def test_a_read_that_failed_is_sent_again() -> None:
    """Hypothesis replays a failing case: it must fail again, never pass as a repeat."""
    run = _run()
    assert not run.already_passed(_case("GET"))
    assert not run.already_passed(_case("GET")), "never noted as passed"


def _generated(
    *mutations: tuple[str, str | None, str, tuple[str, ...], str], drawn: str = "x" * 256
) -> Any:
    """A generated negative case of `POST /v1/tags` making `mutations`
    (part, parameter, schema pointer, keywords, operator), as schemathesis records them;
    `drawn` stands for the values drawn (the request on the wire)."""
    from schemathesis.core.mutations import Mutation, MutationChannel, OperatorKind
    from schemathesis.core.parameters import ParameterLocation
    from schemathesis.generation.meta import ComponentInfo

    made = tuple(
        Mutation(
            path=(),
            parameter_location=ParameterLocation(part),
            schema_pointer=pointer,
            channel=MutationChannel.SCHEMA,
            operator=OperatorKind(operator),
            keywords=keywords,
            parameter=parameter,
            original_value=None,
            new_value=None,
        )
        for part, parameter, pointer, keywords, operator in mutations
    )
    negative = SimpleNamespace(value="negative")
    operation = next(
        r.ok() for r in _schema().get_all_operations() if r.ok().label == "POST /v1/tags"
    )
    meta = SimpleNamespace(
        generation=SimpleNamespace(mode=negative),
        phase=SimpleNamespace(
            name=SimpleNamespace(value="fuzzing"), data=SimpleNamespace(mutations=made)
        ),
        components={
            m.parameter_location: ComponentInfo(mode=negative)  # type: ignore[arg-type]  # a stand-in
            for m in made
        },
    )
    return SimpleNamespace(
        _meta=meta,
        operation=operation,
        method="POST",
        formatted_path="/v1/tags",
        query=None,
        headers={"Idempotency-Key": drawn},
        body={"mutations": repr(mutations)},
        media_type="application/json",
    )


KEY_TOO_LONG = (
    "header",
    "Idempotency-Key",
    "/properties/Idempotency-Key",
    ("maxLength",),
    "negate_constraints",
)
NAME_NOT_TEXT = ("body", "name", "/properties/name", ("type",), "change_type")


def test_a_generated_break_already_made_and_passed_is_not_sent_again_under_quick(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """The coverage phase breaks the key's length and the name's type; a generated case
    breaking only those demands the same refusals again. One breaking anything else, a
    body of random bytes, or any case under `full`, is sent."""
    cases = _thinned(coverage_cases["POST /v1/tags"])
    run = _run()
    assert not run.already_passed(_generated(KEY_TOO_LONG, drawn="y" * 300)), "none passed yet"
    for case in cases:
        assert not run.already_passed(case), "the coverage phase's own cases are all sent"
        run.passed(case)
    assert run.already_passed(_generated(KEY_TOO_LONG))
    assert run.already_passed(_generated(KEY_TOO_LONG, NAME_NOT_TEXT))
    unbroken = ("body", "name", "/properties/name", ("pattern",), "negate_constraints")
    assert not run.already_passed(_generated(KEY_TOO_LONG, unbroken)), "no case broke it"
    assert not run.already_passed(_generated(("body", None, "", (), "syntax_fuzzing")))
    full = _run("full")
    for case in cases:
        full.passed(case)
    assert not full.already_passed(_generated(KEY_TOO_LONG))


def test_a_generated_break_is_not_a_repeat_of_one_that_failed(
    coverage_cases: dict[str, list[Any]],
) -> None:
    run = _run()
    for case in _thinned(coverage_cases["POST /v1/tags"]):
        if "Idempotency-Key" not in str(case._meta.phase.data.parameter):
            run.passed(case)
    assert not run.already_passed(_generated(KEY_TOO_LONG))


def test_a_generated_case_that_failed_is_sent_again_though_its_breaks_passed_since(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """Hypothesis replays the failing case it shrank to; had another case with the same
    breaks passed in between, holding the replay back would turn the failure "flaky"."""
    run = _run()
    failing = _generated(KEY_TOO_LONG)
    assert not run.already_passed(failing), "sent; it fails, so it is never noted as passed"
    for case in _thinned(coverage_cases["POST /v1/tags"]):
        run.passed(case)
    assert run.already_passed(_generated(KEY_TOO_LONG, NAME_NOT_TEXT)), "a repeat"
    assert not run.already_passed(failing), "the replay is sent"


def test_a_value_matching_none_of_a_members_alternatives_repeats_their_breaks(
    coverage_cases: dict[str, list[Any]],
) -> None:
    """`color` is (a colour pattern | null): a value matching neither, or of a wrong type
    for the null alternative, breaks the colour's type or pattern, which the coverage
    phase broke; one matching neither alternative of `name`, which has none, is not."""
    color = ("body", "color", "/properties/color", ("anyOf",), "negate_constraints")
    not_null = ("body", "color", "/properties/color/anyOf/1", ("type",), "change_type")
    run = _run()
    assert not run.already_passed(_generated(color, drawn="a")), "nothing passed yet"
    for case in _thinned(coverage_cases["POST /v1/tags"]):
        run.passed(case)
    assert run.already_passed(_generated(color, drawn="b"))
    assert run.already_passed(_generated(not_null, drawn="c"))
    name = ("body", "name", "/properties/name", ("anyOf",), "negate_constraints")
    assert not run.already_passed(_generated(name, drawn="d"))
