"""Success events: the value basis of a type, unknown codes, and reversing once.

The document gives the rules (an event type requires or forbids a `value`; an event is
reversed once, and a reversal is never reversed) and their error codes, but not the
operations that record and reverse events. They are tried where a REST service of this
document would put them, `POST /v1/success-events` with `{code, value}` and
`POST /v1/success-events/{event_id}/reverse`; a target that chose other paths names
them in its target file (`[conventions.success_events]` `create_path`, `reverse_path`
with `{event_id}`). A test skips, never fails, when the target offers nothing at the
path or refuses a body that follows every documented rule: what is not shown cannot
fail a target. Event types are defined through the adapter.
"""

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient, Target, expect_error, expect_status

CREATE_PATH = "/v1/success-events"
REVERSE_PATH = "/v1/success-events/{event_id}/reverse"
VALUE = 100
"""A value every event that needs one can carry (its type is not shown; a sale's amount)."""
NOT_OFFERED = (404, 405, 501)


class SuccessEvents:
    """Records and reverses events at the target's paths, skipping what it does not offer."""

    def __init__(self, api: ApiClient, target: Target) -> None:
        self.api = api
        self.create_path = target.conventions.get("success_events.create_path", CREATE_PATH)
        self.reverse_path = target.conventions.get("success_events.reverse_path", REVERSE_PATH)

    def record(self, code: str, value: Any = None) -> httpx.Response:
        body: dict[str, Any] = {"code": code}
        if value is not None:
            body["value"] = value
        return self.api.post(self.create_path, json=body)

    def reverse(self, event_id: str) -> httpx.Response:
        return self.api.post(self.reverse_path.format(event_id=event_id), json={})

    def recorded(self, response: httpx.Response, req_id: str) -> dict[str, Any]:
        """The event of a create the document allows; skips when the target's operation
        is elsewhere or wants a body it does not show."""
        where = f"POST {response.request.url.path}"
        if response.status_code in NOT_OFFERED:
            pytest.skip(
                f"{where} answered {response.status_code}: the operation recording success "
                "events is not shown; name it with [conventions.success_events] create_path"
            )
        if response.status_code in (400, 422) and _code(response) == "validation_failed":
            pytest.skip(
                f"{where} refused {{code, value}} as validation_failed: the body of a success "
                "event is not shown, and the target wants another"
            )
        return self.answer(response, req_id)

    def reversed_event(self, response: httpx.Response, req_id: str) -> dict[str, Any]:
        """The reversal record of a first reversal; skips when the target offers none."""
        if response.status_code in NOT_OFFERED:
            pytest.skip(
                f"POST {response.request.url.path} answered {response.status_code}: the "
                "reversal operation is not shown; name it with [conventions.success_events] "
                "reverse_path"
            )
        return self.answer(response, req_id)

    @staticmethod
    def answer(response: httpx.Response, req_id: str) -> dict[str, Any]:
        """A 2xx answer's JSON object, or `{}`: the success event's fields are not shown."""
        body = expect_status(response, req_id, *range(200, 300))
        return body if isinstance(body, dict) else {}


def _code(response: httpx.Response) -> str | None:
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return None
    return error.get("code") if isinstance(error, dict) else None


def event_id(record: dict[str, Any]) -> str:
    """The id of a recorded event (its fields are not shown: skip without one)."""
    value = record.get("id")
    if not isinstance(value, str):
        pytest.skip("the recorded success event carries no string `id` (its fields are not shown)")
    return value


@pytest.fixture
def events(api: ApiClient, target: Target) -> SuccessEvents:
    return SuccessEvents(api, target)


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
    expect_error(events.record(code), "SEV-005", status=422, code="value_basis_mismatch")


@pytest.mark.req("SEV-005", "SEV-007")
def test_a_type_that_forbids_a_value_refuses_an_event_with_one(
    events: SuccessEvents, define: Callable[[str], str]
) -> None:
    code = define("forbidden")
    events.recorded(events.record(code), "SEV-005")
    expect_error(events.record(code, VALUE), "SEV-005", status=422, code="value_basis_mismatch")


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
