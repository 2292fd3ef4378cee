"""Lists and pagination: the collection envelope, `limit`, cursors, default orders, and
the rows of the directory lists (users, audiences), whose only operation is the list.

The seeded directory lists (users, audiences) need nothing but the token; contact lists
use contacts made through the adapter, narrowed by the repeatable `external_id` filter
to this test's own, so other tests' data never moves the rows under a walk. A `limit`
outside 1 to 200 and a corrupt cursor, on every list, are `test_query_validation.py`'s
points.
"""

import functools
import itertools
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    RecordFactory,
    expect_each_once,
    expect_error,
    expect_error_among,
    expect_identifier,
    expect_pages_until,
    expect_present,
    expect_status,
    expect_true,
    expect_type_or_null,
    expect_value,
    expect_walk,
    ids_of,
    instant,
    listings,
    lookup_since,
    operations,
    search_word,
    settle,
    skip_refused_sort,
    with_cursor,
)

LIMIT = document.page_limit()
SEARCH = "/v1/contacts/search"
ODD_LIMIT = 37
"""A page size inside 1 to 200 that no UI offers: "integer 1 to 200" is every one of
them, not a menu of round sizes."""
LIST_REQ = {listing.name: listing.req for listing in listings.SHOWN}
"""Each documented list and the sentence of its own section ("Response: collection of
...", paged by `limit` and `cursor`): checked before the general paging rules."""
DIRECTORY_LISTS = ("/v1/users", "/v1/audiences")
NAMED_RECORD_LISTS = tuple(listing for listing in listings.NAMED if listing.synced)


def _own(listed: tuple[listings.Listing, ...]) -> list[Any]:
    """`listed` as points, each naming its list's own requirement."""
    return [pytest.param(item, id=item.name, marks=pytest.mark.req(item.req)) for item in listed]


def _points(listed: tuple[listings.Listing, ...]) -> list[Any]:
    return [pytest.param(item, id=item.name) for item in listed]


def _directory(paths: tuple[str, ...]) -> list[Any]:
    return [pytest.param(p, marks=pytest.mark.req(LIST_REQ[p])) for p in paths]


MAX_PAGES = 50
CHANGE_TIMEOUT = 30.0


def _pages_ids(pages: list[list[dict[str, Any]]]) -> list[str]:
    return ids_of(row for page in pages for row in page)


NAME_ORDER = "bca"
"""The first letters of records made in a row: their creation order is neither their
names' order nor its reverse, so a list ordered by name (either way) shows itself."""


def _contacts(factory: RecordFactory, count: int, *, ago: timedelta) -> list[dict[str, Any]]:
    """`count` contacts with distinct external ids, created a minute apart from `ago`
    before now, oldest first (explicit stamps: ties would leave "newest first" open),
    named out of their creation order (`NAME_ORDER`)."""
    start = datetime.now(UTC) - ago
    return [
        factory.adapter.create_record(
            kind="contact",
            fields={
                "first_name": factory.unique(f"{NAME_ORDER[index % 3]}-page"),
                "last_name": "Conformance",
                "external_id": factory.unique("ext"),
            },
            created_at=(start + timedelta(minutes=index)).isoformat(),
        )
        for index in range(count)
    ]


def _by_external_id(
    convention: Callable[[str], str], contacts: list[dict[str, Any]]
) -> list[tuple[str, str]]:
    name = convention("contact_filters.external_id")
    return [(name, str(contact["external_id"])) for contact in contacts]


@pytest.mark.req("PAG-001", "PAG-003")
@pytest.mark.parametrize("listing", _own(listings.ALL))
def test_a_list_answers_the_collection_envelope(
    api: ApiClient, convention: Callable[[str], str], listing: listings.Listing
) -> None:
    """The list's own sentence first (a page of at most `limit` rows, saying that limit),
    then the envelope, `has_more`/`links.next` agreement and `meta.limit` echoing the
    requested limit: the universal collection checks that `expect_status` applies. Every
    list: the shown ones and each the target file names."""
    path = listing.path(convention)
    response = api.get(path, params={"limit": 1})
    try:
        body = response.json() if response.is_success and response.content else {}
    except ValueError:  # not JSON: HDR-004's, below
        body = {}
    rows = body.get("data") if isinstance(body, dict) else None
    meta = body.get("meta") if isinstance(body, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    expect_true(
        response,
        listing.req,
        isinstance(rows, list) and len(rows) <= 1 and meta.get("limit") == 1,
        expected=f"a page of GET {path} with at most 1 row and meta.limit 1 (limit=1 sent)",
        got=f"{response.status_code} {response.text[:200]}",
    )
    expect_status(response, "PAG-001", 200)


@pytest.mark.req("PAG-008", "PAG-003")
@pytest.mark.parametrize("limit", [1, ODD_LIMIT, LIMIT])
@pytest.mark.parametrize("listing", _points(listings.ALL))
def test_the_limit_bounds_are_accepted(
    api: ApiClient, convention: Callable[[str], str], listing: listings.Listing, limit: int
) -> None:
    """Both ends of "1 to 200" and a size between them on every list: a page of at most
    `limit` rows, saying it."""
    path = listing.path(convention)
    body = expect_status(api.get(path, params={"limit": limit}), "PAG-008", 200)
    rows, meta = body.get("data"), body.get("meta")
    expect_true(
        None,
        "PAG-003",
        isinstance(rows, list)
        and len(rows) <= limit
        and isinstance(meta, dict)
        and meta.get("limit") == limit,
        expected=f"at most {limit} rows and meta.limit = {limit}",
        got=f"{len(rows) if isinstance(rows, list) else rows!r} rows, meta = {meta!r}",
    )


@pytest.mark.req("PAG-001")
@pytest.mark.parametrize("listing", _points(listings.ALL))
def test_the_default_page_size_is_recorded(
    api: ApiClient,
    convention: Callable[[str], str],
    listing: listings.Listing,
    observe: Callable[[str, Any], None],
) -> None:
    """ "Default page size of lists: not shown": any size passes; it is recorded."""
    path = listing.path(convention)
    body = expect_status(api.get(path), "PAG-001", 200)
    observe(f"default page size of GET {path}", body["meta"]["limit"])


def _count(api: ApiClient, path: str) -> list[str]:
    """The ids of a whole list, read at the largest page."""
    return _pages_ids(
        expect_walk(
            lambda c: api.get(path, params=with_cursor({"limit": LIMIT}, c)),
            "PAG-005",
            max_pages=MAX_PAGES,
        )
    )


@pytest.mark.req("PAG-005", "PAG-009", "PAG-002", "PAG-004")
@pytest.mark.parametrize("listing", _points(listings.NAMED))
def test_walking_a_named_list_serves_each_row_once_while_rows_change(
    api: ApiClient,
    convention: Callable[[str], str],
    maker: operations.Maker,
    listing: listings.Listing,
) -> None:
    """Three new rows, then the whole list in pages of about a fifth of its rows (a first
    walk at 200 counts them). Between the first pages another client (a worker thread)
    adds rows of the kind and, on a list of records, deletes two made for the purpose:
    "paging never repeats or skips rows while records change", so no row comes twice,
    and the three, which nothing changes, each come once. Other tests' rows may come or
    go meanwhile; only this test's stable rows are counted."""
    path = listing.path(convention)
    kind = listing.kind
    assert kind is not None
    made = [maker.listed_id(kind, api) for _ in range(3)]
    changes: list[Callable[[], Any]] = [lambda: maker.listed_id(kind, api) for _ in range(3)]
    if listing.synced:
        doomed = [maker.record_id(kind) for _ in range(2)]
        changes += [functools.partial(maker.adapter.delete_record, d) for d in doomed]
    limit = max(2, -(-len(_count(api, path)) // 5))
    with ThreadPoolExecutor(max_workers=1) as other_client:

        def change(page: int) -> None:
            if page <= len(changes):
                other_client.submit(changes[page - 1]).result(timeout=CHANGE_TIMEOUT)

        walked = _pages_ids(
            expect_walk(
                lambda c: api.get(path, params=with_cursor({"limit": limit}, c)),
                "PAG-009",
                max_pages=MAX_PAGES,
                between=change,
            )
        )
    expect_each_once(
        None,
        "PAG-009",
        walked,
        made,
        expected=f"each row once in pages of {limit}, this test's {len(made)} among them",
    )


def _divisor(count: int) -> int | None:
    """A page size from 2 to 200 that `count` rows fill exactly, the largest."""
    return next((size for size in range(min(count, LIMIT), 1, -1) if count % size == 0), None)


USERS = next(listing for listing in listings.SHOWN if listing.name == "/v1/users")


@pytest.mark.req("PAG-004", "PAG-002", "PAG-005")
@pytest.mark.parametrize("listing", _points((*listings.NAMED, USERS)))
def test_a_full_last_page_of_a_named_list_has_no_next(
    api: ApiClient,
    convention: Callable[[str], str],
    maker: operations.Maker,
    factory: RecordFactory,
    listing: listings.Listing,
) -> None:
    """Walked in pages its rows fill exactly, a list's last page is full: it says
    `has_more` false with `links.next` null. A next cursor there leads to an empty page,
    which is judged only when a second walk finds it again (another client's delete
    between two pages could empty one once). Each list the target names, and the user
    list (a member joins to change its count)."""
    path = listing.path(convention)

    def add_row() -> None:
        if listing.kind is None:
            factory.user()
        else:
            maker.listed_id(listing.kind, api)

    for _ in range(2):
        add_row()
    size = None
    for _ in range(3):  # a prime count past 200 has no size: one more row changes it
        size = _divisor(len(_count(api, path)))
        if size is not None:
            break
        add_row()
    if size is None:
        pytest.skip(f"GET {path} kept a count no page size from 2 to 200 fills exactly")
    seen = []
    for _ in range(2):
        pages = expect_pages_until(api, path, "PAG-005", {"limit": size}, max_pages=MAX_PAGES)
        emptied = len(pages) > 1 and not pages[-1].ids and pages[-2].has_more is True
        seen.append(emptied)
        if not emptied:
            break
    expect_true(
        None,
        "PAG-004",
        not all(seen),
        expected=f"the last full page of GET {path} (pages of {size}) with has_more false",
        got="has_more true and a next cursor, twice, before an empty page",
    )


@pytest.mark.req("PAG-002", "PAG-004", "PAG-005")
@pytest.mark.parametrize("path", _directory(DIRECTORY_LISTS))
def test_walking_small_pages_serves_every_row_once(api: ApiClient, path: str) -> None:
    """Pages of about a fifth of the rows. People may join while a parallel run walks
    (no operation removes one), so the walk may hold rows the first read did not:
    each row is served once, and every row first read is there in its order."""
    before = _pages_ids(
        expect_walk(
            lambda c: api.get(path, params=with_cursor({"limit": LIMIT}, c)),
            "PAG-005",
            max_pages=MAX_PAGES,
        )
    )
    limit = max(1, -(-len(before) // 5))
    walked = _pages_ids(
        expect_walk(
            lambda c: api.get(path, params=with_cursor({"limit": limit}, c)),
            "PAG-005",
            max_pages=MAX_PAGES,
        )
    )
    for req_id in (LIST_REQ[path], "PAG-005"):  # the list's own paging, then the rule
        expect_true(
            None,
            req_id,
            len(set(walked)) == len(walked) and [i for i in walked if i in before] == before,
            expected=f"each row once, and the {len(before)} rows of the first read in their order",
            got=f"{walked}",
        )


@pytest.mark.req("PAG-004", "PAG-005", "CON-032")
def test_walking_contacts_serves_every_row_once(
    api: ApiClient, factory: RecordFactory, convention: Callable[[str], str]
) -> None:
    """Six rows in pages of two: the third page is full and the last."""
    made = _contacts(factory, 6, ago=timedelta(hours=1))
    query = _by_external_id(convention, made)
    pages = expect_walk(
        lambda c: api.get("/v1/contacts", params=with_cursor([*query, ("limit", "2")], c)),
        "PAG-004",
        max_pages=3,
    )
    ids = _pages_ids(pages)
    expect_true(
        None,
        "PAG-005",
        sorted(ids) == sorted(c["id"] for c in made),
        expected=f"each of the {len(made)} contacts once over three pages of two",
        got=f"{ids}",
    )


@pytest.mark.req("PAG-004", "PAG-002", "AUD-002")
def test_a_page_ending_at_the_last_row_has_no_next(api: ApiClient) -> None:
    """A page whose `limit` equals the number of rows is full and also the last.
    Audiences: no operation of the suite adds or removes one."""
    path = "/v1/audiences"
    rows = _pages_ids(
        expect_walk(
            lambda c: api.get(path, params=with_cursor({"limit": LIMIT}, c)),
            "PAG-004",
            max_pages=MAX_PAGES,
        )
    )
    if not rows:
        pytest.skip("the workspace has no audience")
    response = api.get(path, params={"limit": len(rows)})
    body = expect_status(response, "PAG-004", 200)
    expect_true(
        response,
        "PAG-004",
        body["links"]["next"] is None and body["meta"]["has_more"] is False,
        expected=f"links.next null and has_more false on a page of all {len(rows)} rows",
        got=f"links.next = {body['links']['next']!r}, has_more = {body['meta']['has_more']!r}",
    )


@pytest.mark.req("USR-001")
def test_users_are_listed_in_the_order_they_joined(api: ApiClient, factory: RecordFactory) -> None:
    """Three people join in a row, named out of that order (`NAME_ORDER`): listed by
    name, either way, they would not read in the order they joined. Each joins once the
    target's clock has moved past the one before (`settle`, where the adapter shows
    `created_at`): two who joined at one `created_at` joined at one moment as far as a
    reader can tell, and may be listed either way."""
    joined: list[dict[str, Any]] = []
    for letter in NAME_ORDER:
        if joined and joined[-1].get("created_at"):
            settle(joined[-1]["created_at"])
        joined.append(factory.user(name=factory.unique(f"{letter}-user")))
    pages = expect_walk(
        lambda c: api.get("/v1/users", params=with_cursor({"limit": LIMIT}, c)),
        "USR-001",
        max_pages=MAX_PAGES,
    )
    rank = {user["id"]: place for place, user in enumerate(joined)}
    listed = [row for page in pages for row in page if row.get("id") in rank]
    stamps = {row["id"]: str(row.get("created_at")) for row in listed}
    if len(set(stamps.values())) < 2 and len(listed) == len(joined):
        pytest.skip(f"the three users read one created_at, {stamps[joined[0]['id']]}")
    out_of_order = [
        (first["id"], then["id"])
        for first, then in itertools.combinations(listed, 2)
        if rank[first["id"]] > rank[then["id"]] and stamps[first["id"]] != stamps[then["id"]]
    ]
    expect_true(
        None,
        "USR-001",
        len(listed) == len(joined) and not out_of_order,
        expected=f"{', '.join(rank)} in the order they joined",
        got=f"listed {[(row['id'], row.get('created_at')) for row in listed]}",
    )


@pytest.mark.req("AUD-001")
def test_audiences_are_listed_newest_first(api: ApiClient) -> None:
    """Audiences are read as the workspace has them (no operation makes one): at least
    two with different `created_at` are needed to tell an order, and no older one may
    come before a newer one."""
    pages = expect_walk(
        lambda c: api.get("/v1/audiences", params=with_cursor({"limit": LIMIT}, c)),
        "AUD-001",
        max_pages=MAX_PAGES,
    )
    stamps = [instant(row.get("created_at")) for page in pages for row in page]
    if len(set(stamps)) < 2:
        pytest.skip(f"the workspace's {len(stamps)} audiences have no two creation times apart")
    expect_true(
        None,
        "AUD-001",
        all(a >= b for a, b in itertools.pairwise(stamps)),
        expected="audiences by created_at, newest first",
        got=f"created_at in order {[s.isoformat() for s in stamps]}",
    )


@pytest.mark.req("CON-002")
def test_contacts_are_listed_newest_first(
    api: ApiClient, factory: RecordFactory, convention: Callable[[str], str]
) -> None:
    made = _contacts(factory, 3, ago=timedelta(hours=1))
    response = api.get("/v1/contacts", params=_by_external_id(convention, made))
    ids = [row.get("id") for row in expect_status(response, "CON-002", 200)["data"]]
    expect_true(
        response,
        "CON-002",
        ids == [c["id"] for c in reversed(made)],
        expected=f"newest first: {[c['id'] for c in reversed(made)]}",
        got=f"{ids}",
    )


@pytest.mark.req("PAG-006", "PAG-007")
def test_a_cursor_of_another_list_is_refused(api: ApiClient) -> None:
    users = expect_status(api.get("/v1/users", params={"limit": 1}), "PAG-006", 200)
    cursor = users["links"]["next"]
    if cursor is None:
        pytest.skip("the workspace has a single user, so the user list gives no cursor")
    response = api.get("/v1/audiences", params={"limit": 1, "cursor": cursor})
    expect_error(response, "PAG-006", status=400, code="invalid_cursor")


@pytest.mark.req("PAG-006", "PAG-007")
@pytest.mark.parametrize("change", ["another filter value", "another sort"])
def test_a_cursor_of_another_contact_query_is_refused(
    api: ApiClient, factory: RecordFactory, convention: Callable[[str], str], change: str
) -> None:
    made = _contacts(factory, 3, ago=timedelta(hours=1))
    query = _by_external_id(convention, made)
    first = expect_status(api.get("/v1/contacts", params=[*query, ("limit", "1")]), "PAG-006", 200)
    other = query[:2] if change == "another filter value" else [*query, ("sort", "updated_at")]
    response = api.get(
        "/v1/contacts", params=[*other, ("limit", "1"), ("cursor", first["links"]["next"])]
    )
    expect_error(response, "PAG-006", status=400, code="invalid_cursor")


CURSOR_PAIRS = [
    (kind, conventions.SYNCED[(i + 1) % len(conventions.SYNCED)])
    for i, kind in enumerate(conventions.SYNCED)
]
"""Each list of records the target names, with the next one to try its cursor on."""


@pytest.mark.req("PAG-006", "PAG-007")
@pytest.mark.parametrize(("issued", "used"), CURSOR_PAIRS, ids=lambda k: str(k))
def test_a_cursor_of_one_named_list_is_refused_by_another(
    api: ApiClient,
    maker: operations.Maker,
    convention: Callable[[str], str],
    issued: str,
    used: str,
) -> None:
    """ "valid only for the query that produced it": a cursor a named list issued is
    `invalid_cursor` on another named list, as the users' is on audiences."""
    for _ in range(2):
        maker.listed_id(issued)
    first = expect_status(
        api.get(conventions.path(convention, f"lists.{issued}_path"), params={"limit": 1}),
        "PAG-006",
        200,
    )
    cursor = (first.get("links") or {}).get("next")
    if not isinstance(cursor, str):
        pytest.skip(f"the {issued} list gave no cursor for a second page")
    path = conventions.path(convention, f"lists.{used}_path")
    response = api.get(path, params={"limit": 1, "cursor": cursor})
    expect_error(response, "PAG-006", status=400, code="invalid_cursor")


@pytest.mark.req("PAG-006", "PAG-007", "SRCH-001")
@pytest.mark.parametrize("change", ["another q", "another sort"])
def test_a_search_cursor_is_refused_for_another_search(
    api: ApiClient, factory: RecordFactory, change: str
) -> None:
    """A search's cursor "as above": valid only for the search that produced it; sent
    with another `q`, or the same `q` in the reverse order (`updated_at`, the key the
    search tests sort by, then `-updated_at`), it is `invalid_cursor` (in a body, a 400
    or a 422 with that code). A keyset cursor that forgets its sort reads on backwards."""
    word = search_word(factory.unique("cursor"))
    for _ in range(3):
        factory.contact(last_name=word)
    issued: dict[str, Any] = {"q": word, "limit": 1}
    if change == "another sort":
        issued["sort"] = "updated_at"
    first = expect_status(api.post(SEARCH, json=issued), "PAG-006", 200)
    cursor = (first.get("links") or {}).get("next")
    if not isinstance(cursor, str):
        pytest.skip(f"a search by q finding three contacts gave no cursor: {first.get('meta')}")
    other = {"q": f"{word}x"} if change == "another q" else {"sort": "-updated_at"}
    response = api.post(SEARCH, json={**issued, **other, "cursor": cursor})
    expect_error_among(response, "PAG-006", {400: ("invalid_cursor",), 422: ("invalid_cursor",)})


@pytest.mark.req("PAG-006", "PAG-007")
@pytest.mark.parametrize("listing", _points(NAMED_RECORD_LISTS))
def test_a_named_list_cursor_is_refused_under_another_sort(
    api: ApiClient,
    maker: operations.Maker,
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    listing: listings.Listing,
) -> None:
    """A `sort` is part of "the query that produced it": a cursor a list of records the
    target names issued under `sort=created_at` is `invalid_cursor` under
    `sort=-created_at` (a keyset cursor that forgets its sort reads on backwards). Both
    orders are explicit, since the list's default order is not shown; a target that
    does not sort the list by `created_at` makes the point not applicable."""
    path = listing.path(convention)
    for _ in range(2):
        maker.listed_id(str(listing.kind))
    first = api.get(path, params={"limit": 1, "sort": "created_at"})
    if first.status_code == 400:
        skip_refused_sort(first, path, "created_at", observe)
    cursor = (expect_status(first, "PAG-006", 200).get("links") or {}).get("next")
    if not isinstance(cursor, str):
        pytest.skip(f"{path} gave no cursor for a second page")
    reverse = api.get(path, params={"limit": 1, "sort": "-created_at"})
    if reverse.status_code == 400:
        skip_refused_sort(reverse, path, "-created_at", observe)
    response = api.get(path, params={"limit": 1, "sort": "-created_at", "cursor": cursor})
    expect_error(response, "PAG-006", status=400, code="invalid_cursor")


@pytest.mark.req("PAG-006", "SRCH-001")
@pytest.mark.parametrize("issued", ["list", "search"])
def test_a_cursor_is_refused_between_the_list_and_search(
    api: ApiClient, factory: RecordFactory, issued: str
) -> None:
    """The contact list and a search by `q` are two queries: a cursor "valid only for the
    query that produced it" is `invalid_cursor` in the other (in a search body, a 400 or
    a 422 with that code), both ways."""
    word = search_word(factory.unique("cursor"))
    for _ in range(3):
        factory.contact(last_name=word)
    searched = {"q": word, "limit": 1}
    if issued == "list":
        first = expect_status(api.get("/v1/contacts", params={"limit": 1}), "PAG-006", 200)
    else:
        first = expect_status(api.post(SEARCH, json=searched), "PAG-006", 200)
    cursor = (first.get("links") or {}).get("next")
    if not isinstance(cursor, str):
        pytest.skip(f"the contact {issued} gave no cursor for a second page")
    if issued == "list":
        response = api.post(SEARCH, json={**searched, "cursor": cursor})
        expect_error_among(
            response, "PAG-006", {400: ("invalid_cursor",), 422: ("invalid_cursor",)}
        )
    else:
        response = api.get("/v1/contacts", params={"limit": 1, "cursor": cursor})
        expect_error(response, "PAG-006", status=400, code="invalid_cursor")


@pytest.mark.req("PAG-009", "PAG-005")
def test_paging_neither_repeats_nor_skips_while_records_change(
    api: ApiClient, factory: RecordFactory, convention: Callable[[str], str]
) -> None:
    """Between pages, another client (a worker thread) adds contacts newer than all
    others, so they sort ahead of the cursor, and then deletes some already served.
    The contacts that exist throughout must each be served exactly once; the added
    ones may or may not appear, but nothing twice."""
    stable = _contacts(factory, 8, ago=timedelta(hours=2))
    doomed = _contacts(factory, 3, ago=timedelta(hours=1))
    planned = [factory.unique("ext") for _ in range(4)]
    name = convention("contact_filters.external_id")
    query = [*_by_external_id(convention, stable + doomed), *((name, ext) for ext in planned)]
    changes: list[Callable[[], Any]] = [
        *(
            lambda ext=ext: factory.adapter.create_record(
                kind="contact", fields={"first_name": factory.unique("new"), "external_id": ext}
            )
            for ext in planned
        ),
        *(lambda c=contact: factory.adapter.delete_record(c["id"]) for contact in doomed),
    ]

    with ThreadPoolExecutor(max_workers=1) as other_client:

        def change(page: int) -> None:
            if page <= len(changes):
                other_client.submit(changes[page - 1]).result(timeout=CHANGE_TIMEOUT)

        pages = expect_walk(
            lambda c: api.get("/v1/contacts", params=with_cursor([*query, ("limit", "2")], c)),
            "PAG-009",
            max_pages=MAX_PAGES,
            between=change,
        )
    expect_each_once(
        None,
        "PAG-009",
        _pages_ids(pages),
        ids_of(stable),
        expected="every contact that existed throughout served once, none twice",
    )


@dataclass(frozen=True)
class DirectoryRecord:
    """What the document shows of one directory list's rows."""

    kind: str
    """Its `object`."""
    prefix: str
    id_req: str
    """The id prefix and that rule's id."""
    strings: tuple[str, ...]
    """Fields every row carries as a string: a value every such record has."""
    maybe_strings: tuple[str, ...]
    """Fields a record may lack a value for: a string where present, else null or absent."""
    stamps: tuple[str, ...]
    """Date-time fields every row carries (their format is the universal timestamp
    check's)."""


DIRECTORY_RECORDS = {
    "/v1/users": DirectoryRecord(
        "user", "usr_", "IDN-008", ("role", "status"), ("name", "email"), ("created_at",)
    ),
    "/v1/audiences": DirectoryRecord(
        "audience", "aud_", "IDN-017", ("name", "status"), (), ("created_at", "updated_at")
    ),
}


@pytest.mark.req("USR-003", "AUD-003", "IDN-002", "IDN-003", "IDN-008", "IDN-017")
@pytest.mark.parametrize("path", DIRECTORY_LISTS)
def test_directory_rows_carry_their_documented_fields(api: ApiClient, path: str) -> None:
    """`id` and `object` on every row (the id's prefix is a universal check), and the
    fields every such record has a value for: a member's role and status (the document
    gives their example values `admin` and `active`) and the time they joined (users
    list "in the order they joined"); an audience's name ("named contact lists") and
    status ("`status` (string)") and its times. A member's name and e-mail are typed
    where present: a person may have neither yet, and a null field may be left out."""
    record = DIRECTORY_RECORDS[path]
    req_id = "USR-003" if record.kind == "user" else "AUD-003"
    response = api.get(path, params={"limit": LIMIT})
    for row in expect_status(response, req_id, 200)["data"]:
        expect_present(response, "IDN-002", row, ("id", "object"))
        expect_value(
            response, "IDN-002", f"{record.kind} object", got=row["object"], expected=record.kind
        )
        expect_identifier(response, record.id_req, row, "id", record.prefix)
        expect_present(response, req_id, row, (*record.strings, *record.stamps))
        for field in record.strings:
            expect_true(
                response,
                req_id,
                isinstance(row[field], str),
                expected=f"{record.kind} {field} a string",
                got=f"{field}: {row[field]!r}",
            )
        for field in record.maybe_strings:
            expect_type_or_null(response, req_id, row, field, str, "a string")


@pytest.mark.req("USR-003")
def test_a_new_member_is_listed_with_its_name(api: ApiClient, factory: RecordFactory) -> None:
    """A person the adapter adds is a member the user list shows, named as given: the
    fields are checked on values the test knows, not only typed where present."""
    made = factory.user()
    rows = [
        row
        for page in expect_walk(
            lambda c: api.get("/v1/users", params=with_cursor({"limit": LIMIT}, c)),
            "USR-003",
            max_pages=MAX_PAGES,
        )
        for row in page
        if row.get("id") == made["id"]
    ]
    expect_true(
        None,
        "USR-003",
        len(rows) == 1 and rows[0].get("name") == made["name"],
        expected=f"user {made['id']} listed once, named {made['name']!r}",
        got=f"{rows}",
    )


STEADY_ROWS = 4


@pytest.mark.req("PAG-009", "PAG-005")
@pytest.mark.parametrize("listing", _points(NAMED_RECORD_LISTS))
@pytest.mark.parametrize("tied", [False, True], ids=["a second apart", "tied"])
def test_a_walk_of_one_row_a_page_serves_each_row_once(
    api: ApiClient,
    convention: Callable[[str], str],
    maker: operations.Maker,
    listing: listings.Listing,
    tied: bool,
) -> None:
    """ "paging never repeats or skips rows": four rows of a list of records, stamped at a
    past instant no other test uses, lead its `updated_since` walk in `updated_at` order
    (from a second before them: the filter's edge is SYNC-001's, `lookup_since`);
    walked one row a page, every cursor is a boundary, so a cursor that steps over a row
    or serves one twice shows on them. Stamped a second apart, they come in that order;
    stamped at one instant ("results are totally ordered"), in whatever order breaks the
    tie, each once (a keyset cursor on `updated_at` alone skips tied rows). Other rows
    come after the four (stamped later), and the walk stops once it is past them."""
    kind = listing.kind
    assert kind is not None
    origin = datetime.now(UTC).replace(microsecond=0) - timedelta(
        days=400, seconds=secrets.randbelow(86_400)
    )
    stamps = [
        (origin + timedelta(seconds=0 if tied else n)).isoformat() for n in range(STEADY_ROWS)
    ]
    made = [str(maker.record(kind, created_at=at, updated_at=at)["id"]) for at in stamps]
    pages = expect_pages_until(
        api,
        listing.path(convention),
        "PAG-005",
        {"limit": 1, "updated_since": lookup_since(stamps[0]), "sort": "updated_at"},
        max_pages=STEADY_ROWS * 2,
        done=lambda rows: not set(made) - set(ids_of(rows)),
    )
    walked = [row for page in pages for row in page.ids]
    ours = [row for row in walked if row in made]
    expect_true(
        None,
        "PAG-009",
        sorted(ours) == sorted(made) if tied else ours == made,
        expected=f"the {STEADY_ROWS} rows {made} once each"
        + ("" if tied else ", in their updated_at order"),
        got=f"{ours} among the first {len(walked)} rows walked one a page",
    )
