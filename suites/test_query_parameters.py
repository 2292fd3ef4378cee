"""Query parameters of reads: `sort`, `expand`, `fields`, the contact filters and the
`updated_since` / created-since instants. Their refusals of invalid values are
`test_query_validation.py`'s matrix; the total order under every sort key is
`test_sort_order.py`'s.

Rules refusing a parameter are checked on the contact list with nothing but the
token; rules about which rows come back use contacts made through the adapter (with
explicit stamps where an order or an instant is asserted) and narrow the list to them
with the repeatable `external_id` filter. Filter names other than `updated_since` are
"not shown" and come from the target file's conventions.
"""

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    NOT_SORTABLE,
    TWO_KEYS,
    RecordFactory,
    absent_id,
    error_of,
    expect_error,
    expect_narrowed,
    expect_organization,
    expect_status,
    expect_true,
    expect_value,
    expect_walk,
    ids_of,
    instant,
    listings,
    operations,
    search_word,
    two_key_order,
    two_key_stamps,
    with_cursor,
)

CONTACTS = "/v1/contacts"
SEARCH = "/v1/contacts/search"
MAX_EXPAND = document.max_expand()
MAX_FILTER_VALUES = document.max_filter_values()
PLUS_TWO = timezone(timedelta(hours=2))
"""A non-UTC offset: an instant must be read as the instant, whatever its offset."""

Query = list[tuple[str, str]]


class Contacts:
    """Makes this test's contacts and lists them, narrowed to the ones it made."""

    def __init__(self, api: ApiClient, factory: RecordFactory, convention: Callable[[str], str]):
        self.api = api
        self.factory = factory
        self.convention = convention
        self.made: list[dict[str, Any]] = []

    def make(
        self,
        *,
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        contact = self.factory.contact(
            **{
                "first_name": self.factory.unique("query"),
                "external_id": self.factory.unique("ext"),
                **fields,
            },
            created_at=created_at.isoformat() if created_at else None,
            updated_at=updated_at.isoformat() if updated_at else None,
        )
        self.made.append(contact)
        return contact

    def narrowed(self, among: Sequence[dict[str, Any]] | None = None) -> Query:
        name = self.convention("contact_filters.external_id")
        return [(name, str(c["external_id"])) for c in (self.made if among is None else among)]

    def ids(self, req_id: str, query: Query) -> list[str]:
        """Ids of every contact the query lists, in order, over all its pages."""
        pages = expect_walk(
            lambda c: self.api.get(CONTACTS, params=with_cursor(query, c)),
            req_id,
            max_pages=len(self.made) + 2,
        )
        return [str(row.get("id")) for page in pages for row in page]


@pytest.fixture
def contacts(api: ApiClient, factory: RecordFactory, convention: Callable[[str], str]) -> Contacts:
    return Contacts(api, factory, convention)


def _updated(record: dict[str, Any]) -> datetime:
    return instant(record["updated_at"])


# --- sort --------------------------------------------------------------------------


@pytest.mark.req("QRY-001", "SYNC-003")
@pytest.mark.parametrize("sort", ["updated_at", "-updated_at"])
def test_sort_orders_ascending_and_descending(contacts: Contacts, sort: str) -> None:
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    for minutes in (1, 3, 2):  # made out of order, so creation order is not the answer
        contacts.make(updated_at=base + timedelta(minutes=minutes))
    expected = sorted(contacts.made, key=_updated, reverse=sort.startswith("-"))
    got = contacts.ids("QRY-001", [*contacts.narrowed(), ("sort", sort)])
    expect_value(None, "QRY-001", f"ids with sort={sort}", got=got, expected=ids_of(expected))


@pytest.mark.req("QRY-001", "QRY-002")
def test_sort_by_two_keys_breaks_ties_with_the_second(contacts: Contacts) -> None:
    """Three groups of three share an `updated_at`; `-created_at` orders each group newest
    first (`steps.TWO_KEY_GROUPS`)."""
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    for created, updated in two_key_stamps(
        base, base + timedelta(minutes=10), timedelta(minutes=1)
    ):
        contacts.make(created_at=created, updated_at=updated)
    query = [*contacts.narrowed(), ("sort", TWO_KEYS)]
    response = contacts.api.get(CONTACTS, params=query)
    if response.status_code == 400 and error_of(response).get("code") in NOT_SORTABLE:
        pytest.skip("the target does not sort contacts by created_at (no such key is shown)")
    expect_value(
        None,
        "QRY-001",
        f"ids with sort={TWO_KEYS}",
        got=contacts.ids("QRY-001", query),
        expected=two_key_order(contacts.made),
    )


@pytest.mark.req("QRY-002")
def test_rows_with_equal_sort_values_keep_one_order_across_pages(contacts: Contacts) -> None:
    stamp = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    for _ in range(4):
        contacts.make(updated_at=stamp)
    query = [*contacts.narrowed(), ("sort", "updated_at")]
    one_per_page = contacts.ids("QRY-002", [*query, ("limit", "1")])
    whole = contacts.ids("QRY-002", [*query, ("limit", str(document.page_limit()))])
    expect_true(
        None,
        "QRY-002",
        sorted(one_per_page) == sorted(ids_of(contacts.made)) and one_per_page == whole,
        expected="the 4 tied contacts once each, in the same order one per page as in one page",
        got=f"one per page {one_per_page}, one page {whole}",
    )


# --- expand ------------------------------------------------------------------------


ON_THE_RESOURCE = ",".join(["organization"] * (MAX_EXPAND + 1))
"""Five expand names, each the one relationship the document names on a contact and a
deal: whether they are five relationships or one is not shown, but none is a name "not
on the resource"."""

EXPANDING: dict[str, Callable[[ApiClient, operations.Maker, str], Any]] = {
    "list contacts": lambda api, maker, names: api.get(CONTACTS, params={"expand": names}),
    "retrieve contact": lambda api, maker, names: api.get(
        f"{CONTACTS}/{maker.contact_id()}", params={"expand": names}
    ),
    "search contacts": lambda api, maker, names: api.post(
        "/v1/contacts/search", json={"expand": names}
    ),
    "create deal": lambda api, maker, names: api.post(
        "/v1/deals", params={"expand": names}, json=maker.deal_body()
    ),
    "list deals": lambda api, maker, names: api.get(
        conventions.path(maker.convention, "lists.deal_path"), params={"expand": names}
    ),
    "retrieve deal": lambda api, maker, names: api.get(
        conventions.path(maker.convention, "retrieve.deal_path", deal_id=maker.record_id("deal")),
        params={"expand": names},
    ),
}
"""Every operation taking `expand` on a resource with the `organization` relationship
(a contact, a deal), shown or named by the target."""


@pytest.mark.req("QRY-008", "QRY-009")
@pytest.mark.parametrize("read", list(EXPANDING))
def test_more_than_four_expand_names_are_refused(
    api: ApiClient, maker: operations.Maker, read: str, observe: Callable[[str, Any], None]
) -> None:
    """On every operation taking `expand`: the document names one relationship
    (`organization`), so five names include unknown ones, and the order of the two
    checks is not shown: either code passes, and which one the target chose is
    recorded."""
    names = ["organization", *(f"no_such_relation_{n}" for n in range(MAX_EXPAND))]
    response = EXPANDING[read](api, maker, ",".join(names))
    codes = ("expand_limit_exceeded", "unknown_expand")
    error = expect_error(response, "QRY-008", status=400, code=codes)
    observe(f"{read}: code for five expand names, four unknown", error.get("code"))


def _relationships(convention: Callable[[str], str], read: str) -> list[str]:
    """The relationships the target names for the resource `read` renders
    (`[conventions.expand]`), each once; the test is not applicable with four or fewer."""
    kind = "contact" if "contact" in read else "deal"
    names = list(dict.fromkeys(n.strip() for n in convention(f"expand.{kind}").split(",")))
    names = [name for name in names if name]
    if len(names) <= MAX_EXPAND:
        pytest.skip(
            f"[conventions.expand] names {len(names)} relationship(s) on a {kind}: the bound "
            f"is held with names all on the resource only where there are {MAX_EXPAND + 1}"
        )
    return names


@pytest.mark.req("QRY-008", "QRY-009")
@pytest.mark.parametrize("read", list(EXPANDING))
def test_five_relationships_of_the_resource_are_refused_and_four_embedded(
    api: ApiClient, maker: operations.Maker, convention: Callable[[str], str], read: str
) -> None:
    """Both sides of "at most 4 per request" with names all on the resource (the target
    file's): five distinct relationships can only be refused for their number
    (`expand_limit_exceeded`), which a count made after the unknown names, or over them
    alone, misses; four are taken."""
    names = _relationships(convention, read)
    five = EXPANDING[read](api, maker, ",".join(names[: MAX_EXPAND + 1]))
    expect_error(five, "QRY-008", status=400, code="expand_limit_exceeded")
    four = EXPANDING[read](api, maker, ",".join(names[:MAX_EXPAND]))
    expect_status(four, "QRY-009", *((200, 201) if read.startswith("create") else (200,)))


@pytest.mark.req("QRY-009", "QRY-007")
@pytest.mark.parametrize("read", list(EXPANDING))
def test_four_expand_names_are_not_refused_for_their_number(
    api: ApiClient, maker: operations.Maker, read: str
) -> None:
    """Four names are within "at most 4", on every operation taking `expand`: with one
    known relationship and three unknown ones, the only refusal left is for the unknown
    names (`unknown_expand`), never `expand_limit_exceeded`; and `organization` four
    times (one relationship or four, by any count) is never refused for its number."""
    mixed = ["organization", *(f"no_such_relation_{n}" for n in range(MAX_EXPAND - 1))]
    answers = {
        ",".join(names): EXPANDING[read](api, maker, ",".join(names))
        for names in (mixed, ["organization"] * MAX_EXPAND)
    }
    for names, response in answers.items():
        code = error_of(response).get("code")
        expect_true(
            response,
            "QRY-009",
            code != "expand_limit_exceeded" and response.status_code < 500,
            expected=f"{MAX_EXPAND} expand names ({names}) within the limit",
            got=f"{response.status_code} {code}",
        )
    expect_error(answers[",".join(mixed)], "QRY-007", status=400, code="unknown_expand")


@pytest.mark.req("QRY-007")
@pytest.mark.parametrize("read", list(EXPANDING))
def test_expand_names_all_on_the_resource_are_never_unknown(
    api: ApiClient, maker: operations.Maker, read: str, observe: Callable[[str, Any], None]
) -> None:
    """`unknown_expand` is "an expand name not on the resource": five names that are all
    `organization` may be refused for their number (`expand_limit_exceeded`), taken as
    one, or refused as a repeat, but never as unknown."""
    response = EXPANDING[read](api, maker, ON_THE_RESOURCE)
    answered = f"{response.status_code} {error_of(response).get('code')}"
    expect_true(
        response,
        "QRY-007",
        "unknown_expand" not in answered and response.status_code < 500,
        expected="no unknown_expand: every name is the organization relationship",
        got=answered,
    )
    observe(f"{read} with expand=organization five times", answered)


@pytest.mark.req("QRY-005", "QRY-006")
def test_expand_embeds_the_organization_and_its_absence_keeps_the_id(
    contacts: Contacts, factory: RecordFactory
) -> None:
    organization = factory.organization()
    contacts.make(organization_id=organization["id"])
    query = contacts.narrowed()
    plain_response = contacts.api.get(CONTACTS, params=query)
    plain = expect_status(plain_response, "QRY-006", 200)["data"]
    expect_value(plain_response, "QRY-006", "rows", got=len(plain), expected=1)
    expect_value(
        plain_response,
        "QRY-006",
        "organization_id",
        got=plain[0].get("organization_id"),
        expected=organization["id"],
    )
    expect_organization(plain_response, "QRY-006", plain[0], None)
    expanded_response = contacts.api.get(CONTACTS, params=[*query, ("expand", "organization")])
    expanded = expect_status(expanded_response, "QRY-005", 200)["data"]
    expect_value(expanded_response, "QRY-005", "rows", got=len(expanded), expected=1)
    expect_organization(expanded_response, "QRY-005", expanded[0], organization["id"])


# --- fields ------------------------------------------------------------------------


@pytest.mark.req("QRY-010", "QRY-011")
def test_fields_returns_only_the_named_fields_with_id_and_object(contacts: Contacts) -> None:
    """On every contact read that takes `fields`: the list, the retrieve, and search
    ("accepts the same `expand` and `fields`"), which finds the contact by its address
    (`q`; free text may find others too, each held to the rule as well)."""
    contact = contacts.make(email=f"{search_word(contacts.factory.unique('fields'))}@example.com")
    responses = [
        contacts.api.get(CONTACTS, params=[*contacts.narrowed(), ("fields", "email")]),
        contacts.api.get(f"{CONTACTS}/{contact['id']}", params={"fields": "email"}),
        contacts.api.post(SEARCH, json={"q": contact["email"], "fields": "email", "limit": 20}),
    ]
    listed, retrieved, searched = (expect_status(r, "QRY-010", 200) for r in responses)
    pages = [listed.get("data") or [], [retrieved], searched.get("data") or []]
    for response, rows in zip(responses, pages, strict=True):
        records = [row for row in rows if isinstance(row, dict)]
        expect_true(
            response,
            "QRY-010",
            any(row.get("email") == contact["email"] for row in records),
            expected=f"a row with email {contact['email']} (the contact {contact['id']})",
            got=f"{len(rows)} rows: {rows!r}"[:300],
        )
        for record in records:
            keys = set(record)
            expect_true(
                response,
                "QRY-011",
                {"id", "object"} <= keys,
                expected="id and object present when fields=email",
                got=f"keys {sorted(keys)}",
            )
            expect_narrowed(response, "QRY-010", record, ("email",))


NARROWED_TO = {
    "organization": "name",
    "deal": "title",
    "activity": "title",
    "tag": "name",
    "conversation": "status",
    "campaign": "name",
}
"""A field of each kind's table in the document, which `fields` names alone."""


@pytest.mark.req("QRY-010", "QRY-011")
@pytest.mark.parametrize("point", listings.NAMED_READS, ids="-".join)
def test_fields_narrows_every_read_the_target_names(
    api: ApiClient,
    maker: operations.Maker,
    convention: Callable[[str], str],
    point: tuple[str, str],
) -> None:
    """ "`fields` | comma-separated field names to return; `object` and `id` always
    included" is a rule "of reads": on each list and retrieve the target names, a row
    narrowed to one field of its table carries that field, `id` and `object`, and
    nothing else (a deal's Always present fields may stay)."""
    kind = point[0]
    name = NARROWED_TO[kind]
    params: dict[str, Any] = {"fields": name, **({"limit": 5} if point[1] == "list" else {})}
    made = maker.listed_id(kind, api)
    response, reads = listings.read_named(api, convention, point, made, "QRY-010", params)
    rows = [row for _, row in reads]
    expect_true(
        response,
        "QRY-010",
        bool(rows),
        expected=f"a row of {point[1]} {kind} (a {kind} was just made)",
        got=response.text[:200],
    )
    for row in rows:
        expect_true(
            response,
            "QRY-011",
            isinstance(row, dict) and {"id", "object"} <= set(row),
            expected=f"id and object present when fields={name}",
            got=f"{row!r}"[:200],
        )
        expect_narrowed(response, "QRY-010", row, (name,))


# --- filters -----------------------------------------------------------------------


@pytest.mark.req("CON-034", "CON-032")
def test_a_repeated_filter_ors_its_values(contacts: Contacts) -> None:
    chosen = [contacts.make(), contacts.make()]
    contacts.make()
    got = contacts.ids("CON-034", contacts.narrowed(chosen))
    expect_value(
        None,
        "CON-034",
        "ids for two external_id values",
        got=sorted(got),
        expected=sorted(ids_of(chosen)),
    )


@pytest.mark.req("CON-035", "CON-027")
def test_different_filters_are_anded(contacts: Contacts, convention: Callable[[str], str]) -> None:
    won = contacts.make(status="won")
    contacts.make(status="open")
    query = [*contacts.narrowed(), (convention("contact_filters.status"), "won")]
    expect_value(
        None,
        "CON-035",
        "ids for external_id values and status=won",
        got=contacts.ids("CON-035", query),
        expected=[won["id"]],
    )


FILTER_IDS = {
    name: document.identifier_prefixes(document.schema("Contact")["properties"][name])[0]
    for name in ("owner_id", "organization_id")
}
"""The id filters and the prefix of the ids they take (`usr`, `org`)."""
ENUM_FILTERS = {
    name: [
        value
        for value in document.resolved(document.schema("Contact")["properties"][name])["enum"]
        if value is not None  # a score may be null; a filter value is one of the names
    ]
    for name in ("status", "score")
}
"""The enum filters and their values: fewer than the cap, so their values repeat."""
REPEATABLE = (*ENUM_FILTERS, "email", *FILTER_IDS, "external_id")
"""Every filter the contact list's table calls repeatable ("a cap of 100 accompanies the
repeatable filters"); the further repeatable text filter is not shown."""


def _values(name: str, unique: Callable[[str], str], count: int) -> list[str]:
    """`count` valid values of filter `name`, distinct where the filter has that many."""
    if name in ENUM_FILTERS:
        shown = ENUM_FILTERS[name]
        return [shown[n % len(shown)] for n in range(count)]
    if name in FILTER_IDS:
        return [absent_id(FILTER_IDS[name]) for _ in range(count)]
    mark = unique("filter")
    return [f"{mark}-{n}@example.com" if name == "email" else f"{mark}-{n}" for n in range(count)]


@pytest.mark.req("CON-036")
@pytest.mark.parametrize("name", REPEATABLE)
def test_a_filter_repeated_100_times_is_accepted(
    api: ApiClient, convention: Callable[[str], str], unique: Callable[[str], str], name: str
) -> None:
    query = [
        (convention(f"contact_filters.{name}"), v) for v in _values(name, unique, MAX_FILTER_VALUES)
    ]
    expect_status(api.get(CONTACTS, params=query), "CON-036", 200)


@pytest.mark.req("CON-037")
@pytest.mark.parametrize("name", REPEATABLE)
def test_a_filter_repeated_more_than_100_times_is_refused(
    api: ApiClient,
    convention: Callable[[str], str],
    unique: Callable[[str], str],
    observe: Callable[[str, Any], None],
    name: str,
) -> None:
    """`too_many_filter_values` is "a filter repeated more than allowed": the parameter
    sent 101 times, with distinct values where the filter has that many. An enum filter's
    four or three values repeat, and "repeated filter parameter values | capped" may
    count distinct values (OR-ing a value twice changes nothing): there a 200 is
    recorded, not judged."""
    count = MAX_FILTER_VALUES + 1
    query = [(convention(f"contact_filters.{name}"), v) for v in _values(name, unique, count)]
    response = api.get(CONTACTS, params=query)
    if name in ENUM_FILTERS and response.status_code == 200:
        observe(f"{name} sent {count} times with {len(ENUM_FILTERS[name])} values", 200)
        pytest.skip(f"not applicable: {name} has fewer than {count} distinct values")
    expect_error(response, "CON-037", status=400, code="too_many_filter_values")


# --- instants ----------------------------------------------------------------------


@pytest.mark.req("SYNC-001")
def test_updated_since_includes_the_instant_itself(contacts: Contacts) -> None:
    """Sent with a +02:00 offset, the stamp of a contact still names that contact's
    instant ("at or after"); one second later it does not."""
    stamp = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=30)
    contact = contacts.make(updated_at=stamp)
    contacts.make(updated_at=stamp - timedelta(minutes=5))
    for since, expected in ((stamp, [contact["id"]]), (stamp + timedelta(seconds=1), [])):
        query = [
            *contacts.narrowed(),
            ("sort", "updated_at"),
            ("updated_since", since.astimezone(PLUS_TWO).isoformat()),
        ]
        got = contacts.ids("SYNC-001", query)
        expect_value(
            None, "SYNC-001", f"ids with updated_since={query[-1][1]}", got=got, expected=expected
        )


@pytest.mark.req("SYNC-001", "IDN-003")
def test_updated_since_reads_fractional_seconds_at_their_value(contacts: Contacts) -> None:
    """A contact stamped half a second past a whole second, where the target keeps the
    fraction (it reads its `updated_at` back with one): `updated_since` at that stamp, sent
    with one fractional digit (".5"), includes it, and a tenth later (".6") does not. A
    parser reading ".5" as five microseconds, not half a second, serves it both times."""
    whole = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=40)
    contact = contacts.make(updated_at=whole + timedelta(milliseconds=500))
    kept = _updated(contact)
    if kept.microsecond != 500_000:
        pytest.skip(f"the target keeps updated_at as {contact['updated_at']!r}, not to the tenth")
    base = whole.strftime("%Y-%m-%dT%H:%M:%S")
    for tenth, expected in (("5", [contact["id"]]), ("6", [])):
        query = [
            *contacts.narrowed(),
            ("sort", "updated_at"),
            ("updated_since", f"{base}.{tenth}Z"),
        ]
        got = contacts.ids("SYNC-001", query)
        expect_value(
            None, "SYNC-001", f"ids with updated_since={query[-1][1]}", got=got, expected=expected
        )


@pytest.mark.req("CON-033")
def test_created_since_includes_the_instant_itself(
    contacts: Contacts, convention: Callable[[str], str]
) -> None:
    """A contact created before the instant and changed after it is not listed: the
    filter reads `created_at`, never `updated_at`."""
    stamp = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=30)
    contacts.make(created_at=stamp - timedelta(minutes=1))
    contacts.make(created_at=stamp - timedelta(minutes=2), updated_at=stamp + timedelta(minutes=5))
    later = contacts.make(created_at=stamp)
    since = stamp.astimezone(PLUS_TWO).isoformat()
    query = [*contacts.narrowed(), (convention("created_since_param"), since)]
    expect_value(
        None,
        "CON-033",
        f"ids created at or after {since}",
        got=contacts.ids("CON-033", query),
        expected=[later["id"]],
    )
