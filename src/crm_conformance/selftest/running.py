"""Running the matrix's jobs in worker processes, and gathering the matrix.

Each job runs in a worker *process*, so the servers do not share one GIL and jobs scale
with the cores. A worker imports pytest and the harness once (`pytest_child.warm_up`)
and runs each suite session in a fork of itself, which saves the three seconds of CPU
a fresh interpreter spends before its first test, a hundred times over. Jobs that
mostly wait (a variant pacing its requests) run beside the workers, not in their turn.
The longest jobs start first.
"""

import functools
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import replace

from crm_conformance.reference.variants import Variant
from crm_conformance.selftest.chaos import Chaos
from crm_conformance.selftest.judging import Caller, perform
from crm_conformance.selftest.matrix import ROW_ORDER, Matrix, Row
from crm_conformance.selftest.planning import Job, SuiteCall, SuiteTest, plan
from crm_conformance.selftest.pytest_child import warm_up
from crm_conformance.selftest.suite_run import SuiteRun, run_suite
from crm_conformance.selftest.wire_faults import running_wire_proxy


def call_suite(call: SuiteCall) -> SuiteRun:
    """Make one suite run against a fresh reference server, forked from this process."""
    chaos = Chaos(call.chaos) if call.chaos is not None else None
    through = (
        functools.partial(running_wire_proxy, faults=list(call.wire_faults), chaos=chaos)
        if call.wire_faults or chaos
        else None
    )
    return run_suite(
        call.selectors,
        faults=call.faults,
        variants=call.variants,
        first_failure=call.first_failure,
        first_failure_of=call.first_failure_of,
        through=through,
        fork=True,
    )


def timed(job: Job, caller: Caller = call_suite) -> list[Row]:
    """The job's rows, each stamped with the job's wall time."""
    started = time.monotonic()
    rows = perform(job, caller)
    return [replace(row, seconds=time.monotonic() - started) for row in rows]


def default_workers() -> int:
    """One job per core; at most 2 on CI (`CI` set), where runners are small."""
    cores = os.cpu_count() or 1
    return min(cores, 2) if os.environ.get("CI") else cores


def execute(
    jobs: Sequence[Job], *, workers: int, caller: Caller | None = None
) -> Iterator[list[Row]]:
    """Do the jobs, `workers` at a time in worker processes, waiting jobs beside them;
    yield each job's rows as it finishes. With one worker, or a `caller` (the tests'
    fake), the jobs run here, one after the other."""
    if workers <= 1 or caller is not None:
        for job in jobs:
            yield timed(job, caller or call_suite)
        return
    waiting = [job for job in jobs if job.waits]
    # spawn: a forked worker would inherit this process's threads and locks half-held.
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=warm_up)
    beside = ProcessPoolExecutor(
        max_workers=max(len(waiting), 1), mp_context=context, initializer=warm_up
    )
    try:
        futures: list[Future[list[Row]]] = [
            (beside if job.waits else pool).submit(timed, job) for job in jobs
        ]
        for future in as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(cancel_futures=True)
        beside.shutdown(cancel_futures=True)


def selftest(
    tests: Sequence[SuiteTest],
    faults: Mapping[str, tuple[str, ...]],
    variants: Sequence[str],
    *,
    catalogue: Mapping[str, Variant],
    class_of: Callable[[str], str],
    workers: int = 1,
    clean: bool = True,
    wire: frozenset[str] = frozenset(),
    controls: frozenset[str] = frozenset(),
    chaos: Sequence[str] = (),
    caller: Caller | None = None,
    progress: Callable[[Row], None] = lambda row: None,
) -> Matrix:
    """Plan, run and judge: the kill matrix of these faults, controls, variants and chaos
    modes.

    `progress` sees each row as its job finishes (a full self-test takes minutes).
    """
    started = time.monotonic()
    jobs, unreached = plan(
        tests,
        faults,
        variants,
        catalogue=catalogue,
        wire=wire,
        controls=controls,
        clean=clean,
        chaos=chaos,
    )
    rows = [
        _with_class(
            Row(
                "control" if name in controls else "fault",
                name,
                "unreached",
                False,
                reqs,
                note="no suite test names its ids",
            ),
            class_of,
        )
        for name, reqs in unreached
    ]
    for done in execute(jobs, workers=workers, caller=caller):
        for row in done:
            rows.append(_with_class(row, class_of))
            progress(rows[-1])
    rows.sort(key=lambda row: (ROW_ORDER[row.kind], row.name))
    return Matrix(tuple(_one_per_variant(rows)), time.monotonic() - started, workers)


def _one_per_variant(rows: Sequence[Row]) -> list[Row]:
    """A variant of several combinations keeps one row: a red one if it has any (the
    combination that made it red says more), else the first green one."""
    kept: dict[tuple[str, str], Row] = {}
    for row in rows:
        key = (row.kind, row.name)
        if row.kind != "variant" or key not in kept or (kept[key].ok and not row.ok):
            kept[key] = row
    return list(kept.values())


def _with_class(row: Row, class_of: Callable[[str], str]) -> Row:
    return replace(row, cls=class_of(row.requirements[0])) if row.requirements else row
