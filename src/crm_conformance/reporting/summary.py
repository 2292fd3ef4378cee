"""`summary.json` and `summary.md`: the verdict of a run, for machines and for people.

Both come from the outcome records alone plus the run's metadata. A requirement
takes the worst outcome of its tests; a class is `passed` only when it has at least
one executed test and every requirement in it passed (or is a waived expected
failure); a class with nothing executed is "not verified", never "passed".
"""

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crm_conformance.catalogue import Catalogue
from crm_conformance.outcomes import OutcomeRecord

_EXECUTED = {"passed", "failed", "expected_failure", "error", "blocked"}

VERDICTS = (
    "failed",
    "error",
    "blocked",
    "expected_failure",
    "passed",
    "not_applicable",
    "untested",
)
"""Per-requirement verdicts, worst first: a requirement takes the worst of its tests."""


def worst(verdicts: Iterable[str]) -> str:
    """The worst of `verdicts` by VERDICTS order; `untested` when there are none."""
    ranked = [VERDICTS.index(v) for v in verdicts]
    return VERDICTS[min(ranked)] if ranked else "untested"


@dataclass(frozen=True)
class RunInfo:
    """What the run was: versions, target (without secrets), seed, timestamps."""

    suite_version: str
    git_hash: str | None
    target: dict[str, Any]
    seed: str | None
    profile: str
    started: str
    finished: str
    certify: bool = False
    waivers: list[dict[str, str]] = field(default_factory=list)
    interrupted: bool = False
    """Stopped by Ctrl-C: the summary covers only the tests that ran."""


def requirement_verdicts(
    records: Iterable[OutcomeRecord], catalogue: Catalogue
) -> dict[str, dict[str, Any]]:
    """Per requirement: verdict, class, title, causes; catalogue ids without tests: untested.

    A requirement the catalogue marks untestable (with its reason) and no test names reads
    `untestable`: it neither fails a class nor keeps it from passing in full.
    """
    outcomes: dict[str, list[str]] = {}
    causes: dict[str, list[str]] = {}
    for record in records:
        for req_id in record.requirements:
            outcomes.setdefault(req_id, []).append(record.outcome)
            if record.cause and record.outcome != "passed":
                causes.setdefault(req_id, []).append(f"{record.nodeid}: {record.cause}")
    result: dict[str, dict[str, Any]] = {}
    for req_id in sorted(set(outcomes) | {r.id for r in catalogue}):
        requirement = catalogue.get(req_id)
        if requirement is None:
            continue  # a test outside suites/ naming an id of no catalogue: no row to fill
        result[req_id] = {
            "verdict": worst(outcomes.get(req_id, []))
            if req_id in outcomes or requirement.testable
            else "untestable",
            "class": requirement.cls,
            "title": requirement.title,
            "section": requirement.section,
            "tests": len(outcomes.get(req_id, [])),
            "causes": causes.get(req_id, [])[:3]
            or ([f"untestable: {requirement.untestable}"] if requirement.untestable else []),
        }
    return result


def class_verdicts(requirements: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per class: passed / failed / error / not_verified, with verdict counts."""
    by_class: dict[str, Counter[str]] = {}
    for entry in requirements.values():
        by_class.setdefault(entry["class"], Counter())[entry["verdict"]] += 1
    result: dict[str, dict[str, Any]] = {}
    for cls, counts in sorted(by_class.items()):
        executed = sum(n for verdict, n in counts.items() if verdict in _EXECUTED)
        if counts["failed"]:
            verdict = "failed"
        elif counts["error"] or counts["blocked"]:
            verdict = "error"
        elif executed == 0:
            verdict = "not_verified"
        elif counts["untested"]:
            verdict = "partially_verified"
        else:
            verdict = "passed"
        result[cls] = {"verdict": verdict, "counts": dict(counts)}
    return result


def build_summary(
    records: list[OutcomeRecord], info: RunInfo, catalogue: Catalogue
) -> dict[str, Any]:
    requirements = requirement_verdicts(records, catalogue)
    observations = [
        {"test": record.nodeid, "key": obs.get("key"), "value": obs.get("value")}
        for record in records
        for obs in record.observations
    ]
    return {
        "suite": {"name": "crm-conformance", "version": info.suite_version, "git": info.git_hash},
        "target": info.target,
        "seed": info.seed,
        "profile": info.profile,
        "certify": info.certify,
        "started": info.started,
        "finished": info.finished,
        "waivers": info.waivers,
        "interrupted": info.interrupted,
        "tests": dict(Counter(record.outcome for record in records)),
        "classes": class_verdicts(requirements),
        "requirements": requirements,
        "observations": _unique(observations),
        "rate_limit_wait": {
            "seconds": round(sum(r.rate_wait.get("seconds", 0) for r in records), 1),
            "429s": sum(r.rate_wait.get("429s", 0) for r in records),
        },
    }


def _unique(observations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    kept = []
    for obs in observations:
        key = json.dumps([obs["key"], obs["value"]], sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            kept.append(obs)
    return kept


def render_markdown(summary: dict[str, Any]) -> str:
    """summary.md: a statement a vendor can publish, then the tables behind it."""
    classes = summary["classes"]
    passed = [cls for cls, entry in classes.items() if entry["verdict"] == "passed"]
    failed = [cls for cls, entry in classes.items() if entry["verdict"] != "passed"]
    suite = summary["suite"]
    target = summary["target"].get("base_url", "?")
    lines = [
        "# Conformance summary",
        "",
        f"{target} was tested with crm-conformance {suite['version']}"
        + (f" (git {suite['git'][:12]})" if suite.get("git") else "")
        + f", profile {summary['profile']}, seed {summary['seed'] or 'random'}, "
        f"from {summary['started']} to {summary['finished']}.",
        "",
    ]
    if summary.get("interrupted"):
        ran = sum(summary["tests"].values())
        lines += [
            f"**Interrupted**: the run was stopped (Ctrl-C) after {ran} tests; this summary "
            "covers only those.",
            "",
        ]
    if passed:
        lines.append(
            "It conforms to the Messaging and CRM service API for the classes: "
            + ", ".join(passed)
            + "."
        )
    else:
        lines.append("It conforms to none of the conformance classes in this run.")
    if failed:
        lines.append(
            "Not claimed: "
            + ", ".join(f"{cls} ({classes[cls]['verdict'].replace('_', ' ')})" for cls in failed)
            + "."
        )
    if summary["waivers"]:
        lines.append(f"{len(summary['waivers'])} requirement(s) waived as expected failures.")
    waited = summary.get("rate_limit_wait", {})
    lines.append(
        f"The run waited {waited.get('seconds', 0):g} s for the target's rate allowance "
        f"({waited.get('429s', 0)} 429s waited out)."
    )
    lines += ["", "## Classes", "", "| Class | Verdict | Requirements |", "|---|---|---|"]
    for cls, entry in classes.items():
        counts = ", ".join(f"{n} {v}" for v, n in sorted(entry["counts"].items()))
        lines.append(f"| {cls} | {entry['verdict'].replace('_', ' ')} | {counts} |")
    lines += ["", "## Requirements", "", "| Id | Class | Verdict | Title | Cause |"]
    lines.append("|---|---|---|---|---|")
    for req_id, entry in summary["requirements"].items():
        cause = entry["causes"][0] if entry["causes"] else ""
        lines.append(
            f"| {req_id} | {entry['class']} | {entry['verdict']} | {_cell(entry['title'])} "
            f"| {_cell(cause)} |"
        )
    lines += ["", "## Observations", ""]
    if summary["observations"]:
        lines += ["| Key | Value | Test |", "|---|---|---|"]
        for obs in summary["observations"]:
            value = json.dumps(obs["value"], default=str)
            lines.append(f"| {_cell(str(obs['key']))} | {_cell(value)} | {_cell(obs['test'])} |")
    else:
        lines.append("None recorded.")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 160 else text[:157] + "..."


def write_summary(run_dir: Path, summary: dict[str, Any]) -> None:
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (run_dir / "summary.md").write_text(render_markdown(summary), encoding="utf-8")
