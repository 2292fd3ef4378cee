"""docs/decisions.md stays true: its variant list is the one reference/variants.py
declares, every name in its tables is a variant, a fault or a test that exists, and
every requirement it cites holds the choice (`decision` or `limitation`)."""

import re
from pathlib import Path

from crm_conformance.core.catalogue import load_catalogue
from crm_conformance.reference.faults import FAULTS
from crm_conformance.reference.variants import VARIANTS
from crm_conformance.selftest.wire_faults import WIRE_FAULTS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "decisions.md"
BEGIN = (
    "<!-- variants: generated from reference/variants.py; "
    "tests/test_decisions_doc.py keeps it true -->"
)
END = "<!-- end variants -->"
CHOICE_TABLES = ("## False failures", "## Suspects")
"""Sections whose cited requirements must record the choice themselves."""
TABLES = (*CHOICE_TABLES, "## Blind spots")


def variants_block() -> str:
    """The generated list: a count, then one line per variant, by name."""
    lines = [f"{len(VARIANTS)} legal variants:", ""]
    for name in sorted(VARIANTS):
        variant = VARIANTS[name]
        notes = [f"group {variant.group}"] if variant.group else []
        if variant.alone:
            notes.append("alone")
        if variant.suites:
            notes.append(f"{len(variant.suites)} suite modules")
        tail = f" ({'; '.join(notes)})" if notes else ""
        lines.append(f"- `{name}`: {variant.summary}{tail}")
    return "\n".join(lines)


def _rows(section_title: str) -> list[list[str]]:
    """The body rows of the table under the heading starting with `section_title`."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(section_title, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def test_the_variant_list_is_generated_from_the_catalogue() -> None:
    text = DOC.read_text(encoding="utf-8")
    written = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert written == variants_block(), (
        f"regenerate docs/decisions.md between its markers with:\n{variants_block()}"
    )
    assert len(VARIANTS) >= 40


def test_every_variant_and_fault_named_in_the_tables_exists() -> None:
    known = set(VARIANTS) | set(FAULTS) | set(WIRE_FAULTS)
    for title in TABLES:
        for row in _rows(title):
            names = re.findall(r"`([a-z0-9_]+)`", row[-1])
            assert names or "::" in row[-1], f"{row[0]}: no variant, fault or test"
            assert set(names) <= known, (row[0], set(names) - known)


def test_every_test_named_in_the_tables_exists() -> None:
    for title in TABLES:
        for row in _rows(title):
            for path, function in re.findall(r"`((?:tests|suites)/[\w/]+\.py)::(\w+)", row[-1]):
                source = (ROOT / path).read_text(encoding="utf-8")
                assert f"def {function}(" in source, f"{path}::{function}"


def test_every_cited_requirement_exists_and_the_choice_tables_cite_their_decisions() -> None:
    catalogue = load_catalogue()
    for title in TABLES:
        for row in _rows(title):
            for req_id in re.findall(r"[A-Z]+-\d{3}", row[-2]):
                requirement = catalogue.get(req_id)
                assert requirement is not None, (row[0], req_id)
                if title in CHOICE_TABLES:
                    assert requirement.decision or requirement.limitation, (row[0], req_id)
