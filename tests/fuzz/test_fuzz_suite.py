"""The fuzz suite as a product: green against every legal variant of the reference
server, red with the right requirement id when a rule its harness checks enforce breaks.

Each variant is one fuzz run (~30 s). Here run the variants that change what the fuzz
checks see (status, page size, response fields, request ids); every other variant runs
the fuzz suites inside the whole kill matrix (`tests/selftest/test_kill_matrix.py`).
"""

import ast
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from crm_conformance.core.verdicts.outcomes import Outcome, cause_for, read_records
from crm_conformance.selftest.suite_run import run_suite

SHAPING = (
    "create_returns_200",
    "default_page_size_20",
    "extra_response_fields",
    "uuid_request_ids",
)
"""Variants that change what the schema and harness checks of the fuzz suite look at."""
MODULES = ["test_fuzz.py", "test_fuzz_stateful.py"]


@pytest.mark.parametrize("variant", [None, *SHAPING])
def test_fuzz_suite_passes_against_the_reference_and_each_variant(variant: str | None) -> None:
    run = run_suite(MODULES, variants={variant} if variant else set())
    assert run.exit_code == 0, run.output[-3000:]
    assert len(run.with_outcome("passed")) >= 20, run.output[-3000:]


@pytest.mark.parametrize(
    ("fault", "req", "keyword"),
    [
        ("rate_limit_headers_missing_on_errors", "HDR-001", "users"),
        ("error_type_wrong", "ERR-004", "contact_id"),
        ("missing_request_id_on_errors", "ERR-005", "users"),
    ],
)
def test_fuzz_suite_fails_with_the_id_of_a_broken_harness_rule(
    fault: str, req: str, keyword: str
) -> None:
    run = run_suite(["test_fuzz.py"], faults={fault}, keyword=keyword)
    assert run.kills({req}), run.output[-3000:]
    assert req in run.output, run.output[-3000:]


def test_two_checks_failing_at_once_charge_exactly_their_two_requirements(
    tmp_path: Path,
) -> None:
    """Issue 24: a fuzz test whose answers break two checks at once (a schemathesis
    FailureGroup) is charged to those two requirements, not to every id the test names,
    and its cause gives each failure its own message and request, one line each.

    The record is read whole from the run's stream (`run_suite` cuts causes to 500)."""
    stream = tmp_path / "outcomes.jsonl"
    run_suite(
        ["test_fuzz.py"],
        faults={"rate_limit_headers_missing_on_errors", "missing_request_id_on_errors"},
        keyword="users",
        extra_args=[f"--crm-outcomes={stream}"],  # the last one given wins
    )
    (failed,) = [r for r in read_records(stream) if r.outcome == Outcome.FAILED]
    assert set(failed.failed_requirements) == {"HDR-001", "ERR-005"}, failed
    lines = failed.cause.splitlines()
    assert {line.partition(": ")[0] for line in lines} == {"HDR-001", "ERR-005"}, lines
    assert all("(GET /v1/users" in line and "+---" not in line for line in lines), lines
    own = cause_for(failed.cause, "ERR-005")
    assert "request_id" in own
    assert own not in cause_for(failed.cause, "HDR-001")


def test_stateful_fuzz_fails_with_the_id_of_a_broken_harness_rule() -> None:
    run = run_suite(["test_fuzz_stateful.py"], faults={"rate_limit_headers_missing_on_errors"})
    assert run.kills({"HDR-001"}), run.output[-3000:]


def test_the_deep_profile_runs_the_operations_in_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRM_PROFILE", "deep")
    monkeypatch.setenv("CRM_FUZZ_MINUTES", "0.02")  # shared by the tests -k selects
    junit = tmp_path / "junit.xml"
    run = run_suite(["test_fuzz.py"], keyword="users", extra_args=[f"--junitxml={junit}"])
    assert run.exit_code == 0, run.output[-3000:]
    recorded = [
        ast.literal_eval(p.get("value") or "{}")
        for p in ET.parse(junit).getroot().iter("property")
        if p.get("name") == "fuzz"
    ]
    assert recorded
    assert all(r["profile"] == "deep" and r["rounds"] >= 1 for r in recorded)
