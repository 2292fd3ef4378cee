"""Token lifecycle: revoked and expired tokens, of both kinds, are refused with 401.

Authentication 3 and 9: "Revocation is immediate"; "Missing, unknown, revoked or
expired token answers 401 `unauthorized`; an expired OAuth token answers 401
`token_expired`." Missing and altered tokens are `test_authentication.py`'s; here the
adapter issues tokens already revoked or expired, and revokes a token in use. Every
case is one read any token with `contacts:read` may make.
"""

import pytest

from crm_conformance import ApiClient, RecordFactory, expect_error, expect_status

READ = "/v1/contacts"
KINDS = ("workspace", "oauth")


@pytest.mark.req("AUTH-005", "AUTH-003")
@pytest.mark.parametrize("kind", KINDS)
def test_a_revoked_token_is_unauthorized(api: ApiClient, factory: RecordFactory, kind: str) -> None:
    issued = factory.token(kind=kind, state="revoked")
    response = api.with_token(issued.token).get(READ, params={"limit": 1})
    expect_error(response, "AUTH-005", status=401, code="unauthorized")


@pytest.mark.req("AUTH-007", "AUTH-005")
@pytest.mark.parametrize("kind", KINDS)
def test_revocation_is_immediate(api: ApiClient, factory: RecordFactory, kind: str) -> None:
    issued = factory.token(kind=kind)
    client = api.with_token(issued.token)
    expect_status(client.get(READ, params={"limit": 1}), "AUTH-001", 200)
    factory.adapter.revoke_token(issued.id)
    expect_error(client.get(READ, params={"limit": 1}), "AUTH-007", status=401, code="unauthorized")


@pytest.mark.req("AUTH-006")
def test_an_expired_workspace_token_is_unauthorized(api: ApiClient, factory: RecordFactory) -> None:
    issued = factory.token(kind="workspace", state="expired")
    response = api.with_token(issued.token).get(READ, params={"limit": 1})
    expect_error(response, "AUTH-006", status=401, code="unauthorized")


@pytest.mark.req("OAUTH-006", "AUTH-017")
def test_an_expired_oauth_token_answers_token_expired(
    api: ApiClient, factory: RecordFactory
) -> None:
    issued = factory.token(kind="oauth", state="expired")
    response = api.with_token(issued.token).get(READ, params={"limit": 1})
    expect_error(response, "OAUTH-006", status=401, code="token_expired")
