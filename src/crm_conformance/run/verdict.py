"""How a finished run is told: the command's exit code and the short verdict it prints.

The exit codes are DESIGN.md's (the table is in README, "Exit codes"). The child tells
an unreachable target apart with an exit status of its own
(`plugin.session.EXIT_UNREACHABLE`), outside pytest's 0-5, so pytest's internal error
(3) can never read as "unreachable".
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crm_conformance.core.verdicts.outcomes import ClassVerdict, Outcome, OutcomeRecord
from crm_conformance.plugin.session import EXIT_UNREACHABLE as _CHILD_UNREACHABLE
from crm_conformance.reporting.requirements_page import PAGE_FILE
from crm_conformance.reporting.summary import seed_text
from crm_conformance.run.interruptible import EXIT_INTERRUPTED

EXIT_NOTHING_FAILED = 0
"""No requirement failed and no test errored or was blocked (the CI gate's pass)."""

EXIT_FAILED = 1
"""A requirement failed, or tests could not run for setup errors."""

EXIT_USAGE = 2

EXIT_UNREACHABLE = 3

EXIT_INTERNAL = 4
"""pytest or the harness crashed; the message points to the run's pytest.log."""

_PYTEST_INTERNAL_ERROR = 3

_PYTEST_USAGE = 4

PYTEST_NO_TESTS = 5

_SETUP = (Outcome.ERROR, Outcome.BLOCKED, Outcome.SUITE_ERROR)


@dataclass(frozen=True)
class RunResult:
    """What a finished run established; `exit_code` is DESIGN.md's."""

    exit_code: int
    report_dir: Path
    summary: dict[str, Any]
    records: list[OutcomeRecord]
    message: str = ""


def exit_code(
    returncode: int, records: list[OutcomeRecord], output: str, log: Path
) -> tuple[int, str]:
    """The command's exit code from pytest's, the records and (for messages) its output."""
    if returncode == _PYTEST_INTERNAL_ERROR:
        return EXIT_INTERNAL, _internal(output, log, "pytest or the harness crashed")
    if returncode == _CHILD_UNREACHABLE:
        return EXIT_UNREACHABLE, _exit_message(output)
    if returncode == _PYTEST_USAGE:
        return EXIT_USAGE, tail(output, 5)
    if returncode == PYTEST_NO_TESTS or (returncode == 0 and not records):
        return EXIT_USAGE, "no test was selected: check --classes and the -- pytest args"
    if not records:
        return EXIT_INTERNAL, _internal(output, log, f"pytest stopped (exit {returncode})")
    if any(r.outcome == Outcome.FAILED for r in records):
        return EXIT_FAILED, ""
    unreachable = [
        r
        for r in records
        if r.outcome == Outcome.ERROR
        and r.cause.startswith(("target unreachable", "transport error"))
    ]
    if unreachable:
        return EXIT_UNREACHABLE, unreachable[0].cause
    if any(r.outcome in _SETUP for r in records):
        return EXIT_FAILED, ""
    if returncode != 0:
        return EXIT_INTERNAL, _internal(output, log, f"pytest ended with exit {returncode}")
    return EXIT_NOTHING_FAILED, ""


def _internal(output: str, log: Path, what: str) -> str:
    """An internal error in one line that points to the log, with its last line of detail."""
    detail = next(
        (line for line in reversed(output.strip().splitlines()) if line.strip()), ""
    ).strip()
    return f"{what}; details in {log}" + (f": {detail[:300]}" if detail else "")


def _exit_message(output: str) -> str:
    """The message of the plugin's `pytest.exit`, one line, without pytest's framing."""
    for line in reversed(output.splitlines()):
        if "Exit:" in line:
            return line.split("Exit:", 1)[1].strip(" !")
    return tail(output, 1)


def tail(text: str, lines: int) -> str:
    """The last `lines` lines of `text`: a child's output, shortened for a message."""
    return "\n".join(text.strip().splitlines()[-lines:])


_CLASS_HEADINGS = {ClassVerdict.CORE_NOT_PASSED: "Own requirements passed, but core not in full"}
"""Headings of the verdict's class lines that the verdict's name does not say well."""


def _class_lines(summary: dict[str, Any]) -> list[str]:
    """The classes by verdict, one line each: passed in full first, then what falls short."""
    claimed = set(summary["claimed"])
    by_verdict: dict[str, list[str]] = {}
    for cls, entry in summary["classes"].items():
        key = entry["verdict"] if cls in claimed else "not claimed"
        shown = f"{cls} ({entry['verified']} of {entry['testable']})"
        by_verdict.setdefault(key, []).append(
            shown if key == ClassVerdict.PARTIALLY_VERIFIED else cls
        )
    lines = [
        f"Classes passed in full: {', '.join(by_verdict.pop(ClassVerdict.PASSED, [])) or 'none'}"
    ]
    for key in (*ClassVerdict, "not claimed"):
        if key in by_verdict:
            heading = _CLASS_HEADINGS.get(key, str(key).replace("_", " ").capitalize())
            lines.append(f"{heading}: {', '.join(by_verdict[key])}")
    return lines


def _own_words(cause: str, req_id: str) -> str:
    """The first line of a requirement's cause without the ids it is charged to: a
    failure's title line (`PAG-001  Wraps lists ...`) or one line of several failed
    checks (`PAG-001, PAG-004: expected ...; got ...`)."""
    line = cause.splitlines()[0] if cause else ""
    charged, colon, words = line.partition(": ")
    if colon and all(re.fullmatch(r"[A-Z]+-\d{3}", i) for i in charged.split(", ")):
        return words.strip()
    return line.removeprefix(req_id).strip()


VERDICT_LINE_WIDTH = 110
"""Characters of a failed requirement's line in the printed verdict (summary.md has all)."""


def short_cause(words: str, width: int = VERDICT_LINE_WIDTH) -> str:
    """`words` within `width`: a cause's closing request (`(GET /v1/deals?... -> 200)`)
    kept whole where it leaves the message room, and the message cut before it, so the
    line still says which request failed."""
    if len(words) <= width:
        return words
    message, opening, request = words.rpartition(" (")
    room = width - len(request) - len(opening) - 3
    if opening and request.endswith(")") and room >= width // 3:
        return f"{message[:room]}...{opening}{request}"
    return words[: width - 3] + "..."


def verdict_text(result: RunResult) -> str:
    """The short verdict printed after a run; its first line never says more than ran."""
    summary = result.summary
    tests = summary["tests"]
    counts = ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in sorted(tests.items()))
    first = {
        EXIT_USAGE: "USAGE ERROR",
        EXIT_UNREACHABLE: "TARGET UNREACHABLE",
        EXIT_INTERNAL: "INTERNAL ERROR",
        EXIT_INTERRUPTED: "INTERRUPTED",
    }.get(result.exit_code, summary["headline"])
    lines = [f"crm-conformance: {first}"]
    if result.message:
        lines.append(result.message)
    lines.append(f"Tests: {sum(tests.values())} ({counts or 'none'}); {seed_text(summary)}")
    lines += _class_lines(summary)
    failed = [(i, e) for i, e in summary["requirements"].items() if e["verdict"] == "failed"]
    if failed:
        lines.append("Requirements failed:")
        for req_id, entry in failed:
            cause = entry["causes"][0].split(": ", 1)[-1] if entry["causes"] else entry["title"]
            lines.append(f"  {req_id}  {short_cause(_own_words(cause, req_id))}")
    errors = tests.get(Outcome.ERROR, 0) + tests.get(Outcome.BLOCKED, 0)
    if errors:
        lines.append(f"Could not run for setup errors (not target failures): {errors} tests")
    suite_errors = tests.get(Outcome.SUITE_ERROR, 0)
    if suite_errors:
        lines.append(
            f"Suite errors (the suite's own fault, not the target's; tracebacks in "
            f"pytest.log): {suite_errors} tests"
        )
    skipped = tests.get(Outcome.NOT_APPLICABLE, 0)
    if skipped:
        lines.append(
            f"Not applicable to this target: {skipped} tests (summary.md says what would "
            "verify their requirements)"
        )
    lines.append(f"Report: {result.report_dir}")
    page = result.report_dir / PAGE_FILE
    if page.is_file():
        lines.append(f"The document coloured by verdict: {page}")
    return "\n".join(lines)
