"""Opaque list cursors, signed so a client can neither forge nor alter one.

A cursor holds the sort-key values and id of the last row served (keyset paging) and a
digest of the query that produced it. It is valid only with that query: another
filter, sort or workspace answers 400 `invalid_cursor`, as does any tampering.
"""

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

from crm_conformance.reference.api_errors import ApiError


def query_digest(identity: Any) -> str:
    """A short digest of everything that decides a list's rows and their order."""
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:24]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encode(secret: bytes, position: dict[str, Any], digest: str, *, hex_form: bool = False) -> str:
    """A signed cursor for `position` in the query with `digest`.

    `hex_form` (the `hex_cursors` variant) writes hex instead of base64url: another
    shape of the same opaque string, which a client must pass back untouched.
    """
    raw = json.dumps({**position, "q": digest}, separators=(",", ":")).encode()
    payload = raw.hex() if hex_form else _b64(raw)
    return f"{payload}.{_sign(secret, payload, hex_form)}"


def _sign(secret: bytes, payload: str, hex_form: bool) -> str:
    mac = hmac.new(secret, payload.encode(), hashlib.sha256).digest()[:18]
    return mac.hex() if hex_form else _b64(mac)


def decode(
    secret: bytes, cursor: str, digest: str, *, hex_form: bool = False, as_text: bool = False
) -> dict[str, Any]:
    """The position a cursor holds, or 400 invalid_cursor. `as_text` (a fault) compares
    the signatures as `str`, which `compare_digest` refuses past ASCII: a 500."""
    payload, _, signature = cursor.partition(".")
    try:
        expected = _sign(secret, payload, hex_form)
        same = (
            hmac.compare_digest(signature, expected)
            if as_text
            else hmac.compare_digest(signature.encode(), expected.encode())
        )
        if not same:
            raise ValueError("bad signature")
        position = json.loads(bytes.fromhex(payload) if hex_form else _unb64(payload))
    except (ValueError, binascii.Error, UnicodeError):
        raise invalid_cursor("The cursor is corrupt.") from None
    if not isinstance(position, dict) or position.get("q") != digest:
        raise invalid_cursor("The cursor was issued for another query.")
    return position


def invalid_cursor(message: str) -> ApiError:
    return ApiError(400, "invalid_cursor", message, param="cursor")
