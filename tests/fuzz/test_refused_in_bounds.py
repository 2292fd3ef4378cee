"""`judging.refused_in_bounds`: a schema-valid case refused only for a fully bounded
integer it sent in range is a false refusal; any other refusal passes."""

from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.fuzz.checking import refused_in_bounds


def _case(query: dict[str, Any] | None = None, body: Any = None, path: str = "/v1/users") -> Any:
    method = "post" if body is not None else "get"
    return SimpleNamespace(
        operation=SimpleNamespace(method=method, path=path), query=query, body=body, meta=None
    )


def _refusal(*fields: str, status: int = 400) -> httpx.Response:
    detail = [{"field": field, "message": "is invalid", "code": None} for field in fields]
    error = {"code": "validation_failed", "param": fields[0], "detail": detail}
    return httpx.Response(
        status, json={"error": error}, request=httpx.Request("GET", "http://t/v1/users")
    )


def test_a_limit_in_range_refused_fails_the_bound() -> None:
    with pytest.raises(ConformanceFailure) as failure:
        refused_in_bounds(_case({"limit": 150}), _refusal("limit"))
    assert failure.value.req_id == "PAG-008"


def test_a_search_body_limit_in_range_refused_fails_its_own_bound() -> None:
    case = _case(body={"limit": 37}, path="/v1/contacts/search")
    with pytest.raises(ConformanceFailure) as failure:
        refused_in_bounds(case, _refusal("limit", status=422))
    assert failure.value.req_id == "SRCH-008"


@pytest.mark.parametrize("limit", [0, 201, "²", "ten", True])
def test_a_value_out_of_range_or_unreadable_is_not_judged(limit: Any) -> None:
    refused_in_bounds(_case({"limit": limit}), _refusal("limit"))


def test_a_refusal_naming_another_field_too_is_not_judged() -> None:
    refused_in_bounds(_case({"limit": 50, "cursor": "x"}), _refusal("limit", "cursor"))
