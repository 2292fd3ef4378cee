"""Paging in every order the contact list offers serves every row once, ties included.

"results are totally ordered and paging never repeats or skips rows while records
change": a server that pages by the sort key alone (keyset without a tie-breaker, or an
offset over an order that ties leave open) repeats or skips the rows sharing a value at
a page boundary. The document does not list the sortable keys, so every field of the
Contact table is tried, ascending and descending, plus the default order: a key the
target refuses with a 400 naming the sort (`unknown_sort_field`, `unsupported_sort`, or
`validation_failed`, "Query ... problems answer 400 with the same code") is not sortable
there, and its point is not applicable, the refusal recorded.

The module makes its contacts once: `TIED` of them sharing every value a test can set
(status, score, names, place, organization, owner, both stamps) and leaving the others
null alike, so they tie on any key but the ids and the `external_id` that narrows the
list to them. Each point walks them two per page.
"""

import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from crm_conformance import ApiClient
from crm_conformance.core import document
from crm_conformance.steps import (
    RecordFactory,
    expect_error,
    expect_true,
    expect_walk,
    ids_of,
    with_cursor,
)

CONTACTS = "/v1/contacts"
TIED = 4
PAGE = 2
NOT_SORTABLE = ("unknown_sort_field", "unsupported_sort", "validation_failed")
SORT_KEYS = tuple(document.schema("Contact")["properties"])
"""Every field of the Contact table: the candidates for a sort key."""


def _orders() -> list[Any]:
    points = [pytest.param(None, id="default", marks=pytest.mark.req("QRY-002", "PAG-005"))]
    for key, (direction, sign) in itertools.product(
        SORT_KEYS, (("ascending", ""), ("descending", "-"))
    ):
        points.append(
            pytest.param(
                f"{sign}{key}",
                id=f"{key}-{direction}",
                # the walk checks the tie-break and the paging, and a refused key's
                # answer; the order by the key's values is test_query_parameters'
                marks=pytest.mark.req("QRY-002", "QRY-003", "PAG-005"),
            )
        )
    return points


@pytest.fixture
def tied(module_factory: RecordFactory, module_tied: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The module's tied contacts, noted as needing the adapter's records on each point
    that reads them (`run --list --by-feature`), not only on the one that made them."""
    module_factory.adapter.require("records")
    return module_tied


@pytest.fixture(scope="module")
def module_tied(module_factory: RecordFactory) -> list[dict[str, Any]]:
    """`TIED` contacts equal in everything but their ids and external ids."""
    factory = module_factory
    stamp = (datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)).isoformat()
    shared = {
        "first_name": factory.unique("tie"),
        "last_name": "Conformance",
        "status": "on_hold",
        "score": "warm",
        "address": "1 Tie Street",
        "city": "Tieton",
        "state": "TT",
        "job_title": "Tester",
        "organization_id": factory.organization()["id"],
        "owner_id": factory.listed_user_id(),
    }
    return [
        factory.adapter.create_record(
            kind="contact",
            fields={**shared, "external_id": factory.unique("ext")},
            created_at=stamp,
            updated_at=stamp,
        )
        for _ in range(TIED)
    ]


@pytest.mark.parametrize("sort", _orders())
def test_a_walk_serves_tied_rows_once_in_every_order(
    api: ApiClient,
    tied: list[dict[str, Any]],
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    sort: str | None,
) -> None:
    """The first page is read once: it both tells whether the key sorts and starts the
    walk, so a refused key costs one request. A key the target cannot sort by must be
    refused as the 400 table says (QRY-003), not answered otherwise."""
    name = convention("contact_filters.external_id")
    query = [(name, str(c["external_id"])) for c in tied] + [("limit", str(PAGE))]
    if sort is not None:
        query.append(("sort", sort))
    first = api.get(CONTACTS, params=query)
    if sort is not None and first.status_code != 200:
        code = expect_error(first, "QRY-003", status=400, code=NOT_SORTABLE).get("code")
        observe(f"sort={sort}", f"refused: 400 {code}")
        key = sort.lstrip("-")
        pytest.skip(f"not applicable: the target does not sort contacts by {key} (400 {code})")
    pages = expect_walk(
        lambda cursor: (
            first if cursor is None else api.get(CONTACTS, params=with_cursor(query, cursor))
        ),
        "PAG-005",
        max_pages=TIED,
    )
    served = [str(row.get("id")) for page in pages for row in page]
    repeated = sorted({i for i in served if served.count(i) > 1})
    skipped = [i for i in ids_of(tied) if i not in served]
    expect_true(
        None,
        "QRY-002",
        not repeated and not skipped,
        expected=f"each of the {TIED} tied contacts once, walked {PAGE} per page "
        f"with sort={sort or '(default)'}",
        got=f"repeated {repeated}, skipped {skipped}, pages {[ids_of(p) for p in pages]}",
    )
