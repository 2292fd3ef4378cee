"""`badge.json` (issue 23 item 3): the shields endpoint format, and a message that never
says more than the run verified: red with what failed, green only when everything
testable was verified, yellow between."""

from typing import Any

import pytest

from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.verdicts.outcomes import Outcome, OutcomeRecord
from crm_conformance.reporting.badge import badge
from crm_conformance.reporting.summary import RunInfo, build_summary

ENDPOINT_KEYS = {"schemaVersion": int, "label": str, "message": str, "color": str}
"""What a shields endpoint reads (https://shields.io/badges/endpoint-badge)."""


def summary_of(outcomes: dict[str, Outcome], claimed: tuple[str, ...]) -> dict[str, Any]:
    records = [
        OutcomeRecord(
            f"suites/test_x.py::test_{req_id}",
            outcome,
            [req_id],
            ["tags"],
            failed_requirements=[req_id] if outcome == Outcome.FAILED else [],
            checked={req_id: ["expect_true"]} if outcome == Outcome.PASSED else {},
        )
        for req_id, outcome in outcomes.items()
    ]
    info = RunInfo("0.1.0", None, {}, 1, "quick", "t0", "t1", claimed=claimed)
    return build_summary(records, info, load_catalogue())


def every_testable_of(cls: str) -> list[str]:
    return [r.id for r in load_catalogue() if r.cls == cls and r.testable]


@pytest.mark.parametrize(
    ("failing", "passing", "message", "color"),
    [
        (["TAG-001", "TAG-002"], [], "2 failed, {v}/{t} verified", "red"),
        ([], ["TAG-001"], "{v}/{t} verified", "yellow"),
    ],
)
def test_a_badge_says_what_failed_and_how_much_was_verified(
    failing: list[str], passing: list[str], message: str, color: str
) -> None:
    outcomes = {i: Outcome.FAILED for i in failing} | {i: Outcome.PASSED for i in passing}
    summary = summary_of(outcomes, ("core", "tags"))
    shown = badge(summary)
    assert {key: type(value) for key, value in shown.items()} == ENDPOINT_KEYS
    assert shown["schemaVersion"] == 1
    assert shown["label"] == "CRM API conformance"
    verified = summary["verified"]
    assert shown["message"] == message.format(v=verified["requirements"], t=verified["testable"])
    assert shown["color"] == color


def test_a_badge_is_green_only_when_every_claimed_testable_requirement_was_verified() -> None:
    """Claiming core and tags, with every testable requirement of both passed."""
    ids = every_testable_of("core") + every_testable_of("tags")
    summary = summary_of(dict.fromkeys(ids, Outcome.PASSED), ("core", "tags"))
    assert badge(summary) == {
        "schemaVersion": 1,
        "label": "CRM API conformance",
        "message": f"{len(ids)}/{len(ids)} verified",
        "color": "green",
    }
