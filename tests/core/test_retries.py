"""Transport faults against ApiClient: what is retried, what is judged, when it gives up."""

from collections.abc import Callable, Iterator

import httpx
import pytest
from support.fake_target import TOKEN, FakeClock, conformant, error_body, rate_headers

from crm_conformance import TargetUnavailable
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.transport.pacing import Pacer
from crm_conformance.core.transport.retries import KEY_HEADER, Fault

GATEWAY_PAGE = "<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"

Answer = Callable[[httpx.Request], httpx.Response]


def scripted(*first: Answer) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    """Answers with `first` in turn, then as a conforming server; keeps every request."""
    seen: list[httpx.Request] = []
    answers: Iterator[Answer] = iter(first)

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = next(answers, None)
        return (answer or _created)(request)

    return httpx.MockTransport(handle), seen


def _created(request: httpx.Request) -> httpx.Response:
    if request.method == "POST":
        return httpx.Response(201, json={"id": "tag_1"}, headers=rate_headers())
    return conformant(request)


def html(status: int, **headers: str) -> Answer:
    return lambda request: httpx.Response(
        status, text=GATEWAY_PAGE, headers={"Content-Type": "text/html", **headers}
    )


def envelope(status: int) -> Answer:
    body = error_body("api_error", "internal_error", request_id="req_1")
    return lambda request: httpx.Response(status, json=body, headers=rate_headers())


def dropped(request: httpx.Request) -> httpx.Response:
    raise httpx.RemoteProtocolError("peer closed connection", request=request)


def client(transport: httpx.MockTransport) -> tuple[ApiClient, list[float]]:
    clock = FakeClock()
    api = ApiClient(
        base_url="http://target",
        token=TOKEN,
        transport=transport,
        sleep=clock.sleep,
        pacer=Pacer(clock=clock.now),
    )
    return api, clock.slept


def test_a_gateway_page_on_a_read_is_retried_after_a_backoff() -> None:
    transport, seen = scripted(html(502))
    api, slept = client(transport)
    assert api.get("/v1/me").status_code == 200
    assert len(seen) == 2
    assert slept == [api.wiring.retry.backoff(0)]
    assert api.log.faults == [Fault("502", retried=True)]


@pytest.mark.parametrize("status", [500, 502, 504])
def test_the_services_own_error_is_judged_never_retried(status: int) -> None:
    transport, seen = scripted(envelope(status))
    api, slept = client(transport)
    assert api.get("/v1/me").status_code == status
    assert len(seen) == 1
    assert not slept
    assert not api.log.faults


def test_a_503_is_retried_after_its_retry_after() -> None:
    transport, seen = scripted(html(503, **{"Retry-After": "3"}))
    api, slept = client(transport)
    assert api.get("/v1/me").status_code == 200
    assert slept == [3.0]
    assert len(seen) == 2


def test_a_dropped_connection_on_a_read_is_retried() -> None:
    transport, _ = scripted(dropped, html(504))
    api, _ = client(transport)
    assert api.get("/v1/me").status_code == 200
    assert [f.reason for f in api.log.faults] == ["dropped connection", "504"]


def test_a_write_gets_a_fresh_key_and_is_retried_with_it() -> None:
    transport, seen = scripted(html(502))
    api, _ = client(transport)
    assert api.post("/v1/tags", json={"name": "a"}).status_code == 201
    keys = [request.headers.get(KEY_HEADER) for request in seen]
    assert len(keys) == 2
    assert keys[0]
    assert keys[0] == keys[1]
    other, _ = client(scripted()[0])
    assert other.post("/v1/tags", json={}).request.headers[KEY_HEADER] != keys[0]


def test_a_key_the_test_sets_is_kept_and_its_write_never_sent_twice() -> None:
    """Sent again after a gateway timed out, the first answer the test sees could be a
    replay: an idempotency test keeps full control of its keyed writes."""
    transport, seen = scripted(html(504))
    api, _ = client(transport)
    with pytest.raises(TargetUnavailable, match="not safe to repeat"):
        api.post("/v1/tags", json={}, headers={"idempotency-key": "mine"})
    assert [r.headers.get_list(KEY_HEADER) for r in seen] == [["mine"]]


def test_a_write_sent_without_a_key_on_purpose_is_never_sent_twice() -> None:
    transport, seen = scripted(html(502))
    api, _ = client(transport)
    with pytest.raises(TargetUnavailable, match="POST without an Idempotency-Key"):
        api.post("/v1/tags", json={}, idempotency_key=None)
    assert len(seen) == 1
    assert KEY_HEADER not in seen[0].headers
    assert api.log.faults == [Fault("502", retried=False)]


def test_reads_are_never_given_a_key() -> None:
    transport, seen = scripted()
    api, _ = client(transport)
    api.get("/v1/me")
    assert KEY_HEADER not in seen[0].headers


def test_spent_retries_make_the_target_unavailable() -> None:
    transport, seen = scripted(*[html(502)] * 10)
    api, slept = client(transport)
    with pytest.raises(TargetUnavailable, match=r"GET /v1/me met 502 ×4 in 4 tries"):
        api.get("/v1/me")
    assert len(seen) == api.wiring.retry.attempts == 4
    assert slept == [api.wiring.retry.backoff(n) for n in range(3)]


def test_a_retried_write_meeting_its_own_first_attempt_in_flight_waits_it_out() -> None:
    def in_flight(request: httpx.Request) -> httpx.Response:
        body = error_body("conflict_error", "idempotency_key_in_flight", request_id="r")
        return httpx.Response(409, json=body, headers=rate_headers())

    transport, seen = scripted(html(504), in_flight)
    api, _ = client(transport)
    assert api.post("/v1/tags", json={}).status_code == 201
    assert len(seen) == 3


def test_a_409_in_flight_to_a_first_attempt_is_the_services_answer() -> None:
    def in_flight(request: httpx.Request) -> httpx.Response:
        body = error_body("conflict_error", "idempotency_key_in_flight", request_id="r")
        return httpx.Response(409, json=body, headers=rate_headers())

    transport, seen = scripted(in_flight)
    api, _ = client(transport)
    assert api.post("/v1/tags", json={}).status_code == 409
    assert len(seen) == 1


def test_a_key_given_as_data_is_sent_and_its_write_may_be_sent_again() -> None:
    """The fuzz layer's generated key (`idempotency_key=`) is no test's assertion."""
    transport, seen = scripted(html(502))
    api, _ = client(transport)
    assert api.post("/v1/tags", json={}, idempotency_key="0").status_code == 201
    assert [r.headers.get(KEY_HEADER) for r in seen] == ["0", "0"]
    transport, seen = scripted(html(502))
    api, _ = client(transport)
    with pytest.raises(TargetUnavailable):  # an empty key keys nothing
        api.post("/v1/tags", json={}, idempotency_key=" ")
