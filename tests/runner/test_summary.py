"""Class verdicts: what "passed in full" means when the catalogue holds untestable rows."""

from crm_conformance.reporting.records import OutcomeRecord
from crm_conformance.reporting.summary import class_verdicts, requirement_verdicts

CATALOGUE = {
    "TAG-001": {"class": "tags", "title": "a", "section": "s"},
    "TAG-002": {"class": "tags", "title": "b", "section": "s", "untestable": "not observable"},
    "DEAL-001": {"class": "deals", "title": "c", "section": "s"},
    "DEAL-002": {"class": "deals", "title": "d", "section": "s"},
}


def record(req_id: str, outcome: str) -> OutcomeRecord:
    return OutcomeRecord(f"suites/t.py::{req_id}", outcome, [req_id], [])


def test_untestable_rows_neither_pass_nor_block_a_class() -> None:
    requirements = requirement_verdicts(
        [record("TAG-001", "passed"), record("DEAL-001", "passed")], CATALOGUE
    )
    assert requirements["TAG-002"]["verdict"] == "untestable"
    assert requirements["DEAL-002"]["verdict"] == "untested"
    classes = class_verdicts(requirements)
    assert classes["tags"]["verdict"] == "passed"
    assert classes["deals"]["verdict"] == "partially_verified"


def test_a_test_naming_an_untestable_row_still_counts() -> None:
    requirements = requirement_verdicts([record("TAG-002", "failed")], CATALOGUE)
    assert requirements["TAG-002"]["verdict"] == "failed"
    assert class_verdicts(requirements)["tags"]["verdict"] == "failed"
