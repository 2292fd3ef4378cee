"""`crm-conformance selftest`: choose the faults, variants and chaos modes, run the
matrix, report."""

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from crm_conformance._errors import UsageError
from crm_conformance.selftest.chaos import CHAOS_MODES
from crm_conformance.selftest.matrix import Matrix, Row
from crm_conformance.selftest.planning import SuiteTest
from crm_conformance.selftest.report import (
    MATRIX_JSON,
    MATRIX_MARKDOWN,
    summary_lines,
    write_report,
)
from crm_conformance.selftest.running import default_workers, selftest
from crm_conformance.selftest.wire_faults import WIRE_FAULTS

SAMPLE_SEED = 0
"""`--sample N` draws with this fixed seed, so the same N gives the same names."""


@dataclass(frozen=True, kw_only=True)
class SelftestRequest:
    """What `crm-conformance selftest` was asked to do."""

    faults: str | None = None
    variants: str | None = None
    chaos: str | None = None
    """Only these chaos modes (comma-separated); default every one."""
    sample: int | None = None
    workers: int | None = None
    report_dir: Path | None = None
    suites: str | None = None
    """Only these suite modules (comma-separated file names); default every one."""


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
            raise UsageError(f"{option}={names!r}: unknown {unknown}; known: {known}")
    if sample is not None and sample < len(chosen):
        chosen = sorted(random.Random(SAMPLE_SEED).sample(chosen, sample))
    return chosen


def _show(row: Row, echo: Callable[[str], None]) -> None:
    """A finished row, as a line; a variant green in a combination is in that line."""
    if row.kind == "variant" and row.ok and row.variants:
        return
    label = f"{row.name} of {len(row.variants)} variants" if row.kind == "combination" else ""
    echo(f"  {label or f'{row.kind} {row.name}'}: {row.verdict} ({row.seconds:.1f} s)")


def run_selftest(request: SelftestRequest, *, echo: Callable[[str], None] = print) -> Matrix:
    """Collect the suites, run the matrix, write the report; the CLI's entry point."""
    from crm_conformance.core.model.catalogue import load_catalogue
    from crm_conformance.reference.faults import FAULTS
    from crm_conformance.reference.variants import VARIANTS
    from crm_conformance.run.request import RunRequest
    from crm_conformance.run.runner import list_tests

    all_faults = {
        **{name: fault.reqs for name, fault in FAULTS.items()},
        **{name: fault.reqs for name, fault in WIRE_FAULTS.items()},
    }
    if request.sample is not None and request.sample < 1:
        raise UsageError(f"--sample={request.sample}: must be at least 1")
    fault_names = choose(request.faults, all_faults, option="--faults", sample=request.sample)
    variant_names = choose(request.variants, VARIANTS, option="--variants", sample=request.sample)
    chaos_names = choose(request.chaos, CHAOS_MODES, option="--chaos", sample=request.sample)
    workers = request.workers if request.workers is not None else default_workers()
    if workers < 1:
        raise UsageError(f"--workers={workers}: must be at least 1")
    tests = [SuiteTest(t["nodeid"], frozenset(t["requirements"])) for t in list_tests(RunRequest())]
    modules = sorted({test.module for test in tests})
    if request.suites is not None:
        chosen = choose(request.suites, modules, option="--suites", sample=None)
        tests = [test for test in tests if test.module in chosen]
    if not tests:
        raise UsageError("the suites hold no test: nothing to self-test")
    catalogue = load_catalogue()

    def class_of(req_id: str) -> str:
        found = catalogue.get(req_id)
        return found.cls if found is not None else "-"

    echo(
        f"selftest: {len(tests)} suite tests, {len(fault_names)} faults, "
        f"{len(variant_names)} variants, {len(chaos_names)} chaos modes, {workers} workers"
    )
    matrix = selftest(
        tests,
        {name: all_faults[name] for name in fault_names},
        variant_names,
        catalogue=VARIANTS,
        class_of=class_of,
        workers=workers,
        wire=frozenset(WIRE_FAULTS),
        controls=frozenset(name for name, fault in FAULTS.items() if fault.setup_only),
        chaos=chaos_names,
        progress=lambda row: _show(row, echo),
    )
    report_dir = request.report_dir or Path("reports") / (
        "selftest-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    )
    write_report(matrix, report_dir)
    for line in summary_lines(matrix):
        echo(line)
    echo(f"Kill matrix: {report_dir / MATRIX_MARKDOWN} and {report_dir / MATRIX_JSON}")
    return matrix
