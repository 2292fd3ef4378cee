"""Chaos runs in the kill matrix: planned on a subset of modules, judged by what the
faults explain, counted and printed as rows of their own."""

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from crm_conformance.cli import main
from crm_conformance.selftest import MATRIX_MARKDOWN, write_report
from crm_conformance.selftest.chaos import CHAOS_MODES
from crm_conformance.selftest.judging import judge_chaos, lost_at_most, perform
from crm_conformance.selftest.matrix import Matrix
from crm_conformance.selftest.planning import CHAOS_SUITES, Job, SuiteCall, SuiteTest, plan
from crm_conformance.selftest.report import summary_lines
from crm_conformance.selftest.suite_run import SuiteRun
from crm_conformance.selftest.suite_run import TestResult as Outcome

LOST = "target unavailable: 502 Bad Gateway, 3 tries"


def _run(*outcomes: tuple[str, str], exit_code: int | None = None) -> SuiteRun:
    """A run of tests with these (outcome, message), 100 passed ones besides."""
    results = [
        Outcome(f"suites/test_contacts.py::test_{i}", outcome, frozenset({"CON-001"}), message)
        for i, (outcome, message) in enumerate(outcomes)
    ]
    results += [
        Outcome(f"suites/test_deals.py::test_{i}", "passed", frozenset({"DEAL-001"}))
        for i in range(100)
    ]
    red = any(outcome != "passed" for outcome, _ in outcomes)
    return SuiteRun(int(red) if exit_code is None else exit_code, tuple(results), "")


def test_a_chaos_run_with_a_few_tests_lost_and_none_failed_passes() -> None:
    row = judge_chaos("gateway_502", _run(("error", LOST), ("error", LOST)))
    assert (row.kind, row.verdict, row.ok) == ("chaos", "passed", True), row
    assert "2 test(s) lost to the faults (at most 3)" in row.note
    assert len(row.by) == 2


def test_one_failed_requirement_fails_a_chaos_run() -> None:
    row = judge_chaos("gateway_502", _run(("failed", "CON-001: expected 201, got 502")))
    assert (row.verdict, row.ok) == ("failed", False), row
    assert row.by[0]["requirements"] == ["CON-001"]


def test_more_tests_lost_than_the_faults_explain_is_an_error() -> None:
    row = judge_chaos("gateway_502", _run(*[("error", LOST)] * 4))
    assert (row.verdict, row.ok) == ("error", False), row


def test_a_test_lost_otherwise_than_target_unavailable_is_an_error() -> None:
    row = judge_chaos("gateway_502", _run(("error", "KeyError: 'data'")))
    assert (row.verdict, row.ok) == ("error", False), row
    assert "1 lost otherwise than target unavailable" in row.note


def test_a_mode_that_only_delays_may_lose_no_test() -> None:
    assert lost_at_most("slow_tail", 1000) == 0
    assert lost_at_most("gateway_502", 1000) == 20


def test_the_requests_a_keyed_module_sends_widen_the_budget() -> None:
    """Each request of a test keyed by itself may lose it; elsewhere about one per test."""
    assert lost_at_most("gateway_502", 200) == 4
    assert lost_at_most("gateway_502", 200, keyed_requests=300) == 10
    assert lost_at_most("slow_tail", 200, keyed_requests=300) == 0
    row = judge_chaos("slow_tail", _run(("error", LOST)))
    assert (row.verdict, row.ok) == ("error", False), row


def test_a_broken_session_is_an_error() -> None:
    row = judge_chaos("gateway_502", _run(exit_code=3))
    assert (row.verdict, row.ok) == ("error", False), row


def test_a_chaos_run_is_not_run_again() -> None:
    """A fault that struck one run of a test seldom strikes the next: a rerun would hide
    a transport fault turned into a failure."""
    calls: list[SuiteCall] = []

    def caller(call: SuiteCall) -> SuiteRun:
        calls.append(call)
        return _run(("failed", "CON-001: expected 201, got 502"))

    (row,) = perform(Job("chaos", "gateway_502", SuiteCall(("x.py",), chaos="gateway_502")), caller)
    assert row.verdict == "failed"
    assert len(calls) == 1


def test_each_mode_is_a_job_on_the_chaos_modules() -> None:
    tests = [
        SuiteTest(f"suites/{module}::test_x", frozenset({"CON-001"}))
        for module in ("test_contacts.py", "test_tags.py", "test_idempotency.py")
    ]
    jobs, _ = plan(tests, {}, [], catalogue={}, chaos=sorted(CHAOS_MODES), clean=False)
    assert {job.name for job in jobs} == set(CHAOS_MODES)
    for job in jobs:
        assert job.kind == "chaos"
        assert job.call.chaos == job.name
        assert job.call.selectors == ("test_contacts.py", "test_idempotency.py")
        assert set(job.call.selectors) <= set(CHAOS_SUITES)
    # no chaos module among the tests: every module runs
    (job,) = plan(tests[1:2], {}, [], catalogue={}, chaos=["slow_tail"], clean=False)[0]
    assert job.call.selectors == ("test_tags.py",)


def test_chaos_rows_are_counted_and_printed(tmp_path: Path) -> None:
    rows = (
        judge_chaos("gateway_502", _run(("error", LOST))),
        judge_chaos("slow_tail", _run(("failed", "CON-001: late"))),
    )
    matrix = Matrix(rows, 1.0, 1)
    totals = matrix.totals()
    assert (totals["chaos"], totals["chaos_passed"], totals["chaos_failed"]) == (2, 1, 1)
    assert matrix.exit_code == 1
    assert "chaos (transport faults at a rate): 1/2 passed, 1 with a failed test" in (
        summary_lines(matrix)
    )
    write_report(matrix, tmp_path)
    text = (tmp_path / MATRIX_MARKDOWN).read_text()
    assert "| chaos gateway_502 | passed |" in text
    assert "| chaos slow_tail | failed |" in text


@pytest.mark.parametrize("names", ["nope", "gateway_502,nope"])
def test_an_unknown_chaos_mode_is_a_usage_error(names: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["selftest", "--chaos", names, "--report-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "--chaos" in result.output


def test_tests_lost_in_a_keyed_module_are_judged_against_its_requests() -> None:
    """Five tests of the keyed module lost, each of 40 keyed requests, among 100 passed:
    the budget counts those requests (0.02 x (105 + 200) gives 7), where 5 lost tests
    of a module that keys nothing itself exceed the 3 a run of 105 tests may lose."""
    keyed = [
        Outcome(f"suites/test_idempotency.py::test_{i}", "error", frozenset({"IDEM-003"}), LOST)
        for i in range(5)
    ]
    keyed = [replace(result, requests=40) for result in keyed]
    passed = _run().results
    row = judge_chaos("gateway_502", SuiteRun(0, (*keyed, *passed), ""))
    assert (row.verdict, row.ok) == ("passed", True), row
    assert judge_chaos("gateway_502", _run(*[("error", LOST)] * 5)).verdict == "error"
