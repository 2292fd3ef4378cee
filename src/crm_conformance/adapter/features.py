"""What each adapter feature unlocks: the tests and requirements that need it.

A test says what it needs by what it calls: every adapter operation requires its
feature (`AdapterClient.require`), and the harness plugin notes each one on the running
test (`adapter_feature` user properties). So the map is learnt, not written by hand: the
suites run once against the embedded reference server, whose adapter offers every
feature, with this module as a plugin that writes each test's requirement ids and
features. Nothing is sent to the user's target.

From the map, `unlocks` counts per feature the tests that need it and the requirements
only it can verify, and a build order: the feature that makes the most tests runnable
first, and so on, with the tests and requirements verifiable after each step.
`crm-conformance run --list --by-feature` prints it; docs/vendors.md shows it.
"""

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from crm_conformance._errors import ConformanceError
from crm_conformance.adapter_kit import FEATURES
from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.verdicts.outcomes import PROP_ADAPTER_FEATURE, PROP_REQUIREMENT

# --- the plugin ------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("crm-conformance-features").addoption(
        "--crm-feature-map", metavar="FILE", help="write each test's ids and adapter features"
    )


class _Recorder:
    """Writes one JSON line per finished test (controller only; xdist sends the reports)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.outcomes: dict[str, str] = {}
        path.write_text("", encoding="utf-8")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed or (report.skipped and report.nodeid not in self.outcomes):
            self.outcomes[report.nodeid] = report.outcome
        if report.when != "teardown":
            return
        values = report.user_properties
        line = {
            "nodeid": report.nodeid,
            "requirements": sorted({str(v) for k, v in values if k == PROP_REQUIREMENT}),
            "features": sorted({str(v) for k, v in values if k == PROP_ADAPTER_FEATURE}),
            "outcome": self.outcomes.pop(report.nodeid, "passed"),
        }
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("crm_feature_map")
    if path and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Recorder(Path(path)), "crm-conformance-feature-map")


# --- the map ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Needs:
    """One test: the requirement ids it checks and the adapter features it used."""

    nodeid: str
    requirements: frozenset[str]
    features: frozenset[str]
    outcome: str = "passed"


def learn(suites_dir: Path, *, workers: int = 2) -> list[Needs]:
    """Run the suites against the embedded reference server and read what each test used.

    Raises `RuntimeError` with the child's last lines when the run could not happen."""
    with tempfile.TemporaryDirectory(prefix="crm-features-") as scratch:
        path = Path(scratch) / "features.jsonl"
        command = [sys.executable, "-m", "pytest", str(suites_dir), "-q", "-p", "no:cacheprovider"]
        command += ["-p", "crm_conformance.adapter.features", f"--crm-feature-map={path}"]
        command += ["--classes", "all"]
        command += ["-n", str(workers)] if workers else ["-p", "no:xdist"]
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
        done = subprocess.run(
            command,
            cwd=suites_dir.resolve().parent,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if not path.is_file() or not path.read_text(encoding="utf-8").strip():
            tail = "\n".join(done.stdout.strip().splitlines()[-15:])
            raise RuntimeError(f"the suites did not run against the reference server:\n{tail}")
        testable = {r.id for r in load_catalogue().requirements if r.testable}
        return [
            Needs(  # a test naming an untestable requirement can fail it, never verify it
                nodeid=entry["nodeid"],
                requirements=frozenset(entry["requirements"]) & testable,
                features=frozenset(entry["features"]),
                outcome=entry["outcome"],
            )
            for entry in map(json.loads, path.read_text(encoding="utf-8").splitlines())
        ]


# --- what each feature unlocks ----------------------------------------------------------


@dataclass(frozen=True)
class FeatureRow:
    """One feature: the tests that need it, and the requirements no test can verify
    without it (every test of them needs it)."""

    feature: str
    tests: tuple[str, ...]
    requirements_only_through: tuple[str, ...]
    requirements_of_its_tests: tuple[str, ...]


@dataclass(frozen=True)
class Step:
    """After adding `feature` (None: no adapter at all), what can run."""

    feature: str | None
    tests: int
    requirements: int


@dataclass(frozen=True)
class Unlocks:
    """The whole answer: per-feature rows, the build order, and totals."""

    rows: tuple[FeatureRow, ...]
    order: tuple[Step, ...]
    tests: int
    requirements: int
    """Requirements some test checks (the catalogue's untested ones are not counted)."""
    not_passed: tuple[str, ...]
    """Tests that did not pass on the reference server: their needs may be short."""


def runnable(tests: Iterable[Needs], offered: set[str]) -> list[Needs]:
    return [test for test in tests if test.features <= offered]


def verifiable(tests: Iterable[Needs]) -> set[str]:
    return {req for test in tests for req in test.requirements}


def unlocks(tests: Sequence[Needs], features: Sequence[str]) -> Unlocks:
    """Rows for `features` (in that order) and a greedy build order over them."""
    rows = []
    for feature in features:
        needing = [t for t in tests if feature in t.features]
        without = verifiable(t for t in tests if feature not in t.features)
        reached = verifiable(needing)
        rows.append(
            FeatureRow(
                feature=feature,
                tests=tuple(t.nodeid for t in needing),
                requirements_only_through=tuple(sorted(reached - without)),
                requirements_of_its_tests=tuple(sorted(reached)),
            )
        )
    offered: set[str] = set()
    order = [Step(None, len(runnable(tests, offered)), len(verifiable(runnable(tests, offered))))]
    remaining = list(features)
    while remaining:

        def gain(feature: str) -> tuple[int, int]:
            after = runnable(tests, offered | {feature})
            return len(after), len(verifiable(after))

        best = max(remaining, key=gain)  # max keeps the first of equals: file order
        remaining.remove(best)
        offered.add(best)
        count, reqs = gain(best)
        order.append(Step(best, count, reqs))
    return Unlocks(
        rows=tuple(rows),
        order=tuple(order),
        tests=len(tests),
        requirements=len(verifiable(tests)),
        not_passed=tuple(t.nodeid for t in tests if t.outcome != "passed"),
    )


def table(found: Unlocks) -> str:
    """The per-feature table and the build order, as Markdown (the docs paste it)."""
    lines = [
        f"{found.tests} tests check {found.requirements} requirements. Per adapter feature:",
        "",
        "| feature | tests that need it | requirements only it can verify "
        "| requirements its tests check |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| `{row.feature}` | {len(row.tests)} | {len(row.requirements_only_through)} "
        f"| {len(row.requirements_of_its_tests)} |"
        for row in found.rows
    ]
    lines += [
        "",
        "Build order (each step adds the feature that lets the most tests run):",
        "",
        "| step | feature added | tests that can run | requirements verifiable |",
        "|---:|---|---:|---:|",
    ]
    for number, step in enumerate(found.order):
        name = f"`{step.feature}`" if step.feature else "none (no adapter)"
        lines.append(f"| {number} | {name} | {step.tests} | {step.requirements} |")
    if found.not_passed:
        lines += [
            "",
            f"Warning: {len(found.not_passed)} tests did not pass on the reference server; "
            "what they need may be more than shown.",
        ]
    return "\n".join(lines)


def listing(found: Unlocks, tests: Sequence[Needs]) -> str:
    """Per feature, every test that needs it with its requirement ids (for `--list`)."""
    ids = {test.nodeid: test for test in tests}
    lines: list[str] = []
    for row in found.rows:
        lines.append(f"{row.feature}: {len(row.tests)} tests")
        for nodeid in row.tests:
            test = ids[nodeid]
            others = sorted(test.features - {row.feature})
            also = f"  (also {', '.join(others)})" if others else ""
            lines.append(f"  {nodeid}  [{','.join(sorted(test.requirements))}]{also}")
    return "\n".join(lines)


def by_feature(suites_dir: Path, *, list_only: bool) -> str:
    """`run --list --by-feature`: each feature's tests, then the table and build order."""
    if not list_only:
        raise ConformanceError("--by-feature goes with --list: run --list --by-feature")
    sys.stderr.write(
        "learning what each adapter feature unlocks: the suites run once against the "
        "embedded reference server (nothing is sent to your target)...\n"
    )
    tests = learn(suites_dir)
    found = unlocks(tests, list(FEATURES))
    return listing(found, tests) + "\n\n" + table(found)
