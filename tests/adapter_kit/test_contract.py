"""`spec/adapter.yaml` stays a valid contract in which every operation has a feature, and
the points the document leaves open stay decided (redocly lints it with the API's spec,
in tests/test_spec_checks.py)."""

import pytest
import yaml
from openapi_spec_validator import validate

from crm_conformance.adapter_kit import load_contract
from crm_conformance.core.model.paths import ADAPTER_SPEC

DECIDED = (
    "handler: user",
    "`status`, `handler` and `agent_available`",
    "derived fields",
    "`record_id`",
    "`created_by`",
    "`lost_reason_id`",
    "A repeated success event type",
    "Fixtures' `users`",
    "`not_contacted_reason`",
    "Participant timestamps",
    "closed as spam",
    "A deletion in the feed",
    "Policy entity names",
    "Default token scopes",
    "`rate_limit` window",
)
"""The open points of issue 13, each named in the contract's list of decisions."""


def test_the_adapter_contract_is_valid_openapi_3_1() -> None:
    validate(yaml.safe_load(ADAPTER_SPEC.read_text(encoding="utf-8")))


def test_every_operation_but_health_belongs_to_a_feature() -> None:
    contract = load_contract()
    unowned = [op.operation_id for op in contract.operations if op.feature is None]
    assert unowned == ["health"]
    assert contract.features == (
        "fixtures",
        "tokens",
        "users",
        "permissions",
        "records",
        "conversations",
        "inbound",
        "campaigns",
        "policy",
        "success_event_types",
    )


@pytest.mark.parametrize("point", DECIDED)
def test_each_open_point_is_decided_in_the_contract(point: str) -> None:
    description = yaml.safe_load(ADAPTER_SPEC.read_text(encoding="utf-8"))["info"]["description"]
    decided = description.split("**Points the document leaves open, decided here**")[1]
    assert point in decided
