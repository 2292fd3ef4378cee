"""Class verdicts (what "passed in full" means when the catalogue holds untestable rows),
and the run's wait for the rate allowance."""

from crm_conformance.reporting.records import OutcomeRecord
from crm_conformance.reporting.summary import (
    RunInfo,
    build_summary,
    class_verdicts,
    render_markdown,
    requirement_verdicts,
)

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


def test_the_summary_says_how_long_the_run_waited_for_the_allowance() -> None:
    waited = [
        OutcomeRecord("suites/t.py::a", "passed", ["TAG-001"], [], rate_wait={"seconds": 61.5}),
        OutcomeRecord(
            "suites/t.py::b", "passed", ["TAG-001"], [], rate_wait={"seconds": 2, "429s": 2}
        ),
        record("DEAL-001", "passed"),
    ]
    info = RunInfo("0", None, {"base_url": "http://t"}, None, "quick", "s", "f")
    summary = build_summary(waited, info, CATALOGUE)
    assert summary["rate_limit_wait"] == {"seconds": 63.5, "429s": 2}
    assert "waited 63.5 s for the target's rate allowance (2 429s waited out)" in (
        render_markdown(summary)
    )
