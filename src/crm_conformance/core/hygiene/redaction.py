"""Redaction: no token value ever reaches a log, a report or the terminal.

Principle 4 of DESIGN.md: the suite is safe to point at someone's server, so every
text the harness writes passes through one `Redactor`. It replaces the exact secrets
it knows (the target's tokens and every token the adapter issues during the run) and,
as a safety net for secrets it was never told about, anything shaped like a bearer
credential or a token of the document's formats (`sk_live_`, `sk_test_`, `oat_...`).
"""

import re
from collections.abc import Iterable, Mapping

FILTERED = "[Filtered]"

# A token of the document's shapes: workspace tokens `sk_live_<selector>.<verifier>`
# and `sk_test_...`, OAuth access tokens `oat_live_...` (and a test twin, if any).
_TOKEN_SHAPE = re.compile(r"\b(?:sk|oat)_(?:live|test)_[A-Za-z0-9_\-.~+/=]+")
# A value after `Bearer ` in a header or a text, when it looks like a credential (see
# `_credential`): prose such as "a bearer token" and the curl line's `$TOKEN` stay.
_BEARER = re.compile(r"(?i)\b(bearer)\s+([A-Za-z0-9._~+/=-]+)")
_CREDENTIAL_MARK = re.compile(r"\d|[_~+/=-]|\.\w")
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})


class Redactor:
    """Replaces known secrets and token-shaped strings with `[Filtered]`.

    One instance is shared by every client of a run, so a token issued by the adapter
    halfway through (`add`) is filtered from then on everywhere.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._longest_first: tuple[str, ...] = ()
        """The secrets in the order `text` replaces them, sorted once per `add`."""
        self._shortest = 0
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str) -> None:
        """Start filtering `secret`; values shorter than 8 characters are too common to filter."""
        if len(secret) >= 8 and secret not in self._secrets:
            self._secrets.add(secret)
            self._longest_first = tuple(sorted(self._secrets, key=len, reverse=True))
            self._shortest = len(self._longest_first[-1])

    @property
    def secrets(self) -> frozenset[str]:
        """The exact values being filtered (for tests that grep outputs for leaks)."""
        return frozenset(self._secrets)

    def text(self, text: str) -> str:
        """`text` with every known secret, bearer credential and token-shaped string filtered."""
        # Longest first, so a secret that contains another is filtered whole. A text
        # shorter than every secret holds none (most header values: run-wide, every
        # exchange's headers pass here).
        if len(text) >= self._shortest:
            for secret in self._longest_first:
                text = text.replace(secret, FILTERED)
        text = _BEARER.sub(_filtered_credential, text)
        # `_TOKEN_SHAPE` needs one of these two: a plain look is cheaper than a regex scan.
        if "_live_" in text or "_test_" in text:
            text = _TOKEN_SHAPE.sub(FILTERED, text)
        return text

    def headers(self, headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
        """A copy of `headers` with credential headers masked and other values filtered."""
        items = headers.items() if isinstance(headers, Mapping) else headers
        redacted: dict[str, str] = {}
        for name, value in items:
            if name.lower() in _SECRET_HEADERS:
                scheme = value.split(" ", 1)[0] if " " in value else ""
                redacted[name] = f"{scheme} {FILTERED}".strip()
            else:
                redacted[name] = self.text(value)
        return redacted


def _filtered_credential(match: re.Match[str]) -> str:
    """`Bearer [Filtered]` when what follows is a credential: 8 characters or more with
    a digit, a symbol or an inner dot, as tokens have and words of prose do not."""
    value = match.group(2)
    if len(value) < 8 or _CREDENTIAL_MARK.search(value) is None:
        return match.group(0)
    return f"{match.group(1)} {FILTERED}"
