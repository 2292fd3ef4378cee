"""The "Reproduce with:" curl line printed under every failure.

A vendor must be able to paste it into a shell: the bearer token is the `$TOKEN`
placeholder (double-quoted so the shell expands it), everything else single-quoted.
Headers httpx adds on its own are left out; they only add noise.
"""

from collections.abc import Mapping

_IMPLICIT_HEADERS = frozenset(
    {"host", "user-agent", "accept", "accept-encoding", "connection", "content-length"}
)


def curl_command(
    *, method: str, url: str, headers: Mapping[str, str], body: bytes | str | None = None
) -> str:
    """A one-line curl command for the request; the token shows as `$TOKEN`."""
    parts = ["curl"]
    if method.upper() != "GET" or body:
        parts += ["-X", method.upper()]
    parts.append(_quote(url))
    for name, value in headers.items():
        lowered = name.lower()
        if lowered in _IMPLICIT_HEADERS:
            continue
        if lowered == "authorization":
            scheme = value.split(" ", 1)[0] if " " in value else "Bearer"
            parts += ["-H", f'"Authorization: {scheme} $TOKEN"']
        else:
            parts += ["-H", _quote(f"{name}: {value}")]
    if body:
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        parts += ["--data-raw", _quote(text)]
    return " ".join(parts)


def _quote(text: str) -> str:
    """Single-quoted for a POSIX shell, always (even when no character needs it)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"
