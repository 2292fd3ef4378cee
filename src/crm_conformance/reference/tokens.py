"""Access tokens: workspace tokens (`sk_test_` / `sk_live_`) and person-bound OAuth tokens.

A token is `<prefix><selector>.<verifier>`, both base64url. Only the selector and an
HMAC of the verifier are stored (peppered with the server secret), so a lost token
cannot be recovered; the verifier is compared in constant time. The adapter issues
tokens with chosen scopes and state through `issue_token` and `revoke_token`.
"""

import base64
import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.clock import now_stamp
from crm_conformance.reference.identifiers import new_id
from crm_conformance.reference.scopes import ALL_SCOPES
from crm_conformance.reference.storage import Transaction

TokenKind = Literal["workspace", "oauth"]
TokenState = Literal["active", "expired", "revoked"]

_TOKEN = re.compile(
    r"(?P<prefix>sk_(?:live|test)_|oat_(?:live|test)_)"
    r"(?P<selector>[A-Za-z0-9_-]{8,64})\.(?P<verifier>[A-Za-z0-9_-]{16,128})"
)


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: a token of a workspace, maybe bound to a person."""

    token_id: str
    workspace: str
    kind: TokenKind
    user_id: str | None
    """The authorizing person of an OAuth token; None for a workspace token."""
    scopes: frozenset[str]
    rate_limit: tuple[int, int] | None
    """(limit, window seconds) for this token, or None for the server's budget."""


@dataclass(frozen=True)
class IssuedToken:
    """A newly issued token: its secret value is shown here once and never again."""

    id: str
    token: str
    kind: TokenKind
    scopes: tuple[str, ...]


def _segment(size: int) -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(size)).decode().rstrip("=")


def _verifier_hash(secret: bytes, verifier: str) -> str:
    return hmac.new(secret, verifier.encode(), hashlib.sha256).hexdigest()


def issue_token(
    tx: Transaction,
    secret: bytes,
    *,
    workspace: str,
    kind: TokenKind = "workspace",
    scopes: tuple[str, ...] | None = None,
    user_id: str | None = None,
    state: TokenState = "active",
    live: bool = False,
    rate_limit: tuple[int, int] | None = None,
) -> IssuedToken:
    """Store a new token (all scopes unless given) and return its value."""
    chosen = ALL_SCOPES if scopes is None else tuple(scopes)
    unknown = sorted(set(chosen) - set(ALL_SCOPES))
    if unknown:
        raise ValueError(f"unknown scope(s): {unknown}")
    if kind == "oauth" and user_id is None:
        raise ValueError("an OAuth token needs user_id")
    prefix = ("sk_" if kind == "workspace" else "oat_") + ("live_" if live else "test_")
    selector, verifier = _segment(12), _segment(32)
    token_id = new_id("token")
    tx.execute(
        "INSERT INTO tokens (id, workspace, selector, verifier_hash, kind, user_id, scopes,"
        " state, expires_at, live, rate_limit, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            token_id,
            workspace,
            selector,
            _verifier_hash(secret, verifier),
            kind,
            user_id if kind == "oauth" else None,
            json.dumps(list(chosen)),
            state,
            None,
            int(live),
            json.dumps(list(rate_limit)) if rate_limit else None,
            now_stamp(),
        ),
    )
    return IssuedToken(token_id, f"{prefix}{selector}.{verifier}", kind, chosen)


_SELECTOR_END = len("sk_test_") + 16
"""Where a workspace token's selector ends: its prefix, then 12 bytes in base64url."""


def issued_form(token: str, faults: Collection[str]) -> str:
    """`token` as a server with a token-form fault writes it (the faults
    token_segments_joined_by_underscore, test_tokens_prefixed_live,
    oauth_tokens_prefixed_oauth); `stored_form` reads it back."""
    if "token_segments_joined_by_underscore" in faults and token.startswith("sk_"):
        token = f"{token[:_SELECTOR_END]}_{token[_SELECTOR_END + 1 :]}"
    if "test_tokens_prefixed_live" in faults and token.startswith("sk_test_"):
        token = "sk_live_" + token.removeprefix("sk_test_")
    if "oauth_tokens_prefixed_oauth" in faults and token.startswith("oat_"):
        token = "oauth_" + token.removeprefix("oat_")
    return token


def stored_form(token: str, faults: Collection[str]) -> str:
    """The token `issued_form` wrote, as the store knows it (others unchanged)."""
    if "oauth_tokens_prefixed_oauth" in faults and token.startswith("oauth_"):
        token = "oat_" + token.removeprefix("oauth_")
    if "test_tokens_prefixed_live" in faults and token.startswith("sk_live_"):
        token = "sk_test_" + token.removeprefix("sk_live_")
    joined = token[_SELECTOR_END : _SELECTOR_END + 1] == "_"
    if "token_segments_joined_by_underscore" in faults and token.startswith("sk_") and joined:
        token = f"{token[:_SELECTOR_END]}.{token[_SELECTOR_END + 1 :]}"
    if "token_trailing_characters_ignored" in faults and token.startswith("sk_"):
        head, dot, verifier = token.partition(".")  # read to the issued length, no further
        token = f"{head}{dot}{verifier[:_VERIFIER_LENGTH]}"
    return token


_VERIFIER_LENGTH = len(_segment(32))
"""Characters of an issued verifier (32 random bytes in unpadded base64url)."""


def revoke_token(tx: Transaction, token_id: str) -> bool:
    """Revoke a token at once; False when there is no such token."""
    cursor = tx.execute("UPDATE tokens SET state = 'revoked' WHERE id = ?", (token_id,))
    return cursor.rowcount > 0


def authenticate(
    tx: Transaction,
    secret: bytes,
    authorization: str | None,
    *,
    honour_revocation: bool = True,
    check_verifier: bool = True,
    honour_workspace_expiry: bool = True,
    revoked_forbidden: bool = False,
    selector_case_folded: bool = False,
) -> Principal:
    """The principal of an `Authorization: Bearer ...` header, or 401.

    Missing, malformed, unknown, revoked or expired tokens answer `unauthorized`; an
    expired OAuth token answers `token_expired`.
    """
    if not authorization:
        raise unauthorized("No bearer token was sent.")
    scheme, _, value = authorization.partition(" ")
    match = _TOKEN.fullmatch(value) if scheme.lower() == "bearer" else None
    if match is None:
        raise unauthorized("The bearer token is malformed.")
    row = tx.execute(
        "SELECT id, workspace, verifier_hash, kind, user_id, scopes, state, expires_at, live,"
        " rate_limit FROM tokens WHERE selector = ?"
        + (" COLLATE NOCASE" if selector_case_folded else ""),
        (match["selector"],),
    ).fetchone()
    verified = row is not None and (
        not check_verifier or hmac.compare_digest(row[2], _verifier_hash(secret, match["verifier"]))
    )
    if row is None or not verified:
        raise unauthorized("The bearer token is not valid.")
    token_id, workspace, _, kind, user_id, scopes, state, expires_at, live, rate_limit = row
    expected_prefix = ("sk_" if kind == "workspace" else "oat_") + ("live_" if live else "test_")
    if match["prefix"] != expected_prefix:
        raise unauthorized("The bearer token is not valid.")
    expired = state == "expired" or (expires_at is not None and expires_at <= now_stamp())
    workspace_expired = expired and kind == "workspace" and honour_workspace_expiry
    if state == "revoked" and honour_revocation and revoked_forbidden:
        raise ApiError(403, "forbidden", "This token was revoked.")
    if (state == "revoked" and honour_revocation) or workspace_expired:
        raise unauthorized("The bearer token is no longer valid.")
    if expired and kind == "oauth":
        raise ApiError(401, "token_expired", "The OAuth access token has expired.")
    return Principal(
        token_id=token_id,
        workspace=workspace,
        kind=kind,
        user_id=user_id,
        scopes=frozenset(json.loads(scopes)),
        rate_limit=_rate_limit(rate_limit),
    )


def _rate_limit(stored: str | None) -> tuple[int, int] | None:
    if not stored:
        return None
    limit, window = json.loads(stored)
    return int(limit), int(window)


def unauthorized(message: str) -> ApiError:
    return ApiError(401, "unauthorized", message, headers={"WWW-Authenticate": "Bearer"})
