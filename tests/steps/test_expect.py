"""The shared expect-steps pass the answer they describe and fail any other, naming the id."""

from typing import Any

import httpx
import pytest
from support.fake_target import TOKEN, contact, error_body, rate_headers

from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.verdicts.checks import is_timestamp
from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.steps.expect import (
    expect_enum,
    expect_error,
    expect_present,
    expect_status,
    expect_success,
    expect_timestamp,
)
from crm_conformance.steps.pages import expect_pages, expect_since_held, with_cursor

REQUEST_ID = "req_" + "b" * 32


def answer(status: int, body: Any) -> httpx.Response:
    request = httpx.Request("POST", "http://t/v1/deals")
    return httpx.Response(status, json=body, headers=rate_headers(REQUEST_ID), request=request)


def refusal(status: int, error_type: str, code: str, **extra: Any) -> httpx.Response:
    return answer(status, error_body(error_type, code, request_id=REQUEST_ID, **extra))


def fails_with(req_id: str, step: Any, *args: Any, **kwargs: Any) -> ConformanceFailure:
    with pytest.raises(ConformanceFailure) as caught:
        step(*args, **kwargs)
    assert caught.value.req_id == req_id
    return caught.value


def refused_read(
    method: str, url: str, *, status: int = 400, param: str, **sent: Any
) -> httpx.Response:
    request = httpx.Request(method, url, **sent)
    body = error_body("invalid_request_error", "validation_failed", request_id=REQUEST_ID)
    body["error"]["param"] = param
    return httpx.Response(status, json=body, headers=rate_headers(REQUEST_ID), request=request)


@pytest.mark.parametrize(
    ("read", "charged"),
    [
        (refused_read("GET", "http://t/v1/organizations?limit=200", param="limit"), "PAG-008"),
        (refused_read("GET", "http://t/v1/contacts?limit=1", param="limit"), "PAG-008"),
        (
            refused_read("POST", "http://t/v1/contacts/search", param="limit", json={"limit": 200}),
            "SRCH-008",
        ),
        (refused_read("GET", "http://t/v1/contacts?limit=201", param="limit"), "TEN-001"),
        (refused_read("GET", "http://t/v1/contacts?limit=0", param="limit"), "TEN-001"),
        (refused_read("GET", "http://t/v1/contacts?limit=50&cursor=c1", param="limit"), "TEN-001"),
        (refused_read("GET", "http://t/v1/contacts?limit=50", param="sort"), "TEN-001"),
        (
            refused_read(
                "POST",
                "http://t/v1/contacts/search",
                param="limit",
                json={"limit": 50, "cursor": "c"},
            ),
            "TEN-001",
        ),
    ],
)
def test_a_page_size_within_the_bounds_refused_is_charged_to_the_bound(
    read: httpx.Response, charged: str
) -> None:
    """A test reading a list to judge something else (here TEN-001) stands on its page
    size being taken: a first page refused for a `limit` from 1 to 200, naming it, breaks
    the bound (PAG-008, SRCH-008 on search); anything else stays the test's own."""
    fails_with(charged, expect_status, read, "TEN-001", 200)
    fails_with(charged, expect_success, read, "TEN-001")


def test_a_server_fault_where_a_success_was_expected_is_charged_to_the_fault() -> None:
    """A read that crashes says nothing of the rule a test reads it for (ERR-018: "server
    fault"); where the test expects a refusal, the 500 is its own to judge."""
    crashed = refusal(500, "api_error", "internal_error")
    fails_with("ERR-018", expect_status, crashed, "TEN-001", 200)
    fails_with("ERR-018", expect_success, crashed, "TEN-001")
    fails_with("ERR-011", expect_status, crashed, "ERR-011", 400)
    fails_with("DEAL-001", expect_status, refusal(501, "api_error", "x"), "DEAL-001", 200)


def test_expect_status_returns_the_body_of_an_allowed_status() -> None:
    assert expect_status(answer(201, contact()), "DEAL-001", 200, 201)["object"] == "contact"
    fails_with("DEAL-001", expect_status, answer(202, contact()), "DEAL-001", 200, 201)


def test_expect_status_names_a_whole_class_of_statuses_shortly() -> None:
    """ "status 2xx", not a hundred numbers, when any success would do."""
    refused = refusal(409, "conflict_error", "conflict")
    failure = fails_with("DEAL-001", expect_status, refused, "DEAL-001", *range(200, 300))
    assert failure.expected == "status 2xx"
    failure = fails_with("DEAL-001", expect_status, refused, "DEAL-001", 200, 404)
    assert failure.expected == "status 200 or 404"


def test_expect_success_takes_any_2xx_object() -> None:
    assert expect_success(answer(200, contact()), "DEAL-001")["object"] == "contact"
    fails_with("DEAL-001", expect_success, answer(200, [1]), "DEAL-001")
    fails_with("DEAL-001", expect_success, refusal(404, "not_found_error", "not_found"), "DEAL-001")


def test_expect_error_checks_status_code_and_param() -> None:
    response = refusal(404, "not_found_error", "record_not_found", param="contact_id")
    error = expect_error(
        response, "DEAL-010", status=404, code="record_not_found", param="contact_id"
    )
    assert error["param"] == "contact_id"
    expect_error(response, "DEAL-010", status=404, code=("stage_not_found", "record_not_found"))
    fails_with(
        "DEAL-010",
        expect_error,
        response,
        "DEAL-010",
        status=404,
        code="record_not_found",
        param="organization_id",
    )
    fails_with(
        "DEAL-008", expect_error, response, "DEAL-008", status=404, code="pipeline_not_found"
    )
    fails_with("DEAL-010", expect_error, answer(200, contact()), "DEAL-010", status=404, code="x")


def test_a_universal_rule_is_applied_first() -> None:
    broken = answer(422, {"message": "no envelope"})
    fails_with("ERR-001", expect_error, broken, "DEAL-005", status=422, code="validation_failed")


def test_record_steps_allow_absent_values_and_name_what_is_wrong() -> None:
    response = answer(200, contact())
    record = {"status": "open", "score": None}
    expect_enum(response, "CON-004", record, "status", ("open", "won"))
    expect_enum(response, "CON-020", record, "score", ("cold",))
    expect_enum(response, "CON-020", record, "missing", ("cold",))
    failure = fails_with(
        "CON-004", expect_enum, response, "CON-004", {"status": "gone"}, "status", ("open",)
    )
    assert "'gone'" in str(failure)
    fails_with("CON-003", expect_present, response, "CON-003", {"id": 1}, ("id", "object"))
    fails_with("DEAL-021", expect_timestamp, response, "DEAL-021", {"at": "2030-01-31"}, "at")


@pytest.mark.parametrize(
    ("value", "holds"),
    [
        ("2026-01-01T00:00:00Z", True),
        ("2026-01-01T00:00:00.123+02:00", True),
        ("2026-01-01", False),
        ("yesterday", False),
        (1700000000, False),
    ],
)
def test_is_timestamp(value: Any, holds: bool) -> None:
    assert is_timestamp(value) is holds


def test_expect_pages_asks_for_the_first_page_without_a_cursor() -> None:
    """A repeated filter stays repeated, and `cursor` is sent only once there is one."""
    sent: list[httpx.URL] = []

    def handle(request: httpx.Request) -> httpx.Response:
        sent.append(request.url)
        last = "cursor" in request.url.params
        body = {
            "data": [contact()],
            "meta": {"has_more": not last, "limit": 200},
            "links": {"next": None if last else "c1"},
        }
        headers = rate_headers(f"req_{len(sent):032x}")  # each answer its own id
        return httpx.Response(200, json=body, headers=headers, request=request)

    client = ApiClient(base_url="http://t", token=TOKEN, transport=httpx.MockTransport(handle))
    records = expect_pages(client, "/v1/contacts", "CON-034", {"email": ["a@x.io", "b@x.io"]})
    assert len(records) == 2
    assert "cursor" not in sent[0].params
    assert sent[0].params.get_list("email") == ["a@x.io", "b@x.io"]
    assert sent[1].params["cursor"] == "c1"
    assert with_cursor([("a", "1")], None) == [("a", "1")]


@pytest.mark.parametrize(
    ("updated_at", "holds"),
    [
        ("2026-01-02T03:04:05.500Z", True),  # at the instant
        ("2026-01-02T03:04:05Z", True),  # a stamp kept finer, rendered in whole seconds
        ("2026-01-02T04:04:06+01:00", True),  # after, in another offset
        ("2026-01-02T03:04:04Z", False),
        ("yesterday", True),  # no date-time: the timestamps check's to judge
    ],
)
def test_a_page_read_with_updated_since_holds_no_older_row(updated_at: str, holds: bool) -> None:
    """An older row fails the filter's rule (SYNC-001), whatever rule the walk judges."""
    rows = [{**contact(), "updated_at": updated_at}]
    response = answer(200, {"data": rows})
    query = [("updated_since", "2026-01-02T03:04:05.500000+00:00"), ("limit", "2")]
    if holds:
        expect_since_held(response, query, rows)
    else:
        fails_with("SYNC-001", expect_since_held, response, query, rows)
    expect_since_held(response, {"limit": "2"}, rows)  # no filter, nothing to hold


def test_got_and_expected_are_named_so_they_cannot_be_swapped() -> None:
    from crm_conformance.steps.expect import expect_value

    with pytest.raises(TypeError):
        expect_value(None, "CON-001", "name", "Ada", "Ada")  # type: ignore[call-arg]  # the misuse this test makes
    expect_value(None, "CON-001", "name", got="Ada", expected="Ada")


def test_a_field_step_names_the_field_and_why_it_is_the_expected_value() -> None:
    from crm_conformance.steps.expect import expect_field

    expect_field(None, "CON-012", {"company_name": "Acme"}, "company_name", expected="Acme")
    with pytest.raises(ConformanceFailure) as failed:
        expect_field(None, "CON-012", {}, "company_name", expected="Acme", why="kept")
    assert failed.value.expected == "company_name = 'Acme' (kept)"
    assert failed.value.got == "company_name = None"


@pytest.mark.parametrize(
    ("record", "containing", "holds"),
    [
        ({"name": "Ada Lovelace"}, "Ada", True),
        ({"name": "Ada Lovelace"}, "", True),
        ({"name": "Grace"}, "Ada", False),
        ({"name": ""}, "", False),
        ({"name": 7}, "", False),
        ({}, "", False),
    ],
)
def test_a_text_step_wants_a_non_empty_string_holding_the_part(
    record: dict[str, Any], containing: str, holds: bool
) -> None:
    from crm_conformance.steps.expect import expect_text

    if holds:
        expect_text(None, "CON-007", record, "name", containing=containing)
        return
    with pytest.raises(ConformanceFailure) as failed:
        expect_text(None, "CON-007", record, "name", containing=containing, why="derived")
    assert failed.value.expected.startswith("name a non-empty string")
    assert failed.value.expected.endswith("(derived)")
