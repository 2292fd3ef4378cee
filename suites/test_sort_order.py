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
list to them; and `VALUED` more, alike in all that but with an email and a phone where
the tied ones have none. Each point walks them two per page: on the keys the tied ones
leave null, a page ends where the set values give way to the nulls (a keyset cursor's
`key > ?` is never true of a NULL, so a server paging that way drops the null rows).

Then the order itself: every key of the Contact table, and of each list of records the
target names (organizations, deals, activities), lists three rows made with distinct
values of it by those values, both ways (`steps.expect_sorted_both_ways`).
"""

import itertools
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import document
from crm_conformance.steps import (
    TWO_KEYS,
    RecordFactory,
    expect_each_once,
    expect_pages_until,
    expect_sorted,
    expect_sorted_both_ways,
    expect_status,
    expect_true,
    expect_walk,
    ids_of,
    listings,
    lookup_since,
    operations,
    phone_number,
    search_word,
    skip_refused_sort,
    two_key_order,
    two_key_stamps,
    with_cursor,
)

CONTACTS = "/v1/contacts"
SEARCH = "/v1/contacts/search"
TIED = 4
VALUED = 2
PAGE = 2
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
    """`TIED` contacts equal in everything but their ids and external ids, then `VALUED`
    alike but for an email and a phone of their own."""
    factory = module_factory
    stamp = (datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)).isoformat()
    shared = {
        "first_name": factory.unique("tie"),
        "last_name": search_word(factory.unique("tie")),
        "status": "on_hold",
        "score": "warm",
        "address": "1 Tie Street",
        "city": "Tieton",
        "state": "TT",
        "job_title": "Tester",
        "organization_id": factory.organization()["id"],
        "owner_id": factory.listed_user_id(),
    }
    own: list[dict[str, Any]] = [{} for _ in range(TIED)]
    own += [
        {"email": f"{factory.unique('v')}@example.com", "phone": phone_number()}
        for _ in range(VALUED)
    ]
    return [
        factory.adapter.create_record(
            kind="contact",
            fields={**shared, **fields, "external_id": factory.unique("ext")},
            created_at=stamp,
            updated_at=stamp,
        )
        for fields in own
    ]


def _tied_reads(
    api: ApiClient, tied: list[dict[str, Any]], convention: Callable[[str], str], read: str
) -> tuple[Callable[[list[tuple[str, str]], str | None], httpx.Response], list[tuple[str, str]]]:
    """How `read` asks for the module's contacts and nothing else: the list narrowed by
    their external ids, or search by the token in their last name. Returns the sender
    (the query's pairs, a cursor) and the pairs."""
    if read == "list":
        name = convention("contact_filters.external_id")
        pairs = [(name, str(c["external_id"])) for c in tied]

        def listed(query: list[tuple[str, str]], cursor: str | None) -> httpx.Response:
            return api.get(CONTACTS, params=with_cursor(query, cursor))

        return listed, pairs

    def searched(query: list[tuple[str, str]], cursor: str | None) -> httpx.Response:
        body: dict[str, Any] = {
            key: int(value) if key == "limit" else value for key, value in query
        }
        return api.post(SEARCH, json={**body, **({"cursor": cursor} if cursor else {})})

    return searched, [("q", str(tied[0]["last_name"]))]


@pytest.mark.parametrize(
    "read", [pytest.param("list"), pytest.param("search", marks=pytest.mark.req("SRCH-009"))]
)
@pytest.mark.parametrize("sort", _orders())
def test_a_walk_serves_tied_rows_once_in_every_order(
    api: ApiClient,
    tied: list[dict[str, Any]],
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    sort: str | None,
    read: str,
) -> None:
    """The first page is read once: it both tells whether the key sorts and starts the
    walk, so a refused key costs one request. A key the target cannot sort by must be
    refused as the 400 table says (QRY-003), not answered otherwise. Search "returns the
    same objects ... as the list" and takes `sort` in "same syntax", so it is walked in
    every order too, found by the token in the contacts' last name; a target whose free
    text does not find all of them (SRCH-006 judges that) leaves the point not
    applicable."""
    send, pairs = _tied_reads(api, tied, convention, read)
    walk_req = "PAG-005" if read == "list" else "SRCH-009"
    if read == "search":
        found = ids_of(
            expect_status(send([*pairs, ("limit", "200")], None), "SRCH-009", 200)["data"]
        )
        if set(ids_of(tied)) - set(found):
            pytest.skip(f"search by q finds {len(found)} of the {len(tied)} contacts (SRCH-006's)")
    query = [*pairs, ("limit", str(PAGE)), *((("sort", sort),) if sort is not None else ())]
    first = send(query, None)
    if sort is not None and first.status_code != 200:
        skip_refused_sort(first, read, sort, observe, in_body=read == "search")
    pages = expect_walk(
        lambda cursor: first if cursor is None else send(query, cursor),
        walk_req,
        max_pages=len(tied),
    )
    expect_each_once(
        None,
        "QRY-002",
        [str(row.get("id")) for page in pages for row in page],
        ids_of(tied),
        expected=f"each of the {len(tied)} contacts once, walked {PAGE} per page "
        f"with sort={sort or '(default)'}",
        shown=f"pages {[ids_of(p) for p in pages]}",
    )


# --- the order is the key's values, both ways -------------------------------------------

ORDERED = 3
"""Contacts per key, made out of order (the second, the third, then the first)."""


def _plain_text_keys() -> tuple[str, ...]:
    """The Contact table's free-text fields a caller sets (a string or null, no enum: the
    order of an enum's values is not shown):
    values `<prefix>a` < `<prefix>b` < `<prefix>c` order alike under any collation.
    Left out: `avatar_url` (not stored), `company_name` (writing it links an
    organization), `lost_reason` (only when lost), `object` (constant)."""
    skipped = {"avatar_url", "company_name", "lost_reason", "object"}
    properties = document.schema("Contact")["properties"]
    return tuple(
        key
        for key, schema in properties.items()
        if schema.get("type") in (["string", "null"], "string")
        and "enum" not in schema
        and key not in skipped
    )


VALUE_KEYS = (*_plain_text_keys(), "external_id", "created_at", "updated_at")


def _values(key: str, prefix: str, seed: int, rank: int) -> dict[str, Any]:
    """The fields giving a contact the `rank`-th value of `key` (0 lowest); `seed` makes
    the phone numbers the test's own."""
    letter = "abc"[rank]
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=2)
    if key in ("created_at", "updated_at"):
        stamp = (base + timedelta(minutes=rank)).isoformat()
        return {"created_at": stamp, "updated_at": stamp}
    if key == "phone":
        return {"phone": f"+44207{seed:06d}{rank}"}
    if key == "email":
        return {"email": f"{prefix}{letter}@example.com"}
    if key == "name":  # derived from first and last name
        return {"first_name": f"{prefix}{letter}", "last_name": "Conformance"}
    return {key: f"{prefix}{letter}"}


@pytest.mark.req("QRY-001")
@pytest.mark.parametrize("key", VALUE_KEYS)
def test_every_sort_key_orders_rows_by_its_values_both_ways(
    api: ApiClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    key: str,
) -> None:
    """ "`sort` | comma-separated keys, `-` prefix for descending": with three contacts
    whose values of `key` are distinct, `sort=key` lists them by those values and
    `sort=-key` in reverse. A key the target refuses to sort by is not applicable here
    (its refusal is the walk's, above)."""
    made = _ordered(factory, key, "Conformance")
    name = convention("contact_filters.external_id")
    narrowed = [(name, str(record["external_id"])) for record in made]
    query = [*narrowed, ("limit", str(ORDERED))]
    expect_sorted_both_ways(api, CONTACTS, query, key, ids_of(made), observe)


def _ordered(factory: RecordFactory, key: str, word: str) -> list[dict[str, Any]]:
    """Three contacts whose values of `key` are distinct, made out of order (the second,
    the third, the first), lowest first; each has `word` as its last name (its first
    name where `key` is the last name), what search's `q` finds them by."""
    prefix = f"s{secrets.token_hex(5)}"
    seed = secrets.randbelow(10**6)
    made = {}
    for rank in (1, 2, 0):
        fields = {"first_name": f"{prefix}x", "last_name": word}
        fields.update(_values(key, prefix, seed, rank))
        fields["first_name" if key == "last_name" else "last_name"] = word
        created, updated = fields.pop("created_at", None), fields.pop("updated_at", None)
        fields.setdefault("external_id", factory.unique("ext"))
        made[rank] = factory.contact(**fields, created_at=created, updated_at=updated)
    return [made[rank] for rank in sorted(made)]


@pytest.mark.req("SRCH-007")
@pytest.mark.parametrize("key", VALUE_KEYS)
def test_every_sort_key_orders_search_results_by_its_values_both_ways(
    api: ApiClient,
    factory: RecordFactory,
    observe: Callable[[str, Any], None],
    key: str,
) -> None:
    """Search's `sort` has the "same syntax as the `sort` query parameter": the three
    contacts a search by `q` finds come by their values of `key` under `sort=key`, and
    in reverse under `sort=-key`. A key the target refuses to sort a search by is not
    applicable."""
    word = search_word(factory.unique("order"))
    ascending = ids_of(_ordered(factory, key, word))
    for sign, order in (("", ascending), ("-", ascending[::-1])):
        sort = f"{sign}{key}"
        response = api.post(SEARCH, json={"q": word, "sort": sort, "limit": ORDERED})
        if response.status_code != 200:
            skip_refused_sort(response, "search", sort, observe, in_body=True)
        rows = expect_status(response, "SRCH-007", 200).get("data") or []
        got = [row_id for row_id in ids_of(rows) if row_id in order]
        expect_true(
            response,
            "SRCH-007",
            got == order,
            expected=f"search sort={sort} lists {order}",
            got=f"{got}",
        )


# --- the named lists of records: each key's values, both ways ---------------------------

NAMED_RECORD_LISTS = tuple(listing for listing in listings.NAMED if listing.synced)
MONEY = frozenset({"value"})
"""Fields the document types as "string (monetary ...)": ordered as amounts."""
DERIVED = frozenset({"object", "lost_reason", "lost_justification", "status_reason", "record_id"})
"""Text fields left out: constant, derived (a lost deal's reason name), only written with a
state the key does not need (`lost_justification` "same rule as `lost_reason_id`"), or
an id. `updated_at` and `stage_changed_at` are left out too: every row is stamped at one
`updated_at` to narrow the list, and a made deal's `stage_changed_at` is its
`created_at` (the adapter's)."""


def _named_keys(kind: str) -> list[tuple[str, str]]:
    """(key, how its values are made) for each field of the kind's table a test can give
    three ordered values: text, an amount, an integer, an instant."""
    keys = []
    for key, schema in document.schema(kind.capitalize())["properties"].items():
        types = schema.get("type")
        ref = str(schema.get("$ref", ""))
        if key in MONEY:
            keys.append((key, "money"))
        elif types in (["integer", "null"], "integer"):
            keys += [(key, "integer"), (key, "inherited")] if key == "probability" else []
        elif key in ("updated_at", "stage_changed_at"):
            continue
        elif schema.get("format") == "date-time" or ref.endswith("/Timestamp"):
            keys.append((key, "instant"))
        elif ref.endswith("/ExternalId") or (
            types in (["string", "null"], "string") and "enum" not in schema and key not in DERIVED
        ):
            keys.append((key, "text"))
    return keys


def _named_points() -> list[Any]:
    return [
        pytest.param(listing, key, made, id=f"{listing.kind}-{key}-{made}")
        for listing in NAMED_RECORD_LISTS
        for key, made in _named_keys(str(listing.kind))
    ]


def _named_value(key: str, made: str, prefix: str, rank: int) -> Any:
    """The `rank`-th value (0 lowest) of `key`; `inherited` makes the middle one null, a
    deal's probability that reads its stage's default (0 and 100 round it)."""
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
    if made == "money":
        return (9, 20.5, 100)[rank]  # as text "100.00" < "20.50" < "9.00"
    if made == "integer":
        return (5, 40, 90)[rank]
    if made == "inherited":
        return (0, None, 100)[rank]
    if made == "instant":
        return (base + timedelta(minutes=rank)).isoformat()
    letter = "abc"[rank]
    return f"https://{prefix}{letter}.example.com" if key == "website" else f"{prefix}{letter}"


@pytest.mark.req("QRY-001")
@pytest.mark.parametrize(("listing", "key", "made"), _named_points())
def test_every_sort_key_of_a_named_list_orders_rows_by_its_values_both_ways(
    api: ApiClient,
    maker: operations.Maker,
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    listing: listings.Listing,
    key: str,
    made: str,
) -> None:
    """The rule of `sort` is the document's for every read, so a list the target names
    is held to it too: three records whose values of `key` are distinct (an amount
    compared as a number, "100.00" after "9.00"; a probability that inherits its stage's
    default compared by the default it reads) come in that order both ways. They share
    one past `updated_at`, and `updated_since` a second before it narrows the list to
    them and whatever else changed since (`lookup_since`)."""
    path = listing.path(convention)
    kind = str(listing.kind)
    if made == "inherited":
        default = maker.record(kind, fields={key: None}).get(key)
        if not isinstance(default, int) or not 0 < default < 100:
            pytest.skip(f"not applicable: an inherited {key} reads {default!r}, not 1 to 99")
    prefix = f"s{secrets.token_hex(5)}"
    since = (datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=1)).isoformat()
    rows = {}
    for rank in (1, 2, 0):
        value = _named_value(key, made, prefix, rank)
        if key == "created_at":
            record = maker.record(kind, created_at=value, updated_at=since)
        else:
            record = maker.record(kind, updated_at=since, fields={key: value})
        rows[rank] = str(record["id"])
    ascending = [rows[rank] for rank in sorted(rows)]
    query = [("updated_since", lookup_since(since)), ("limit", "200")]
    expect_sorted_both_ways(api, path, query, key, ascending, observe)


@pytest.mark.req("QRY-001")
@pytest.mark.parametrize("listing", NAMED_RECORD_LISTS, ids=lambda listing: listing.name)
def test_a_named_list_sorts_by_two_keys(
    api: ApiClient,
    maker: operations.Maker,
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    listing: listings.Listing,
) -> None:
    """ "comma-separated keys", on a list the target names as on the contact list: three
    groups of three records share an `updated_at`, and `updated_at,-created_at` orders
    each group newest first (`steps.TWO_KEY_GROUPS`). `updated_since` a second before
    the first group's instant narrows the list to them and whatever else changed since."""
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=1)
    made = [
        maker.record(
            str(listing.kind), created_at=created.isoformat(), updated_at=updated.isoformat()
        )
        for created, updated in two_key_stamps(
            base - timedelta(hours=1), base, timedelta(seconds=1)
        )
    ]
    query = [("updated_since", lookup_since(base.isoformat())), ("limit", "200")]
    path = listing.path(convention)
    expect_sorted(api, path, query, TWO_KEYS, two_key_order(made), observe)


# --- the named lists of records: walks across tied and null values, in every order -----

NAMED_TIED = 2
"""Rows sharing the lowest value of the key; one more has the next value, and `NULLED`
leave the key out (where a record can be made without it)."""
NULLED = 2
REQUIRED = frozenset({"created_at", "title", "name"})
"""Keys every made record has (`Maker.record` names them, or the adapter stamps them)."""
UNIQUE = frozenset({"external_id"})
"""Keys no two records share ("unique per workspace and resource"): three values, no tie."""


def _named_walk_points() -> list[Any]:
    return [
        pytest.param(listing, key, made, sign, id=f"{listing.kind}-{key}-{direction}")
        for listing in NAMED_RECORD_LISTS
        for key, made in _named_keys(str(listing.kind))
        if made != "inherited"
        for direction, sign in (("ascending", ""), ("descending", "-"))
    ]


@pytest.mark.req("QRY-002", "QRY-003", "PAG-005")
@pytest.mark.parametrize(("listing", "key", "made", "sign"), _named_walk_points())
def test_a_named_list_walk_serves_tied_and_null_rows_once_in_every_order(
    api: ApiClient,
    maker: operations.Maker,
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    listing: listings.Listing,
    key: str,
    made: str,
    sign: str,
) -> None:
    """ "results are totally ordered and paging never repeats or skips rows", in every
    order a list the target names offers: two rows tie on `key` (an `external_id` cannot
    tie: three distinct values), one has a higher value,
    two leave it null, all stamped at one past `updated_at` no other test uses. Sorted by
    `updated_at` first ("comma-separated keys"), they lead the `updated_since` walk from
    a second before that instant, then in the key's order; walked two a page, a page
    ends inside the tie and where the values give way to the nulls, so a keyset cursor
    on the key alone, or one whose `key > ?` drops the NULLs, skips rows. A target that
    does not sort the list that way (a 400 naming the sort) leaves the point not
    applicable."""
    path = listing.path(convention)
    kind = str(listing.kind)
    origin = datetime.now(UTC).replace(microsecond=0) - timedelta(
        days=500, seconds=secrets.randbelow(86_400)
    )
    prefix = f"w{secrets.token_hex(5)}"
    ranks = (0, 1, 2) if key in UNIQUE else (0, 0, 1)
    values = [_named_value(key, made, prefix, rank) for rank in ranks]
    if made == "instant":  # before the rows' updated_at
        values = [(origin - timedelta(minutes=3 - rank)).isoformat() for rank in ranks]
    rows = []
    for value in values:
        if key == "created_at":
            rows.append(maker.record(kind, created_at=value, updated_at=origin.isoformat()))
        else:
            rows.append(maker.record(kind, updated_at=origin.isoformat(), fields={key: value}))
    if key not in REQUIRED:
        rows += [maker.record(kind, updated_at=origin.isoformat()) for _ in range(NULLED)]
    ours = ids_of(rows)
    query = [
        ("updated_since", lookup_since(origin.isoformat())),
        ("sort", f"updated_at,{sign}{key}"),
        ("limit", str(PAGE)),
    ]
    first = api.get(path, params=query)
    if first.status_code == 400:
        skip_refused_sort(first, path, f"updated_at,{sign}{key}", observe)
    pages = expect_pages_until(
        api,
        path,
        "PAG-005",
        query,
        max_pages=len(ours) + 2,
        done=lambda read: not set(ours) - set(ids_of(read)),
    )
    expect_each_once(
        first,
        "QRY-002",
        [row for page in pages for row in page.ids if row in ours],
        ours,
        expected=f"each of the {len(ours)} rows once, walked {PAGE} a page with "
        f"sort=updated_at,{sign}{key}",
        shown=f"pages {[page.ids for page in pages]}",
    )
