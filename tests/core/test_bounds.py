"""Bounded exchanges: the target file's `timeout` covers a whole exchange, body included,
and `max_response_bytes` caps a body, for every way the run talks to a target (the
harness client, the adapter client, the setup checks, schemathesis's own requests)."""

from pathlib import Path

import httpx
import pytest
from support.fake_target import TOKEN
from support.unending_target import Kind, serve_unending

from crm_conformance import AdapterError, ExchangeBoundExceeded, TargetFileError
from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.core.model.target import load_target, target_from_data
from crm_conformance.core.transport.bounds import (
    DEFAULT_MAX_RESPONSE_BYTES,
    ExchangeBounds,
    read_bounded,
    requests_kwargs,
)
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.transport.wiring import CircuitBreaker
from crm_conformance.core.verdicts.outcomes import Outcome, classify
from crm_conformance.fuzz import exchange

TIMEOUT = 0.5
"""The tests' target timeout: each answer below would go on for 5 s or more."""
LATE = r"the answer to GET /v1/contacts did not end within 0\.5 s"
TOO_BIG = r"the answer to GET /v1/contacts exceeded 10 MiB"


def api_of(url: str, **options: object) -> ApiClient:
    return ApiClient(base_url=url, token=TOKEN, timeout=TIMEOUT, **options)  # type: ignore[arg-type]  # options passed through as the callee's


def test_the_harness_client_ends_a_trickled_answer_at_the_deadline() -> None:
    with serve_unending("trickle") as url:
        api = api_of(url)
        with pytest.raises(ExchangeBoundExceeded, match=LATE):
            api.get("/v1/contacts")
        api.close()
    # Recorded as a transport fault, and counted by the breaker like one.
    assert api.log.exchanges[-1].error == "ExchangeBoundExceeded on GET /v1/contacts"
    assert api.breaker.consecutive == 1


def test_headers_trickled_byte_by_byte_end_at_the_deadline_too() -> None:
    with serve_unending("slow-headers") as url:
        api = api_of(url)
        with pytest.raises(ExchangeBoundExceeded, match=LATE):
            api.get("/v1/contacts")
        api.close()
        adapter = AdapterClient(adapter_url=url, timeout=TIMEOUT)
        with pytest.raises(AdapterError, match=r"GET /v1/health did not end within 0\.5 s"):
            adapter.features  # noqa: B018  # the property read raises
        adapter.close()


def test_the_harness_client_caps_an_endless_body() -> None:
    with serve_unending("endless") as url:
        api = api_of(url)
        with pytest.raises(ExchangeBoundExceeded, match=TOO_BIG):
            api.get("/v1/contacts")
        api.close()


def test_the_cap_is_the_clients_and_a_body_within_it_reads_whole() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"data": ["x" * 2000]})

    small = ApiClient(
        base_url="http://t",
        token=TOKEN,
        max_response_bytes=1024,
        transport=httpx.MockTransport(answer),
    )
    with pytest.raises(ExchangeBoundExceeded, match=r"GET /v1/contacts exceeded 1024 bytes"):
        small.get("/v1/contacts")
    # ... and tokens made from it keep the bounds.
    kept = small.with_token("other").wiring
    assert ExchangeBounds(kept.timeout, kept.max_response_bytes) == ExchangeBounds(10.0, 1024)
    roomy = ApiClient(base_url="http://t", token=TOKEN, transport=httpx.MockTransport(answer))
    assert len(roomy.get("/v1/contacts").json()["data"][0]) == 2000


def test_a_compressed_answer_read_in_a_stream_is_decoded() -> None:
    import gzip

    body = b'{"data": []}'

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
            stream=httpx.ByteStream(gzip.compress(body)),
        )

    with httpx.Client(transport=httpx.MockTransport(answer)) as http:
        response = read_bounded(
            http, http.build_request("GET", "http://t/v1/contacts"), ExchangeBounds(1)
        )
    assert response.content == body
    assert response.headers["Content-Encoding"] == "gzip"


def test_a_bound_breach_mid_run_is_an_error_not_a_failure_nor_a_stop() -> None:
    classified = classify(ExchangeBoundExceeded("the answer to GET /v1/x did not end within 5 s"))
    assert classified is not None
    assert classified.outcome == Outcome.ERROR
    assert classified.cause.startswith("transport error talking to the target: the answer")
    assert not classified.stops_run  # the circuit breaker stops a run when they go on


def test_bound_breaches_that_go_on_open_the_breaker() -> None:
    with serve_unending("endless", lasts=2) as url:
        api = api_of(url, breaker=CircuitBreaker(2, spread=1))
        for _ in range(2):
            with pytest.raises(ExchangeBoundExceeded):
                api.get("/v1/contacts")
        assert api.breaker.opened is not None
        api.close()


def test_the_adapter_client_turns_a_trickled_answer_into_an_adapter_error() -> None:
    with serve_unending("trickle") as url:
        adapter = AdapterClient(adapter_url=url, timeout=TIMEOUT)
        with pytest.raises(
            AdapterError,
            match=r"adapter GET /v1/health failed: the answer to GET /v1/health did not end",
        ):
            adapter.features  # noqa: B018  # the property read raises
        adapter.close()


@pytest.mark.parametrize(
    ("kind", "said"), [("trickle", "did not end within 0.5 s"), ("endless", "exceeded 10 MiB")]
)
def test_schemathesis_requests_are_bounded_too(kind: Kind, said: str) -> None:
    """The requests schemathesis's own checks send (`ignored_auth`'s probes) take the
    fuzz layer's `transport_kwargs`: its requests transport must honour them."""
    import schemathesis

    raw = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {"/v1/contacts": {"get": {"responses": {"200": {"description": "ok"}}}}},
    }
    schema = schemathesis.openapi.from_dict(raw)
    case = schema["/v1/contacts"]["GET"].Case()
    target = target_from_data(
        {"base_url": "http://unused", "timeout": TIMEOUT, "tokens": {"full": {"value": TOKEN}}},
        origin="test",
    )
    with serve_unending(kind) as url, pytest.raises(ExchangeBoundExceeded, match=said):
        schema.transport.send(case, base_url=url, **exchange.probe_kwargs(target))


def test_requests_bounds_leave_a_whole_answer_as_it_is() -> None:
    import requests

    with serve_unending("endless", lasts=0) as url:
        response = requests.get(
            url + "/v1/contacts", stream=True, **requests_kwargs(ExchangeBounds(2))
        )
    assert response.status_code == 200
    assert response.content == b""


def test_max_response_bytes_is_read_from_the_target_file(tmp_path: Path) -> None:
    base = f'base_url = "http://t"\n[tokens.full]\nvalue = "{TOKEN}"\n'
    path = tmp_path / "t.toml"
    path.write_text(base)
    assert load_target(path=path).max_response_bytes == DEFAULT_MAX_RESPONSE_BYTES == 10 * 2**20
    path.write_text("max_response_bytes = 52428800\n" + base)
    target = load_target(path=path)
    assert target.max_response_bytes == 52428800
    assert target.describe()["max_response_bytes"] == 52428800
    for wrong in ("0", "1023", "1.5e6", "true", '"10MiB"', str(2**30 + 1)):
        path.write_text(f"max_response_bytes = {wrong}\n" + base)
        with pytest.raises(
            TargetFileError, match=r"max_response_bytes = .* must be a whole number of bytes"
        ):
            load_target(path=path)


def test_the_runs_own_probe_ends_at_the_deadline() -> None:
    from crm_conformance.plugin.session import probe

    with serve_unending("trickle") as url:
        target = target_from_data(
            {"base_url": url, "timeout": TIMEOUT, "tokens": {"full": {"value": TOKEN}}},
            origin="test",
        )
        said = probe(target)
    assert said is not None
    assert said.startswith("target unreachable: the answer to GET /v1/me did not end within 0.5 s")
