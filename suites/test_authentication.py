"""Authentication: which tokens the API accepts and how it refuses the others.

The document's rules (Authentication 1-3, 9) are about the `Authorization` header
only. The forms of a token are tried on one read every full-scope token may make
(`GET /v1/contacts`). The refusals of Authentication 9 ("Missing, unknown, revoked or
expired token answers 401 `unauthorized`; an expired OAuth token answers 401
`token_expired`") hold on every endpoint ("All need `Authorization: Bearer
<ACCESS_TOKEN>`"), so they are a matrix: each kind of bad token on every operation, each
`spec/openapi.yaml` describes and each the target file names
(`crm_conformance.steps.operations`: one acceptable call per operation, made once per
module and sent with each token, since every answer is a refusal that changes nothing).
"""

import base64
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient, Target
from crm_conformance.core.model import document
from crm_conformance.steps import (
    RecordFactory,
    error_of,
    expect_error,
    expect_refusal,
    expect_status,
    expect_true,
    operations,
    tokens,
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
    expect_error(response, req_id, status=401, code="unauthorized")


@pytest.mark.req("AUTH-001", "VER-001")
def test_the_token_as_issued_is_accepted(api: ApiClient) -> None:
    """A read under the /v1 prefix answers 200 to the token as issued."""
    response = api.get(READ, params={"limit": 1})
    expect_status(response, "AUTH-001", 200)
    expect_status(response, "VER-001", 200)  # under the /v1 prefix, as every path is


@pytest.mark.req("AUTH-002", "AUTH-003", "AUTH-017")
def test_a_missing_token_is_unauthorized(api: ApiClient) -> None:
    """ "All need `Authorization: Bearer <ACCESS_TOKEN>`": a read without it is refused
    (this needs no adapter; the matrix below tries every group)."""
    _expect_unauthorized("AUTH-003", api.get(READ, token=None))


@dataclass(frozen=True)
class BadToken:
    """A kind of token Authentication 9 refuses, and how."""

    name: str
    kind: str | None
    """`workspace` or `oauth` for a token the adapter issues in `state`; None otherwise."""
    state: str | None
    req: str
    code: str


BAD_TOKENS = (
    BadToken("missing", None, None, "AUTH-003", "unauthorized"),
    BadToken("unknown", None, None, "AUTH-004", "unauthorized"),
    BadToken("revoked workspace", "workspace", "revoked", "AUTH-005", "unauthorized"),
    BadToken("revoked oauth", "oauth", "revoked", "AUTH-005", "unauthorized"),
    BadToken("expired workspace", "workspace", "expired", "AUTH-006", "unauthorized"),
    BadToken("expired oauth", "oauth", "expired", "OAUTH-006", "token_expired"),
)
GUARDED: tuple[document.DescribedOperation | operations.NamedOperation, ...] = (
    *document.operations(),
    *operations.NAMED,
)
"""Every operation: each the description shows, then each the target file may name (a
revoked or expired token let through by one router's own guard shows on that router
alone)."""


def _unknown_token() -> str:
    """A well-formed workspace token no server issued: fresh random segments."""

    def segment(size: int) -> str:
        return base64.urlsafe_b64encode(secrets.token_bytes(size)).decode().rstrip("=")

    return f"sk_test_{segment(12)}.{segment(32)}"


class Refusals:
    """The bad tokens and the calls of one module, each made once on first use."""

    def __init__(self, adapter: AdapterClient) -> None:
        self.minted = tokens.Minted(adapter)
        self._unknown = _unknown_token()
        self._calls: dict[str, operations.Call] = {}

    def token(self, bad: BadToken) -> str | None:
        if bad.kind is None:
            return None if bad.name == "missing" else self._unknown
        return self.minted.token(kind=bad.kind, state=bad.state)

    def call(
        self,
        operation: document.DescribedOperation | operations.NamedOperation,
        maker: operations.Maker,
    ) -> operations.Call:
        if operation.operation_id not in self._calls:
            self._calls[operation.operation_id] = operations.call_of(operation, maker)
        return self._calls[operation.operation_id]


@pytest.fixture(scope="module")
def refusals(adapter: AdapterClient) -> Refusals:
    return Refusals(adapter)


def _matrix() -> list[object]:
    return [
        pytest.param(
            operation,
            bad,
            id=f"{operation.operation_id} {bad.name}",
            marks=pytest.mark.req(bad.req, "AUTH-002"),
        )
        for operation in GUARDED
        for bad in BAD_TOKENS
    ]


@pytest.mark.req("AUTH-017")
@pytest.mark.parametrize(("operation", "bad"), _matrix())
def test_a_bad_token_is_refused_on_every_operation(
    api: ApiClient,
    refusals: Refusals,
    maker: operations.Maker,
    operation: document.DescribedOperation | operations.NamedOperation,
    bad: BadToken,
) -> None:
    """401 with the code Authentication 9 gives the token's kind, on a call that is
    otherwise acceptable (a write with a body the target accepts)."""
    call = refusals.call(operation, maker)
    response = call.send(api, token=refusals.token(bad))
    # the token's own rule, then the general ones: the endpoint needs its token, and a
    # 401 says one of the two 401 codes (predicates: each broken one is charged)
    expect_refusal(response, bad.req, status=401, code=bad.code)
    expect_true(
        response,
        "AUTH-002",
        response.status_code == 401,
        expected="401: the endpoint needs a valid bearer token",
        got=f"{response.status_code}",
    )
    code = error_of(response).get("code")
    expect_true(
        response,
        "AUTH-017",
        response.status_code != 401 or code in ("unauthorized", "token_expired"),
        expected="a 401's code unauthorized or token_expired",
        got=f"error.code = {code!r}",
    )


def _swapcase_part(token: str, part: int) -> str:
    """`token` with the letter case of one part changed, its prefix and the other part
    as issued: the selector (0) or the verifier (1) of `<prefix><selector>.<verifier>`
    (a token without a dot has its one part after the prefix changed)."""
    pieces = token.split("_", 2)
    if len(pieces) < 3:
        return token
    first, second, rest = pieces
    parts = rest.split(".", 1)
    if part < len(parts):
        parts[part] = parts[part].swapcase()
    return f"{first}_{second}_{'.'.join(parts)}"


def _changed_inside(token: str) -> str:
    """`token` with one character of its verifier changed, five from the end: a whole
    base64url digit, where the last one of a 32-byte verifier carries two bits no
    decoder reads (`...A` and `...B` decode alike)."""
    at = len(token) - 5
    return token[:at] + ("A" if token[at] != "A" else "B") + token[at + 1 :]


ALTERED: dict[str, tuple[Callable[[str], str], str]] = {
    "verifier changed": (_changed_inside, "AUTH-008"),
    "trailing character": (lambda token: token + "x", "AUTH-008"),
    "case changed": (lambda token: token.swapcase(), "AUTH-008"),
    "selector case changed": (lambda token: _swapcase_part(token, 0), "AUTH-008"),
    "verifier case changed": (lambda token: _swapcase_part(token, 1), "AUTH-008"),
    "unknown selector": (
        lambda token: token.split("_", 2)[0] + "_test_AAAAAAAA.BBBBBBBB",
        "AUTH-004",
    ),
}
"""Each change of the issued token, and the rule refusing it: the token as issued,
altered ("must be sent exactly as issued", AUTH-008), or one no server issued (AUTH-004)."""


@pytest.mark.parametrize(
    "change",
    [pytest.param(name, marks=pytest.mark.req(ALTERED[name][1])) for name in sorted(ALTERED)],
)
def test_a_token_not_sent_exactly_as_issued_is_unauthorized(api: ApiClient, change: str) -> None:
    assert api.token, "the api fixture always carries tokens.full"
    alter, req_id = ALTERED[change]
    altered = alter(api.token)
    if altered == api.token:
        pytest.skip(f"{change}: the issued token has no letter there to change")
    _expect_unauthorized(req_id, api.get(READ, token=altered))


WITHOUT_BEARER = {
    "another scheme": "Token {token}",
    "no scheme": "{token}",
    "basic": "Basic {token}",
}
"""`Authorization` values carrying the token without the Bearer scheme."""


@pytest.mark.req("AUTH-001", "AUTH-004")
@pytest.mark.parametrize("form", list(WITHOUT_BEARER))
def test_a_token_without_the_bearer_scheme_is_unauthorized(api: ApiClient, form: str) -> None:
    """ "`Authorization: Bearer <ACCESS_TOKEN>`": the token under another scheme, or bare,
    is no bearer token, so the request carries none (401 `unauthorized`)."""
    assert api.token
    value = WITHOUT_BEARER[form].format(token=api.token)
    response = api.get(READ, token=None, headers={"Authorization": value})
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
            "AUTH-009",
            re.fullmatch(r"sk_(?:live|test)_[^.]+\.[^.]+", token) is not None,
            expected="sk_<env>_<selector>.<verifier>",
            got=_shape(token),
        )
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
