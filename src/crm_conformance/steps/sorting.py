"""A list's `sort` judged on rows whose order the test made.

"`sort` | comma-separated keys, `-` prefix for descending": rows whose values of one key
a test made distinct come in that order under `sort=key` and reversed under
`sort=-key`. Only the test's own rows are compared, so the query may list others too
(a named list narrowed by `updated_since` lists whatever else changed since). Which keys
a list sorts by is not shown: a key the target refuses is not applicable, its refusal
held to the 400 table ("Query ... problems answer 400", QRY-003).
"""

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import httpx
import pytest

from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.expect import expect_error, expect_true, ids_of
from crm_conformance.steps.pages import expect_walk, with_cursor

NOT_SORTABLE = ("unknown_sort_field", "unsupported_sort", "validation_failed")
"""The codes a refused sort key may carry."""


def skip_refused_sort(
    response: httpx.Response, what: str, sort: str, observe: Callable[[str, Any], None]
) -> NoReturn:
    """A sort the target refuses: its answer is held to the 400 table ("Query ...
    problems answer 400", QRY-003) and recorded, and the point is not applicable."""
    code = expect_error(response, "QRY-003", status=400, code=NOT_SORTABLE).get("code")
    observe(f"{what} sort={sort}", f"refused: 400 {code}")
    pytest.skip(f"not applicable: {what} does not sort by {sort} (400 {code})")


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
        sorted_query = [*query, ("sort", f"{sign}{key}")]
        first = api.get(path, params=sorted_query)
        if first.status_code == 400:
            skip_refused_sort(first, path, f"{sign}{key}", observe)
        served = _walked(api, path, sorted_query, first, max_pages)
        got = [row for row in served if row in order]
        expect_true(
            first,
            "QRY-001",
            got == order,
            expected=f"sort={sign}{key} lists {order}",
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
