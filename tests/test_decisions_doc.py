"""docs/decisions.md is generated (selftest/decisions_doc.py) and its sources stay true:
every name in docs/findings.yaml is a variant, a fault or a test that exists, and every
requirement a choice finding cites holds the choice (`decision` or `limitation`)."""

import re

import pytest

from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.model.paths import SPEC_DIR
from crm_conformance.reference.faults import FAULTS
from crm_conformance.reference.variants import VARIANTS
from crm_conformance.selftest import decisions_doc
from crm_conformance.selftest.wire_faults import WIRE_FAULTS

ROOT = SPEC_DIR.parent
ROWS = [(table["title"], row) for table in decisions_doc.findings() for row in table["rows"]]


def test_the_page_is_the_generated_text() -> None:
    written = decisions_doc.DECISIONS.read_text(encoding="utf-8")
    assert written == decisions_doc.render(), (
        "docs/decisions.md is generated: run "
        "`python -m crm_conformance.selftest.decisions_doc --write` and commit the result"
    )


def test_the_page_holds_every_decision_fault_and_variant() -> None:
    text = decisions_doc.render()
    catalogue = load_catalogue()
    for requirement in catalogue:
        if requirement.decision:
            assert requirement.decision in text, requirement.id
    for name in (*FAULTS, *WIRE_FAULTS, *VARIANTS):
        assert f"- `{name}`" in text, name
    assert len(VARIANTS) >= 40


def test_a_changed_declaration_changes_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    before = decisions_doc.render()
    fault = next(iter(FAULTS.values()))
    changed = type(fault)(fault.name, fault.reqs, "a summary nobody wrote")
    monkeypatch.setitem(FAULTS, fault.name, changed)
    after = decisions_doc.render()
    assert after != before
    assert "a summary nobody wrote" in after


@pytest.mark.parametrize(("title", "row"), ROWS, ids=[row["finding"][:40] for _, row in ROWS])
def test_every_name_in_a_finding_exists(title: str, row: dict[str, str]) -> None:
    known = set(VARIANTS) | set(FAULTS) | set(WIRE_FAULTS)
    names = re.findall(r"`([a-z0-9_]+)`", row["proof"])
    assert names or "::" in row["proof"], "no variant, fault or test"
    assert set(names) <= known, set(names) - known
    for path, function in re.findall(r"`((?:tests|suites)/[\w/]+\.py)::(\w+)", row["proof"]):
        assert f"def {function}(" in (ROOT / path).read_text(encoding="utf-8"), path


@pytest.mark.parametrize(("title", "row"), ROWS, ids=[row["finding"][:40] for _, row in ROWS])
def test_a_choice_finding_cites_requirements_that_hold_it(title: str, row: dict[str, str]) -> None:
    catalogue = load_catalogue()
    held = row["held_by"]
    if not isinstance(held, list):
        assert row.get("decision") or row.get("asserted"), "held by no requirement: say what"
        return
    for req_id in held:
        requirement = catalogue.get(req_id)
        assert requirement is not None, req_id
        if "asserted" not in row:
            assert requirement.decision or requirement.limitation, req_id
