"""Each registered check passes a conforming response and fails a broken one, with its id."""

import contextlib
import copy
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.fake_target import TOKEN, contact, error_body, hexid, rate_headers

from crm_conformance.core.verdicts import checks
from crm_conformance.core.verdicts.failure import ConformanceFailure

REQUEST_ID = "req_" + "a" * 32


def response(
    status: int = 200,
    body: Any = None,
    *,
    headers: dict[str, str] | None = None,
    method: str = "GET",
    path: str = "/v1/contacts",
    params: dict[str, str] | None = None,
    raw: bytes | None = None,
    request_body: Any = None,
) -> httpx.Response:
    sent = request_body if isinstance(request_body, bytes | None) else json.dumps(request_body)
    request = httpx.Request(
        method,
        "http://t" + path,
        params=params,
        headers={"Authorization": f"Bearer {TOKEN}"},
        content=sent,
    )
    all_headers = {**rate_headers(REQUEST_ID), **(headers or {})}
    if raw is not None:
        return httpx.Response(status, content=raw, headers=all_headers, request=request)
    return httpx.Response(status, json=body, headers=all_headers, request=request)


def collection(**meta: Any) -> dict[str, Any]:
    return {
        "data": [contact()],
        "meta": {"has_more": False, "limit": 20, **meta},
        "links": {"next": None},
    }


def error(status: int, error_type: str, code: str = "x", **extra: Any) -> httpx.Response:
    return response(status, error_body(error_type, code, request_id=REQUEST_ID, **extra))


def search(body: Any, request_body: Any) -> httpx.Response:
    return response(200, body, method="POST", path="/v1/contacts/search", request_body=request_body)


def stats(campaign_id: str) -> httpx.Response:
    return response(200, {"object": "campaign_stats", "campaign_id": campaign_id}, path="/v1/x")


AGENT = {"id": hexid("agt_"), "kind": "agent", "name": None, "object": "owner"}
CONVERSATION = {"object": "conversation", "id": hexid("conv_"), "handler": AGENT}

GOOD = [
    response(200, CONVERSATION, method="POST", path="/v1/conversations/x/close"),
    response(200, {"object": "activity", "id": hexid("act_"), "created_by": None}, path="/v1/x"),
    response(200, collection()),
    response(200, collection(limit=5), params={"limit": "5"}),
    response(200, {**collection(has_more=True), "links": {"next": "abc"}}),
    response(
        200,
        {
            "id": hexid("deal_"),
            "object": "deal",
            "pipeline_id": hexid("pipe_"),
            "stage_id": hexid("stg_"),
            "contact_id": None,
            "title": "t",
            "visibility": "team",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        },
        path="/v1/deals",
        method="POST",
    ),
    response(200, {"object": "owner", "id": hexid("agt_"), "kind": "agent"}, path="/v1/x"),
    response(
        200,
        {
            **collection(),
            "data": [
                {"object": "contact", "id": hexid("con_"), "phone": phone}
                for phone in ("+442079460958", "+12", None, "")
            ],
        },
        path="/v1/x",
    ),
    response(200, {"pipelines": [{"id": "whatever"}]}, path="/v1/pipelines"),
    response(204, raw=b"", method="DELETE", path="/v1/x"),
    error(400, "invalid_request_error", "invalid_cursor"),
    error(401, "authentication_error", "unauthorized"),
    error(403, "permission_error", "insufficient_scope", param="contacts:read"),
    error(404, "not_found_error", "not_found"),
    error(404, "invalid_request_error", "not_found"),  # Stripe-style coarse typing
    response(
        200,
        {"object": "contact", "id": hexid("con_")},
        path="/v1/contacts/x",
        params={"fields": "a"},
    ),
    error(409, "invalid_request_error", "conflict"),
    error(405, "api_error", "method_not_allowed"),
    error(409, "conflict_error", "conversation_closed"),
    error(
        422,
        "invalid_request_error",
        "validation_failed",
        detail=[{"field": "a.b", "message": "m", "code": None}],
    ),
    response(  # a body with no field to list: an array
        422,
        error_body("invalid_request_error", "validation_failed", request_id=REQUEST_ID),
        method="POST",
        request_body=[1, 2],
    ),
    error(418, "conflict_error", "teapot"),
    error(500, "api_error", "internal_error"),
    response(
        429,
        error_body("rate_limit_error", "rate_limit_exceeded", request_id=REQUEST_ID),
        headers={"Retry-After": "2"},
    ),
    response(
        404,
        {
            "error": {
                "type": "not_found_error",
                "code": "c",
                "message": "m",
                "request_id": REQUEST_ID,
            }
        },
    ),
    error(499, "conflict_error"),  # an unlisted 4xx: any type but the two retryable ones
    response(304, raw=b""),
    response(200, collection(limit=1), params={"limit": "1"}),  # a full page
    response(200, collection(), params={"limit": "0"}),  # out of 1..200: no page size asked
    response(200, collection(), params={"limit": "201"}),
    search(collection(limit=5), {"limit": 5}),
    search(
        {**collection(), "data": [{"object": "contact", "id": hexid("con_")}]}, {"fields": ["id"]}
    ),
    search(  # an empty list of names: id and object alone is a legal reading
        {**collection(), "data": [{"object": "contact", "id": hexid("con_")}]}, {"fields": ""}
    ),
    response(
        200,
        {**collection(), "data": [{"object": "contact", "id": hexid("con_")}]},
        params={"fields": ""},
    ),
    search(collection(), b"not json"),
    search(collection(), [1]),
    response(
        200, raw=b"{}", headers={"Content-Type": "application/json; charset=utf-8"}, path="/v1/x"
    ),
    response(200, raw=b"-", headers={"Content-Type": "text/plain"}, method="HEAD", path="/v1/x"),
    response(
        200,
        {**collection(), "data": [{**contact(), "custom_fields": {"p": {"object": "contact"}}}]},
    ),
    stats(hexid("camp_")),
    response(  # a deal as typed: value a string, probability an integer, nulls where allowed
        200,
        {
            "object": "deal",
            "id": hexid("deal_"),
            "value": "12.50",
            "probability": 50,
            "status": None,
            "score": None,
            "organization": {"object": "organization", "id": hexid("org_"), "name": None},
            "tags": [{"object": "tag", "id": hexid("tag_"), "name": "vip", "color": "#abc"}],
        },
        method="PATCH",
        path="/v1/deals/x",
    ),
    # a shape the document does not show: "Always present" is about Contact and Deal answers
    response(
        200,
        {**collection(), "data": [{"id": hexid("con_"), "object": "contact", "deleted": True}]},
        path="/v1/deleted-records",
    ),
]


@pytest.mark.parametrize("good", GOOD, ids=lambda r: f"{r.request.method}-{r.status_code}")
def test_conforming_responses_pass_every_check(good: httpx.Response) -> None:
    assert checks.failures(good) == []


def mutate(base: httpx.Response, change: Callable[[Any], None]) -> httpx.Response:
    body = copy.deepcopy(base.json())
    change(body)
    return httpx.Response(
        base.status_code, json=body, headers=dict(base.headers), request=base.request
    )


def drop_header(name: str, base: httpx.Response | None = None) -> httpx.Response:
    base = base or response(200, collection())
    headers = {k: v for k, v in base.headers.items() if k.lower() != name.lower()}
    return httpx.Response(
        base.status_code, content=base.content, headers=headers, request=base.request
    )


NOT_FOUND = error(404, "not_found_error", "not_found")

BAD = {
    "error_envelope": response(404, {"message": "nope"}),
    "error_envelope_html": response(
        500, raw=b"<html>oops</html>", headers={"Content-Type": "text/html"}
    ),
    "error_type_enum": mutate(NOT_FOUND, lambda b: b["error"].update(type="missing_error")),
    "error_fields": mutate(NOT_FOUND, lambda b: b["error"].update(detail=[{"field": 1}])),
    "error_fields_code": mutate(NOT_FOUND, lambda b: b["error"].pop("code")),
    "error_fields_detail": mutate(
        NOT_FOUND, lambda b: b["error"].update(detail=[{"field": "a", "code": None}])
    ),
    "validation_detail": error(422, "invalid_request_error", "validation_failed", detail=None),
    "validation_detail_empty": error(422, "invalid_request_error", "validation_failed", detail=[]),
    "error_type_matches_status": error(404, "api_error"),
    "timestamps": response(
        200, {**collection(), "data": [{**contact(), "updated_at": 1767225600}]}
    ),
    "timestamps_nested": response(
        200,
        {"object": "campaign_stats", "campaign_id": hexid("camp_"), "window_end": "2026-01-01"},
        path="/v1/x",
    ),
    "always_present_fields": response(
        200, {"object": "contact", "id": hexid("con_"), "status": "open"}, path="/v1/contacts/x"
    ),
    "phones_in_e164": response(
        200, {"object": "contact", "id": hexid("con_"), "phone": "+4420794609581234"}, path="/v1/x"
    ),
    "phones_in_e164_spaced": response(
        200,
        {**collection(), "data": [{"object": "contact", "id": hexid("con_"), "phone": "+44 20"}]},
    ),
    "phones_in_e164_zero": response(
        200, {"object": "contact", "id": hexid("con_"), "phone": "+0442079460958"}, path="/v1/x"
    ),
    "always_present_fields_nested": response(
        200,
        {**collection(), "data": [contact(), {"object": "contact", "id": hexid("con_")}]},
    ),
    "error_type_matches_status_410": error(410, "rate_limit_error"),
    "error_type_matches_status_405": error(405, "invalid_request_error"),
    "error_type_matches_status_5xx": error(503, "conflict_error"),
    "error_request_id_matches_header": mutate(
        NOT_FOUND, lambda b: b["error"].update(request_id="req_other")
    ),
    "error_request_id_matches_header_absent": mutate(
        NOT_FOUND, lambda b: b["error"].pop("request_id")
    ),
    "error_request_id_matches_header_null": mutate(
        NOT_FOUND, lambda b: b["error"].update(request_id=None)
    ),
    "rate_limit_headers": drop_header("X-RateLimit-Reset"),
    "rate_limit_headers_type": response(200, collection(), headers={"X-RateLimit-Limit": "1.5"}),
    "retry_after_on_429": response(
        429, error_body("rate_limit_error", "rate_limit_exceeded", request_id=REQUEST_ID)
    ),
    "no_retry_after_off_429": response(200, collection(), headers={"Retry-After": "3"}),
    "request_id_header": drop_header("X-Request-ID", NOT_FOUND),
    "json_content_type": response(200, raw=b"{}", headers={"Content-Type": "text/plain"}),
    "identifier_formats": mutate(
        response(200, collection()), lambda b: b["data"][0].update(id="con_ABC")
    ),
    "identifier_formats_field": mutate(
        response(200, collection()), lambda b: b["data"][0].update(owner_id=hexid("agt_"))
    ),
    "identifier_formats_owner": mutate(
        response(200, collection()), lambda b: b["data"][0]["owner"].update(kind="agent")
    ),
    "identifier_formats_embedded": response(
        200, {"contact": {"object": "contact", "id": "con_1"}}, path="/v1/x"
    ),
    "identifier_formats_stats": stats("camp_1"),
    "identifier_formats_prefix": mutate(
        response(200, collection()), lambda b: b["data"][0].update(id=hexid("lead_"))
    ),
    "collection_row_objects": mutate(
        response(200, collection()), lambda b: b["data"][0].update(object="lead")
    ),
    "collection_row_objects_users": response(
        200, {**collection(), "data": [{"id": hexid("usr_"), "object": "member"}]}, path="/v1/users"
    ),
    "owners": mutate(
        response(200, collection()), lambda b: b["data"][0]["owner"].update(object="user")
    ),
    "owners_kind": mutate(
        response(200, collection()), lambda b: b["data"][0]["owner"].update(kind="teammate")
    ),
    "owners_name": mutate(
        response(200, collection()), lambda b: b["data"][0]["owner"].update(name={"first": "A"})
    ),
    "owners_handler": response(200, {**CONVERSATION, "handler": {**AGENT, "kind": "user"}}),
    "collection_envelope": mutate(response(200, collection()), lambda b: b.pop("links")),
    "collection_envelope_undocumented": response(
        200, {**collection(), "links": {"next": 5}}, path="/v1/x"
    ),
    "collection_envelope_extended": response(
        200, {**collection(), "links": {"next": 5}, "object": "list"}, path="/v1/x"
    ),
    "field_types": response(  # an update's answer echoing the number it was sent
        200,
        {"object": "deal", "id": hexid("deal_"), "value": 12.5},
        method="PATCH",
        path="/v1/deals/x",
    ),
    "field_types_enum": response(
        200, {**collection(), "data": [{**contact(), "status": "active"}]}
    ),
    "field_types_nested": response(
        200,
        {"object": "contact", "id": hexid("con_"), "channels": [{"identifier": 5}]},
        path="/v1/x",
    ),
    "has_more_matches_next": mutate(
        response(200, collection()), lambda b: b["links"].update(next="cursor")
    ),
    "has_more_matches_next_stranded": response(200, collection(has_more=True)),
    "page_within_limit": response(200, collection(limit=20), params={"limit": "5"}),
    "page_within_limit_above": response(200, collection(limit=20), params={"limit": "50"}),
    "page_within_limit_one": response(200, collection(limit=20), params={"limit": "1"}),
    "page_within_limit_max": response(200, collection(limit=20), params={"limit": "200"}),
    "page_within_limit_search": search(collection(limit=20), {"limit": 5}),
    "json_content_type_post": response(
        201, raw=b"{}", headers={"Content-Type": "text/plain"}, method="POST", path="/v1/x"
    ),
    "json_content_type_javascript": response(
        200, raw=b"{}", headers={"Content-Type": "application/javascript"}, path="/v1/x"
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_check_fails_its_broken_response(case: str) -> None:
    name = case if case in {c.name for c in checks.registered()} else case.rsplit("_", 1)[0]
    registered = checks.get(name)
    with pytest.raises(ConformanceFailure) as caught:
        registered.function(BAD[case])
    assert caught.value.req_id in registered.requirements


RUN_WIDE = {"request_id_names_one_answer", "code_keeps_its_type"}
"""Checks whose broken case is two answers of one run, not one response: their cases are
`test_answers.py`'s."""


def test_every_registered_check_has_a_broken_case() -> None:
    names = {c.name for c in checks.registered()}
    covered = {case if case in names else case.rsplit("_", 1)[0] for case in BAD}
    assert covered | RUN_WIDE == names


def test_run_checks_raises_the_first_failure() -> None:
    broken = drop_header("X-RateLimit-Reset", drop_header("X-Request-ID"))
    assert [failure.req_id for failure in checks.failures(broken)] == ["HDR-001", "HDR-003"]
    with pytest.raises(ConformanceFailure) as caught:
        checks.run_checks(broken)
    assert caught.value.req_id == checks.get("rate_limit_headers").requirements[0]


def test_get_lists_the_known_checks() -> None:
    with pytest.raises(KeyError, match="known: error_envelope, "):
        checks.get("no_such_check")


def with_status(base: httpx.Response, status: int) -> httpx.Response:
    return httpx.Response(
        status, content=base.content, headers=dict(base.headers), request=base.request
    )


@pytest.mark.parametrize("status", [300, 303, 305, 404, 500])
def test_every_non_2xx_answer_but_304_needs_the_envelope(status: int) -> None:
    with pytest.raises(ConformanceFailure, match="ERR-001"):
        checks.error_envelope(response(status, raw=b""))


@pytest.mark.parametrize("status", [200, 299, 304])
def test_2xx_and_304_answers_need_no_envelope(status: int) -> None:
    checks.error_envelope(response(status, raw=b""))


BROKEN_2XX_BODIES = ["identifier_formats", "always_present_fields", "collection_envelope"]


@pytest.mark.parametrize("status", [201, 299])
@pytest.mark.parametrize("name", BROKEN_2XX_BODIES)
def test_2xx_body_checks_hold_on_every_2xx(name: str, status: int) -> None:
    with pytest.raises(ConformanceFailure):
        checks.get(name).function(with_status(BAD[name], status))


@pytest.mark.parametrize("status", [300, 399])
@pytest.mark.parametrize("name", ["identifier_formats", "collection_envelope"])
def test_2xx_body_checks_leave_a_3xx_alone(name: str, status: int) -> None:
    checks.get(name).function(with_status(BAD[name], status))


# (status, a type it may carry, a type it may not): only the retry advice binds a 4xx
# (no retryable type), 405 is `api_error`, a 429 and a 5xx carry a retryable type.
STATUS_TYPES = [
    (400, "not_found_error", "api_error"),
    (401, "permission_error", "rate_limit_error"),
    (403, "authentication_error", "api_error"),
    (404, "conflict_error", "api_error"),
    (405, "api_error", "invalid_request_error"),
    (409, "not_found_error", "rate_limit_error"),
    (422, "conflict_error", "api_error"),
    (429, "rate_limit_error", "invalid_request_error"),
    (429, "api_error", "permission_error"),
    (500, "api_error", "invalid_request_error"),
    (503, "rate_limit_error", "not_found_error"),
]


@pytest.mark.parametrize(("status", "own", "other"), STATUS_TYPES)
def test_error_type_matches_status_per_status(status: int, own: str, other: str) -> None:
    checks.error_type_matches_status(error(status, own))
    with pytest.raises(ConformanceFailure, match="ERR-004"):
        checks.error_type_matches_status(error(status, other))


MALFORMED_COLLECTIONS = {
    "array": [],
    "no links": {"data": [], "meta": {"has_more": False, "limit": 20}},
    "no meta": {"data": [], "links": {"next": None}},
    "data not an array": {**collection(), "data": {}},
    "has_more not a boolean": {**collection(has_more="yes"), "links": {"next": "abc"}},
    "next not a string": {**collection(), "links": {"next": 5}},
    "limit not an integer": collection(limit="20"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_COLLECTIONS))
def test_a_malformed_collection_fails_the_envelope_check_only(case: str) -> None:
    broken = response(200, MALFORMED_COLLECTIONS[case])
    assert [failure.req_id for failure in checks.failures(broken)] == ["PAG-001"]


def test_registering_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        checks.check("ERR-001", name="error_envelope")(lambda response: False)


@pytest.mark.parametrize(
    ("case", "charged"),
    [("identifier_formats", "IDN-001"), ("identifier_formats_prefix", "IDN-006")],
)
def test_an_id_with_another_kinds_prefix_breaks_its_kinds_row(case: str, charged: str) -> None:
    """`con_ABC` breaks the format (IDN-001); `lead_<32 hex>` on a contact is well formed
    but breaks the identifier table's contact row (IDN-006)."""
    with pytest.raises(ConformanceFailure) as caught:
        checks.identifier_formats(BAD[case])
    assert caught.value.req_id == charged


@pytest.mark.parametrize(
    ("case", "charged"),
    [
        ("field_types", "DEAL-014"),
        ("field_types_enum", "CON-004"),
        ("field_types_nested", "CON-022"),
    ],
)
def test_a_wrong_type_is_charged_to_its_fields_own_row(case: str, charged: str) -> None:
    with pytest.raises(ConformanceFailure) as caught:
        checks.field_types(BAD[case])
    assert caught.value.req_id == charged


def test_every_typed_field_is_in_its_schema_and_its_row_in_the_catalogue() -> None:
    """A row naming a field the spec does not give the resource, or an id the catalogue
    does not hold, would never judge anything."""
    from crm_conformance.core.model.catalogue import load_catalogue
    from crm_conformance.core.model.document import schema

    catalogue = load_catalogue()
    for kind, rows in checks.FIELD_ROWS.items():
        for field, req_id in rows.items():
            assert field in schema(kind.capitalize())["properties"], (kind, field)
            requirement = catalogue.get(req_id)
            assert requirement is not None, req_id
            assert requirement.testable, req_id


_KEYS = ["object", "id", "data", "error", "code", "type", "updated_at", "owner", "tags", "value"]
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=4),
    st.sampled_from(["contact", "deal", "list", "error", "tag", "organization"]),
)
_BODIES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_BODIES, status=st.sampled_from([200, 201, 400, 404, 422, 429, 500]))
def test_any_json_answer_is_judged_never_crashes_a_check(body: Any, status: int) -> None:
    """Whatever JSON a target answers, every check judges it (a failure or nothing),
    never raises anything else: a record whose `object` is a list or an object crashed
    the walk of records, so the test that sent the request became a suite error."""
    for check in checks.registered():
        with contextlib.suppress(ConformanceFailure):
            check.function(response(status, body))
