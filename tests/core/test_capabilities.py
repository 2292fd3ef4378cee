"""Capabilities come from the target where it says, from the target file otherwise."""

import httpx
from support.fake_target import TOKEN

from crm_conformance.core.model.capabilities import discover
from crm_conformance.core.model.target import Target
from crm_conformance.core.transport.client import ApiClient


def client(answers: dict[str, httpx.Response]) -> ApiClient:
    def handle(request: httpx.Request) -> httpx.Response:
        return answers.get(request.url.path, httpx.Response(404, json={}))

    return ApiClient(base_url="http://t", token=TOKEN, transport=httpx.MockTransport(handle))


TARGET = Target(
    base_url="http://t",
    tokens={"full": TOKEN},
    declared_scopes={"full": frozenset({"deals:read"})},
    write_policy={"contacts": False},
)


def test_the_target_answers_and_the_source_says_so() -> None:
    api = client(
        {
            "/v1/me": httpx.Response(200, json={"data": {"scopes": ["contacts:read"]}}),
            "/v1/capabilities": httpx.Response(
                200, json={"entities": {"contacts": {"local_write": True}, "deals": False}}
            ),
        }
    )
    found = discover(target=TARGET, clients={"full": api})
    assert found.scopes == {"full": frozenset({"contacts:read"})}
    assert found.scopes_source == {"full": "GET /v1/me"}
    assert found.write_policy == {"contacts": True, "deals": False}
    assert found.write_policy_source == "GET /v1/capabilities"


def test_unreadable_answers_fall_back_to_the_target_file() -> None:
    found = discover(target=TARGET, clients={"full": client({})})
    assert found.scopes == {"full": frozenset({"deals:read"})}
    assert found.scopes_source == {"full": "target file (tokens.full.scopes)"}
    assert found.write_policy == {"contacts": False}
    assert found.write_policy_source == "target file ([write_policy])"
    bare = Target(base_url="http://t", tokens={"full": TOKEN})
    assert discover(target=bare, clients={"full": client({})}).describe()["scopes"] == {
        "full": None
    }


def test_a_space_separated_scope_string_is_read_as_the_scopes() -> None:
    api = client(
        {"/v1/me": httpx.Response(200, json={"active": True, "scope": "contacts:read deals:write"})}
    )
    found = discover(target=TARGET, clients={"full": api})
    assert found.scopes == {"full": frozenset({"contacts:read", "deals:write"})}
