"""Which testable requirements a fault breaks: the kill matrix's reach over the catalogue.

Why: a kill rate says the suite catches the faults its authors imagined, not that every
rule has been tried. A requirement with no fault of its own is a rule whose test was
never shown to fail, so the self-test reports, beside the kill rate, how many testable
requirements a fault breaks (the declared catalogue) and how many a killed fault proved
(a run's rows), and names the rest.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.wire_faults import WIRE_FAULTS


@dataclass(frozen=True)
class FaultCoverage:
    """Testable requirements, and those some fault breaks."""

    testable: frozenset[str]
    covered: frozenset[str]

    @property
    def missing(self) -> list[str]:
        """Testable requirements no fault breaks, in id order."""
        return sorted(self.testable - self.covered)

    def line(self, what: str) -> str:
        return f"requirements {what}: {len(self.covered)} of {len(self.testable)} testable"


def coverage_of(fault_reqs: Iterable[Iterable[str]]) -> FaultCoverage:
    """The testable requirements of the shipped catalogue that the given faults' ids reach."""
    testable = frozenset(r.id for r in load_catalogue() if r.testable)
    reached = frozenset(rid for reqs in fault_reqs for rid in reqs)
    return FaultCoverage(testable=testable, covered=reached & testable)


def declared_coverage() -> FaultCoverage:
    """What the catalogue's faults (reference switches and wire faults, controls aside) reach."""
    faults = [f.reqs for f in FAULTS.values() if not f.setup_only]
    return coverage_of([*faults, *(f.reqs for f in WIRE_FAULTS.values())])
