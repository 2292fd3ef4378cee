"""The adapter's secret: who may call an adapter that mints tokens and bypasses authorization.

An adapter reachable from a shared network (a CI container beside others) lets anyone
there make tokens of the test workspaces. Given a secret, the kit answers only requests
carrying it as `Authorization: Bearer <secret>` (the target file's `adapter_token`).
The comparison takes the same time whatever the guess, so timing tells nothing of it.
"""

import hmac

SCHEME = "Bearer"
"""The scheme the secret is sent under, as the public API's tokens are."""


def presents(authorization: str | None, secret: str) -> bool:
    """Whether an `Authorization` header value carries `secret` as a bearer token,
    compared in constant time."""
    scheme, _, value = (authorization or "").partition(" ")
    matches = hmac.compare_digest(value.strip().encode(), secret.encode())
    return scheme.lower() == SCHEME.lower() and matches


def check_secret(secret: str | None) -> str | None:
    """`secret` validated as `adapter_app` takes it: None (no secret) or a non-blank string
    without surrounding whitespace (a header cannot carry that whitespace)."""
    if secret is None:
        return None
    if not isinstance(secret, str) or not secret.strip() or secret != secret.strip():
        raise ValueError(
            "adapter_app(token=...): the secret must be a non-empty string "
            "without surrounding whitespace"
        )
    return secret
