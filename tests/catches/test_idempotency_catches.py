"""The idempotency suite fails against servers whose keys do not make writes happen once."""

import pytest

from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.suite_run import run_suite

SUITE = ["test_idempotency.py"]


def test_passes_against_the_reference_server() -> None:
    run = run_suite(SUITE)
    assert run.exit_code == 0, run.output
    assert run.with_outcome("passed"), run.output


@pytest.mark.parametrize(
    ("fault", "keyword"),
    [
        ("replay_returns_200", "replays_the_original and tag"),
        ("replay_missing_header", "replays_the_original and tag"),
        ("idempotency_key_ignored_across_bodies", "another_body and tag"),
        ("idempotency_cross_workspace", "another_workspace"),
        ("idempotency_key_length_unchecked", "256 and tag"),
    ],
)
def test_fails_under_the_fault(fault: str, keyword: str) -> None:
    run = run_suite(SUITE, faults={fault}, keyword=keyword)
    assert run.kills(FAULTS[fault].reqs), run.output
