"""`report --diff OLD_RUN NEW_RUN`: what changed between two runs, requirement by requirement.

A regression view for nightly runs and for a vendor comparing two releases of their
server. Each run's verdicts are read from its `summary.json`, which the run computed from
its outcome records by `summary.requirement_verdicts` (the rules of DESIGN.md); nothing
here judges a requirement again. A requirement that passed in OLD and failed in NEW is a
regression: the command then exits 1, else 0; a folder without a readable summary is a
usage error (exit 2).
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crm_conformance._errors import UsageError
from crm_conformance.core.hygiene.inert import inert
from crm_conformance.core.verdicts.outcomes import Verdict

SUMMARY_FILE = "summary.json"
ABSENT = "absent"
"""The verdict shown for a requirement one run's catalogue did not hold."""
CAUSE_WIDTH = 200
"""Characters kept of a cause on its line."""


@dataclass(frozen=True)
class Change:
    """One requirement whose verdict differs between the two runs."""

    req_id: str
    old: str
    new: str
    cause: str
    """NEW's cause (or, when it did not fail, its reason; OLD's cause when NEW passed)."""

    @property
    def regression(self) -> bool:
        return self.old == Verdict.PASSED and self.new == Verdict.FAILED


@dataclass(frozen=True)
class RunDiff:
    """The changes from one run to another, regressions first."""

    old_dir: Path
    new_dir: Path
    old_headline: str
    new_headline: str
    changes: tuple[Change, ...]

    @property
    def exit_code(self) -> int:
        return 1 if any(change.regression for change in self.changes) else 0

    def text(self) -> str:
        """The changes as a terminal shows them: one line per requirement, cause indented."""
        lines = [
            f"old: {self.old_dir}: {inert(self.old_headline)}",
            f"new: {self.new_dir}: {inert(self.new_headline)}",
        ]
        if not self.changes:
            return "\n".join([*lines, "No requirement changed its verdict."])
        regressions = sum(change.regression for change in self.changes)
        plural = "s" if len(self.changes) != 1 else ""
        lines.append(
            f"{len(self.changes)} requirement{plural} changed their verdict, "
            f"{regressions} passed before and fail now:"
        )
        width = max(len(change.req_id) for change in self.changes)
        for change in self.changes:
            mark = "!" if change.regression else " "
            words = f"{_words(change.old)} → {_words(change.new)}"
            lines.append(f"{mark} {change.req_id:<{width}}  {words}")
            if change.cause:
                lines.append(f"    {_one_line(change.cause)}")
        return "\n".join(lines)


def _words(verdict: str) -> str:
    return verdict.replace("_", " ")


def _one_line(text: str) -> str:
    """A cause on one line, inert (it may quote the target), cut to CAUSE_WIDTH."""
    shown = inert(" ".join(text.split()))
    return shown if len(shown) <= CAUSE_WIDTH else shown[: CAUSE_WIDTH - 3] + "..."


def read_summary(run_dir: Path) -> dict[str, Any]:
    """The summary of the run in `run_dir`; UsageError in one line when there is none."""
    path = run_dir / SUMMARY_FILE
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: no such report folder")
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(
            f"{run_dir}: no {SUMMARY_FILE}; give the report folder of a finished run"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: not a run summary ({exc})") from None
    if not isinstance(summary, dict) or not isinstance(summary.get("requirements"), dict):
        raise UsageError(f"{path}: not a run summary (no requirements)")
    return summary


def _cause(entry: dict[str, Any]) -> str:
    """What a summary says about one requirement: its first cause, else its reason."""
    causes = entry.get("causes") or []
    return str(causes[0]) if causes else str(entry.get("reason", ""))


def diff(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """The requirements whose verdict differs from summary `old` to summary `new`."""
    before, after = old["requirements"], new["requirements"]
    changes = []
    for req_id in sorted({*before, *after}):
        was = before.get(req_id, {}).get("verdict", ABSENT)
        now = after.get(req_id, {}).get("verdict", ABSENT)
        if was == now:
            continue
        said = after.get(req_id) if now != Verdict.PASSED else before.get(req_id)
        changes.append(Change(req_id, was, now, _cause(said) if said else ""))
    return sorted(changes, key=lambda change: not change.regression)


def diff_runs(old_dir: Path, new_dir: Path) -> RunDiff:
    """The changes from the run in `old_dir` to the run in `new_dir`."""
    old, new = read_summary(old_dir), read_summary(new_dir)
    return RunDiff(
        old_dir,
        new_dir,
        str(old.get("headline", "")),
        str(new.get("headline", "")),
        tuple(diff(old, new)),
    )
