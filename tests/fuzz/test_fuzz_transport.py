"""What schemathesis sends itself goes through the harness client's policy."""

import httpx
from schemathesis.specs.openapi.checks import ignored_auth
from support.fake_target import TOKEN, FakeClock, conformant, error_body, rate_headers, serve

from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.transport.pacing import Pacer
from crm_conformance.fuzz import exchange, loader, transport


def test_a_429_on_an_ignored_auth_probe_is_waited_out_not_judged() -> None:
    """The probe without credentials meets a limiter's 429 once: the harness waits its
    Retry-After and sends it again; the check then sees the 401, and passes."""
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        probes = [r for r in seen if "Authorization" not in r.headers]
        if "Authorization" not in request.headers and len(probes) == 1:
            body = error_body("rate_limit_error", "rate_limit_exceeded", request_id="r")
            return httpx.Response(429, json=body, headers={**rate_headers(), "Retry-After": "1"})
        return conformant(request)

    clock = FakeClock()
    case = loader.load()["/v1/me"]["GET"].Case()
    with serve(handle) as base_url:
        api = ApiClient(
            base_url=base_url, token=TOKEN, sleep=clock.sleep, pacer=Pacer(clock=clock.now)
        )
        response = api.get("/v1/me")
        with transport.sent_through(api):
            case.validate_response(
                exchange.as_schemathesis(response),
                checks=[ignored_auth],
                headers=dict(response.request.headers),
            )
    probes = [r for r in seen if "Authorization" not in r.headers]
    assert len(probes) == 2, "the 429 probe is sent again"
    assert clock.slept == [1.0]
    assert transport.TRANSPORT.client is None, "the harness client is the transport's only inside"
