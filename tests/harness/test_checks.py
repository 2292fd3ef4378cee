"""Each registered check passes a conforming response and fails a broken one, with its id."""

import copy
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fake_target import TOKEN, contact, error_body, hexid, rate_headers

from crm_conformance import checks
from crm_conformance.failure import ConformanceFailure

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
) -> httpx.Response:
    request = httpx.Request(
        method, "http://t" + path, params=params, headers={"Authorization": f"Bearer {TOKEN}"}
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


GOOD = [
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
    "error_type_matches_status": error(404, "api_error"),
    "always_present_fields": response(
        200, {"object": "contact", "id": hexid("con_"), "status": "open"}, path="/v1/contacts/x"
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
    "collection_envelope": mutate(response(200, collection()), lambda b: b.pop("links")),
    "has_more_matches_next": mutate(
        response(200, collection()), lambda b: b["links"].update(next="cursor")
    ),
    "page_within_limit": response(200, collection(limit=20), params={"limit": "5"}),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_check_fails_its_broken_response(case: str) -> None:
    name = case if case in {c.name for c in checks.registered()} else case.rsplit("_", 1)[0]
    registered = checks.get(name)
    with pytest.raises(ConformanceFailure) as caught:
        registered.function(BAD[case])
    assert caught.value.req_id in registered.requirements


def test_every_registered_check_has_a_broken_case() -> None:
    names = {c.name for c in checks.registered()}
    covered = {case if case in names else case.rsplit("_", 1)[0] for case in BAD}
    assert covered == names


def test_run_checks_raises_the_first_failure() -> None:
    with pytest.raises(ConformanceFailure) as caught:
        checks.run_checks(drop_header("X-Request-ID"))
    assert caught.value.req_id == checks.get("request_id_header").requirements[0]


def test_registering_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        checks.check("ERR-001", name="error_envelope")(lambda response: None)
