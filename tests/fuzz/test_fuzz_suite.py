"""The fuzz suite as a product: green against every legal variant of the reference
server, red with the right requirement id when a rule its harness checks enforce breaks.

Each variant is one fuzz run (~30 s). By default the variants that change what the
fuzz checks see (status, page size, response fields, request ids) run; the rest run
when CRM_SLOW_TESTS=1, as CI sets it.
"""

import os

import pytest

from crm_conformance.reference.variants import VARIANTS
from crm_conformance.suite_run import run_suite

SHAPING = (
    "create_returns_200",
    "default_page_size_20",
    "extra_response_fields",
    "uuid_request_ids",
)
"""Variants that change what the schema and harness checks of the fuzz suite look at."""
MODULES = ["test_fuzz.py", "test_fuzz_stateful.py"]
SLOW = os.environ.get("CRM_SLOW_TESTS") == "1"


@pytest.mark.parametrize(
    "variant",
    [
        None,
        *SHAPING,
        *(
            pytest.param(name, marks=pytest.mark.skipif(not SLOW, reason="CRM_SLOW_TESTS=1"))
            for name in sorted(set(VARIANTS) - set(SHAPING))
        ),
    ],
)
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


def test_stateful_fuzz_fails_with_the_id_of_a_broken_harness_rule() -> None:
    run = run_suite(["test_fuzz_stateful.py"], faults={"rate_limit_headers_missing_on_errors"})
    assert run.kills({"HDR-001"}), run.output[-3000:]
