"""The kill matrix written down: JSON for tools, Markdown for people, lines to print."""

import json
from pathlib import Path

from crm_conformance.selftest.coverage import FaultCoverage, coverage_of
from crm_conformance.selftest.matrix import Matrix

MATRIX_JSON = "kill-matrix.json"
MATRIX_MARKDOWN = "kill-matrix.md"


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
        proven(matrix).line("a killed fault declares (declared)"),
        charged(matrix).line("a kill was charged to (measured)"),
        f"variants: {t['variants_passed']}/{t['variants']} passed, "
        f"{t['false_failures']} with false failures, {t['variant_errors']} with blocked or "
        f"errored tests; {t['combinations_passed']}/{t['combinations']} combined runs "
        f"passed; {t['flaky']} run(s) with a test that failed once and passed when run again",
    ]
    if t["chaos"]:
        lines.append(
            f"chaos (transport faults at a rate): {t['chaos_passed']}/{t['chaos']} passed, "
            f"{t['chaos_failed']} with a failed test"
        )
    if t["controls"]:
        lines.append(
            f"controls (faults of the tests' setup only, which must survive): "
            f"{t['controls_held']}/{t['controls']} survived"
        )
    for cls, counts in t["by_class"].items():
        lines.append(
            f"  {cls}: {counts['killed']} killed, {counts['survived']} survived, "
            f"{counts['unreached']} unreached"
        )
    lines.append(f"wall time {matrix.seconds:.1f} s with {matrix.workers} workers")
    return lines


def proven(matrix: Matrix) -> FaultCoverage:
    """The testable requirements a fault this run killed breaks."""
    return coverage_of(row.requirements for row in matrix.of_kind("fault") if row.ok)


def charged(matrix: Matrix) -> FaultCoverage:
    """The testable requirements a killing failure was charged to: the stricter figure,
    since a fault breaking two rules is often killed first by the broader one (a wrong
    id prefix by IDN-001 before the kind's own prefix) and the run stops at its first
    failure."""
    return coverage_of(
        by["requirements"] for row in matrix.of_kind("fault") if row.ok for by in row.by
    )


def markdown(matrix: Matrix) -> str:
    """The matrix as Markdown tables: faults and controls, then the green runs."""
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
    for row in (*matrix.of_kind("fault"), *matrix.of_kind("control")):
        by = "<br>".join(f"`{b['nodeid']}` ({', '.join(b['requirements'])})" for b in row.by)
        out.append(
            f"| {row.name} | {row.cls} | {', '.join(row.requirements)} "
            f"| {row.verdict}{' (control)' if row.kind == 'control' else ''} "
            f"| {by} | {_cell(row.note)} |"
        )
    missing = proven(matrix).missing
    out += [
        "",
        "## Testable requirements no killed fault breaks",
        "",
        ", ".join(missing) if missing else "None: every testable requirement has a killed fault.",
    ]
    out += [
        "",
        "## The clean server, combined variants, each variant and chaos",
        "",
        "| Run | Verdict | Red tests, or how it was proven |",
        "|---|---|---|",
    ]
    for row in (
        *matrix.of_kind("clean"),
        *matrix.of_kind("combination"),
        *matrix.of_kind("variant"),
        *matrix.of_kind("chaos"),
    ):
        red = "<br>".join(f"`{b['nodeid']}`: {_cell(b['message'][:120])}" for b in row.by)
        label = f"{row.name} ({', '.join(row.variants)})" if row.kind == "combination" else ""
        out.append(
            f"| {label or f'{row.kind} {row.name}'} | {row.verdict} "
            f"| {'<br>'.join(filter(None, (red, _cell(row.note))))} |"
        )
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
