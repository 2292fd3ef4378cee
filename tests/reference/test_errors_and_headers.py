"""The error envelope, the type/status mapping, X-Request-ID and rate-limit headers."""

import re

import pytest
from starlette.testclient import TestClient

from crm_conformance.adapter_kit import ERROR_TYPES
from crm_conformance.reference.rate_limits import RateLimiter, SlidingLog

ENVELOPE_KEYS = {"type", "code", "message", "param", "detail", "documentation_url", "request_id"}


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == ENVELOPE_KEYS
    assert error["code"] == code
    assert error["type"] == ERROR_TYPES.get(status, "api_error")
    assert error["request_id"] == response.headers["X-Request-ID"]
    return error


def test_unknown_route_is_404_envelope(api: TestClient) -> None:
    assert_error(api.get("/v1/nothing-here"), 404, "not_found")


def test_method_not_allowed_is_405_api_error(api: TestClient) -> None:
    response = api.delete("/v1/users")
    assert_error(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]


def test_malformed_json_is_400_bad_request(api: TestClient) -> None:
    response = api.post("/v1/tags", content=b"{nope", headers={"Content-Type": "application/json"})
    assert_error(response, 400, "bad_request")


@pytest.mark.parametrize("body", [b"\x0b", b"\x0c", b" \x0b\n"])
def test_a_body_of_whitespace_json_does_not_know_is_400_bad_request(
    api: TestClient, body: bytes
) -> None:
    """JSON's whitespace is space, tab, line feed and carriage return: a search whose body
    is a vertical tab is not an empty search (the fuzz layer sent one, SRCH-010)."""
    response = api.post(
        "/v1/contacts/search", content=body, headers={"Content-Type": "application/json"}
    )
    assert_error(response, 400, "bad_request")


@pytest.mark.parametrize("body", [b"[1]", b'"text"', b"3", b"NaN"])
def test_non_object_bodies_never_500(api: TestClient, body: bytes) -> None:
    response = api.post("/v1/tags", content=body)
    assert response.status_code in (400, 422)


def test_body_validation_is_422_with_detail(api: TestClient) -> None:
    response = api.post("/v1/tags", json={"name": "", "kind": "planet", "colour": "red"})
    error = assert_error(response, 422, "validation_failed")
    fields = {item["field"] for item in error["detail"]}
    assert fields == {"name", "kind", "colour"}
    assert all(set(item) == {"field", "message", "code"} for item in error["detail"])


def test_query_validation_is_400_validation_failed(api: TestClient) -> None:
    error = assert_error(api.get("/v1/contacts?limit=0"), 400, "validation_failed")
    assert error["param"] == "limit"
    assert error["detail"][0]["field"] == "limit"


def test_path_id_not_matching_pattern_is_400(api: TestClient) -> None:
    assert_error(api.get("/v1/contacts/abc"), 400, "validation_failed")


def test_every_response_has_request_id_and_rate_headers(api: TestClient) -> None:
    seen = set()
    for response in (api.get("/v1/users"), api.get("/v1/nope"), api.post("/v1/tags", json={})):
        assert re.fullmatch(r"req_[0-9a-f]{32}", response.headers["X-Request-ID"])
        seen.add(response.headers["X-Request-ID"])
        limit = int(response.headers["X-RateLimit-Limit"])
        assert 0 <= int(response.headers["X-RateLimit-Remaining"]) <= limit
        assert int(response.headers["X-RateLimit-Reset"]) >= 0
        assert "Retry-After" not in response.headers
    assert len(seen) == 3


def test_rate_limit_answers_429_with_retry_after(make_app, client_for) -> None:
    app = make_app(rate_limit=3, rate_window=60)
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    remaining = [int(client.get("/v1/users").headers["X-RateLimit-Remaining"]) for _ in range(3)]
    assert remaining == [2, 1, 0]
    response = client.get("/v1/users")
    assert_error(response, 429, "rate_limit_exceeded")
    assert int(response.headers["Retry-After"]) >= 1
    other = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['secondary']}"})
    assert other.get("/v1/users").status_code == 200, "limits are per token"


@pytest.mark.parametrize("uptime", [500.7, 964.003, 1016.119, 2040.3, 4090.1, 100.0])
def test_a_fresh_fixed_window_resets_in_exactly_its_length(uptime: float) -> None:
    """A window's first request reads Reset = the window, whatever the clock's value: the
    old `ceil(start + window - now)` read 61 on a 60 s window at these uptimes (each is
    one where `uptime + 60 - uptime` exceeds 60 in floating point, but 100.0)."""
    allowance = RateLimiter(clock=lambda: uptime).count("k", 5, 60)
    assert allowance.reset == 60


def test_the_sliding_log_refills_as_the_oldest_leave_and_rounds_reset_down() -> None:
    now = [100.0]
    log = SlidingLog(clock=lambda: now[0])
    first = log.count("k", 2, 10)
    now[0] += 2.5
    second, refused = log.count("k", 2, 10), log.count("k", 2, 10)
    assert (first.remaining, second.remaining, refused.allowed) == (1, 0, False)
    assert refused.reset == 7
    assert refused.headers()["Retry-After"] == "8"
    now[0] += 7.5  # the first request leaves the window; the second stays
    assert [log.count("k", 2, 10).allowed for _ in range(2)] == [True, False]


@pytest.mark.parametrize(
    ("variant", "window"), [("rate_limit_300_per_minute", "60"), ("sliding_rate_limit", "120")]
)
def test_production_like_variants_limit_tokens_to_300(make_app, variant, window) -> None:
    app = make_app(variants={variant})
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    answer = client.get("/v1/users").headers
    assert (answer["X-RateLimit-Limit"], answer["X-RateLimit-Reset"]) in {
        ("300", window),
        ("300", str(int(window) - 1)),  # the sliding log rounds down
    }
    assert TestClient(app).get("/v1/users").headers["X-RateLimit-Limit"] == "100000"


def test_uuid_request_ids_variant(make_app) -> None:
    app = make_app(variants={"uuid_request_ids"})
    response = TestClient(app).get("/v1/users")
    assert re.fullmatch(r"[0-9a-f-]{36}", response.headers["X-Request-ID"])
    assert response.json()["error"]["request_id"] == response.headers["X-Request-ID"]


def test_missing_request_id_fault(make_app) -> None:
    app = make_app(faults={"missing_request_id_on_errors"})
    assert TestClient(app).get("/v1/users").json()["error"]["request_id"] is None


def test_error_type_wrong_fault(make_app) -> None:
    app = make_app(faults={"error_type_wrong"})
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    assert client.get("/v1/nope").json()["error"]["type"] == "api_error"


def test_unknown_fault_or_variant_is_refused() -> None:
    from crm_conformance.reference import ServerSettings

    with pytest.raises(ValueError, match="bogus"):
        ServerSettings(faults=frozenset({"bogus"}))
    with pytest.raises(ValueError, match="bogus"):
        ServerSettings(variants=frozenset({"bogus"}))


def test_literal_path_is_not_read_as_an_id(api: TestClient) -> None:
    for method, path in (("PATCH", "/v1/contacts/search"), ("GET", "/v1/contacts/upsert")):
        response = api.request(method, path, json={})
        assert_error(response, 405, "method_not_allowed")
        assert response.headers["Allow"] == "POST"
