"""The kill matrix: planning, judging, combined variants, totals, the report, exit codes.

The logic is tested with a fake suite runner (no server, no subprocess); two tests run
the real command or the real matrix on a small selection against the real suites.
"""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from crm_conformance import UsageError
from crm_conformance.cli import main
from crm_conformance.reference.faults import FAULTS as REFERENCE_FAULTS
from crm_conformance.reference.variants import VARIANTS, Variant
from crm_conformance.run.request import RunRequest
from crm_conformance.run.runner import list_tests
from crm_conformance.selftest import (
    MATRIX_JSON,
    MATRIX_MARKDOWN,
    choose,
    selftest,
    write_report,
)
from crm_conformance.selftest.judging import confirmed, judge_fault
from crm_conformance.selftest.matrix import Matrix, Row
from crm_conformance.selftest.planning import Job, SuiteCall, SuiteTest, combinations, plan
from crm_conformance.selftest.suite_run import SuiteRun
from crm_conformance.selftest.suite_run import TestResult as Outcome

TESTS = (
    SuiteTest("suites/test_a.py::test_one", frozenset({"AUTH-004"})),
    SuiteTest("suites/test_a.py::test_two", frozenset({"ERR-004", "ERR-005"})),
    SuiteTest("suites/test_b.py::test_three[x]", frozenset({"PAG-004"})),
)
FAULTS = {
    "caught": ("AUTH-004",),
    "missed": ("ERR-005",),
    "nowhere": ("TAG-004",),
}
CATALOGUE = {
    name: Variant(name, name, group=group, alone=name == "slow")
    for name, group in (
        ("legal", ""),
        ("strict", ""),
        ("also", ""),
        ("fourth", ""),
        ("page_20", "page"),
        ("page_100", "page"),
        ("slow", ""),
    )
}

Rule = Callable[[SuiteCall, SuiteTest], str]
"""The outcome a fake run gives a test, from what the call switched on."""


def _selected(selectors: tuple[str, ...]) -> list[SuiteTest]:
    """The tests a run of these selectors (modules or test functions) collects."""
    return [t for t in TESTS if t.selector in selectors or t.module in selectors]


def fake_caller(
    rule: Rule, calls: list[SuiteCall] | None = None
) -> Callable[[SuiteCall], SuiteRun]:
    def call(job: SuiteCall) -> SuiteRun:
        if calls is not None:
            calls.append(job)
        results = []
        for test in _selected(job.selectors):
            outcome = rule(job, test)
            charged = test.requirements if outcome == "failed" else frozenset()
            results.append(
                Outcome(test.nodeid, outcome, test.requirements, f"{outcome} here", 0.0, charged)
            )
            if job.first_failure and outcome == "failed":
                break
        red = any(r.outcome != "passed" for r in results)
        return SuiteRun(int(red), tuple(results), "")

    return call


def failing(by_name: dict[str, set[str]]) -> Rule:
    """`by_name[fault or variant]`: the selectors that fail while it is switched on."""

    def rule(call: SuiteCall, test: SuiteTest) -> str:
        on = (*call.faults, *call.wire_faults, *call.variants)
        return "failed" if any(test.selector in by_name.get(name, ()) for name in on) else "passed"

    return rule


def _class_of(req_id: str) -> str:
    return {"AUTH": "core", "ERR": "core", "PAG": "pagination", "TAG": "tags"}[req_id.split("-")[0]]


def matrix_of(rule: Rule, faults=FAULTS, variants=(), **options) -> Matrix:  # type: ignore[no-untyped-def]  # keyword pass-through of a test helper
    return selftest(
        TESTS,
        faults,
        list(variants),
        catalogue=CATALOGUE,
        class_of=_class_of,
        caller=fake_caller(rule),
        **options,
    )


def rows_of(matrix: Matrix) -> dict[str, Row]:
    return {row.name: row for row in matrix.rows}


# --- planning ------------------------------------------------------------------------


def test_a_fault_runs_the_tests_naming_its_ids_most_specific_first_and_stops_at_a_failure() -> None:
    faults = {"both": ("AUTH-004", "ERR-005"), "nowhere": ("TAG-004",)}
    jobs, unreached = plan(TESTS, faults, ["legal"], catalogue=CATALOGUE, wire=frozenset())
    by_name = {job.name: job for job in jobs}
    assert by_name["both"].call.selectors == ("test_a.py::test_one", "test_a.py::test_two")
    assert by_name["both"].call.first_failure
    assert by_name["both"].call.faults == ("both",)
    assert by_name["reference"].kind == "clean"
    assert by_name["reference"].call.selectors == by_name["legal"].call.selectors
    assert by_name["legal"].call.selectors == ("test_a.py", "test_b.py")
    assert not by_name["legal"].call.first_failure
    assert unreached == [("nowhere", ("TAG-004",))]
    assert jobs[0].cost >= jobs[-1].cost, "the longest jobs start first"


def test_a_wire_fault_goes_to_the_proxy() -> None:
    jobs, _ = plan(
        TESTS, {"caught": ("AUTH-004",)}, [], catalogue=CATALOGUE, wire=frozenset({"caught"})
    )
    call = next(job.call for job in jobs if job.name == "caught")
    assert (call.faults, call.wire_faults) == ((), ("caught",))


def test_a_test_is_selected_by_its_function_not_its_parameter_ids() -> None:
    """Parameter ids may hold reprs with addresses that differ in the next process."""
    test = SuiteTest("suites/test_c.py::test_x[<object object at 0x7f43>]", frozenset())
    assert (test.selector, test.module) == ("test_c.py::test_x", "test_c.py")


def test_variants_are_combined_but_never_two_of_a_group_nor_one_that_is_alone() -> None:
    arranged = combinations(["legal", "strict", "page_20", "page_100", "slow"], CATALOGUE)
    assert arranged == [
        ("legal", "page_100", "strict"),
        ("legal", "page_20", "strict"),
        ("slow",),
    ]
    jobs, _ = plan(TESTS, {}, ["legal", "slow"], catalogue=CATALOGUE, clean=False)
    assert {(job.name, job.call.variants, job.waits) for job in jobs} == {
        ("legal", ("legal",), False),
        ("slow", ("slow",), True),
    }


def test_every_real_variant_is_in_a_combination_and_none_with_its_group() -> None:
    arranged = combinations(sorted(VARIANTS), VARIANTS)
    assert {name for members in arranged for name in members} == set(VARIANTS)
    for members in arranged:
        groups = [VARIANTS[name].group for name in members if VARIANTS[name].group]
        assert len(groups) == len(set(groups)), members
        assert len(members) == 1 or not any(VARIANTS[name].alone for name in members)
    assert len(arranged) < len(VARIANTS) / 2, "compatible variants share a server"
    for name, variant in VARIANTS.items():
        if not variant.group and not variant.alone and not variant.suites:
            assert all(name in members for members in arranged if len(members) > 1), name


def test_every_variants_suites_are_real_modules() -> None:
    """A typo in `Variant.suites` would leave the variant run on no module of that name."""
    from crm_conformance.core.model.paths import SUITES_DIR

    modules = {path.name for path in SUITES_DIR.glob("test_*.py")}
    for variant in VARIANTS.values():
        assert set(variant.suites) <= modules, variant.name


def test_a_variant_that_runs_some_suites_only_is_never_combined() -> None:
    catalogue = {**CATALOGUE, "paced": Variant("paced", "paced", suites=("test_b.py",))}
    jobs, _ = plan(TESTS, {}, ["legal", "strict", "paced"], catalogue=catalogue, clean=False)
    calls = {job.name: job.call for job in jobs}
    assert calls["paced"] == SuiteCall(("test_b.py",), variants=("paced",))
    assert calls["combination 1"].variants == ("legal", "strict")


# --- faults and controls ---------------------------------------------------------------


def test_matrix_verdicts_totals_and_exit_code() -> None:
    matrix = matrix_of(failing({"caught": {"test_a.py::test_one"}}), variants=["legal"])
    verdicts = {row.name: row.verdict for row in matrix.rows}
    assert verdicts == {
        "reference": "passed",
        "caught": "killed",
        "missed": "survived",
        "nowhere": "unreached",
        "legal": "passed",
    }
    caught = rows_of(matrix)["caught"]
    assert caught.by[0]["nodeid"] == "suites/test_a.py::test_one"
    assert caught.by[0]["requirements"] == ["AUTH-004"]
    totals = matrix.totals()
    assert (totals["killed"], totals["survived"], totals["unreached"]) == (1, 1, 1)
    assert totals["by_class"] == {
        "core": {"killed": 1, "survived": 1, "unreached": 0},
        "tags": {"killed": 0, "survived": 0, "unreached": 1},
    }
    assert matrix.exit_code == 1


def test_a_failure_not_naming_the_faults_ids_does_not_kill_it() -> None:
    matrix = matrix_of(failing({"caught": {"test_b.py::test_three"}}), {"caught": ("AUTH-004",)})
    assert rows_of(matrix)["caught"].verdict == "survived"


def test_all_killed_and_all_variants_green_exit_0() -> None:
    matrix = matrix_of(
        failing({"caught": {"test_a.py::test_one"}}), {"caught": ("AUTH-004",)}, ["legal"]
    )
    assert matrix.exit_code == 0


def test_a_failing_clean_run_fails_the_selftest() -> None:
    def rule(call: SuiteCall, test: SuiteTest) -> str:
        return "failed" if test.selector == "test_a.py::test_one" else "passed"

    matrix = matrix_of(rule, {})
    assert (rows_of(matrix)["reference"].verdict, matrix.exit_code) == ("failed", 1)


@pytest.mark.parametrize("outcome", ["error", "blocked"])
def test_a_fault_whose_tests_only_errored_or_were_blocked_survives(outcome: str) -> None:
    """A blocked test or an adapter error names the fault's ids but never judged the target."""

    def rule(call: SuiteCall, test: SuiteTest) -> str:
        return outcome if call.faults else "passed"

    matrix = matrix_of(rule, {"caught": ("AUTH-004",)})
    row = rows_of(matrix)["caught"]
    assert (row.verdict, row.ok, row.by) == ("survived", False, [])
    assert "blocked or errored, none failed" in row.note
    assert matrix.totals()["killed"] == 0


def test_a_blocked_test_does_not_stop_a_faults_run_before_the_killer() -> None:
    """`first_failure` stops at a failed test only, so the blocked one does not hide a kill."""
    faults = {"both": ("AUTH-004", "ERR-005")}

    def rule(call: SuiteCall, test: SuiteTest) -> str:
        return "blocked" if test.selector == "test_a.py::test_one" else "failed"

    assert rows_of(matrix_of(rule, faults))["both"].verdict == "killed"


def test_a_failure_charged_to_another_requirement_is_not_the_faults_kill() -> None:
    """A test naming AUTH-004 and ERR-005 that failed on ERR-005's rule did not find an
    AUTH-004 fault: the report charges it to ERR-005, and so does the kill matrix."""
    job = Job("fault", "auth", SuiteCall(("test_a.py",), first_failure=True), reqs=("AUTH-004",))
    both = frozenset({"AUTH-004", "ERR-005"})

    def run(charged: frozenset[str]) -> SuiteRun:
        return SuiteRun(
            1, (Outcome("suites/test_a.py::test_one", "failed", both, "", 0.0, charged),), ""
        )

    assert judge_fault(job, run(frozenset({"ERR-005"}))).verdict == "survived"
    killed = judge_fault(job, run(both))
    assert (killed.verdict, killed.by[0]["requirements"]) == ("killed", ["AUTH-004"])


def test_a_control_must_survive_and_is_counted_apart() -> None:
    """A setup-only fault (`Fault.setup_only`) is held when it survives; a kill fails it."""
    faults = {"caught": ("AUTH-004",), "setup": ("PAG-004",)}

    def rule(call: SuiteCall, test: SuiteTest) -> str:
        return {"caught": "failed", "setup": "blocked"}.get("".join(call.faults), "passed")

    held = matrix_of(rule, faults, controls=frozenset({"setup"}))
    setup = rows_of(held)["setup"]
    assert (setup.kind, setup.verdict, setup.ok) == ("control", "survived", True)
    totals = held.totals()
    assert (totals["faults"], totals["killed"], totals["controls"]) == (1, 1, 1)
    assert totals["controls_held"] == 1
    assert held.exit_code == 0
    broken = matrix_of(
        failing({"caught": {"test_a.py::test_one"}, "setup": {"test_b.py::test_three"}}),
        faults,
        controls=frozenset({"setup"}),
    )
    assert rows_of(broken)["setup"].ok is False
    assert broken.exit_code == 1


# --- variants -------------------------------------------------------------------------


def test_a_variant_of_two_combinations_has_one_row() -> None:
    matrix = matrix_of(failing({}), {}, ["legal", "page_20", "page_100"], clean=False)
    names = [row.name for row in matrix.rows]
    assert sorted(names) == sorted(
        ["combination 1", "combination 2", "legal", "page_20", "page_100"]
    )
    assert matrix.totals()["variants"] == 3


def test_a_green_combination_proves_each_of_its_variants() -> None:
    calls: list[SuiteCall] = []
    matrix = selftest(
        TESTS,
        {},
        ["legal", "strict", "also"],
        catalogue=CATALOGUE,
        class_of=_class_of,
        caller=fake_caller(failing({}), calls),
        clean=False,
    )
    assert [call.variants for call in calls] == [("also", "legal", "strict")], "one run"
    rows = rows_of(matrix)
    assert (rows["combination 1"].kind, rows["combination 1"].verdict) == ("combination", "passed")
    for name in ("legal", "strict", "also"):
        assert (rows[name].verdict, rows[name].ok) == ("passed", True)
        assert rows[name].variants == ("also", "legal", "strict")
    totals = matrix.totals()
    assert (totals["variants"], totals["variants_passed"], totals["combinations"]) == (3, 3, 1)
    assert matrix.exit_code == 0


def test_a_red_combination_is_pinned_to_the_variant_and_the_rest_proven_again() -> None:
    calls: list[SuiteCall] = []
    rule = failing({"strict": {"test_b.py::test_three"}})
    matrix = selftest(
        TESTS,
        {},
        ["legal", "strict", "also", "fourth"],
        catalogue=CATALOGUE,
        class_of=_class_of,
        caller=fake_caller(rule, calls),
        clean=False,
    )
    rows = rows_of(matrix)
    assert (rows["combination 1"].verdict, rows["combination 1"].ok) == ("failed", False)
    assert (rows["strict"].verdict, rows["strict"].ok) == ("failed", False)
    assert [b["nodeid"] for b in rows["strict"].by] == ["suites/test_b.py::test_three[x]"]
    for name in ("legal", "also", "fourth"):
        assert (rows[name].verdict, rows[name].ok) == ("passed", True), rows[name]
        assert rows[name].variants == ("also", "fourth", "legal")
    full = [call.variants for call in calls if call.selectors == ("test_a.py", "test_b.py")]
    assert full[0] == ("also", "fourth", "legal", "strict")
    assert ("also", "fourth", "legal") in full, "the others are proven on every test"
    totals = matrix.totals()
    assert (totals["false_failures"], totals["variants_passed"]) == (1, 3)
    assert matrix.exit_code == 1


def test_two_legal_choices_red_only_together_are_each_run_alone() -> None:
    def rule(call: SuiteCall, test: SuiteTest) -> str:
        both = {"legal", "strict"} <= set(call.variants)
        return "failed" if both and test.selector == "test_a.py::test_one" else "passed"

    matrix = matrix_of(rule, {}, ["legal", "strict"], clean=False)
    rows = rows_of(matrix)
    assert rows["combination 1"].verdict == "failed"
    assert "fail only together" in rows["combination 1"].note
    assert (rows["legal"].verdict, rows["strict"].verdict) == ("passed", "passed")
    assert rows["legal"].variants == ()
    assert matrix.exit_code == 1


def test_tests_red_on_the_clean_server_are_not_pinned_on_a_variant() -> None:
    def rule(call: SuiteCall, test: SuiteTest) -> str:
        return "failed" if test.selector == "test_a.py::test_one" else "passed"

    rows = rows_of(matrix_of(rule, {}, ["legal", "strict"]))
    assert rows["reference"].verdict == "failed"
    assert (rows["legal"].verdict, rows["strict"].verdict) == ("passed", "passed")
    assert "red on the clean server too" in rows["legal"].note


@pytest.mark.parametrize("outcome", ["error", "blocked"])
def test_an_errored_variant_is_neither_green_nor_a_false_failure(outcome: str) -> None:
    def rule(call: SuiteCall, test: SuiteTest) -> str:
        return outcome if "legal" in call.variants and test.module == "test_b.py" else "passed"

    matrix = matrix_of(rule, {}, ["legal"])
    row = rows_of(matrix)["legal"]
    assert (row.verdict, row.ok) == ("error", False)
    assert [b["nodeid"] for b in row.by] == ["suites/test_b.py::test_three[x]"]
    totals = matrix.totals()
    assert (totals["variants_passed"], totals["false_failures"], totals["variant_errors"]) == (
        0,
        0,
        1,
    )
    assert matrix.exit_code == 1


def _recorded_run(outcomes: dict[str, str]) -> SuiteRun:
    """A run as `run_suite` reads it from `outcomes.jsonl`: ids like `suites/test_a.py::x`."""
    results = tuple(
        Outcome(f"suites/{nodeid}", outcome, frozenset(), outcome)
        for nodeid, outcome in outcomes.items()
    )
    failed = any(outcome != "passed" for outcome in outcomes.values())
    return SuiteRun(1 if failed else 0, results, "")


@pytest.mark.parametrize(
    ("again", "left"),
    [({"test_a.py::test_two": "passed"}, "flaky"), ({"test_a.py::test_two": "failed"}, "failed")],
)
def test_a_red_test_is_run_again_and_only_a_repeat_counts(again: dict[str, str], left: str) -> None:
    first = _recorded_run({"test_a.py::test_one": "passed", "test_a.py::test_two[p]": "failed"})
    asked: list[tuple[str, ...]] = []

    def rerun(selectors: tuple[str, ...]) -> SuiteRun:
        asked.append(selectors)
        return _recorded_run(again)

    run = confirmed(first, again=rerun)
    assert asked == [("test_a.py::test_two",)]
    assert [r.outcome for r in run.results] == ["passed", left]
    assert run.exit_code == (0 if left == "flaky" else 1)


def test_a_combination_whose_session_broke_proves_no_variant() -> None:
    def call(job: SuiteCall) -> SuiteRun:
        return SuiteRun(3, (), "INTERNALERROR> something broke")

    matrix = selftest(
        TESTS, {}, ["legal", "strict"], catalogue=CATALOGUE, class_of=_class_of, caller=call,
        clean=False,
    )  # fmt: skip
    rows = rows_of(matrix)
    assert [rows[name].verdict for name in ("combination 1", "legal", "strict")] == ["error"] * 3
    assert "pytest exit 3" in rows["legal"].note
    assert matrix.exit_code == 1


def test_a_flaky_combination_is_counted_once_and_fails() -> None:
    seen: set[str] = set()

    def rule(call: SuiteCall, test: SuiteTest) -> str:
        first = test.selector == "test_a.py::test_two" and "flaked" not in seen
        if first and call.variants:
            seen.add("flaked")
            return "failed"
        return "passed"

    matrix = matrix_of(rule, {}, ["legal", "strict"], clean=False)
    rows = rows_of(matrix)
    assert rows["combination 1"].verdict == "flaky"
    assert (rows["legal"].verdict, rows["legal"].ok) == ("flaky", False)  # a finding
    assert matrix.totals()["flaky"] == 1
    assert matrix.exit_code == 1  # a variant fails on its first false failure


# --- the command and its report --------------------------------------------------------


def test_choose_checks_names_and_samples_reproducibly() -> None:
    known = [f"f{i}" for i in range(10)]
    assert choose(None, known, option="--faults", sample=None) == sorted(known)
    assert choose("f2, f1,f2", known, option="--faults", sample=None) == ["f2", "f1"]
    first = choose(None, known, option="--faults", sample=3)
    assert len(first) == 3
    assert first == choose(None, known, option="--faults", sample=3)
    with pytest.raises(UsageError, match="--faults='f1,zz'"):
        choose("f1,zz", known, option="--faults", sample=None)


def test_the_report_is_json_and_markdown(tmp_path: Path) -> None:
    matrix = matrix_of(failing({"caught": {"test_a.py::test_one"}}), variants=["legal", "also"])
    write_report(matrix, tmp_path)
    data = json.loads((tmp_path / MATRIX_JSON).read_text())
    assert data["exit_code"] == 1
    assert data["totals"]["unreached"] == 1
    names = {row["name"] for row in data["rows"]}
    assert names == {"reference", *FAULTS, "combination 1", "legal", "also"}
    text = (tmp_path / MATRIX_MARKDOWN).read_text()
    assert "| caught | core | AUTH-004 | killed |" in text
    assert "| nowhere | tags | TAG-004 | unreached |" in text
    assert "| combination 1 (also, legal) | passed |" in text
    assert "| variant legal | passed | green in combination 1" in text


@pytest.mark.parametrize(
    "args",
    [
        ["--faults", "no_such_fault"],
        ["--variants", "nope"],
        ["--sample", "0"],
        ["--workers", "0"],
        ["--suites", "test_nothing.py"],
    ],
)
def test_usage_errors_exit_2(args: list[str], tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["selftest", *args, "--report-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "Try 'crm-conformance selftest --help'." in result.output
    assert not (tmp_path / MATRIX_JSON).exists()


def test_a_real_sample_against_the_real_suites(tmp_path: Path) -> None:
    """Two faults, two variants and a chaos mode through the command, two jobs at a time
    (one module)."""
    result = CliRunner().invoke(
        main,
        [
            "selftest",
            "--faults",
            "verifier_not_checked,revoked_token_accepted",
            "--variants",
            "create_returns_200,uuid_request_ids",
            "--chaos",
            "gateway_502",
            "--workers",
            "2",
            "--suites",
            "test_authentication.py",
            "--report-dir",
            str(tmp_path),
        ],
    )
    data = json.loads((tmp_path / MATRIX_JSON).read_text())
    rows = {row["name"]: row for row in data["rows"]}
    assert rows["reference"]["verdict"] == "passed", result.output
    assert rows["verifier_not_checked"]["verdict"] == "killed", result.output
    assert rows["revoked_token_accepted"]["verdict"] in ("killed", "survived", "unreached")
    assert rows["combination 1"]["variants"] == ["create_returns_200", "uuid_request_ids"]
    assert rows["create_returns_200"]["verdict"] == "passed", result.output
    assert rows["uuid_request_ids"]["verdict"] == "passed", result.output
    chaos = rows["gateway_502"]
    assert (chaos["kind"], chaos["verdict"]) == ("chaos", "passed"), result.output
    assert chaos["tests_run"] > 0
    assert "chaos gateway_502: passed" in result.output
    assert (
        result.exit_code == data["exit_code"] == (0 if all(r["ok"] for r in rows.values()) else 1)
    )


def test_a_fault_breaking_only_an_adapter_operation_survives_against_the_real_suites() -> None:
    """Issue 12's proof: the adapter answers 500 to policy changes, so the tests naming the
    fault's ids error in their setup. JUnit writes those as `<failure>`, and the matrix
    used to count them as kills; the outcome stream says they never judged the target.
    """
    name = "adapter_policy_answers_500"
    assert REFERENCE_FAULTS[name].setup_only
    tests = [
        SuiteTest(t["nodeid"], frozenset(t["requirements"]))
        for t in list_tests(RunRequest())
        if t["nodeid"].startswith("suites/test_scopes.py::")
    ]
    matrix = selftest(
        tests,
        {name: REFERENCE_FAULTS[name].reqs},
        [],
        catalogue=VARIANTS,
        class_of=lambda req_id: "scopes",
        clean=False,
        controls=frozenset({name}),
    )
    (row,) = matrix.rows
    assert (row.kind, row.verdict, row.ok, row.by) == ("control", "survived", True, []), row
    assert "blocked or errored, none failed" in row.note, row
    assert "answered 500" in row.note, row
    assert matrix.exit_code == 0


def test_jobs_are_plain_data_for_worker_processes() -> None:
    """A job crosses into a spawned worker by pickling."""
    import pickle

    job = Job("fault", "caught", SuiteCall(("test_a.py::test_one",), faults=("caught",)))
    assert pickle.loads(pickle.dumps(job)) == job


def test_a_suite_error_kills_no_fault_and_fails_a_clean_run() -> None:
    """An exception no check raised is the suite's own fault: a fault whose only red
    test is a suite error survives, and a clean run with one is not green."""

    def rule(call: SuiteCall, test: SuiteTest) -> str:
        return "suite_error" if test.selector == "test_a.py::test_one" else "passed"

    matrix = matrix_of(rule, {"caught": ("AUTH-004",)})
    rows = rows_of(matrix)
    assert (rows["caught"].verdict, rows["caught"].ok) == ("survived", False)
    assert (rows["reference"].verdict, rows["reference"].ok) == ("error", False)
