"""RecordFactory: public API where the document shows the body, the adapter otherwise."""

import json
from collections.abc import Callable
from typing import Any, NoReturn

import httpx
import pytest
from support.fake_target import TOKEN, hexid

from crm_conformance import SetupFailed
from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.core.model.target import Target
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.steps.factories import RecordFactory


class Skipped(Exception):
    pass


def skip(reason: str) -> NoReturn:
    raise Skipped(reason)


def adapter_answer(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    if path.endswith("/health"):
        return httpx.Response(200, json={"ok": True, "features": ["records", "fixtures"]})
    if path.endswith("/fixtures"):
        return httpx.Response(
            200,
            json={
                "pipelines": [
                    {"id": "pipe_a", "stages": [{"id": "stg_a", "default_probability": 5}]}
                ],
                "lost_reasons": [],
                "users": [],
                "contact_custom_fields": [],
            },
        )
    body = json.loads(request.content)
    return httpx.Response(201, json={"id": hexid("con_"), "object": body["kind"], **body["fields"]})


def make(
    api_answer: Callable[[httpx.Request], httpx.Response],
    *,
    adapter_answer: Callable[[httpx.Request], httpx.Response] = adapter_answer,
    with_adapter: bool = True,
    conventions: dict[str, str] | None = None,
) -> tuple[RecordFactory, list[httpx.Request]]:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return api_answer(request)

    api = ApiClient(base_url="http://api", token=TOKEN, transport=httpx.MockTransport(record))
    adapter = AdapterClient(
        adapter_url="http://adapter", transport=httpx.MockTransport(adapter_answer)
    )
    counter = iter(range(100))
    factory = RecordFactory(
        api=api,
        adapter=adapter if with_adapter else None,
        target=Target(base_url="http://api", tokens={"full": TOKEN}, conventions=conventions or {}),
        unique=lambda label: f"cc-run-main-{label}-{next(counter)}",
        skip=skip,
    )
    return factory, sent


def echo(request: httpx.Request) -> httpx.Response:
    return httpx.Response(201, json={"id": hexid("deal_"), **json.loads(request.content)})


def test_a_deal_goes_through_the_public_api_with_fixture_ids_and_a_new_contact() -> None:
    factory, sent = make(echo)
    deal = factory.deal(value=10)
    body: dict[str, Any] = json.loads(sent[0].content)
    assert sent[0].url.path == "/v1/deals"
    assert body["pipeline_id"] == "pipe_a"
    assert body["stage_id"] == "stg_a"
    assert body["contact_id"].startswith("con_")
    assert body["title"].startswith("cc-run-main-deal")
    assert deal["value"] == 10
    assert [kind for kind, _ in factory.created] == ["contact", "deal"]


def test_a_tag_uses_the_catalogue_field_convention_or_skips() -> None:
    factory, sent = make(echo, conventions={"tag_catalogue_field": "kind"})
    factory.tag(kind="deal")
    assert json.loads(sent[0].content)["kind"] == "deal"
    without, _ = make(echo)
    with pytest.raises(Skipped, match="tag_catalogue_field"):
        without.tag()


def test_adapter_data_skips_without_an_adapter() -> None:
    factory, _ = make(echo, with_adapter=False)
    with pytest.raises(Skipped, match="add adapter_url"):
        factory.contact()


def test_a_refused_create_is_a_setup_failure_not_a_conformance_failure() -> None:
    factory, _ = make(lambda request: httpx.Response(422, json={"error": {"code": "x"}}))
    with pytest.raises(SetupFailed, match="POST /v1/activities answered 422"):
        factory.activity(record_id=hexid("con_"))


def dropping_links(request: httpx.Request) -> httpx.Response:
    """The adapter of a target whose contact create ignores `organization_id`."""
    answer = adapter_answer(request)
    if request.url.path.endswith("/records"):
        return httpx.Response(201, json={**answer.json(), "organization_id": None})
    return answer


def retrieved(organization_id: str | None, status: int = 200) -> Callable[..., httpx.Response]:
    def answer(request: httpx.Request) -> httpx.Response:
        contact_id = request.url.path.rsplit("/", 1)[-1]
        body = {"id": contact_id, "object": "contact", "organization_id": organization_id}
        return httpx.Response(status, json=body if status == 200 else {"error": {}})

    return answer


def test_a_link_the_contact_create_dropped_fails_the_links_own_rule() -> None:
    """A test linking a contact to judge a filter or an embed would charge the missing
    link to its own rule; the link's rule ("`organization_id` | string | `org_` id") is
    the one broken, seen on the public retrieve."""
    factory, sent = make(retrieved(None), adapter_answer=dropping_links)
    with pytest.raises(ConformanceFailure) as caught:
        factory.contact(organization_id="org_a")
    assert caught.value.req_id == "CON-015"
    assert sent[0].url.path.startswith("/v1/contacts/con_")


def test_a_link_only_the_adapters_answer_dropped_goes_on_with_the_retrieved_contact() -> None:
    factory, _ = make(retrieved("org_a"), adapter_answer=dropping_links)
    assert factory.contact(organization_id="org_a")["organization_id"] == "org_a"


def test_a_dropped_link_without_a_retrieve_blocks_the_test() -> None:
    factory, _ = make(retrieved(None, status=404), adapter_answer=dropping_links)
    with pytest.raises(SetupFailed, match="organization_id = None, not 'org_a'"):
        factory.contact(organization_id="org_a")


def test_a_contact_holding_its_links_is_not_read_again() -> None:
    factory, sent = make(retrieved(None))
    assert factory.contact(organization_id="org_a")["organization_id"] == "org_a"
    assert sent == []


def test_a_link_given_as_none_is_not_held() -> None:
    """An owner the service chose for a create given none is no dropped link."""
    factory, sent = make(retrieved("org_a"), adapter_answer=dropping_links)
    assert factory.contact(organization_id=None, owner_id=None)["organization_id"] is None
    assert sent == []
