"""Reading a collection page after page through `links.next`, bounded.

For the commands that look for records without asserting anything about the list
(`sweep`, `adapter-check`): a page that is not a 200 ends the walk and is reported to
the caller, who decides what that means. At most `max_pages` pages of 200 are read, so
a busy target cannot make a command loop.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from crm_conformance.core.transport.client import ApiClient


@dataclass
class Walk:
    """The records read, and the status of the page that ended the walk early (if any)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    refused: int | None = None


def walk(
    client: ApiClient, path: str, *, params: Mapping[str, str] | None = None, max_pages: int = 20
) -> Walk:
    """The records of `GET path` (with `params`), page after page."""
    found = Walk()
    query = {**(params or {}), "limit": "200"}
    for _ in range(max_pages):
        response = client.get(path, params=query)
        try:
            page = response.json() if response.status_code == 200 else None
        except ValueError:
            page = None
        if not isinstance(page, dict):
            found.refused = response.status_code
            return found
        found.records += [item for item in page.get("data") or () if isinstance(item, dict)]
        cursor = (page.get("links") or {}).get("next")
        if not isinstance(cursor, str) or not cursor:
            break
        query = {**(params or {}), "limit": "200", "cursor": cursor}
    return found
