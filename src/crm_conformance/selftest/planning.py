"""What the kill matrix runs: one job per fault, the clean server, combined variants,
and one per chaos mode (a transport fault at a rate, `chaos.py`).

A fault is judged on its own, so each fault has a server of its own; its job runs only
the tests that name one of its ids, the most specific first (fewest ids), and stops at
the first failed one. Variants are switched on together instead, as a conforming server
makes many legal choices at once: one job runs every test against every variant that
can share a server (`Variant.group`, `Variant.alone`), and the judging pins a failure
to its variant (`judging.prove`). Groups of alternatives need as many combined jobs as
their largest group has members; a variant that is `alone` gets a job of its own.
A chaos job runs the modules of `CHAOS_SUITES` behind the proxy committing its mode.
"""

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from crm_conformance.reference.variants import Variant

JobKind = Literal["clean", "fault", "variants", "chaos"]

CHAOS_SUITES = (
    "test_contacts.py",
    "test_deals.py",
    "test_idempotency.py",
    "test_pagination.py",
    "test_update_operations.py",
)
"""The modules a chaos job runs: reads, pages, creates, updates and keyed writes, the
requests a transport fault treats differently; not all, to keep the self-test short."""


@dataclass(frozen=True)
class SuiteTest:
    """A collected suite test: its node id under `suites/` and its requirement ids."""

    nodeid: str
    requirements: frozenset[str]

    @property
    def selector(self) -> str:
        """The test function relative to the suites folder, as `run_suite` takes it.

        Without its parameters: a parameter id may hold a repr that differs between two
        processes (`<object object at 0x...>`), so a full node id may not be found again.
        """
        return self.nodeid.removeprefix("suites/").split("[", 1)[0]

    @property
    def module(self) -> str:
        return self.selector.split("::", 1)[0]


@dataclass(frozen=True)
class SuiteCall:
    """One run of the suites to make: which tests, and what the server has switched on."""

    selectors: tuple[str, ...]
    """Modules or test functions under `suites/` (`test_a.py`, `test_a.py::test_b`)."""
    faults: tuple[str, ...] = ()
    """Reference faults (`reference/faults/`)."""
    wire_faults: tuple[str, ...] = ()
    """Faults of the loopback proxy put in front of the server (`wire_faults.py`)."""
    variants: tuple[str, ...] = ()
    chaos: str | None = None
    """A transport fault of the loopback proxy at its rate (`chaos.CHAOS_MODES`)."""
    first_failure: bool = False
    first_failure_of: tuple[str, ...] = ()
    """With `first_failure`: only a failure charged to one of these ids ends the run."""

    def on(self, selectors: Sequence[str], variants: Sequence[str]) -> "SuiteCall":
        """The same call on other tests and variants (narrowing a red run)."""
        return replace(self, selectors=tuple(selectors), variants=tuple(variants))


@dataclass(frozen=True)
class Job:
    """One unit of the matrix's work, done in one worker process."""

    kind: JobKind
    name: str
    call: SuiteCall
    reqs: tuple[str, ...] = ()
    """A fault's ids."""
    control: bool = False
    """A fault of the tests' setup only (`Fault.setup_only`): it must survive."""
    waits: bool = False
    """Mostly waits (a variant that is `alone`, pacing its requests): it runs beside the
    CPU-bound jobs instead of taking a worker's turn."""
    cost: int = 0
    """Tests it may run; the longest jobs start first."""


def combinations(names: Sequence[str], catalogue: Mapping[str, Variant]) -> list[tuple[str, ...]]:
    """The variants of `names` arranged in combined jobs, each variant in at least one.

    Variants of groups (largest groups first) are placed each in the first combination
    it fits, opening another when none does (two groups of two make two combinations,
    each holding one of each group); then every variant joins every combination it is
    compatible with, so the largest legal servers are tested. An `alone` variant has a
    job of its own.
    """
    alone = [name for name in names if _solo(catalogue[name])]
    together = [name for name in names if not _solo(catalogue[name])]
    groups = Counter(catalogue[name].group for name in together if catalogue[name].group)
    together.sort(key=lambda name: (-groups.get(catalogue[name].group, 0), name))
    built: list[list[str]] = []
    for name in together:  # each in the first combination it fits, else in a new one
        home = next((c for c in built if _fits(name, c, catalogue)), None)
        if home is None:
            built.append([name])
        else:
            home.append(name)
    for name in together:
        for combination in built:
            if name not in combination and _fits(name, combination, catalogue):
                combination.append(name)
    return [tuple(sorted(c)) for c in built] + [(name,) for name in sorted(alone)]


def _fits(name: str, combination: list[str], catalogue: Mapping[str, Variant]) -> bool:
    return all(compatible(catalogue[name], catalogue[other]) for other in combination)


def compatible(one: Variant, other: Variant) -> bool:
    """Whether two variants may be switched on in one server."""
    if _solo(one) or _solo(other):
        return False
    if one.group and one.group == other.group:
        return False
    return not _conventions_clash(one.conventions, other.conventions)


def _conventions_clash(one: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Whether two variants choose one target-file convention differently: one served
    target file cannot say both."""
    for key in one.keys() & other.keys():
        mine, theirs = one[key], other[key]
        if isinstance(mine, Mapping) and isinstance(theirs, Mapping):
            if _conventions_clash(mine, theirs):
                return True
        elif mine != theirs:
            return True
    return False


def _solo(variant: Variant) -> bool:
    """`alone`, or run on some modules only (`suites`), which a combined job cannot do."""
    return variant.alone or bool(variant.suites)


def plan(
    tests: Sequence[SuiteTest],
    faults: Mapping[str, tuple[str, ...]],
    variants: Sequence[str],
    *,
    catalogue: Mapping[str, Variant],
    wire: frozenset[str] = frozenset(),
    controls: frozenset[str] = frozenset(),
    clean: bool = True,
    chaos: Sequence[str] = (),
) -> tuple[list[Job], list[tuple[str, tuple[str, ...]]]]:
    """The jobs, longest first, and the faults no suite test reaches (name, ids).

    `wire` names the faults of the loopback proxy, `controls` those that break only the
    tests' setup; `catalogue` describes the variants; `chaos` names the chaos modes.
    """
    modules = tuple(dict.fromkeys(test.module for test in tests))
    jobs = [Job("clean", "reference", SuiteCall(modules), cost=len(tests))] if clean else []
    unreached = []
    for name, reqs in faults.items():
        chosen = sorted(
            (t for t in tests if t.requirements & set(reqs)),
            key=lambda t: (len(t.requirements), t.nodeid),
        )
        selectors = tuple(dict.fromkeys(t.selector for t in chosen))
        if not selectors:
            unreached.append((name, reqs))
            continue
        call = SuiteCall(
            selectors,
            faults=() if name in wire else (name,),
            wire_faults=(name,) if name in wire else (),
            first_failure=True,
            first_failure_of=tuple(reqs),
        )
        jobs.append(Job("fault", name, call, reqs=reqs, control=name in controls, cost=len(chosen)))
    arranged = combinations(variants, catalogue)
    combined = [members for members in arranged if len(members) > 1]
    for members in arranged:
        solo = catalogue[members[0]] if len(members) == 1 else None
        selectors = tuple(m for m in (solo.suites if solo else ()) if m in modules) or modules
        jobs.append(
            Job(
                "variants",
                solo.name if solo else f"combination {combined.index(members) + 1}",
                SuiteCall(selectors, variants=members),
                waits=bool(solo and _solo(solo)),
                cost=sum(t.module in selectors for t in tests),
            )
        )
    shaken = tuple(m for m in CHAOS_SUITES if m in modules) or modules
    for mode in chaos:
        cost = sum(t.module in shaken for t in tests)
        jobs.append(Job("chaos", mode, SuiteCall(shaken, chaos=mode), cost=cost))
    jobs.sort(key=lambda job: -job.cost)
    return jobs, unreached
