"""The kill matrix: run the suites against every fault and every legal variant.

A conformance suite is only worth what it catches and what it lets through. A fault is
*killed* when a failed test names one of the fault's requirement ids (`SuiteRun.kills`,
the same rule as `tests/catches/`); a fault whose ids no suite test names is
*unreached* and counts as survived. A variant must leave every test green; a failed
test under a variant is a false failure, the worst bug the suite can have. The clean
reference server must pass too, or nothing else means anything.

Each job is `run_suite` (pytest in a subprocess against a fresh in-memory reference
server) inside a worker *process*: the servers then do not share one GIL, so jobs scale
with the cores. A fault's job runs only the tests that carry one of its ids and stops at
the first failure; a variant's job runs every test, so the report lists every false
failure at once. A fault is a switch of the reference server (`reference/faults.py`) or
a wire fault (`wire_faults.py`), whose job puts the loopback proxy that commits it in
front of the reference server.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from crm_conformance._errors import UsageError as SelftestUsageError
from crm_conformance.suite_run import SuiteRun, run_suite
from crm_conformance.wire_faults import WIRE_FAULTS, running_wire_proxy

JobKind = Literal["clean", "fault", "variant"]
FLAKY = "flaky"
"""Outcome of a test that failed in a clean or variant job and passed when run again."""

MATRIX_JSON = "kill-matrix.json"
MATRIX_MARKDOWN = "kill-matrix.md"
SAMPLE_SEED = 0
"""`--sample N` draws with this fixed seed, so the same N gives the same names."""


@dataclass(frozen=True)
class SuiteTest:
    """A collected suite test: its node id under `suites/` and its requirement ids."""

    nodeid: str
    requirements: frozenset[str]

    @property
    def selector(self) -> str:
        """The test function relative to the suites folder, as `run_suite` takes it.

        Without its parameters: a parameter id may hold a repr that differs between two
        processes (`<object object at 0x...>`), so a full node id may not be found again.
        """
        return self.nodeid.removeprefix("suites/").split("[", 1)[0]

    @property
    def module(self) -> str:
        return self.selector.split("::", 1)[0]


@dataclass(frozen=True)
class Job:
    """One suite run of the matrix: what is switched on and which tests run."""

    kind: JobKind
    name: str
    selectors: tuple[str, ...]
    first_failure: bool = False

    def run(self) -> SuiteRun:
        wire = self.kind == "fault" and self.name in WIRE_FAULTS
        return run_suite(
            self.selectors,
            faults=(self.name,) if self.kind == "fault" and not wire else (),
            variants=(self.name,) if self.kind == "variant" else (),
            first_failure=self.first_failure,
            through=functools.partial(running_wire_proxy, faults=[self.name]) if wire else None,
        )


@dataclass(frozen=True)
class Row:
    """One line of the matrix: a fault, a variant or the clean server, and its verdict."""

    kind: JobKind
    name: str
    verdict: str
    """clean/variant: `passed` or `failed`; fault: `killed`, `survived` or `unreached`."""
    ok: bool
    requirements: tuple[str, ...] = ()
    """The fault's ids (empty for variants and the clean run)."""
    cls: str = ""
    """Conformance class of a fault (that of its first id)."""
    tests_run: int = 0
    by: list[dict[str, Any]] = field(default_factory=list)
    """Killing tests (fault) or failing tests (clean, variant): nodeid, ids, message."""
    seconds: float = 0.0
    note: str = ""


@dataclass(frozen=True)
class Matrix:
    """The whole self-test: rows, totals, wall time; `exit_code` is 0 only if all is well."""

    rows: tuple[Row, ...]
    seconds: float
    workers: int

    @property
    def exit_code(self) -> int:
        return 0 if all(row.ok for row in self.rows) else 1

    def of_kind(self, kind: JobKind) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if row.kind == kind)

    def totals(self) -> dict[str, Any]:
        faults, variants = self.of_kind("fault"), self.of_kind("variant")
        by_class: dict[str, dict[str, int]] = {}
        for row in faults:
            counts = by_class.setdefault(row.cls, {"killed": 0, "survived": 0, "unreached": 0})
            counts[row.verdict] += 1
        return {
            "clean": [row.verdict for row in self.of_kind("clean")],
            "faults": len(faults),
            "killed": sum(row.verdict == "killed" for row in faults),
            "survived": sum(row.verdict == "survived" for row in faults),
            "unreached": sum(row.verdict == "unreached" for row in faults),
            "variants": len(variants),
            "variants_passed": sum(row.ok for row in variants),
            "false_failures": sum(not row.ok for row in variants),
            "flaky": sum(row.verdict == FLAKY for row in (*variants, *self.of_kind("clean"))),
            "by_class": dict(sorted(by_class.items())),
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "seconds": round(self.seconds, 1),
            "workers": self.workers,
            "exit_code": self.exit_code,
            "totals": self.totals(),
            "rows": [asdict(row) for row in self.rows],
        }


# --- choosing what to run ------------------------------------------------------------


def choose(
    names: str | None, known: Iterable[str], *, option: str, sample: int | None
) -> list[str]:
    """The names an option picks (comma-separated; all when absent), maybe sampled."""
    known = sorted(known)
    if names is None:
        chosen = known
    else:
        chosen = list(dict.fromkeys(n.strip() for n in names.split(",") if n.strip()))
        unknown = [n for n in chosen if n not in known]
        if unknown:
            raise SelftestUsageError(f"{option}={names!r}: unknown {unknown}; known: {known}")
    if sample is not None and sample < len(chosen):
        chosen = sorted(random.Random(SAMPLE_SEED).sample(chosen, sample))
    return chosen


def plan(
    tests: Sequence[SuiteTest],
    faults: dict[str, tuple[str, ...]],
    variants: Sequence[str],
    *,
    clean: bool = True,
) -> tuple[list[Job], list[Row]]:
    """The jobs to run, and the rows already decided (faults no test reaches)."""
    everything = tuple(dict.fromkeys(test.module for test in tests))
    jobs = [Job("clean", "reference", everything)] if clean else []
    decided = []
    for name, reqs in faults.items():
        selectors = tuple(dict.fromkeys(t.selector for t in tests if t.requirements & set(reqs)))
        if selectors:
            jobs.append(Job("fault", name, selectors, first_failure=True))
        else:
            decided.append(
                Row("fault", name, "unreached", False, reqs, note="no suite test names its ids")
            )
    jobs += [Job("variant", name, everything) for name in variants]
    return jobs, decided


# --- judging a run -------------------------------------------------------------------


def judge(job: Job, run: SuiteRun, reqs: tuple[str, ...], seconds: float) -> Row:
    """The row a finished job gives: killed/survived for a fault, passed/failed otherwise."""
    ran = sum(r.outcome != "skipped" for r in run.results)
    if job.kind == "fault":
        killers = [r for r in run.with_outcome("failed") if r.requirements & set(reqs)]
        by = [_entry(r.nodeid, r.requirements & set(reqs), r.message) for r in killers]
        note = "" if killers else _why_survived(run)
        return Row(
            kind="fault",
            name=job.name,
            verdict="killed" if killers else "survived",
            ok=bool(killers),
            requirements=reqs,
            tests_run=ran,
            by=by,
            seconds=seconds,
            note=note,
        )
    broken = [r for r in run.results if r.outcome in ("failed", "error")]
    flaky = [r for r in run.results if r.outcome == FLAKY]
    by = [_entry(r.nodeid, r.requirements, f"{r.outcome}: {r.message}") for r in broken + flaky]
    ok = not broken and run.exit_code == 0
    note = "" if ok or broken else f"pytest exit {run.exit_code}: {_tail(run.output)}"
    if ok and flaky:
        note = f"{len(flaky)} test(s) failed once and passed when run again: see By"
    return Row(
        kind=job.kind,
        name=job.name,
        verdict=("flaky" if flaky else "passed") if ok else "failed",
        ok=ok,
        tests_run=ran,
        by=by,
        seconds=seconds,
        note=note,
    )


def _entry(nodeid: str, reqs: Iterable[str], message: str) -> dict[str, Any]:
    return {"nodeid": nodeid, "requirements": sorted(reqs), "message": message[:300]}


def _why_survived(run: SuiteRun) -> str:
    errors = run.with_outcome("error")
    if errors:
        return f"{len(errors)} setup error(s), no failed test: {errors[0].message[:200]}"
    if not run.results:
        return f"no test ran (pytest exit {run.exit_code}): {_tail(run.output)}"
    return "every selected test passed or skipped"


def _tail(output: str, lines: int = 5) -> str:
    return " | ".join(output.strip().splitlines()[-lines:])[:500]


# --- running -------------------------------------------------------------------------


def default_workers() -> int:
    """One job per core; at most 2 on CI (`CI` set), where runners are small."""
    cores = os.cpu_count() or 1
    return min(cores, 2) if os.environ.get("CI") else cores


def _timed(job: Job) -> tuple[SuiteRun, float]:
    started = time.monotonic()
    run = job.run()
    if job.kind != "fault" and run.exit_code != 0:
        run = confirmed(job, run, again=lambda selectors: replace(job, selectors=selectors).run())
    return run, time.monotonic() - started


def confirmed(job: Job, run: SuiteRun, *, again: Callable[[tuple[str, ...]], SuiteRun]) -> SuiteRun:
    """`run` with each failure of a clean or variant job checked by running its test once
    more: one that passes then is marked `flaky` (reported, not counted as a false
    failure); one that fails again stays failed. A loaded machine can make a test that
    depends on no timing rule of the document fail once; a real false failure repeats.
    """
    broken = [r for r in run.results if r.outcome in ("failed", "error")]
    if not broken:
        return run
    selectors = tuple(dict.fromkeys(_selector(r.nodeid) for r in broken))
    rerun = again(selectors)
    still = {_selector(r.nodeid) for r in rerun.results if r.outcome in ("failed", "error")}
    if rerun.exit_code != 0 and not still:
        return run  # the rerun itself broke: keep the first verdict
    results = tuple(
        replace(r, outcome=FLAKY) if r in broken and _selector(r.nodeid) not in still else r
        for r in run.results
    )
    left = any(r.outcome in ("failed", "error") for r in results)
    return replace(run, exit_code=run.exit_code if left else 0, results=results)


def _selector(nodeid: str) -> str:
    """A JUnit id (`suites.test_a::test_b[x]`) as `run_suite` takes it (`test_a.py::test_b`)."""
    module, _, name = nodeid.partition("::")
    return f"{module.rsplit('.', 1)[-1]}.py::{name.split('[', 1)[0]}"


def execute(
    jobs: Sequence[Job],
    *,
    workers: int,
    runner: Callable[[Job], tuple[SuiteRun, float]] = _timed,
) -> Iterator[tuple[Job, SuiteRun, float]]:
    """Run the jobs, `workers` at a time in worker processes (inline when 1), yielding
    each as it finishes."""
    if workers <= 1:
        for job in jobs:
            yield (job, *runner(job))
        return
    # spawn: a forked child would inherit this process's threads and locks half-held.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(runner, job): job for job in jobs}
        for future in as_completed(futures):
            yield (futures[future], *future.result())


def selftest(
    tests: Sequence[SuiteTest],
    faults: dict[str, tuple[str, ...]],
    variants: Sequence[str],
    *,
    class_of: Callable[[str], str],
    workers: int = 1,
    clean: bool = True,
    runner: Callable[[Job], tuple[SuiteRun, float]] = _timed,
    progress: Callable[[Row], None] = lambda row: None,
) -> Matrix:
    """Plan, run and judge: the kill matrix of these faults and variants.

    `progress` sees each row as its job finishes (a full self-test takes minutes).
    """
    started = time.monotonic()
    jobs, decided = plan(tests, faults, variants, clean=clean)
    rows = [_with_class(row, class_of) for row in decided]
    for job, run, seconds in execute(jobs, workers=workers, runner=runner):
        row = judge(job, run, faults.get(job.name, ()) if job.kind == "fault" else (), seconds)
        rows.append(_with_class(row, class_of) if row.kind == "fault" else row)
        progress(rows[-1])
    order = {"clean": 0, "fault": 1, "variant": 2}
    rows.sort(key=lambda row: (order[row.kind], row.name))
    return Matrix(tuple(rows), time.monotonic() - started, workers)


def _with_class(row: Row, class_of: Callable[[str], str]) -> Row:
    return replace(row, cls=class_of(row.requirements[0]) if row.requirements else "-")


# --- the whole command ----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SelftestRequest:
    """What `crm-conformance selftest` was asked to do."""

    faults: str | None = None
    variants: str | None = None
    sample: int | None = None
    workers: int | None = None
    report_dir: Path | None = None
    suites: str | None = None
    """Only these suite modules (comma-separated file names); default every one."""


def run_selftest(request: SelftestRequest, *, echo: Callable[[str], None] = print) -> Matrix:
    """Collect the suites, run the matrix, write the report; the CLI's entry point."""
    from crm_conformance import runner
    from crm_conformance.catalogue import load_catalogue
    from crm_conformance.reference.faults import FAULTS
    from crm_conformance.reference.variants import VARIANTS

    all_faults = {
        **{name: fault.reqs for name, fault in FAULTS.items()},
        **{name: fault.reqs for name, fault in WIRE_FAULTS.items()},
    }

    if request.sample is not None and request.sample < 1:
        raise SelftestUsageError(f"--sample={request.sample}: must be at least 1")
    fault_names = choose(request.faults, all_faults, option="--faults", sample=request.sample)
    variant_names = choose(request.variants, VARIANTS, option="--variants", sample=request.sample)
    workers = request.workers if request.workers is not None else default_workers()
    if workers < 1:
        raise SelftestUsageError(f"--workers={workers}: must be at least 1")
    tests = [
        SuiteTest(t["nodeid"], frozenset(t["requirements"]))
        for t in runner.list_tests(runner.RunRequest())
    ]
    modules = sorted({test.module for test in tests})
    if request.suites is not None:
        chosen = choose(request.suites, modules, option="--suites", sample=None)
        tests = [test for test in tests if test.module in chosen]
    if not tests:
        raise SelftestUsageError("the suites hold no test: nothing to self-test")
    catalogue = load_catalogue()

    def class_of(req_id: str) -> str:
        found = catalogue.get(req_id)
        return found.cls if found is not None else "-"

    echo(
        f"selftest: {len(tests)} suite tests, {len(fault_names)} faults, "
        f"{len(variant_names)} variants, {workers} workers"
    )
    matrix = selftest(
        tests,
        {name: all_faults[name] for name in fault_names},
        variant_names,
        class_of=class_of,
        workers=workers,
        progress=lambda row: echo(f"  {row.kind} {row.name}: {row.verdict} ({row.seconds:.1f} s)"),
    )
    report_dir = request.report_dir or Path("reports") / (
        "selftest-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    )
    write_report(matrix, report_dir)
    for line in summary_lines(matrix):
        echo(line)
    echo(f"Kill matrix: {report_dir / MATRIX_MARKDOWN} and {report_dir / MATRIX_JSON}")
    return matrix


def write_report(matrix: Matrix, report_dir: Path) -> None:
    """Write the matrix as JSON (for tools) and Markdown (for people)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / MATRIX_JSON).write_text(
        json.dumps(matrix.as_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    (report_dir / MATRIX_MARKDOWN).write_text(markdown(matrix), encoding="utf-8")


def summary_lines(matrix: Matrix) -> list[str]:
    """The totals as printed: overall, then faults by class."""
    t = matrix.totals()
    lines = [
        f"clean reference: {', '.join(t['clean']) or 'not run'}",
        f"faults: {t['killed']}/{t['faults']} killed, {t['survived']} survived, "
        f"{t['unreached']} unreached",
        f"variants: {t['variants_passed']}/{t['variants']} passed, "
        f"{t['false_failures']} with false failures, {t['flaky']} with a test that failed "
        "once and passed when run again",
    ]
    for cls, counts in t["by_class"].items():
        lines.append(
            f"  {cls}: {counts['killed']} killed, {counts['survived']} survived, "
            f"{counts['unreached']} unreached"
        )
    lines.append(f"wall time {matrix.seconds:.1f} s with {matrix.workers} workers")
    return lines


def markdown(matrix: Matrix) -> str:
    """The matrix as Markdown tables: clean, faults, variants, then the totals."""
    # summary_lines indents the per-class totals by two spaces: a nested list here.
    bullets = [
        f"{line[: len(line) - len(line.lstrip())]}- {line.strip()}"
        for line in summary_lines(matrix)
    ]
    out = ["# Kill matrix", "", *bullets, ""]
    out += [
        "## Faults",
        "",
        "| Fault | Class | Ids | Verdict | By | Note |",
        "|---|---|---|---|---|---|",
    ]
    for row in matrix.of_kind("fault"):
        by = "<br>".join(f"`{b['nodeid']}` ({', '.join(b['requirements'])})" for b in row.by)
        out.append(
            f"| {row.name} | {row.cls} | {', '.join(row.requirements)} | {row.verdict} "
            f"| {by} | {_cell(row.note)} |"
        )
    out += [
        "",
        "## Variants and the clean server",
        "",
        "| Run | Verdict | Failing tests |",
        "|---|---|---|",
    ]
    for row in (*matrix.of_kind("clean"), *matrix.of_kind("variant")):
        failing = "<br>".join(f"`{b['nodeid']}`: {_cell(b['message'][:120])}" for b in row.by)
        out.append(f"| {row.kind} {row.name} | {row.verdict} | {failing or _cell(row.note)} |")
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
