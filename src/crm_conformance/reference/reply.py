"""`Reply`: what a handler answers, before it becomes an HTTP response."""

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reply:
    """A status, a JSON body (None for no content) and extra headers."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
