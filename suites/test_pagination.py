"""Lists and pagination: the collection envelope, `limit`, cursors, default orders, and
the rows of the directory lists (users, audiences), whose only operation is the list.

The seeded directory lists (users, audiences) need nothing but the token; contact lists
use contacts made through the adapter, narrowed by the repeatable `external_id` filter
to this test's own, so other tests' data never moves the rows under a walk.
"""

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from crm_conformance import (
    ApiClient,
    RecordFactory,
    expect_error,
    expect_present,
    expect_status,
    expect_timestamp,
    expect_true,
    expect_value,
    expect_walk,
    instant,
)

DIRECTORY_LISTS = ("/v1/users", "/v1/audiences")
LISTS = ("/v1/contacts", *DIRECTORY_LISTS)
MAX_PAGES = 50
CHANGE_TIMEOUT = 30.0


def _ids(pages: list[list[dict[str, Any]]]) -> list[str]:
    return [str(row.get("id")) for page in pages for row in page]


def _contacts(factory: RecordFactory, count: int, *, ago: timedelta) -> list[dict[str, Any]]:
    """`count` contacts with distinct external ids, created a minute apart from `ago`
    before now, oldest first (explicit stamps: ties would leave "newest first" open)."""
    start = datetime.now(UTC) - ago
    return [
        factory.adapter.create_record(
            kind="contact",
            fields={
                "first_name": factory.unique("page"),
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


@pytest.mark.req("PAG-001", "PAG-003", "USR-002", "AUD-002")
@pytest.mark.parametrize("path", LISTS)
def test_a_list_answers_the_collection_envelope(api: ApiClient, path: str) -> None:
    """The envelope, `has_more`/`links.next` agreement and `meta.limit` echoing the
    requested limit are the universal collection checks that `expect_status` applies."""
    expect_status(api.get(path, params={"limit": 1}), "PAG-001", 200)


@pytest.mark.req("PAG-008", "PAG-003")
@pytest.mark.parametrize("limit", [1, 200])
def test_the_limit_bounds_are_accepted(api: ApiClient, limit: int) -> None:
    body = expect_status(api.get("/v1/users", params={"limit": limit}), "PAG-008", 200)
    expect_true(
        None,
        "PAG-003",
        body["meta"]["limit"] == limit,
        expected=f"meta.limit = {limit}",
        got=f"meta.limit = {body['meta']['limit']!r}",
    )


@pytest.mark.req("PAG-008", "ERR-011")
@pytest.mark.parametrize("limit", ["0", "201", "-1", "2.5", "many"])
def test_a_limit_outside_1_to_200_is_refused(api: ApiClient, limit: str) -> None:
    response = api.get("/v1/users", params={"limit": limit})
    expect_error(response, "PAG-008", status=400, code="validation_failed")


@pytest.mark.req("PAG-001")
@pytest.mark.parametrize("path", LISTS)
def test_the_default_page_size_is_recorded(
    api: ApiClient, path: str, observe: Callable[[str, Any], None]
) -> None:
    """ "Default page size of lists: not shown": any size passes; it is recorded."""
    body = expect_status(api.get(path), "PAG-001", 200)
    observe(f"default page size of GET {path}", body["meta"]["limit"])


@pytest.mark.req("PAG-002", "PAG-004", "PAG-005", "USR-002", "AUD-002")
@pytest.mark.parametrize("path", DIRECTORY_LISTS)
def test_walking_small_pages_serves_every_row_once(api: ApiClient, path: str) -> None:
    """Pages of about a fifth of the rows. People may join while a parallel run walks
    (no operation removes one), so the walk may hold rows the first read did not:
    each row is served once, and every row first read is there in its order."""
    before = _ids(
        expect_walk(
            lambda c: api.get(path, params={"limit": 200, "cursor": c}),
            "PAG-005",
            max_pages=MAX_PAGES,
        )
    )
    limit = max(1, -(-len(before) // 5))
    walked = _ids(
        expect_walk(
            lambda c: api.get(path, params={"limit": limit, "cursor": c}),
            "PAG-005",
            max_pages=MAX_PAGES,
        )
    )
    expect_true(
        None,
        "PAG-005",
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
        lambda c: api.get("/v1/contacts", params=[*query, ("limit", "2"), *_cursor(c)]),
        "PAG-004",
        max_pages=3,
    )
    ids = _ids(pages)
    expect_true(
        None,
        "PAG-005",
        sorted(ids) == sorted(c["id"] for c in made),
        expected=f"each of the {len(made)} contacts once over three pages of two",
        got=f"{ids}",
    )


def _cursor(cursor: str | None) -> list[tuple[str, str]]:
    return [] if cursor is None else [("cursor", cursor)]


@pytest.mark.req("PAG-004", "PAG-002", "AUD-002")
def test_a_page_ending_at_the_last_row_has_no_next(api: ApiClient) -> None:
    """A page whose `limit` equals the number of rows is full and also the last.
    Audiences: no operation of the suite adds or removes one."""
    path = "/v1/audiences"
    rows = _ids(
        expect_walk(
            lambda c: api.get(path, params={"limit": 200, "cursor": c}),
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
    first, second = factory.user(), factory.user()
    ids = _ids(
        expect_walk(
            lambda c: api.get("/v1/users", params={"limit": 200, "cursor": c}),
            "USR-001",
            max_pages=MAX_PAGES,
        )
    )
    expect_true(
        None,
        "USR-001",
        first["id"] in ids
        and second["id"] in ids
        and ids.index(first["id"]) < ids.index(second["id"]),
        expected=f"{first['id']} (joined first) listed before {second['id']}",
        got=f"users in order {ids}",
    )


@pytest.mark.req("AUD-001")
def test_audiences_are_listed_newest_first(api: ApiClient) -> None:
    pages = expect_walk(
        lambda c: api.get("/v1/audiences", params={"limit": 200, "cursor": c}),
        "AUD-001",
        max_pages=MAX_PAGES,
    )
    stamps = [instant(row.get("created_at")) for page in pages for row in page]
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


@pytest.mark.req("PAG-007")
def test_a_corrupt_cursor_is_refused(api: ApiClient) -> None:
    response = api.get("/v1/users", params={"limit": 1, "cursor": "not-a-cursor-%%"})
    expect_error(response, "PAG-007", status=400, code="invalid_cursor")


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
            lambda c: api.get("/v1/contacts", params=[*query, ("limit", "2"), *_cursor(c)]),
            "PAG-009",
            max_pages=MAX_PAGES,
            between=change,
        )
    ids = _ids(pages)
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    skipped = [c["id"] for c in stable if c["id"] not in ids]
    expect_true(
        None,
        "PAG-009",
        not repeated and not skipped,
        expected="every contact that existed throughout served once, none twice",
        got=f"repeated {repeated}, skipped {skipped}",
    )


DIRECTORY_RECORDS = {
    "/v1/users": ("user", ("name", "email", "role", "status"), ("created_at",)),
    "/v1/audiences": ("audience", ("name", "status"), ("created_at", "updated_at")),
}
"""Per directory list: its `object`, its string fields and its date-time fields."""


@pytest.mark.req("USR-003", "AUD-003", "IDN-002", "IDN-003", "IDN-008", "IDN-017")
@pytest.mark.parametrize("path", DIRECTORY_LISTS)
def test_directory_rows_carry_their_documented_fields(api: ApiClient, path: str) -> None:
    """`id` and `object` on every row (the id's prefix is a universal check); the other
    fields are typed where present, since the document lists them without saying that
    a null one is sent rather than left out."""
    kind, strings, stamps = DIRECTORY_RECORDS[path]
    req_id = "USR-003" if kind == "user" else "AUD-003"
    response = api.get(path, params={"limit": 200})
    for row in expect_status(response, req_id, 200)["data"]:
        expect_present(response, "IDN-002", row, ("id", "object"))
        expect_value(response, "IDN-002", f"{kind} object", row["object"], kind)
        for field in strings:
            expect_true(
                response,
                req_id,
                row.get(field) is None or isinstance(row[field], str),
                expected=f"{kind}.{field} a string",
                got=f"{kind}.{field} = {row.get(field)!r}",
            )
        for field in stamps:
            expect_timestamp(response, "IDN-003", row, field)
