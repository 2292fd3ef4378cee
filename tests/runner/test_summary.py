"""Class verdicts (what "passed in full" means when the catalogue holds untestable rows),
and the run's wait for the rate allowance."""

from crm_conformance.catalogue import Catalogue, ConformanceClass, Requirement
from crm_conformance.outcomes import Outcome, OutcomeRecord
from crm_conformance.reporting.summary import (
    RunInfo,
    build_summary,
    class_verdicts,
    render_markdown,
    requirement_verdicts,
)


def requirement(req_id: str, cls: str, untestable: str | None = None) -> Requirement:
    return Requirement(req_id, "t", "s", "q", cls, "api", untestable=untestable)


CATALOGUE = Catalogue(
    version=1,
    document="api-reference.md",
    classes={name: ConformanceClass(name, name, "") for name in ("core", "tags", "deals")},
    requirements=(
        requirement("TAG-001", "tags"),
        requirement("TAG-002", "tags", untestable="not observable"),
        requirement("DEAL-001", "deals"),
        requirement("DEAL-002", "deals"),
    ),
)


def record(req_id: str, outcome: str) -> OutcomeRecord:
    return OutcomeRecord(f"suites/t.py::{req_id}", Outcome(outcome), [req_id], [])


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
        OutcomeRecord(
            "suites/t.py::a", Outcome.PASSED, ["TAG-001"], [], rate_wait={"seconds": 61.5}
        ),
        OutcomeRecord(
            "suites/t.py::b", Outcome.PASSED, ["TAG-001"], [], rate_wait={"seconds": 2, "429s": 2}
        ),
        record("DEAL-001", "passed"),
    ]
    info = RunInfo("0", None, {"base_url": "http://t"}, None, "quick", "s", "f")
    summary = build_summary(waited, info, CATALOGUE)
    assert summary["rate_limit_wait"] == {"seconds": 63.5, "429s": 2}
    assert "waited 63.5 s for the target's rate allowance (2 429s waited out)" in (
        render_markdown(summary)
    )
