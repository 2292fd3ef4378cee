"""Token lifecycle: revocation takes effect on the very next request, for both kinds.

Authentication 3: "Revocation is immediate." The adapter issues a token, the token is
answered, the adapter revokes it, and the next request with it is refused (401
`unauthorized`, Authentication 9). Tokens issued already revoked or expired, on every
group of operations, are `test_authentication.py`'s matrix. Every case here is one read
any token with `contacts:read` may make.
"""

import pytest

from crm_conformance import ApiClient
from crm_conformance.steps import RecordFactory, expect_error, expect_status

READ = "/v1/contacts"
KINDS = ("workspace", "oauth")


@pytest.mark.req("AUTH-007", "AUTH-005", "AUTH-001")
@pytest.mark.parametrize("kind", KINDS)
def test_revocation_is_immediate(api: ApiClient, factory: RecordFactory, kind: str) -> None:
    issued = factory.token(kind=kind)
    client = api.with_token(issued.token)
    expect_status(client.get(READ, params={"limit": 1}), "AUTH-001", 200)
    factory.adapter.revoke_token(issued.id)
    expect_error(client.get(READ, params={"limit": 1}), "AUTH-007", status=401, code="unauthorized")
