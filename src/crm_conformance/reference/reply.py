"""`Reply`: what a handler answers, before it becomes an HTTP response."""

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reply:
    """A status, a JSON body (None for no content) and extra headers."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EncodedJson:
    """A body already encoded as `compact` would encode it: a list answer assembled around
    its rows encoded once and kept (`routing.Call.list_reply`). Where a variant or fault
    reshapes bodies, it is decoded again first, so what it answers never changes."""

    text: str

    def decoded(self) -> Any:
        return json.loads(self.text)


_COMPACT = json.JSONEncoder(separators=(",", ":"), check_circular=False)
"""What `json.dumps(body, separators=(",", ":"))` builds on every call, built once; no
cycle check (a body is a tree built from decoded JSON: encoding a page of 50 rows checks
a thousand containers)."""


def compact(body: Any) -> str:
    """The server's JSON text of a body: no spaces, non-ASCII escaped."""
    return _COMPACT.encode(body)
