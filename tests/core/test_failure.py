"""ConformanceFailure prints the fixed format of STYLE.md, with the token as $TOKEN."""

import httpx
from support.fake_target import TOKEN

from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.verdicts.failure import ConformanceFailure


def test_the_fixed_format() -> None:
    api = ApiClient(
        base_url="http://127.0.0.1:8000",
        token=TOKEN,
        transport=httpx.MockTransport(lambda r: httpx.Response(200, json={"links": {"next": "c"}})),
    )
    response = api.get("/v1/contacts", params={"limit": 2})
    failure = ConformanceFailure(
        "PAG-004",
        expected="links.next null when meta.has_more is false",
        got='links.next = "c"',
        response=response,
    )
    assert str(failure).splitlines() == [
        "PAG-004  Sets links.next to null on the last page",
        "  Section:  Resources and their fields › Conventions",
        "  Request:  GET /v1/contacts?limit=2  -> 200",
        "  Expected: links.next null when meta.has_more is false",
        '  Got:      links.next = "c"',
        "Reproduce with:",
        "  curl 'http://127.0.0.1:8000/v1/contacts?limit=2' -H \"Authorization: Bearer $TOKEN\"",
    ]
    assert isinstance(failure, AssertionError)


def test_a_post_reproduces_with_its_body_and_the_exchange() -> None:
    api = ApiClient(
        base_url="http://h",
        token=TOKEN,
        transport=httpx.MockTransport(lambda r: httpx.Response(500, json={})),
    )
    api.post("/v1/deals", json={"title": "it's"}, headers={"Idempotency-Key": "k1"})
    failure = ConformanceFailure(
        "DEAL-999", expected="201", got="500", exchange=api.log.exchanges[-1]
    )
    text = str(failure)
    assert "DEAL-999  (not in the catalogue)" in text
    assert "Request:  POST /v1/deals  -> 500" in text
    assert "-X POST 'http://h/v1/deals'" in text
    assert "-H 'Idempotency-Key: k1'" in text
    assert '--data-raw \'{"title": "it\'"\'"\'s"}\'' in text
    assert TOKEN not in text


def test_a_token_in_got_is_filtered() -> None:
    failure = ConformanceFailure("PAG-004", expected="x", got=f"token {TOKEN}")
    assert TOKEN not in str(failure)
    assert "Request:  (none)" in str(failure)
