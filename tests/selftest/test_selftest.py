"""The kill matrix: planning, judging, totals, the report and exit codes.

The logic is tested with a fake job runner (no server, no subprocess); one test runs the
real command on a fixed small sample against the real suites.
"""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from crm_conformance import UsageError
from crm_conformance.cli import main
from crm_conformance.selftest import (
    MATRIX_JSON,
    MATRIX_MARKDOWN,
    Job,
    SuiteTest,
    choose,
    confirmed,
    judge,
    plan,
    selftest,
    write_report,
)
from crm_conformance.suite_run import SuiteRun
from crm_conformance.suite_run import TestResult as Outcome

TESTS = (
    SuiteTest("suites/test_a.py::test_one", frozenset({"AUTH-004"})),
    SuiteTest("suites/test_a.py::test_two", frozenset({"ERR-004", "ERR-005"})),
    SuiteTest("suites/test_b.py::test_three[x]", frozenset({"PAG-004"})),
)
FAULTS: dict[str, tuple[str, ...]] = {
    "caught": ("AUTH-004",),
    "missed": ("ERR-005",),
    "nowhere": ("TAG-004",),
}


def _result(test: SuiteTest, outcome: str) -> Outcome:
    return Outcome(test.nodeid, outcome, test.requirements, f"{outcome} here")


def _selected(selectors: tuple[str, ...]) -> list[SuiteTest]:
    """The tests a run of these selectors (modules or test functions) collects."""
    return [t for t in TESTS if t.selector in selectors or t.module in selectors]


def fake_runner(failing: dict[str, set[str]]) -> Callable[[Job], tuple[SuiteRun, float]]:
    """A job runner: `failing[job name]` are the selectors that fail, the rest pass."""

    def run(job: Job) -> tuple[SuiteRun, float]:
        bad = failing.get(job.name, set())
        results = tuple(
            _result(t, "failed" if t.selector in bad else "passed")
            for t in _selected(job.selectors)
        )
        return SuiteRun(1 if bad else 0, results, ""), 0.1

    return run


def _class_of(req_id: str) -> str:
    return {"AUTH": "core", "ERR": "core", "PAG": "pagination", "TAG": "tags"}[req_id.split("-")[0]]


def test_a_fault_runs_only_the_tests_naming_its_ids_and_stops_at_the_first_failure() -> None:
    jobs, decided = plan(TESTS, FAULTS, ["v1"])
    by_name = {job.name: job for job in jobs}
    assert by_name["caught"].selectors == ("test_a.py::test_one",)
    assert by_name["caught"].first_failure
    assert by_name["reference"].kind == "clean"
    assert by_name["reference"].selectors == by_name["v1"].selectors == ("test_a.py", "test_b.py")
    assert not by_name["v1"].first_failure
    assert [(row.name, row.verdict, row.ok) for row in decided] == [("nowhere", "unreached", False)]


def test_a_test_is_selected_by_its_function_not_its_parameter_ids() -> None:
    """Parameter ids may hold reprs with addresses that differ in the next process."""
    test = SuiteTest("suites/test_c.py::test_x[<object object at 0x7f43>]", frozenset())
    assert (test.selector, test.module) == ("test_c.py::test_x", "test_c.py")


def test_matrix_verdicts_totals_and_exit_code() -> None:
    matrix = selftest(
        TESTS,
        FAULTS,
        ["legal", "strict"],
        class_of=_class_of,
        runner=fake_runner(
            {"caught": {"test_a.py::test_one"}, "strict": {"test_b.py::test_three"}}
        ),
    )
    verdicts = {row.name: row.verdict for row in matrix.rows}
    assert verdicts == {
        "reference": "passed",
        "caught": "killed",
        "missed": "survived",
        "nowhere": "unreached",
        "legal": "passed",
        "strict": "failed",
    }
    caught = next(row for row in matrix.rows if row.name == "caught")
    assert caught.by[0]["nodeid"] == "suites/test_a.py::test_one"
    assert caught.by[0]["requirements"] == ["AUTH-004"]
    strict = next(row for row in matrix.rows if row.name == "strict")
    assert [b["nodeid"] for b in strict.by] == ["suites/test_b.py::test_three[x]"]
    totals = matrix.totals()
    assert (totals["killed"], totals["survived"], totals["unreached"]) == (1, 1, 1)
    assert (totals["variants_passed"], totals["false_failures"]) == (1, 1)
    assert totals["by_class"] == {
        "core": {"killed": 1, "survived": 1, "unreached": 0},
        "tags": {"killed": 0, "survived": 0, "unreached": 1},
    }
    assert matrix.exit_code == 1


def test_a_failure_not_naming_the_faults_ids_does_not_kill_it() -> None:
    job = Job("fault", "caught", ("test_b.py::test_three",), first_failure=True)
    run = SuiteRun(1, (_result(TESTS[2], "failed"),), "")
    row = judge(job, run, ("AUTH-004",), 0.0)
    assert (row.verdict, row.ok, row.by) == ("survived", False, [])


def test_all_killed_and_all_variants_green_exit_0() -> None:
    matrix = selftest(
        TESTS,
        {"caught": ("AUTH-004",)},
        ["legal"],
        class_of=_class_of,
        runner=fake_runner({"caught": {"test_a.py::test_one"}}),
    )
    assert matrix.exit_code == 0


def test_a_failing_clean_run_fails_the_selftest() -> None:
    run = fake_runner({"reference": {"test_a.py::test_one"}})
    matrix = selftest(TESTS, {}, [], class_of=_class_of, runner=run)
    assert matrix.exit_code == 1


def test_an_errored_fault_run_survives_with_the_reason() -> None:
    def run(job: Job) -> tuple[SuiteRun, float]:
        results = tuple(_result(t, "error") for t in _selected(job.selectors))
        return SuiteRun(1, results, ""), 0.0

    matrix = selftest(TESTS, {"caught": ("AUTH-004",)}, [], class_of=_class_of, runner=run)
    row = next(row for row in matrix.rows if row.name == "caught")
    assert row.verdict == "survived"
    assert "setup error" in row.note


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
    matrix = selftest(
        TESTS,
        FAULTS,
        ["legal"],
        class_of=_class_of,
        runner=fake_runner({"caught": {"test_a.py::test_one"}}),
    )
    write_report(matrix, tmp_path)
    data = json.loads((tmp_path / MATRIX_JSON).read_text())
    assert data["exit_code"] == 1
    assert data["totals"]["unreached"] == 1
    assert {row["name"] for row in data["rows"]} == {"reference", *FAULTS, "legal"}
    text = (tmp_path / MATRIX_MARKDOWN).read_text()
    assert "| caught | core | AUTH-004 | killed |" in text
    assert "| nowhere | tags | TAG-004 | unreached |" in text


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
    """Two faults and two variants through the command, two jobs at a time (one module)."""
    result = CliRunner().invoke(
        main,
        [
            "selftest",
            "--faults",
            "verifier_not_checked,revoked_token_accepted",
            "--variants",
            "create_returns_200,uuid_request_ids",
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
    assert rows["create_returns_200"]["verdict"] == "passed", result.output
    assert rows["uuid_request_ids"]["verdict"] == "passed", result.output
    assert (
        result.exit_code == data["exit_code"] == (0 if all(r["ok"] for r in rows.values()) else 1)
    )


def _junit_run(outcomes: dict[str, str]) -> SuiteRun:
    """A run as `run_suite` reads it back from JUnit: ids like `suites.test_a::test_one`."""
    results = tuple(
        Outcome(f"suites.{nodeid.replace('.py', '')}", outcome, frozenset(), outcome)
        for nodeid, outcome in outcomes.items()
    )
    failed = any(outcome != "passed" for outcome in outcomes.values())
    return SuiteRun(1 if failed else 0, results, "")


@pytest.mark.parametrize(
    ("again", "verdict", "ok"),
    [
        ({"test_a::test_two": "passed"}, "flaky", True),
        ({"test_a::test_two": "failed"}, "failed", False),
    ],
)
def test_a_variant_failure_is_run_again_and_only_a_repeat_counts(
    again: dict[str, str], verdict: str, ok: bool
) -> None:
    job = Job("variant", "legal", ("test_a.py", "test_b.py"))
    first = _junit_run({"test_a::test_one": "passed", "test_a::test_two[p]": "failed"})
    asked: list[tuple[str, ...]] = []

    def rerun(selectors: tuple[str, ...]) -> SuiteRun:
        asked.append(selectors)
        return _junit_run(again)

    row = judge(job, confirmed(job, first, again=rerun), (), 1.0)
    assert asked == [("test_a.py::test_two",)]
    assert (row.verdict, row.ok) == (verdict, ok)
    assert [entry["nodeid"] for entry in row.by] == ["suites.test_a::test_two[p]"]
