"""Sharding: one run spread over N machines, each running a balanced part of the tests.

Every shard computes the same partition on its own, so shards need no coordination:
`--shard K/N` keeps the K-th part, and the same inputs give the same parts on every
machine.

- By module (the default): each shard collects every test, and whole modules are
  balanced by their number of tests.
- By durations (`--shard-by DIR`, an earlier run's report folder): the plan is made
  before collection, from the per-test durations that run's outcome records measured.
  Whole modules are balanced by the time their tests took, and a module heavier than a
  shard's share is split test by test. A shard then collects only the modules it runs:
  importing a module, and for the fuzz layer building its tests, costs seconds. A test
  the earlier run did not have goes to the first shard running its module; a module it
  did not have goes, whole, to one shard chosen by its name.

Each shard records what it collected and kept (`shard.json`), so `crm-conformance
report --merge` can check that the shards together ran every test exactly once.
"""

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from crm_conformance._errors import UsageError
from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE, read_records

SHARD_FILE = "shard.json"
BY_MODULE = "modules"
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


def module_of(nodeid: str) -> str:
    """`suites/test_a.py` of `suites/test_a.py::test_b[x]`."""
    return nodeid.split("::", 1)[0]


def durations_of(run_dir: Path) -> dict[str, float]:
    """Seconds each test took in an earlier run, from its report folder's outcomes."""
    path = run_dir / OUTCOMES_FILE
    if not path.is_file():
        raise UsageError(
            f"--shard-by={run_dir}: no {OUTCOMES_FILE} there; give the report folder of an "
            "earlier run"
        )
    return {record.nodeid: record.duration for record in read_records(path)}


def _greedy(units: Iterable[tuple[list[str], float]], count: int) -> list[set[str]]:
    """Longest first, each to the lightest part so far (ties to the lowest index): the
    classic greedy schedule, within 4/3 of the best possible balance."""
    loads = [0.0] * count
    parts: list[set[str]] = [set() for _ in range(count)]
    for members, weight in sorted(units, key=lambda unit: (-unit[1], unit[0][0])):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        loads[lightest] += weight
        parts[lightest].update(members)
    return parts


def by_module(nodeids: Sequence[str], count: int) -> list[list[str]]:
    """The collected node ids in `count` parts: whole modules, balanced by test count."""
    modules: dict[str, list[str]] = {}
    for nodeid in nodeids:
        modules.setdefault(module_of(nodeid), []).append(nodeid)
    parts = _greedy(((members, float(len(members))) for members in modules.values()), count)
    return [[n for n in nodeids if n in part] for part in parts]


@dataclass(frozen=True)
class Plan:
    """Which shard runs which test, decided from an earlier run's durations before any
    collection; shard indexes here are 0-based."""

    count: int
    owner: Mapping[str, int]
    """Each test the earlier run had, to its shard."""
    modules: Mapping[str, frozenset[int]]
    """Each module the earlier run had, to the shards running some of its tests."""

    @classmethod
    def from_durations(cls, durations: Mapping[str, float], count: int) -> "Plan":
        tests: dict[str, dict[str, float]] = {}
        for nodeid, seconds in durations.items():
            tests.setdefault(module_of(nodeid), {})[nodeid] = seconds
        share = sum(durations.values()) / count
        units: list[tuple[list[str], float]] = []
        for members in tests.values():
            weight = sum(members.values())
            if weight > share:  # too heavy for one shard: its tests go one by one
                units += [([nodeid], seconds) for nodeid, seconds in members.items()]
            else:
                units.append((list(members), weight))
        owner = {nodeid: i for i, part in enumerate(_greedy(units, count)) for nodeid in part}
        modules: dict[str, set[int]] = {}
        for nodeid, index in owner.items():
            modules.setdefault(module_of(nodeid), set()).add(index)
        return cls(count, owner, {m: frozenset(s) for m, s in modules.items()})

    def collects(self, module: str, index: int) -> bool:
        """Whether shard `index` collects `module` (a new module: one shard, by name)."""
        shards = self.modules.get(module)
        if shards is None:
            return int(hashlib.sha256(module.encode()).hexdigest(), 16) % self.count == index
        return index in shards

    def runs(self, nodeid: str, index: int) -> bool:
        """Whether shard `index` runs `nodeid`, a test of a module it collects."""
        if nodeid in self.owner:
            return self.owner[nodeid] == index
        shards = self.modules.get(module_of(nodeid))
        return shards is None or min(shards) == index

    @property
    def sha256(self) -> str:
        """The same on every shard that was given the same earlier run."""
        return digest(f"{nodeid} {index}" for nodeid, index in self.owner.items())


def digest(lines: Iterable[str]) -> str:
    """One sha256 of a set of lines (sorted, newline-joined)."""
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


@dataclass(frozen=True)
class ShardRecord:
    """What one shard collected and kept (`shard.json` in its report folder)."""

    shard: str
    """`K/N`."""
    balanced_by: str
    """`durations of <run folder name>` or `modules`."""
    plan_sha256: str
    """Of the durations plan (`Plan.sha256`), or empty when balanced by module."""
    modules_seen: list[str]
    """Every test module the run's arguments hold, collected or not."""
    modules_collected: list[str]
    collected: list[str]
    """The tests of the collected modules that every other selection (-k, --classes) left."""
    selected: list[str]
    """The tests this shard ran."""

    def write(self, path: Path) -> None:
        # Each xdist worker writes the same record: whole files only, never interleaved.
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        temporary.replace(path)

    @classmethod
    def read(cls, path: Path) -> "ShardRecord":
        return cls(**json.loads(path.read_text(encoding="utf-8")))


def check_parts(records: Sequence[ShardRecord]) -> None:
    """The records are one run's shards, every test run exactly once; else a UsageError."""
    shards = sorted((Shard.parse(record.shard) for record in records), key=lambda s: s.index)
    counts = sorted({shard.count for shard in shards})
    if len(counts) != 1:
        raise UsageError(f"--merge: the folders are shards of different splits (N = {counts})")
    indexes = [shard.index for shard in shards]
    expected = list(range(1, counts[0] + 1))
    if indexes != expected:
        missing = sorted(set(expected) - set(indexes))
        twice = sorted({i for i in indexes if indexes.count(i) > 1})
        problems = [f"missing {missing}"] * bool(missing) + [f"given twice {twice}"] * bool(twice)
        raise UsageError(
            f"--merge: expected shards 1 to {counts[0]} once each; " + "; ".join(problems)
        )
    for name in ("balanced_by", "plan_sha256", "modules_seen"):
        if len({repr(getattr(record, name)) for record in records}) != 1:
            raise UsageError(
                f"--merge: the shards differ in {name}: were they one run, with the same "
                "--shard-by folder?"
            )
    collected_by = set().union(*(record.modules_collected for record in records))
    unrun = sorted(set(records[0].modules_seen) - collected_by)
    if unrun:
        raise UsageError(f"--merge: no shard collected {', '.join(unrun)}")
    per_module: dict[str, set[str]] = {}
    for record in records:
        for module in record.modules_collected:
            mine = {n for n in record.collected if module_of(n) == module}
            if per_module.setdefault(module, mine) != mine:
                raise UsageError(f"--merge: the shards collected different tests of {module}")
    collected = set().union(*per_module.values())
    kept = [nodeid for record in records for nodeid in record.selected]
    if len(kept) != len(set(kept)) or set(kept) != collected:
        again = len(kept) - len(set(kept))
        left = len(collected - set(kept))
        raise UsageError(
            f"--merge: {again} test(s) ran in two shards and {left} in none: not one run's shards"
        )
