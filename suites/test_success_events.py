"""Success events: the value basis of a type, unknown codes, and reversing once.

The document gives the rules (an event type requires or forbids a `value`; an event is
reversed once, and a reversal is never reversed) and their error codes, but not the
operations that record and reverse events. The target file names them
(`[conventions.success_events]`: `create_path`, `create_body` with `{code}` and
`{value}`, `reverse_path` with `{event_id}`); without those keys the tests skip, naming
them, and a path the file names is one the target offers (a 404 there fails). A test
skips when the target refuses a body that follows every documented rule (the value's
type is not shown either). Event types are defined through the adapter.
"""

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import conventions
from crm_conformance.steps import (
    error_of,
    expect_error,
    expect_refusal,
    expect_status,
    expect_true,
)

VALUE = 100
"""A value every event that needs one can carry (its type is not shown; a sale's amount)."""


class SuccessEvents:
    """Records and reverses events at the paths and with the body the target file names."""

    def __init__(self, api: ApiClient, convention: conventions.Lookup) -> None:
        self.api = api
        self.convention = convention

    def record(self, code: str, value: Any = None) -> httpx.Response:
        body = conventions.body(
            self.convention,
            "success_events.create_body",
            code=code,
            value=conventions.OMIT if value is None else value,
        )
        return self.api.post(
            conventions.path(self.convention, "success_events.create_path"), json=body
        )

    def reverse(self, event_id: str) -> httpx.Response:
        path = conventions.path(self.convention, "success_events.reverse_path", event_id=event_id)
        return self.api.post(path, json={})

    def recorded(self, response: httpx.Response, req_id: str) -> dict[str, Any]:
        """The event of a create the document allows; skips when the target refuses the
        body as invalid (the value's type is not shown)."""
        if (
            response.status_code in (400, 422)
            and error_of(response).get("code") == "validation_failed"
        ):
            pytest.skip(
                f"POST {response.request.url.path} refused {response.request.content!r} as "
                "validation_failed: a success event's fields are not shown, and the target "
                "wants other values"
            )
        return self.answer(response, req_id)

    def reversed_event(self, response: httpx.Response, req_id: str) -> dict[str, Any]:
        """The reversal record of a first reversal."""
        return self.answer(response, req_id)

    @staticmethod
    def answer(response: httpx.Response, req_id: str) -> dict[str, Any]:
        """A 2xx answer's JSON object, or `{}`: the success event's fields are not shown."""
        body = expect_status(response, req_id, *range(200, 300))
        return body if isinstance(body, dict) else {}


def event_id(record: dict[str, Any]) -> str:
    """The id of a recorded event (its fields are not shown: skip without one)."""
    value = record.get("id")
    if not isinstance(value, str):
        pytest.skip("the recorded success event carries no string `id` (its fields are not shown)")
    return value


@pytest.fixture
def events(api: ApiClient, convention: conventions.Lookup) -> SuccessEvents:
    return SuccessEvents(api, convention)


@pytest.fixture
def define(adapter: AdapterClient, unique: Callable[[str], str]) -> Callable[[str], str]:
    """`define("required" | "forbidden")`: a new event type's code."""
    adapter.require("success_event_types")

    def make(basis: str) -> str:
        code = re.sub(r"[^a-z0-9_]", "_", f"sev_{unique(basis)}".lower())[:64]
        adapter.create_success_event_type(code=code, value=basis)
        return code

    return make


@pytest.mark.req("SEV-001")
def test_event_types_are_listed(
    api: ApiClient,
    define: Callable[[str], str],
    observe: Callable[[str, Any], None],
) -> None:
    code = define("required")
    response = api.get("/v1/success-event-types")
    body = expect_status(response, "SEV-001", *range(200, 300))
    observe(
        "success_event_types_shape", sorted(body) if isinstance(body, dict) else type(body).__name__
    )
    observe("success_event_type_code_on_first_page", code in response.text)


@pytest.mark.req("SEV-005", "SEV-007")
def test_a_type_that_requires_a_value_refuses_an_event_without_one(
    events: SuccessEvents, define: Callable[[str], str]
) -> None:
    code = define("required")
    events.recorded(events.record(code, VALUE), "SEV-005")
    response = events.record(code)
    expect_true(  # the type requires a value: the event is refused
        response, "SEV-007", 400 <= response.status_code < 500, expected="a 4xx", got=str(response)
    )
    expect_refusal(response, "SEV-005", status=422, code="value_basis_mismatch")


@pytest.mark.req("SEV-005", "SEV-007")
@pytest.mark.parametrize("value", [VALUE, 0], ids=["a value", "a zero value"])
def test_a_type_that_forbids_a_value_refuses_an_event_with_one(
    events: SuccessEvents, define: Callable[[str], str], value: int
) -> None:
    """Zero is a value sent, not none: a server testing the value for truth lets it by."""
    code = define("forbidden")
    events.recorded(events.record(code), "SEV-005")
    response = events.record(code, value)
    expect_true(  # the type forbids a value: the event is refused
        response, "SEV-007", 400 <= response.status_code < 500, expected="a 4xx", got=str(response)
    )
    expect_refusal(response, "SEV-005", status=422, code="value_basis_mismatch")


@pytest.mark.req("SEV-005")
def test_a_zero_value_is_a_value_where_one_is_required(
    events: SuccessEvents, define: Callable[[str], str]
) -> None:
    """A zero sent where the type needs a value is never refused as none sent
    (`value_basis_mismatch`). Bounds on the value are not shown: it may be recorded, or
    refused for another reason."""
    code = define("required")
    events.recorded(events.record(code, VALUE), "SEV-005")
    response = events.record(code, 0)
    code_of_refusal = error_of(response).get("code") if response.status_code >= 400 else None
    expect_true(
        response,
        "SEV-005",
        code_of_refusal != "value_basis_mismatch",
        expected="a zero value recorded, or refused for a reason other than none sent",
        got=f"{response.status_code} value_basis_mismatch",
    )


@pytest.mark.req("SEV-006")
@pytest.mark.parametrize("value", [None, VALUE], ids=["without value", "with value"])
def test_an_unknown_event_code_is_refused(
    events: SuccessEvents, define: Callable[[str], str], value: Any
) -> None:
    known = define("forbidden" if value is None else "required")
    events.recorded(events.record(known, value), "SEV-006")
    unknown = f"{known}_undefined"[-64:]
    expect_error(events.record(unknown, value), "SEV-006", status=422, code="unknown_event_code")


@pytest.mark.req("SEV-003")
def test_an_event_is_reversed_only_once(
    events: SuccessEvents, define: Callable[[str], str], observe: Callable[[str, Any], None]
) -> None:
    code = define("required")
    original = event_id(events.recorded(events.record(code, VALUE), "SEV-003"))
    reversal = events.reversed_event(events.reverse(original), "SEV-003")
    observe("success_event_reversal_keys", sorted(reversal))
    expect_error(events.reverse(original), "SEV-003", status=409, code="already_reversed")


@pytest.mark.req("SEV-004")
def test_a_reversal_cannot_be_reversed(events: SuccessEvents, define: Callable[[str], str]) -> None:
    code = define("required")
    original = event_id(events.recorded(events.record(code, VALUE), "SEV-004"))
    reversal = event_id(events.reversed_event(events.reverse(original), "SEV-004"))
    if reversal == original:
        pytest.skip("the reversal answer names the original event, not a reversal record")
    expect_error(events.reverse(reversal), "SEV-004", status=409, code="not_a_record")
