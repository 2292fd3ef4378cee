"""AdapterClient: typed calls, cached health, and every failure as one AdapterError."""

import json

import httpx
import pytest

from crm_conformance import AdapterError, FeatureMissing
from crm_conformance.adapter.provisioning import AdapterClient

ISSUED = "sk_test_issued.byTheAdapter42"


def adapter(
    features: list[str], answers: dict[str, httpx.Response] | None = None
) -> tuple[AdapterClient, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        key = f"{request.method} {request.url.path}"
        if answers and key in answers:
            return answers[key]
        if key == "GET /_adapter/v1/health":
            return httpx.Response(200, json={"ok": True, "features": features})
        if key == "POST /_adapter/v1/tokens":
            return httpx.Response(
                201, json={"id": "tok_1", "token": ISSUED, "kind": "workspace", "scopes": ["a"]}
            )
        if key == "GET /_adapter/v1/fixtures":
            return httpx.Response(
                200,
                json={
                    "pipelines": [
                        {"id": "pipe_1", "stages": [{"id": "stg_1", "default_probability": 10}]}
                    ],
                    "lost_reasons": ["lrsn_1"],
                    "users": ["usr_1"],
                    "contact_custom_fields": ["k"],
                },
            )
        return httpx.Response(201, json={"id": "x", "echo": json.loads(request.content or b"{}")})

    client = AdapterClient(adapter_url="http://h/_adapter/", transport=httpx.MockTransport(handle))
    return client, seen


def test_health_is_fetched_once_and_features_gate_calls() -> None:
    client, seen = adapter(["records", "tokens"])
    assert client.has("records")
    assert not client.has("campaigns")
    client.create_record(kind="contact", fields={"first_name": "A"})
    with pytest.raises(FeatureMissing, match="does not offer 'campaigns'"):
        client.create_campaign(status="running")
    assert [r.url.path for r in seen].count("/_adapter/v1/health") == 1


def test_issued_tokens_are_typed_and_redacted_from_then_on() -> None:
    client, _ = adapter(["tokens"])
    issued = client.create_token(scopes=["contacts:read"], state="expired")
    assert issued.token == ISSUED
    assert issued.scopes == ("a",)
    assert ISSUED not in json.dumps([e.as_dict() for e in client.log.exchanges])


def test_bodies_leave_out_what_was_not_given() -> None:
    client, seen = adapter(["conversations"])
    client.create_conversation(status="waiting", contact_id=None)
    assert json.loads(seen[-1].content) == {
        "workspace": "primary",
        "status": "waiting",
        "contact_id": None,
    }


def test_fixture_ids_of_a_kind_the_adapter_lists_none_of_are_not_applicable() -> None:
    """A workspace without deal custom fields is legal: the test that needs one is not
    applicable, saying which kind is missing, and never fails."""
    client, _ = adapter(["fixtures"])
    assert client.fixture_ids("users") == ("usr_1",)
    with pytest.raises(FeatureMissing, match="the adapter's fixtures list no deal custom field"):
        client.fixture_ids("deal_custom_fields")


def test_fixtures_are_parsed() -> None:
    client, _ = adapter(["fixtures"])
    fixtures = client.fixtures()
    assert fixtures.pipelines[0].stages[0].default_probability == 10
    assert fixtures.lost_reasons == ("lrsn_1",)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (httpx.Response(500, text="kaboom"), "adapter POST /v1/records answered 500: kaboom"),
        (httpx.Response(201, text="<html>"), "with a body that is not JSON"),
        (httpx.Response(201, json=[1]), "expected a JSON object"),
    ],
)
def test_every_adapter_failure_is_one_adapter_error(answer: httpx.Response, message: str) -> None:
    client, _ = adapter(["records"], {"POST /_adapter/v1/records": answer})
    with pytest.raises(AdapterError, match=message.replace("(", r"\(")):
        client.create_record(kind="contact", fields={})


def test_an_unreachable_adapter_names_adapter_url() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    slept: list[float] = []
    client = AdapterClient(
        adapter_url="http://h/_adapter", transport=httpx.MockTransport(refuse), sleep=slept.append
    )
    with pytest.raises(
        AdapterError,
        match=r"adapter GET /v1/health failed: ConnectError: refused, after dropped "
        r"connection ×3 .*adapter_url",
    ):
        client.has("records")
    assert slept == [0.25, 0.5, 1.0], "the run's retry policy: four tries in all"
    with pytest.raises(AdapterError, match="ConnectError"):
        client.has("campaigns")
    assert slept == [0.25, 0.5, 1.0], "a later test fails at once, without the back-off"


def test_the_adapter_token_is_sent_on_every_request_and_redacted() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/health"):
            return httpx.Response(200, json={"ok": True, "features": ["records"]})
        return httpx.Response(500, text="boom adapter-secret-42 leaked")

    client = AdapterClient(
        adapter_url="http://h/_adapter",
        transport=httpx.MockTransport(handle),
        token="adapter-secret-42",
    )
    with pytest.raises(AdapterError) as raised:
        client.create_record(kind="contact", fields={})
    assert [r.headers.get("Authorization") for r in seen] == ["Bearer adapter-secret-42"] * 2
    assert "adapter-secret-42" not in str(raised.value)
    recorded = json.dumps([e.as_dict() for e in client.log.exchanges])
    assert "adapter-secret-42" not in recorded
    assert "[Filtered]" in recorded


def test_without_an_adapter_token_no_authorization_is_sent() -> None:
    client, seen = adapter(["records"])
    client.create_record(kind="contact", fields={})
    assert all("Authorization" not in r.headers for r in seen)


def _flaky(
    answers: list[httpx.Response | type[httpx.TransportError]],
) -> tuple[AdapterClient, list[httpx.Request], list[float]]:
    """An adapter offering records and fixtures, answering (or failing) each request but
    its health in turn with the next of `answers`."""
    seen: list[httpx.Request] = []
    slept: list[float] = []

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/v1/health"):
            return httpx.Response(200, json={"ok": True, "features": ["records", "fixtures"]})
        seen.append(request)
        answer = answers[len(seen) - 1]
        if isinstance(answer, httpx.Response):
            return answer
        raise answer("cut", request=request)

    client = AdapterClient(
        adapter_url="http://h/_adapter", transport=httpx.MockTransport(handle), sleep=slept.append
    )
    return client, seen, slept


GATEWAY = httpx.Response(502, text="<html>Bad Gateway</html>")
FIXTURES = {"pipelines": [], "lost_reasons": [], "users": ["usr_1"], "contact_custom_fields": []}


def test_a_read_is_sent_again_after_a_gateway_fault_or_a_dropped_connection() -> None:
    client, seen, slept = _flaky([GATEWAY, httpx.ReadError, httpx.Response(200, json=FIXTURES)])
    assert client.fixtures().users == ("usr_1",)
    assert len(seen) == 3
    assert slept == [0.25, 0.5]
    assert [(f.reason, f.retried) for f in client.log.faults] == [
        ("502", True),
        ("dropped connection", True),
    ]


def test_a_post_whose_answer_was_lost_is_not_sent_again() -> None:
    """It may have made the record; a second one would change what a test counts."""
    client, seen, slept = _flaky([httpx.ReadError, httpx.Response(201, json={"id": "x"})])
    with pytest.raises(AdapterError, match="adapter POST /v1/records failed: ReadError"):
        client.create_record(kind="contact", fields={})
    assert len(seen) == 1
    assert slept == []
    assert [(f.reason, f.retried) for f in client.log.faults] == [("dropped connection", False)]


def test_a_post_whose_connection_was_never_made_is_sent_again() -> None:
    client, seen, _ = _flaky([httpx.ConnectError, httpx.Response(201, json={"id": "x"})])
    assert client.create_record(kind="contact", fields={})["id"] == "x"
    assert len(seen) == 2


def test_a_post_answered_503_is_not_sent_again() -> None:
    client, seen, _ = _flaky([httpx.Response(503, text="busy"), httpx.Response(201, json={})])
    with pytest.raises(AdapterError, match="answered 503: busy"):
        client.create_record(kind="contact", fields={})
    assert len(seen) == 1


def test_recordings_nest_and_each_hears_the_features_required_inside() -> None:
    """A kept result's features are required again where it is handed out; nested
    recordings that heard the same features end in order (each ends its own)."""
    client, _ = adapter(["fixtures", "tokens"])
    with client.recording() as outer:
        client.fixtures()
        with client.recording() as inner:
            client.fixtures()
        client.create_token()
    assert inner == {"fixtures"}
    assert outer == {"fixtures", "tokens"}
    with client.recording() as after:
        pass
    assert after == set()
