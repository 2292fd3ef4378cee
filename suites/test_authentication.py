"""Authentication: which tokens the API accepts and how it refuses the others.

The document's rules (Authentication 1-3, 9) are about the `Authorization` header
only, so every case here is one request to a read every full-scope token may make
(`GET /v1/contacts`) with a different header; the answer must be 401
`unauthorized` with the error envelope, or 2xx for the token as issued.
"""

import re
from collections.abc import Callable

import httpx
import pytest

from crm_conformance import (
    ApiClient,
    ConformanceFailure,
    RecordFactory,
    Target,
    expect_true,
    run_checks,
)

READ = "/v1/contacts"
WORKSPACE_TOKEN = re.compile(r"sk_(?:live|test)_[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]+={0,2}")
"""`sk_live_<selector>.<verifier>` (or `sk_test_`), both segments base64url (RFC 4648 §5,
whose padding `=` may be kept or dropped)."""


def _shape(token: str) -> str:
    """What a token looks like without its secret: its first 8 characters are the
    `sk_test_` or `sk_live_` prefix at most, never the selector or verifier."""
    return f"a token starting {token[:8]!r}, {len(token)} characters, {token.count('.')} dot(s)"


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


@pytest.mark.req("AUTH-009", "AUTH-011")
def test_workspace_tokens_are_a_selector_and_a_verifier_joined_by_a_dot(
    target: Target, factory: RecordFactory
) -> None:
    """The run's own token when it is a workspace token (`sk_`), and one the adapter
    issues: each as issued by the target, so each shows the form the document gives."""
    issued = factory.token(kind="workspace").token
    full = target.token("full")
    for token in (issued, *([full] if full and full.startswith("sk_") else [])):
        expect_true(
            None,
            "AUTH-011",
            WORKSPACE_TOKEN.fullmatch(token) is not None,
            expected="sk_live_ or sk_test_, then <selector>.<verifier> in base64url",
            got=_shape(token),
        )


@pytest.mark.req("AUTH-010")
def test_a_non_production_workspace_token_starts_sk_test(factory: RecordFactory) -> None:
    """The adapter issues tokens of the test deployment beside it (`live` not asked)."""
    token = factory.token(kind="workspace").token
    expect_true(
        None,
        "AUTH-010",
        token.startswith("sk_test_"),
        expected="a non-production workspace token starting sk_test_",
        got=_shape(token),
    )
