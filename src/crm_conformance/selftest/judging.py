"""From suite runs to rows: kills, false failures, and the variant that caused one.

Only a *failed* test kills a fault, and only when its failure is charged to one of the
fault's ids (`OutcomeRecord.charged`, as the run's report charges it); a blocked or
errored test never judged the target, and a suite error never kills. A clean or
combined run must be all green on its first run: a red test is run once more only to
tell a flaky false failure (`flaky`, a finding with its failing test) from one that
repeats, and either fails the run. When a combination of variants is red, `prove` pins the
red tests to the variants that make them red: the tests that fail on the clean server
too are set aside, the combination is halved until the red tests fall to one variant
(each half run on the red tests only), and the variants left are run again on every
test. So every variant ends proven green in a combination that passed, or alone, or
with the tests it fails.

A chaos run (a transport fault at a rate) passes when no test failed and no more tests
were lost than its faults explain (`judge_chaos`); its red tests are not run again, as a
fault that strikes one run of a test seldom strikes the next: a rerun would hide it.
"""

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from crm_conformance._errors import TargetUnavailable
from crm_conformance.selftest.chaos import CHAOS_MODES
from crm_conformance.selftest.matrix import FLAKY, Row, RowKind
from crm_conformance.selftest.planning import Job, SuiteCall
from crm_conformance.selftest.suite_run import FAILED, PROBLEMS, SuiteRun

Caller = Callable[[SuiteCall], SuiteRun]
"""Makes one suite run (`running.call_suite`, or a fake in the tests)."""

RED = (FAILED, *PROBLEMS)
"""Outcomes a clean or variant run must not have."""


def perform(job: Job, caller: Caller) -> list[Row]:
    """Do one job of the matrix: its runs, and the rows they give."""
    if job.kind == "fault":
        return [judge_fault(job, caller(job.call))]
    if job.kind == "chaos":
        return [judge_chaos(job.name, caller(job.call))]
    if job.kind == "clean":
        return [judge_green("clean", job.name, checked(job.call, caller))]
    return prove(job, caller)


def judge_fault(job: Job, run: SuiteRun) -> Row:
    """Killed when a failed test's failure is charged to one of the fault's ids (as the
    run's report charges it); a control must survive."""
    killers = run.killers(job.reqs)
    return Row(
        kind="control" if job.control else "fault",
        name=job.name,
        verdict="killed" if killers else "survived",
        ok=not killers if job.control else bool(killers),
        requirements=job.reqs,
        tests_run=_ran(run),
        by=[_entry(r.nodeid, r.charged & set(job.reqs), r.message) for r in killers],
        note="" if killers else _why_survived(run, control=job.control),
    )


def judge_green(
    kind: RowKind, name: str, run: SuiteRun, *, variants: tuple[str, ...] = (), note: str = ""
) -> Row:
    """passed, flaky, failed (a false failure) or error (blocked or errored, none failed)."""
    broken, problems = run.with_outcome(FAILED), run.with_outcome(*PROBLEMS)
    flaky = run.with_outcome(FLAKY)
    by = [
        _entry(r.nodeid, r.requirements, f"{r.outcome}: {r.message}")
        for r in (*broken, *problems, *flaky)
    ]
    ok = not broken and not problems and not flaky and run.exit_code == 0
    if broken:
        verdict = "failed"
    elif problems:
        verdict = "error"
        note = note or f"{len(problems)} test(s) blocked or errored (not false failures)"
    elif flaky:
        verdict = FLAKY
        note = note or (
            f"{len(flaky)} test(s) failed on the first run and passed when run again: a false "
            "failure that comes and goes is a finding, never a pass"
        )
    elif not ok:
        verdict = "error"
        note = note or f"pytest exit {run.exit_code}: {_tail(run.output)}"
    else:
        verdict = "passed"
    return Row(kind, name, verdict, ok, tests_run=_ran(run), by=by, note=note, variants=variants)


KEYED_SUITES = ("test_idempotency.py",)
"""The modules whose tests send each write with an `Idempotency-Key` of their own, several
per test (a repeat, a reuse, six concurrent duplicates): the harness may resend none of
them, so a fault on any loses the test."""


def lost_at_most(mode: str, tests_run: int, keyed_requests: int = 0) -> int:
    """The tests a run behind `mode` may lose: a few (3), or its rate of the tests run and
    of the requests keyed by the tests themselves (`KEYED_SUITES`), if more; none for a
    mode that only delays. A test is lost when a fault meets a request the harness may
    not resend (a write keyed by the test) or its retries are spent: about one such
    request per test elsewhere, every request of a keyed module's test."""
    chaos = CHAOS_MODES[mode]
    exposed = tests_run + keyed_requests
    return max(3, math.ceil(chaos.rate * exposed)) if chaos.loses_tests else 0


def judge_chaos(mode: str, run: SuiteRun) -> Row:
    """passed when no test failed and the tests lost (errors) are few and all "target
    unavailable", the harness's verdict on a transport fault; else failed (a transport
    fault turned into a conformance failure) or error (too many, or other, lost tests)."""
    broken, problems = run.with_outcome(FAILED), run.with_outcome(*PROBLEMS)
    keyed = sum(r.requests for r in run.results if r.nodeid.split("::")[0].endswith(KEYED_SUITES))
    budget = lost_at_most(mode, _ran(run), keyed)
    other = [r for r in problems if TargetUnavailable.PREFIX not in r.message]
    by = [
        _entry(r.nodeid, r.requirements, f"{r.outcome}: {r.message}") for r in (*broken, *problems)
    ]
    note = f"{len(problems)} test(s) lost to the faults (at most {budget})"
    if broken:
        verdict = "failed"
    elif other or len(problems) > budget:
        verdict = "error"
        note += f"; {len(other)} lost otherwise than target unavailable" if other else ""
    elif run.exit_code not in (0, 1) or not run.results:
        verdict = "error"
        note = f"pytest exit {run.exit_code}: {_tail(run.output)}"
    else:
        verdict = "passed"
    return Row("chaos", mode, verdict, verdict == "passed", tests_run=_ran(run), by=by, note=note)


def checked(call: SuiteCall, caller: Caller) -> SuiteRun:
    """The run of `call`, its red tests run once more (`confirmed`)."""
    run = caller(call)
    return confirmed(run, again=lambda selectors: caller(call.on(selectors, call.variants)))


def confirmed(run: SuiteRun, *, again: Callable[[tuple[str, ...]], SuiteRun]) -> SuiteRun:
    """`run` with each red test run once more: one that passes then is marked `flaky`
    (reported, not counted as a false failure); one that is red again stays as it was.
    """
    red = run.with_outcome(*RED)
    if not red:
        return run
    rerun = again(_selectors(red))
    still = set(_selectors(rerun.with_outcome(*RED)))
    if rerun.exit_code != 0 and not still:
        return run  # the rerun itself broke: keep the first verdict
    results = tuple(
        replace(r, outcome=FLAKY) if r in red and r.selector not in still else r
        for r in run.results
    )
    left = any(r.outcome in RED for r in results)
    return replace(run, exit_code=run.exit_code if left else 0, results=results)


# --- combined variants -----------------------------------------------------------------


def prove(job: Job, caller: Caller) -> list[Row]:
    """Rows for a job of variants: the combination's, then one per variant."""
    members = job.call.variants
    run = checked(job.call, caller)
    if len(members) == 1:
        return [judge_green("variant", members[0], run)]
    rows = [judge_green("combination", job.name, run, variants=members)]
    pending, label = list(members), job.name
    while pending:
        red = _selectors(run.with_outcome(*RED))
        if not red and run.exit_code != 0:  # the session itself broke: nothing is proven
            rows += [
                replace(judge_green("variant", name, run), variants=tuple(pending))
                for name in pending
            ]
            break
        if not red:
            rows += _proven(pending, run, label)
            break
        theirs = _not_on_the_clean_server(red, job.call, caller)
        if not theirs:
            note = f"{len(red)} red test(s) of {label} are red on the clean server too"
            rows += _proven(pending, run, label, note=note)
            break
        culprits, tangled = pin(pending, theirs, job.call, caller)
        rows += [_alone(name, job.call, caller) for name in culprits]
        pending = [name for name in pending if name not in culprits]
        if tangled and not culprits:
            rows[0] = replace(
                rows[0],
                note=f"no variant of {label} makes {', '.join(theirs)} red alone: "
                "legal choices that fail only together; each variant was run alone",
            )
            rows += [_alone(name, job.call, caller) for name in pending]
            break
        label = f"{job.name} without {', '.join(sorted(set(members) - set(pending)))}"
        if pending:
            run = checked(job.call.on(job.call.selectors, pending), caller)
    return rows


def pin(
    variants: Sequence[str], selectors: tuple[str, ...], call: SuiteCall, caller: Caller
) -> tuple[list[str], bool]:
    """The variants that make `selectors` red (known red with all of `variants` on),
    found by halving; and whether some red needs variants of both halves together."""
    if len(variants) == 1:
        return list(variants), False
    half = len(variants) // 2
    culprits: list[str] = []
    tangled, any_red = False, False
    for part in (variants[:half], variants[half:]):
        red = _selectors(checked(call.on(selectors, part), caller).with_outcome(*RED))
        if red:
            any_red = True
            found, knot = pin(part, red, call, caller)
            culprits += found
            tangled = tangled or knot
    return culprits, tangled or not any_red


def _alone(name: str, call: SuiteCall, caller: Caller) -> Row:
    """A variant's row from a run of every test of `call` with it alone switched on."""
    return judge_green("variant", name, checked(call.on(call.selectors, [name]), caller))


def _not_on_the_clean_server(
    red: tuple[str, ...], call: SuiteCall, caller: Caller
) -> tuple[str, ...]:
    """The red tests that pass with no variant on: those the variants made red."""
    base = checked(call.on(red, ()), caller)
    still = set(_selectors(base.with_outcome(*RED)))
    return tuple(s for s in red if s not in still)


def _proven(names: Sequence[str], run: SuiteRun, label: str, *, note: str = "") -> list[Row]:
    """Variants green in `run`, a combination of them all."""
    verdict = FLAKY if run.with_outcome(FLAKY) else "passed"
    together = tuple(names)
    text = note or f"green in {label}, with {len(together) - 1} other variant(s) on"
    ok = verdict == "passed"  # a variant fails on its first false failure, flaky or not
    return [
        Row("variant", name, verdict, ok, tests_run=_ran(run), note=text, variants=together)
        for name in names
    ]


# --- small helpers ----------------------------------------------------------------------


def _selectors(results: Iterable[Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r.selector for r in results))


def _ran(run: SuiteRun) -> int:
    return sum(r.outcome != "not_applicable" for r in run.results)


def _entry(nodeid: str, reqs: Iterable[str], message: str) -> dict[str, Any]:
    return {"nodeid": nodeid, "requirements": sorted(reqs), "message": message[:300]}


def _why_survived(run: SuiteRun, *, control: bool) -> str:
    problems = run.with_outcome(*PROBLEMS)
    if problems:
        head = "a control: " if control else ""
        return (
            f"{head}{len(problems)} test(s) blocked or errored, none failed (a setup "
            f"failure is never a kill): {problems[0].message[:200]}"
        )
    if not run.results:
        return f"no test ran (pytest exit {run.exit_code}): {_tail(run.output)}"
    return "every selected test passed or was not applicable"


def _tail(output: str, lines: int = 5) -> str:
    return " | ".join(output.strip().splitlines()[-lines:])[:500]
