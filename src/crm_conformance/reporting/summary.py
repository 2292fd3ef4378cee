"""`summary.json` and `summary.md`: the verdict of a run, for machines and for people.

Both come from the outcome records alone, the catalogue and the run's metadata, by the
rules of DESIGN.md ("Conformance classes and outcomes"):

- a requirement *passed* when a test asserting it ran and passed and none failed; it is
  *not verified* when no test asserting it could run, with the reason (the adapter
  feature, the target-file key, the unclaimed class) that would verify it;
- a class *passed* only when every testable requirement in it passed; otherwise it is
  *partially verified (k of n)*, *not verified*, or *failed*;
- the headline never says more than was verified: "Nothing failed: 31 % of testable
  requirements verified" is what a run that verified little says first.
"""

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crm_conformance._errors import TargetUnavailable
from crm_conformance.core.hygiene.inert import inert
from crm_conformance.core.model.catalogue import Catalogue
from crm_conformance.core.verdicts.outcomes import (
    ClassVerdict,
    Outcome,
    OutcomeRecord,
    Verdict,
    cause_for,
)

_PRECEDENCE = (
    Verdict.FAILED,
    Verdict.EXPECTED_FAILURE,
    Verdict.PASSED,
    Verdict.ERROR,
    Verdict.BLOCKED,
    Verdict.NOT_VERIFIED,
)
"""A requirement takes the first of these its tests gave: one failure fails it, one pass
verifies it (DESIGN.md), and what could not run only speaks when nothing ran."""

_FROM_OUTCOME = {
    Outcome.PASSED: Verdict.PASSED,
    Outcome.ERROR: Verdict.ERROR,
    Outcome.SUITE_ERROR: Verdict.ERROR,
    Outcome.BLOCKED: Verdict.BLOCKED,
    Outcome.NOT_APPLICABLE: Verdict.NOT_VERIFIED,
}


@dataclass(frozen=True)
class RunInfo:
    """What the run was: versions, target (without secrets), seed, claimed classes, times."""

    suite_version: str
    git_hash: str | None
    target: dict[str, Any]
    seed: int | None
    profile: str
    started: str
    finished: str
    certify: bool = False
    waivers: list[dict[str, str]] = field(default_factory=list)
    claimed: tuple[str, ...] | None = None
    """The classes `--classes` claimed (core included); None claims every class."""

    interrupted: bool = False
    """Stopped by Ctrl-C: the summary covers only the tests that ran."""


UNCHECKED = "its test ran, and no check of it did (the answers it needed were not there)"
"""Why a requirement a passed test names is not verified by it: a marker gives nothing."""


def _contribution(record: OutcomeRecord, req_id: str) -> tuple[Verdict, str]:
    """What `record` says about `req_id`, and why (a cause, the checks that passed it, or
    what would verify it). Only a check that ran verifies: `record.checked`."""
    failed = record.outcome in (Outcome.FAILED, Outcome.EXPECTED_FAILURE)
    if failed and req_id in record.failed_requirements:
        return Verdict(str(record.outcome)), cause_for(record.cause, req_id)
    if req_id in record.checked:
        return Verdict.PASSED, ", ".join(record.checked[req_id])
    if failed:
        broken = ", ".join(record.failed_requirements)
        return Verdict.NOT_VERIFIED, f"its test stopped at a failure of {broken}"
    if record.outcome == Outcome.PASSED:
        return Verdict.NOT_VERIFIED, UNCHECKED
    return _FROM_OUTCOME[record.outcome], record.cause


_BREACHES = (Verdict.FAILED, Verdict.EXPECTED_FAILURE)
"""What a test may say of an untestable requirement: a rule no test can verify (an
absence: "there is no public operation that sends a message") can still be seen broken
(a send found), and only that counts; its passes, skips and errors say nothing."""

_LISTED = 5
"""Checks (and points that could not run) listed per requirement; the count says the rest."""


def requirement_verdicts(
    records: Iterable[OutcomeRecord],
    catalogue: Catalogue,
    claimed: Iterable[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per catalogue requirement: verdict, class, title, section, tests, causes, reason,
    the checks that passed it (`checks`: test and check names, `checked`: how many tests)
    and the points that could not check it, with why (`not_run`)."""
    said: dict[str, list[tuple[Verdict, str, str]]] = {}
    naming: Counter[str] = Counter()
    for record in records:
        naming.update(record.requirements)
        for req_id in dict.fromkeys([*record.requirements, *record.checked]):
            verdict, cause = _contribution(record, req_id)
            said.setdefault(req_id, []).append((verdict, cause, record.nodeid))
    claimed_classes = set(catalogue.classes if claimed is None else claimed)
    result: dict[str, dict[str, Any]] = {}
    for requirement in sorted(catalogue, key=lambda r: r.id):
        contributions = said.get(requirement.id, [])
        if not requirement.testable:  # an absence no test shows; a presence fails it
            contributions = [c for c in contributions if c[0] in _BREACHES]
        if contributions:
            verdict = min((v for v, _, _ in contributions), key=_PRECEDENCE.index)
            # sorted: a run split in shards and merged says the same as the whole run
            deciding = sorted((node, cause) for v, cause, node in contributions if v == verdict)
            causes = [f"{node}: {cause}" for node, cause in deciding]
            reason = deciding[0][1] if deciding else ""
        elif not requirement.testable:
            verdict, causes, reason = Verdict.UNTESTABLE, [], requirement.untestable or ""
        elif requirement.cls not in claimed_classes:
            verdict, causes = Verdict.NOT_VERIFIED, []
            reason = f"class {requirement.cls} not claimed: add it to --classes"
        else:
            verdict, causes, reason = Verdict.NOT_VERIFIED, [], "no test of this run asserts it"
        # sorted: the same run split in shards and merged lists the same checks
        passes = sorted(
            f"{node}: {checks}" for v, checks, node in contributions if v == Verdict.PASSED
        )
        not_run = sorted(  # points that could not check it, a passed test's unused marker aside
            f"{node}: {cause}"
            for v, cause, node in contributions
            if v in (Verdict.NOT_VERIFIED, Verdict.ERROR, Verdict.BLOCKED) and cause != UNCHECKED
        )
        result[requirement.id] = {
            "verdict": str(verdict),
            "class": requirement.cls,
            "title": requirement.title,
            "section": requirement.section,
            "tests": naming[requirement.id],
            "causes": causes[:3] if verdict != Verdict.PASSED else [],
            "reason": "" if verdict == Verdict.PASSED else reason,
            "checked": len(passes),
            "checks": passes[:_LISTED],
            "not_run": not_run[:_LISTED],
        }
    return result


def class_verdicts(
    requirements: dict[str, dict[str, Any]], catalogue: Catalogue
) -> dict[str, dict[str, Any]]:
    """Per class: its verdict, k verified of n testable, and what it lacks."""
    result: dict[str, dict[str, Any]] = {}
    for cls in catalogue.classes:
        entries = [entry for entry in requirements.values() if entry["class"] == cls]
        counts = Counter(entry["verdict"] for entry in entries)
        testable = len(entries) - counts[Verdict.UNTESTABLE]
        verified = counts[Verdict.PASSED]
        if counts[Verdict.FAILED]:
            verdict = ClassVerdict.FAILED
        elif testable == 0:
            verdict = ClassVerdict.UNTESTABLE
        elif verified == testable:
            verdict = ClassVerdict.PASSED
        elif verified == 0:
            verdict = ClassVerdict.NOT_VERIFIED
        else:
            verdict = ClassVerdict.PARTIALLY_VERIFIED
        lacking = Counter(
            _lack(entry)
            for entry in entries
            if entry["verdict"] not in (Verdict.PASSED, Verdict.UNTESTABLE)
        )
        result[cls] = {
            "verdict": str(verdict),
            "verified": verified,
            "testable": testable,
            "counts": dict(sorted(counts.items())),
            "lacks": [f"{n} {what}" for what, n in lacking.most_common()],
        }
    return _resting_on_core(result, catalogue)


def _resting_on_core(
    classes: dict[str, dict[str, Any]], catalogue: Catalogue
) -> dict[str, dict[str, Any]]:
    """Every class builds on core: none is passed while core is not passed in full.

    A run of `--classes tags` runs only the core tests that need nothing beyond tags, so
    tags may pass all its own requirements while core is partially verified.
    """
    for core in (name for name, cls in catalogue.classes.items() if cls.required):
        if classes[core]["verdict"] == ClassVerdict.PASSED:
            continue
        for name, entry in classes.items():
            if name != core and entry["verdict"] == ClassVerdict.PASSED:
                entry["verdict"] = str(ClassVerdict.CORE_NOT_PASSED)
                entry["lacks"].append(f"{core} not passed in full: {class_label(classes[core])}")
    return classes


def _lack(entry: dict[str, Any]) -> str:
    """What keeps a requirement from passing: its verdict and, unless failed, the reason."""
    if entry["verdict"] == Verdict.FAILED:
        return "failed"
    words = entry["verdict"].replace("_", " ")
    return f"{words}: {entry['reason']}" if entry["reason"] else words


def class_label(entry: dict[str, Any]) -> str:
    """A class verdict in words: "passed", "partially verified (3 of 30)", ..."""
    verdict = str(entry["verdict"])
    words = verdict.replace("_", " ")
    if verdict == ClassVerdict.PARTIALLY_VERIFIED:
        return f"{words} ({entry['verified']} of {entry['testable']})"
    if verdict == ClassVerdict.CORE_NOT_PASSED:
        return "its own requirements passed, core did not pass in full"
    return words


def headline(summary: dict[str, Any]) -> str:
    """The first line of a run's verdict: what failed, then how much was verified.

    The percentage is rounded down, so it never says more than was verified.
    """
    verified, testable = summary["verified"]["requirements"], summary["verified"]["testable"]
    scope = (
        "testable requirements"
        if set(summary["claimed"]) >= set(summary["classes"])
        else f"testable requirements of the {len(summary['claimed'])} claimed classes"
    )
    share = (
        f"{100 * verified // testable} % of {scope} verified ({verified} of {testable})"
        if testable
        else f"no {scope}"
    )
    verdicts = Counter(entry["verdict"] for entry in summary["requirements"].values())
    tests = summary["tests"]
    suite_errors = tests.get(Outcome.SUITE_ERROR, 0)
    stuck = tests.get(Outcome.ERROR, 0) + tests.get(Outcome.BLOCKED, 0)
    waived = verdicts[Verdict.EXPECTED_FAILURE]
    share += f", {waived} waived" if waived else ""
    if verdicts[Verdict.FAILED]:
        failed = verdicts[Verdict.FAILED]
        plural = "s" if failed != 1 else ""
        return f"NOT CONFORMANT: {failed} requirement{plural} failed; {share}"
    if suite_errors:
        tests_word = "TEST" if suite_errors == 1 else "TESTS"
        also = f", and {stuck} could not run{_why_stuck(summary, stuck)}" if stuck else ""
        return (
            f"NOTHING FAILED, BUT {suite_errors} {tests_word} HIT A SUITE ERROR (the suite's "
            f"own fault, see pytest.log){also}; {share}"
        )
    if stuck:
        tests_word = "TEST" if stuck == 1 else "TESTS"
        return (
            f"NOTHING FAILED, BUT {stuck} {tests_word} COULD NOT RUN"
            f"{_why_stuck(summary, stuck)}; {share}"
        )
    if testable and verified == testable:
        return f"CONFORMANT: nothing failed; {share}"
    if not tests:
        return f"NO TEST RAN: {share}"
    return f"NOTHING FAILED: {share}"


def _why_stuck(summary: dict[str, Any], stuck: int) -> str:
    """Why tests could not run, as the headline says it: the target was unavailable
    (with the faults its tests met), setup errors, or both."""
    unavailable = summary.get("unavailable", {})
    tests = unavailable.get("tests", 0)
    if not tests:
        return " (setup errors, not target failures)"
    faults = ", ".join(f"{reason} ×{n}" for reason, n in unavailable.get("faults", {}).items())
    said = f"the target was unavailable ({faults})"
    if tests == stuck:
        return f": {said}"
    return f": {stuck - tests} for setup errors (not target failures), {tests} as {said}"


def _fault_counts(records: Iterable[OutcomeRecord], *kinds: str) -> dict[str, int]:
    """The transport faults of `records`, by reason, summed over `kinds` (`retried`,
    `given_up`), most frequent first."""
    counts: Counter[str] = Counter()
    for record in records:
        for kind in kinds:
            counts.update(record.faults.get(kind, {}))
    return dict(counts.most_common())


def _unavailable(records: list[OutcomeRecord]) -> dict[str, Any]:
    """The tests that could not run because the target was unavailable, and the faults
    they met."""
    stuck = [
        record
        for record in records
        if record.outcome == Outcome.ERROR and record.cause.startswith(TargetUnavailable.PREFIX)
    ]
    return {"tests": len(stuck), "faults": _fault_counts(stuck, "retried", "given_up")}


def build_summary(
    records: list[OutcomeRecord], info: RunInfo, catalogue: Catalogue
) -> dict[str, Any]:
    claimed = info.claimed if info.claimed is not None else tuple(catalogue.classes)
    requirements = requirement_verdicts(records, catalogue, claimed)
    classes = class_verdicts(requirements, catalogue)
    observations = [
        {"test": record.nodeid, "key": obs.get("key"), "value": obs.get("value")}
        for record in records
        for obs in record.observations
    ]
    summary: dict[str, Any] = {
        "suite": {"name": "crm-conformance", "version": info.suite_version, "git": info.git_hash},
        "target": info.target,
        "seed": info.seed,
        "seeds": sorted({seed for record in records for seed in record.seeds}),
        "profile": info.profile,
        "certify": info.certify,
        "claimed": list(claimed),
        "started": info.started,
        "finished": info.finished,
        "waivers": info.waivers,
        "interrupted": info.interrupted,
        "tests": dict(Counter(str(record.outcome) for record in records)),
        "verified": {
            "requirements": sum(classes[c]["verified"] for c in claimed if c in classes),
            "testable": sum(classes[c]["testable"] for c in claimed if c in classes),
        },
        "classes": classes,
        "requirements": requirements,
        "observations": _unique(observations),
        "rate_limit_wait": {
            "seconds": round(sum(r.rate_wait.get("seconds", 0) for r in records), 1),
            "429s": sum(r.rate_wait.get("429s", 0) for r in records),
        },
        "tokens": _tokens(records),
        "requests": sum(r.requests for r in records),
        "retried": _fault_counts(records, "retried"),
        "unavailable": _unavailable(records),
    }
    summary["headline"] = headline(summary)
    return summary


def _unique(observations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    kept = []
    for obs in observations:
        key = json.dumps([obs["key"], obs["value"]], sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            kept.append(obs)
    return kept


def seed_text(summary: dict[str, Any]) -> str:
    """The seeds that ran and how to replay them: the summary's `replay` command (the
    runner's, `reporting.replay`: profile, classes, a deep run's rounds), else the seed."""
    seeds = sorted({*summary["seeds"], *([summary["seed"]] if summary["seed"] is not None else [])})
    if not seeds:
        return "no seed"
    shown = ", ".join(str(seed) for seed in seeds)
    word = "seed" if len(seeds) == 1 else "seeds"
    replay = summary.get("replay") or f"crm-conformance run --seed {seeds[0]}"
    return f"{word} {shown} (replay: {replay})"


def render_markdown(summary: dict[str, Any]) -> str:
    """summary.md: the headline, a statement a vendor can publish, the tables behind it."""
    classes = summary["classes"]
    passed = [cls for cls, entry in classes.items() if entry["verdict"] == ClassVerdict.PASSED]
    unclaimed = [cls for cls in classes if cls not in summary["claimed"]]
    others = [cls for cls in classes if cls not in passed and cls not in unclaimed]
    suite = summary["suite"]
    target = summary["target"].get("base_url", "?")
    lines = [
        f"# {summary['headline']}",
        "",
        f"{target} was tested with crm-conformance {suite['version']}"
        + (f" (git {suite['git'][:12]})" if suite.get("git") else "")
        + f", profile {summary['profile']}, {seed_text(summary)}, "
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
        lines.append("Every testable requirement passed in the classes: " + ", ".join(passed) + ".")
    else:
        lines.append("No class had every testable requirement verified and passed.")
    if others:
        lines.append(
            "Not passed in full: "
            + ", ".join(f"{cls} ({class_label(classes[cls])})" for cls in others)
            + "."
        )
    if unclaimed:
        lines.append("Not claimed by this run: " + ", ".join(unclaimed) + ".")
    if summary["waivers"]:
        lines.append(f"{len(summary['waivers'])} requirement(s) waived as expected failures.")
    waited = summary.get("rate_limit_wait", {})
    lines.append(
        f"The run waited {waited.get('seconds', 0):g} s for the target's rate allowance "
        f"({waited.get('429s', 0)} 429s waited out)."
    )
    tokens = summary.get("tokens", {})
    if tokens.get("carried", 0) > 1:
        each = ", ".join(f"{name} {s:g} s" for name, s in tokens["waited"].items())
        lines.append(
            f"{tokens['carried']} tokens of the token pool carried the run; "
            f"each waited for its allowance: {each}."
        )
    retried = summary.get("retried", {})
    if retried:
        spoiled = ", ".join(f"{reason} ×{n}" for reason, n in retried.items())
        lines.append(
            f"It sent again {sum(retried.values())} exchanges a gateway or the network "
            f"spoiled ({spoiled})."
        )
    lines += ["", "## Classes", "", "| Class | Verdict | Verified | Lacks |", "|---|---|---|---|"]
    for cls, entry in classes.items():
        lacks = "; ".join(entry["lacks"])
        lines.append(
            f"| {cls} | {class_label(entry)} | {entry['verified']} of {entry['testable']} "
            f"| {_cell(lacks, 300)} |"
        )
    lines += ["", "## Requirements", "", "| Id | Class | Verdict | Title | Cause or reason |"]
    lines.append("|---|---|---|---|---|")
    for req_id, entry in summary["requirements"].items():
        cause = entry["causes"][0] if entry["causes"] else entry["reason"]
        lines.append(
            f"| {req_id} | {entry['class']} | {entry['verdict'].replace('_', ' ')} "
            f"| {_cell(entry['title'])} | {_cell(cause)} |"
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


def _cell(text: str, width: int = 160) -> str:
    """One table cell: on one line, inert (it may quote the target), cut to `width`."""
    text = inert(text.replace("\n", " ")).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 3] + "..."


def write_summary(run_dir: Path, summary: dict[str, Any]) -> None:
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (run_dir / "summary.md").write_text(render_markdown(summary), encoding="utf-8")


def _tokens(records: list[OutcomeRecord]) -> dict[str, Any]:
    """How many tokens carried the run's tests (`api`'s: tokens.full, or each of a token
    pool's) and how long each waited for its allowance, by name (never by value)."""
    carried = sorted({r.token for r in records if r.token})
    waited = {name: 0.0 for name in carried}
    for record in records:
        for name, seconds in record.rate_wait.get("tokens", {}).items():
            waited[name] = round(waited.get(name, 0.0) + seconds, 1)
    return {"carried": len(carried), "waited": waited}
