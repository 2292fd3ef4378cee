"""`crm-conformance report --merge`: the report folders of a run's shards as one folder.

Each shard (`run --shard K/N`) ran its part of the tests and wrote a whole report folder
for that part, with `shard.json` saying what it kept. The merge checks the parts make one
run (`sharding.check_parts`: the same N and plan, every K once, each test in exactly one
part),
joins their outcome streams and builds `summary.json` and `summary.md` from the joined
stream, as an unsharded run builds them from its own; it joins `junit.xml` (one
`<testsuite>` per shard) and `allure-results/`. A certified run (`--certify` on every
shard) is certified here, once, with the checksums of every part's files.

A test a shard kept but has no record of (its run ended early) is an error in the
merged report, and the merge does not read as conformant.
"""

import json
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crm_conformance._errors import UsageError
from crm_conformance.core.model import paths
from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.planning.partition import SHARD_FILE, Shard, ShardRecord, check_parts
from crm_conformance.core.verdicts.outcomes import (
    OUTCOMES_FILE,
    Outcome,
    OutcomeRecord,
    read_records,
)
from crm_conformance.reporting.certificate import sha256_file, write_certificate
from crm_conformance.reporting.summary import RunInfo, build_summary, write_summary
from crm_conformance.reporting.views import VIEW_FILES, write_views
from crm_conformance.run.verdict import RunResult, exit_code

SUMMARY_FILE = "summary.json"
JUNIT_FILE = "junit.xml"
ALLURE_DIR = "allure-results"
PART_FILES = ("summary.json", "summary.md", JUNIT_FILE, OUTCOMES_FILE, SHARD_FILE)
"""The files of a part whose checksums a merged certificate carries."""


@dataclass(frozen=True)
class Part:
    """One shard's report folder, read."""

    folder: Path
    shard: ShardRecord
    summary: dict[str, Any]
    records: list[OutcomeRecord]

    @property
    def index(self) -> int:
        return Shard.parse(self.shard.shard).index


def read_part(folder: Path) -> Part:
    """A shard's folder; a UsageError says what is missing."""
    for name in (SHARD_FILE, SUMMARY_FILE):
        if not (folder / name).is_file():
            raise UsageError(
                f"--merge {folder}: no {name} there; give the report folders of the shards of "
                "one run (`crm-conformance run --shard K/N`)"
            )
    return Part(
        folder=folder,
        shard=ShardRecord.read(folder / SHARD_FILE),
        summary=json.loads((folder / SUMMARY_FILE).read_text(encoding="utf-8")),
        records=list(read_records(folder / OUTCOMES_FILE)),
    )


def check(parts: Sequence[Part]) -> None:
    """The parts make one run, or a UsageError says how they do not."""
    check_parts([part.shard for part in parts])
    for key in ("suite", "target", "profile", "certify", "seed", "claimed"):
        if len({repr(part.summary.get(key)) for part in parts}) != 1:
            raise UsageError(f"--merge: the shards differ in {key}: they are not parts of one run")


def merge_shards(folders: Sequence[Path], out: Path) -> RunResult:
    """Merge the shard folders into `out`; the result reads like the unsharded run's."""
    parts = sorted((read_part(folder) for folder in folders), key=lambda part: part.index)
    check(parts)
    records, missing = _records(parts)
    summary = build_summary(records, _info(parts), load_catalogue())
    summary["shards"] = [_describe(part) for part in parts]
    out.mkdir(parents=True, exist_ok=True)
    for name in (*PART_FILES, *VIEW_FILES, "certificate.json"):
        (out / name).unlink(missing_ok=True)
    shutil.rmtree(out / ALLURE_DIR, ignore_errors=True)
    write_summary(out, summary)
    (out / OUTCOMES_FILE).write_text(
        "".join(record.to_json() + "\n" for record in records), encoding="utf-8"
    )
    write_views(out, summary, records)
    _merge_junit([part.folder / JUNIT_FILE for part in parts], out / JUNIT_FILE, parts)
    _merge_allure([part.folder / ALLURE_DIR for part in parts], out / ALLURE_DIR)
    if summary["certify"]:
        write_certificate(out, summary, paths.SPEC_DIR, parts=summary["shards"])
    message = (
        f"{missing} test(s) kept by a shard have no outcome (its run ended early): shown as errors"
        if missing
        else ""
    )
    code, why = exit_code(0, records, message, out)
    return RunResult(code, out, summary, records, why or message)


def _records(parts: Sequence[Part]) -> tuple[list[OutcomeRecord], int]:
    """The joined stream; a kept test without a record becomes an error record."""
    records: list[OutcomeRecord] = []
    missing = 0
    for part in parts:
        seen = {record.nodeid for record in part.records}
        records += part.records
        for nodeid in part.shard.selected:
            if nodeid not in seen:
                missing += 1
                records.append(
                    OutcomeRecord(
                        nodeid=nodeid,
                        outcome=Outcome.ERROR,
                        requirements=[],
                        classes=[],
                        cause=f"did not run: shard {part.shard.shard} ended before it",
                    )
                )
    return records, missing


def _info(parts: Sequence[Part]) -> RunInfo:
    first = parts[0].summary
    return RunInfo(
        suite_version=first["suite"]["version"],
        git_hash=first["suite"]["git"],
        target=first["target"],
        seed=first.get("seed"),
        profile=first["profile"],
        started=min(part.summary["started"] for part in parts),
        finished=max(part.summary["finished"] for part in parts),
        certify=bool(first["certify"]),
        waivers=first.get("waivers", []),
        claimed=tuple(first["claimed"]) if "claimed" in first else None,
        interrupted=any(part.summary.get("interrupted") for part in parts),
    )


def _describe(part: Part) -> dict[str, Any]:
    return {
        "shard": part.shard.shard,
        "folder": part.folder.name,
        "balanced_by": part.shard.balanced_by,
        "tests": len(part.shard.selected),
        "seed": part.summary.get("seed"),
        "started": part.summary["started"],
        "finished": part.summary["finished"],
        "files_sha256": {
            name: sha256_file(part.folder / name)
            for name in PART_FILES
            if (part.folder / name).is_file()
        },
    }


def _merge_junit(files: Sequence[Path], out: Path, parts: Sequence[Part]) -> None:
    """One `<testsuites>` holding each shard's `<testsuite>`, counts summed on the root."""
    root = ET.Element("testsuites", name="crm-conformance (merged shards)")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    for path, part in zip(files, parts, strict=True):
        if not path.is_file():
            continue
        for suite in ET.parse(path).getroot().iter("testsuite"):
            suite.set("name", f"{suite.get('name', 'pytest')} (shard {part.shard.shard})")
            for key in totals:
                totals[key] += int(suite.get(key, "0"))
            seconds += float(suite.get("time", "0"))
            root.append(suite)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{seconds:.3f}")
    ET.ElementTree(root).write(out, encoding="utf-8", xml_declaration=True)


def _merge_allure(folders: Sequence[Path], out: Path) -> None:
    """Every result and attachment (uniquely named); run-wide files from the first shard."""
    out.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if path.is_file() and not (out / path.name).exists():
                shutil.copy2(path, out / path.name)
