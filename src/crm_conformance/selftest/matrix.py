"""The kill matrix as data: one row per fault, control, variant, combined and chaos run."""

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

RowKind = Literal["clean", "fault", "control", "combination", "variant", "chaos"]
ROW_ORDER: dict[RowKind, int] = {
    "clean": 0,
    "fault": 1,
    "control": 2,
    "combination": 3,
    "variant": 4,
    "chaos": 5,
}

FLAKY = "flaky"
"""Verdict of a green run in which a test failed once and passed when run again."""


@dataclass(frozen=True)
class Row:
    """One line of the matrix: what was switched on, and its verdict."""

    kind: RowKind
    name: str
    verdict: str
    """clean, combination, variant: `passed`, `flaky`, `failed` (a false failure) or
    `error` (a test blocked or errored, none failed); fault, control: `killed`,
    `survived` or `unreached`; chaos: `passed`, `failed` or `error` (more tests lost than
    its faults explain)."""
    ok: bool
    requirements: tuple[str, ...] = ()
    """The fault's ids (empty for the other kinds)."""
    cls: str = ""
    """Conformance class of a fault (that of its first id)."""
    tests_run: int = 0
    by: list[dict[str, Any]] = field(default_factory=list)
    """Killing tests (fault, control) or red tests (the others): nodeid, ids, message."""
    seconds: float = 0.0
    """Of the job that gave the row (a combined job gives several rows)."""
    note: str = ""
    variants: tuple[str, ...] = ()
    """A combination's variants, or the variants a variant was proven green with."""


@dataclass(frozen=True)
class Matrix:
    """The whole self-test: rows, totals, wall time; `exit_code` is 0 only if all is well."""

    rows: tuple[Row, ...]
    seconds: float
    workers: int

    @property
    def exit_code(self) -> int:
        return 0 if all(row.ok for row in self.rows) else 1

    def of_kind(self, kind: RowKind) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if row.kind == kind)

    def totals(self) -> dict[str, Any]:
        faults, variants = self.of_kind("fault"), self.of_kind("variant")
        controls, combinations = self.of_kind("control"), self.of_kind("combination")
        by_class: dict[str, dict[str, int]] = {}
        for row in faults:
            counts = by_class.setdefault(row.cls, {"killed": 0, "survived": 0, "unreached": 0})
            counts[row.verdict] += 1
        # One flaky run is counted once: a combination's, not again on each of its variants.
        runs = (*self.of_kind("clean"), *combinations, *(v for v in variants if not v.variants))
        return {
            "clean": [row.verdict for row in self.of_kind("clean")],
            "faults": len(faults),
            "killed": sum(row.verdict == "killed" for row in faults),
            "survived": sum(row.verdict == "survived" for row in faults),
            "unreached": sum(row.verdict == "unreached" for row in faults),
            "controls": len(controls),
            "controls_held": sum(row.ok for row in controls),
            "variants": len(variants),
            "variants_passed": sum(row.ok for row in variants),
            "false_failures": sum(row.verdict == "failed" for row in variants),
            "variant_errors": sum(row.verdict == "error" for row in variants),
            "combinations": len(combinations),
            "combinations_passed": sum(row.ok for row in combinations),
            "flaky": sum(row.verdict == FLAKY for row in runs),
            "chaos": len(self.of_kind("chaos")),
            "chaos_passed": sum(row.ok for row in self.of_kind("chaos")),
            "chaos_failed": sum(row.verdict == "failed" for row in self.of_kind("chaos")),
            "by_class": dict(sorted(by_class.items())),
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "seconds": round(self.seconds, 1),
            "workers": self.workers,
            "exit_code": self.exit_code,
            "totals": self.totals(),
            "rows": [asdict(row) for row in self.rows],
        }
