"""A list's `sort` judged on rows whose order the test made.

"`sort` | comma-separated keys, `-` prefix for descending": rows whose values of one key
a test made distinct come in that order under `sort=key` and reversed under
`sort=-key`. Only the test's own rows are compared, so the query may list others too
(a named list narrowed by `updated_since` lists whatever else changed since). Which keys
a list sorts by is not shown: a key the target refuses is not applicable, its refusal
held to the 400 table ("Query ... problems answer 400", QRY-003).
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NoReturn

import httpx
import pytest

from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.clock import instant
from crm_conformance.steps.expect import expect_error_among, expect_true, ids_of
from crm_conformance.steps.pages import expect_walk, with_cursor

NOT_SORTABLE = ("unknown_sort_field", "unsupported_sort", "validation_failed")
"""The codes a refused sort key may carry."""
TWO_KEYS = "updated_at,-created_at"
"""A sort by two keys whose second decides the order within each group of the first."""
TWO_KEY_GROUPS = (3, 1, 2, 1, 3, 2, 2, 3, 1)
"""The `updated_at` step of each of nine records made in a row: three groups of three,
each group's creation order neither its order under `TWO_KEYS` nor its reverse. Three
of three: a server applying the first key alone orders each group by its own
tie-breaker, right by chance once in 216 runs."""


def two_key_stamps(
    created: datetime, updated: datetime, step: timedelta
) -> list[tuple[datetime, datetime]]:
    """(created_at, updated_at) of the nine records `TWO_KEY_GROUPS` describes: made a
    minute apart from `created`, changed at `updated` plus their group's `step`s."""
    return [
        (created + timedelta(minutes=index), updated + group * step)
        for index, group in enumerate(TWO_KEY_GROUPS)
    ]


def two_key_order(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The ids of `records` as `TWO_KEYS` orders them."""
    newest_first = sorted(records, key=lambda r: instant(r["created_at"]), reverse=True)
    return ids_of(sorted(newest_first, key=lambda r: instant(r["updated_at"])))


def skip_refused_sort(
    response: httpx.Response,
    what: str,
    sort: str,
    observe: Callable[[str, Any], None],
    *,
    in_body: bool = False,
) -> NoReturn:
    """A sort the target refuses: its answer is held to the 400 table ("Query ...
    problems answer 400", QRY-003), or, sent in a search body, to a 400 or a 422 (a body
    field refused as invalid), and recorded; the point is not applicable."""
    allowed = {400: NOT_SORTABLE, **({422: NOT_SORTABLE} if in_body else {})}
    code = expect_error_among(response, "QRY-003", allowed).get("code")
    observe(f"{what} sort={sort}", f"refused: {response.status_code} {code}")
    pytest.skip(f"not applicable: {what} does not sort by {sort} ({response.status_code} {code})")


def expect_sorted_both_ways(
    api: ApiClient,
    path: str,
    query: Sequence[tuple[str, str]],
    key: str,
    ascending: Sequence[str],
    observe: Callable[[str, Any], None],
    *,
    max_pages: int = 20,
) -> None:
    """Walk `path` under `query` with `sort=key`, then `sort=-key`: the ids `ascending`
    come in that order, then reversed (QRY-001). A 400 to the sort skips the point, once
    its answer is held to the refusal codes (QRY-003)."""
    wanted = list(ascending)
    for sign, order in (("", wanted), ("-", wanted[::-1])):
        expect_sorted(api, path, query, f"{sign}{key}", order, observe, max_pages=max_pages)


def expect_sorted(
    api: ApiClient,
    path: str,
    query: Sequence[tuple[str, str]],
    sort: str,
    order: Sequence[str],
    observe: Callable[[str, Any], None],
    *,
    max_pages: int = 20,
) -> None:
    """Walk `path` under `query` with `sort`: the ids `order` come in that order, among
    whatever else the query lists (QRY-001). A 400 to the sort skips the point, once its
    answer is held to the refusal codes (QRY-003)."""
    sorted_query = [*query, ("sort", sort)]
    first = api.get(path, params=sorted_query)
    if first.status_code == 400:
        skip_refused_sort(first, path, sort, observe)
    served = _walked(api, path, sorted_query, first, max_pages)
    got = [row for row in served if row in order]
    expect_true(
        first,
        "QRY-001",
        got == list(order),
        expected=f"sort={sort} lists {list(order)}",
        got=f"{got}",
    )


def _walked(
    api: ApiClient,
    path: str,
    query: list[tuple[str, str]],
    first: httpx.Response,
    max_pages: int,
) -> list[str]:
    """The ids of every page of `query`, its `first` page already read."""
    pages = expect_walk(
        lambda cursor: (
            first if cursor is None else api.get(path, params=with_cursor(query, cursor))
        ),
        "QRY-001",
        max_pages=max_pages,
    )
    return ids_of(row for page in pages for row in page)
