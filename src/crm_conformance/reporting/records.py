"""The outcome record: one line of `outcomes.jsonl` per finished test.

A record is plain JSON data so it crosses process boundaries (xdist workers, the
runner's subprocess) and every reporter reads the same facts.
"""

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

OUTCOMES_FILE = "outcomes.jsonl"

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


@dataclass(frozen=True)
class OutcomeRecord:
    """What one test established: its requirement ids, classes and outcome."""

    nodeid: str
    outcome: str
    requirements: list[str]
    classes: list[str]
    cause: str = ""
    duration: float = 0.0
    observations: list[dict[str, Any]] = field(default_factory=list)
    rate_wait: dict[str, Any] = field(default_factory=dict)
    """Seconds the test waited for its tokens' rate allowance and 429s it waited out
    (`{"seconds": s, "429s": n}`); empty when it never waited."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def write_records(path: Path, records: Iterable[OutcomeRecord]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(record.to_json() + "\n")


def read_records(path: Path) -> Iterator[OutcomeRecord]:
    """The records of a run folder's `outcomes.jsonl` (empty when the run wrote none)."""
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield OutcomeRecord(**json.loads(line))


def worst(verdicts: Iterable[str]) -> str:
    """The worst of `verdicts` by VERDICTS order; `untested` when there are none."""
    ranked = [VERDICTS.index(v) for v in verdicts]
    return VERDICTS[min(ranked)] if ranked else "untested"
