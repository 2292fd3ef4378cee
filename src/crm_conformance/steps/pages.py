"""Reading a collection page after page through `links.next`, bounded.

Two kinds of reader. The suite steps (`expect_walk`, `expect_pages`, `expect_found`,
`first_page`) hold every page to a 200 and charge a failure to the rule the test names.
`walk` is for the commands that look for records without asserting anything about the
list (`sweep`, `adapter-check`): a page that is not a 200 ends the walk and is reported to
the caller, who decides what that means. At most `max_pages` pages of 200 are read, so
a busy target cannot make a command loop.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx

from crm_conformance.core.model import document
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.steps.clock import instant
from crm_conformance.steps.expect import expect_status, expect_true

SINCE_RULE = "SYNC-001"
"""`updated_since`: "records changed at or after that instant", on every list."""
RENDERED_SLACK = timedelta(seconds=1)
"""How far a row's rendered `updated_at` may read below the instant the target compared
(a stamp kept in microseconds and rendered in whole seconds)."""


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


Query = Mapping[str, Any] | Sequence[tuple[str, Any]]
"""Query parameters as httpx takes them: a mapping, or pairs (for repeated names)."""


def with_cursor(query: Query, cursor: str | None) -> Query:
    """`query` with `cursor` added when there is one: the first page is asked for
    without a cursor, never with an empty `cursor=` (which is no cursor the target
    issued, and may be refused as `invalid_cursor`)."""
    if cursor is None:
        return query
    if isinstance(query, Mapping):
        return {**query, "cursor": cursor}
    return [*query, ("cursor", cursor)]


def expect_pages(
    client: ApiClient,
    path: str,
    req_id: str,
    params: Mapping[str, Any],
    *,
    max_pages: int = 20,
) -> list[dict[str, Any]]:
    """The records of a list query, page after page through `links.next` (each a 200).

    Bounded by `max_pages` pages of the largest `limit`, so a busy target cannot make a test loop; a
    test asserting that a record is absent reads at most that many, which can let a
    fault through but never fails a conforming target.
    """
    records: list[dict[str, Any]] = []
    query = {**params, "limit": str(document.page_limit())}
    cursor: str | None = None
    for _ in range(max_pages):
        page = _page(client, path, query, cursor, req_id)
        records.extend(item for item in page.get("data") or () if isinstance(item, dict))
        cursor = (page.get("links") or {}).get("next")
        if not isinstance(cursor, str) or not page.get("meta", {}).get("has_more", True):
            break
    return records


def expect_since_held(response: httpx.Response, query: Query, rows: Sequence[Any]) -> None:
    """No row of a page read with `updated_since` was last changed before it.

    A walk that finds its rows by their own changes (`lookup_since`) stands on the
    filter: a list ignoring it serves older rows first, and the walk would charge what it
    then misses to the order it judges. Fail-only: a page of rows after the instant says
    nothing of the rows at it, which are SYNC-001's own tests' point."""
    pairs = query.items() if isinstance(query, Mapping) else query
    since = next((value for name, value in pairs if name == "updated_since"), None)
    try:
        floor = instant(since) - RENDERED_SLACK
    except (TypeError, ValueError):
        return
    for row in rows:
        try:
            changed = instant(row.get("updated_at")) if isinstance(row, dict) else None
        except (TypeError, ValueError):
            continue  # no date-time: the `timestamps` check judges it
        if changed is not None and changed < floor:
            raise ConformanceFailure(
                SINCE_RULE,
                expected=f"rows changed at or after updated_since={since}",
                got=f"{row.get('id')} with updated_at {row.get('updated_at')}",
                response=response,
            )


def _page(client: ApiClient, path: str, query: Query, cursor: str | None, req_id: str) -> Any:
    """One page of `GET path` under `query`: a 200, whose rows hold its `updated_since`."""
    response = client.get(path, params=with_cursor(query, cursor))
    body = expect_status(response, req_id, 200)
    expect_since_held(response, query, body.get("data") or ())
    return body


@dataclass(frozen=True)
class PageRead:
    """One page of a walk: its rows, `meta.has_more` and `links.next`."""

    rows: list[dict[str, Any]]
    has_more: Any
    next: Any

    @property
    def ids(self) -> list[str]:
        return [str(row.get("id")) for row in self.rows]


def expect_pages_until(
    client: ApiClient,
    path: str,
    req_id: str,
    query: Query,
    *,
    max_pages: int,
    done: Callable[[list[dict[str, Any]]], bool] = lambda rows: False,
) -> list[PageRead]:
    """The pages of `GET path` under `query` (its `limit` included), each a 200: up to
    the last, `max_pages`, or the first page after which `done(rows read so far)` holds.
    A test looking for its own rows near the head of a long list stops there; whether
    the list ended is the last page's `next` (not a string)."""
    pages: list[PageRead] = []
    rows: list[dict[str, Any]] = []
    cursor: str | None = None
    while len(pages) < max_pages:
        body = _page(client, path, query, cursor, req_id)
        meta, links = body.get("meta") or {}, body.get("links") or {}
        page = PageRead(
            [row for row in body.get("data") or () if isinstance(row, dict)],
            meta.get("has_more"),
            links.get("next"),
        )
        pages.append(page)
        rows += page.rows
        if not isinstance(page.next, str) or done(rows):
            break
        cursor = page.next
    return pages


def expect_each_once(
    response: httpx.Response | None,
    req_id: str,
    served: Sequence[str],
    wanted: Sequence[str],
    *,
    expected: str,
    shown: str = "",
) -> None:
    """Each id of `wanted` among the ids a walk `served`, once: "paging never repeats or
    skips rows". Ids of other rows may come too (other tests' records), and only a
    repeat of any row or a miss of a wanted one fails `req_id`; `shown` adds to the
    failure what the pages were."""
    repeated = sorted({i for i in served if served.count(i) > 1})
    skipped = [i for i in wanted if i not in served]
    expect_true(
        response,
        req_id,
        not repeated and not skipped,
        expected=expected,
        got=f"repeated {repeated}, skipped {skipped}" + (f", {shown}" if shown else ""),
    )


def expect_found(
    client: ApiClient, req_id: str, body: Mapping[str, Any], *, max_pages: int = 20
) -> tuple[list[dict[str, Any]], httpx.Response]:
    """The records contact search finds for `body`, page after page (the cursor in the
    body), and the first page's answer to report with. Free text may match many records
    of a run, so a test looking for one reads every page, bounded as `expect_pages` is."""
    records: list[dict[str, Any]] = []
    first: httpx.Response | None = None
    cursor: str | None = None
    for _ in range(max_pages):
        page_body = {
            **body,
            "limit": document.page_limit(),
            **({"cursor": cursor} if cursor else {}),
        }
        response = client.post("/v1/contacts/search", json=page_body)
        first = first or response
        page = expect_status(response, req_id, 200)
        records.extend(item for item in page.get("data") or () if isinstance(item, dict))
        cursor = (page.get("links") or {}).get("next")
        if not isinstance(cursor, str) or not page.get("meta", {}).get("has_more", True):
            break
    assert first is not None
    return records, first


def first_page(client: ApiClient, path: str, params: Query) -> httpx.Response:
    """The first page of a list query at the largest `limit`: the answer a failure about
    the whole list (read with `expect_pages`) shows."""
    if isinstance(params, Mapping):
        return client.get(path, params={**params, "limit": str(document.page_limit())})
    return client.get(path, params=[*params, ("limit", str(document.page_limit()))])


def expect_walk(
    fetch: Callable[[str | None], httpx.Response],
    req_id: str,
    *,
    max_pages: int,
    between: Callable[[int], None] | None = None,
) -> list[list[dict[str, Any]]]:
    """Every page of one list query, read through `links.next` until it is null.

    `fetch(cursor)` sends the query (cursor None for the first page), so one walker
    serves query cursors and search-body cursors alike; `between(n)` runs after page
    `n` is read and before the next is asked for (to change records mid-walk). Each
    page must be a 200. A walk longer than `max_pages` fails `req_id`: the caller knows
    how many rows exist, so a walk that does not end is serving rows again.
    """
    pages: list[list[dict[str, Any]]] = []
    cursor: str | None = None
    while True:
        response = fetch(cursor)
        body = expect_status(response, req_id, 200)
        pages.append([item for item in body.get("data") or () if isinstance(item, dict)])
        cursor = (body.get("links") or {}).get("next")
        if not isinstance(cursor, str):
            return pages
        expect_true(
            response,
            req_id,
            len(pages) < max_pages,
            expected=f"the last page (links.next null) within {max_pages} pages",
            got=f"a next cursor after page {len(pages)}",
        )
        if len(pages) >= max_pages:  # the failure is kept and the test goes on: read no more
            return pages
        if between is not None:
            between(len(pages))
