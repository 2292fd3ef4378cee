"""What each adapter feature unlocks: learnt from the features tests require, counted,
ordered, and kept in docs/vendors.md."""

import re
import textwrap
from pathlib import Path

from crm_conformance.adapter.features import Needs, learn, table, unlocks
from crm_conformance.adapter_kit import FEATURES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "vendors.md"

TINY_SUITE = """
import pytest


@pytest.mark.req("HDR-001")
def test_no_adapter(api):
    assert api.get("/v1/contacts").status_code == 200


@pytest.mark.req("CON-001")
def test_a_contact(factory):
    factory.contact()


@pytest.mark.req("CONV-014")
def test_a_conversation(factory):
    factory.conversation(status="active")
"""


def test_each_test_is_noted_with_the_features_it_requires(tmp_path: Path) -> None:
    """A conversation's contact is made through `records` when offered, but the
    conversation does not need it: optional use is not noted."""
    suites = tmp_path / "checkout" / "suites"
    suites.mkdir(parents=True)
    (suites / "test_tiny.py").write_text(textwrap.dedent(TINY_SUITE), encoding="utf-8")
    found = {Path(t.nodeid).name: t for t in learn(suites, workers=0)}
    assert {name: sorted(t.features) for name, t in found.items()} == {
        "test_tiny.py::test_no_adapter": [],
        "test_tiny.py::test_a_contact": ["records"],
        "test_tiny.py::test_a_conversation": ["conversations"],
    }
    assert found["test_tiny.py::test_a_contact"].requirements == {"CON-001"}


def need(name: str, reqs: str, features: str = "") -> Needs:
    return Needs(name, frozenset(reqs.split()), frozenset(features.split()))


def test_rows_count_tests_and_the_requirements_only_a_feature_verifies() -> None:
    tests = [
        need("a", "R1"),
        need("b", "R1 R2", "records"),
        need("c", "R3", "records tokens"),
        need("d", "R3", "tokens"),
        need("e", "R4", "campaigns"),
    ]
    found = unlocks(tests, ["records", "tokens", "campaigns"])
    rows = {row.feature: row for row in found.rows}
    assert rows["records"].tests == ("b", "c")
    assert rows["records"].requirements_only_through == ("R2",)
    assert rows["tokens"].requirements_only_through == ("R3",)
    assert [(s.feature, s.tests, s.requirements) for s in found.order] == [
        (None, 1, 1),
        ("records", 2, 2),
        ("tokens", 4, 3),
        ("campaigns", 5, 4),
    ]
    assert "| `records` | 2 | 1 | 3 |" in table(found)


def test_the_vendor_docs_show_a_table_row_for_every_feature() -> None:
    """docs/vendors.md pastes the table of `run --list --by-feature` between markers (its
    counts are those of the commit it names; the command gives the current ones)."""
    shown = re.search(
        r"<!-- by-feature:start -->\n(.*?)\n<!-- by-feature:end -->",
        DOCS.read_text(encoding="utf-8"),
        re.S,
    )
    assert shown is not None, "docs/vendors.md lost its by-feature markers"
    for feature in FEATURES:
        assert re.search(rf"^\| `{feature}` \| \d+ \| \d+ \| \d+ \|$", shown.group(1), re.M)
