"""The fault catalogue reaches (almost) every testable requirement.

A requirement without a fault is a rule whose test was never shown to fail. The kill
matrix test (`test_kill_matrix.py`, slow) proves each fault killed; this one, fast,
holds the catalogue's reach, so removing faults, or adding requirements without one,
shows here. The floor is the issue-25 target: at least 300 of the testable ones.
"""

from crm_conformance.selftest.coverage import coverage_of, declared_coverage

MIN_COVERED = 300


def test_faults_break_at_least_the_floor_of_testable_requirements() -> None:
    coverage = declared_coverage()
    assert len(coverage.covered) >= MIN_COVERED, (
        f"{coverage.line('with a fault')}; without one: {', '.join(coverage.missing)}"
    )


def test_coverage_counts_only_testable_catalogued_ids() -> None:
    coverage = coverage_of([("AUTH-003", "NOPE-999"), ("AUTH-003",)])
    assert coverage.covered == {"AUTH-003"}
    assert "AUTH-004" in coverage.missing
    assert "NOPE-999" not in coverage.testable
