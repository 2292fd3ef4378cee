"""Authentication: which tokens the API accepts and how it refuses the others.

The document's rules (Authentication 1-3, 9) are about the `Authorization` header
only, so every case here is one request to a read every full-scope token may make
(`GET /v1/contacts`) with a different header; the answer must be 401
`unauthorized` with the error envelope, or 2xx for the token as issued.
"""

from collections.abc import Callable

import httpx
import pytest

from crm_conformance.checks import run_checks
from crm_conformance.client import ApiClient
from crm_conformance.failure import ConformanceFailure

READ = "/v1/contacts"


def _expect_unauthorized(req_id: str, response: httpx.Response) -> None:
    run_checks(response)
    code = response.json().get("error", {}).get("code") if response.status_code == 401 else None
    if response.status_code != 401 or code != "unauthorized":
        raise ConformanceFailure(
            req_id,
            expected="401 with error.code 'unauthorized'",
            got=f"{response.status_code} {response.text[:200]}",
            response=response,
        )


@pytest.mark.req("AUTH-001", "AUTH-002", "AUTH-008")
def test_the_token_as_issued_is_accepted(api: ApiClient) -> None:
    response = api.get(READ, params={"limit": 1})
    run_checks(response)
    if response.status_code != 200:
        raise ConformanceFailure(
            "AUTH-001",
            expected="200 for the full-scope token sent as issued",
            got=f"{response.status_code} {response.text[:200]}",
            response=response,
        )


@pytest.mark.req("AUTH-003", "AUTH-017")
def test_a_missing_token_is_unauthorized(api: ApiClient) -> None:
    _expect_unauthorized("AUTH-003", api.get(READ, token=None))


ALTERED: dict[str, Callable[[str], str]] = {
    "verifier changed": lambda token: token[:-1] + ("A" if token[-1] != "A" else "B"),
    "trailing character": lambda token: token + "x",
    "unknown selector": lambda token: token.split("_", 2)[0] + "_test_AAAAAAAA.BBBBBBBB",
    "case changed": lambda token: token.swapcase(),
}


@pytest.mark.req("AUTH-004", "AUTH-008")
@pytest.mark.parametrize("change", sorted(ALTERED))
def test_a_token_not_sent_exactly_as_issued_is_unauthorized(api: ApiClient, change: str) -> None:
    assert api.token, "the api fixture always carries tokens.full"
    _expect_unauthorized("AUTH-004", api.get(READ, token=ALTERED[change](api.token)))


@pytest.mark.req("AUTH-001", "AUTH-004")
def test_a_token_without_the_bearer_scheme_is_unauthorized(api: ApiClient) -> None:
    assert api.token
    response = api.get(READ, token=None, headers={"Authorization": f"Token {api.token}"})
    _expect_unauthorized("AUTH-004", response)
