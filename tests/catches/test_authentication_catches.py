"""The authentication suite fails against a server that accepts what it must refuse."""

from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.suite_run import run_suite


def test_passes_against_the_reference_server() -> None:
    run = run_suite(["test_authentication.py"])
    assert run.exit_code == 0, run.output
    assert run.with_outcome("passed"), run.output


def test_fails_when_an_altered_token_is_accepted() -> None:
    run = run_suite(["test_authentication.py"], faults={"verifier_not_checked"})
    assert run.kills(FAULTS["verifier_not_checked"].reqs), run.output
