"""Sharding: one run spread over N machines, each running a balanced part of the tests.

Every shard collects every test and computes the same partition, so shards need no
coordination: `--shard K/N` keeps the K-th part. The partition is deterministic (the
same tests and the same durations give the same parts on every machine). With the
report folder of an earlier run (`--shard-by DIR`), tests are balanced by the durations
its outcome records measured, one test at a time (a test it did not run counts as its
median); without one, whole modules are balanced by their number of tests.

Each shard records what it kept (`shard.json`), so `crm-conformance report --merge`
can check that the shards together ran every collected test exactly once.
"""

import hashlib
import json
import os
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from crm_conformance._errors import UsageError
from crm_conformance.outcomes import OUTCOMES_FILE, read_records

SHARD_FILE = "shard.json"
_FORM = re.compile(r"^([1-9][0-9]*)/([1-9][0-9]*)$")


@dataclass(frozen=True)
class Shard:
    """The K-th of N parts (1-based)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """`K/N` with 1 <= K <= N; a UsageError names the option and the form."""
        found = _FORM.match(text.strip())
        if found is None or int(found.group(1)) > int(found.group(2)):
            raise UsageError(f"--shard={text!r}: expected K/N with 1 <= K <= N, e.g. --shard 1/2")
        return cls(int(found.group(1)), int(found.group(2)))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def durations_of(run_dir: Path) -> dict[str, float]:
    """Seconds each test took in an earlier run, from its report folder's outcomes."""
    path = run_dir / OUTCOMES_FILE
    if not path.is_file():
        raise UsageError(
            f"--shard-by={run_dir}: no {OUTCOMES_FILE} there; give the report folder of an "
            "earlier run"
        )
    return {record.nodeid: record.duration for record in read_records(path)}


def partition(
    nodeids: Sequence[str], count: int, durations: Mapping[str, float] | None = None
) -> list[list[str]]:
    """The node ids in `count` parts, each in collection order, balanced by weight.

    Longest first, each to the lightest part so far (ties to the lowest index): the
    classic greedy schedule, within 4/3 of the best possible balance.
    """
    if durations:
        known = [durations[n] for n in nodeids if n in durations]
        default = statistics.median(known) if known else 1.0
        units = [([n], durations.get(n, default)) for n in nodeids]
    else:
        modules: dict[str, list[str]] = {}
        for nodeid in nodeids:
            modules.setdefault(nodeid.split("::", 1)[0], []).append(nodeid)
        units = [(members, float(len(members))) for members in modules.values()]
    loads = [0.0] * count
    chosen: list[set[str]] = [set() for _ in range(count)]
    for members, weight in sorted(units, key=lambda unit: (-unit[1], unit[0][0])):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        loads[lightest] += weight
        chosen[lightest].update(members)
    return [[n for n in nodeids if n in part] for part in chosen]


def digest(nodeids: Iterable[str]) -> str:
    """One sha256 of a set of node ids (sorted, newline-joined)."""
    return hashlib.sha256("\n".join(sorted(nodeids)).encode()).hexdigest()


@dataclass(frozen=True)
class ShardRecord:
    """What one shard kept of the collected tests (`shard.json` in its report folder)."""

    shard: str
    """`K/N`."""
    balanced_by: str
    """`durations of <run folder name>` or `modules`."""
    collected: int
    collected_sha256: str
    selected: list[str]

    def write(self, path: Path) -> None:
        # Each xdist worker writes the same record: whole files only, never interleaved.
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        temporary.replace(path)

    @classmethod
    def read(cls, path: Path) -> "ShardRecord":
        return cls(**json.loads(path.read_text(encoding="utf-8")))
