"""The contact list's filters: "A repeated filter parameter ORs its values; different
parameters are ANDed", for every row of the filter table, every pair of filters, each
time filter beside each value filter, and whatever else the read asks.

The filters' query names are "not shown" (but `updated_since`) and come from the target
file's `[conventions.contact_filters]`. Contacts are made by the provisioning adapter
(their create body is not shown), each test's own narrowed by `external_id` so that the
records of other tests never count.
"""

import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import document
from crm_conformance.steps import RecordFactory, expect_pages, expect_success, expect_true

CONTACTS = "/v1/contacts"


def _two_values(name: str, factory: RecordFactory, adapter: AdapterClient) -> tuple[Any, Any]:
    """Two distinct values of the contact field `name`, each naming no other record."""
    if name == "status":
        return "open", "on_hold"
    if name == "score":
        return "cold", "hot"
    if name == "email":
        return (f"{secrets.token_hex(6)}@example.com", f"{secrets.token_hex(6)}@example.com")
    if name == "external_id":
        return factory.unique("ext"), factory.unique("ext")
    if name == "organization_id":
        return factory.organization()["id"], factory.organization()["id"]
    users = adapter.fixtures().users
    if len(users) < 2:
        pytest.skip("the adapter's fixtures list fewer than two users")
    return users[0], users[1]


FILTERS = {
    "status": "CON-027",
    "score": "CON-028",
    "email": "CON-029",
    "owner_id": "CON-030",
    "organization_id": "CON-031",
    "external_id": "CON-032",
}
"""The repeatable filters of the contact list (the table's rows) and their ids."""


@pytest.mark.req("CON-034", "CON-035")
@pytest.mark.parametrize(
    "field", [pytest.param(f, marks=pytest.mark.req(FILTERS[f])) for f in sorted(FILTERS)]
)  # each point names its own filter's row
def test_a_filter_ors_repeated_values_and_ands_with_other_filters(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    field: str,
) -> None:
    """Two contacts, one per value, narrowed to the pair by `external_id` (unless that is
    the filter under test). One value finds its one contact: a miss, or the pair, is the
    filter's own failure; a contact outside the narrowing means the two parameters were
    not ANDed. Both values find both (OR)."""
    param = convention(f"contact_filters.{field}")
    by_external_id = convention("contact_filters.external_id")
    values = _two_values(field, factory, adapter)
    made = [factory.contact(**{"external_id": factory.unique("ext"), field: v}) for v in values]
    narrow = {} if field == "external_id" else {by_external_id: [m["external_id"] for m in made]}
    req_id = FILTERS[field]
    pair = {made[0]["id"], made[1]["id"]}
    for values_sent, wanted in (([values[0]], {made[0]["id"]}), (list(values), pair)):
        query = {**narrow, param: values_sent}
        found = {row.get("id") for row in expect_pages(api, CONTACTS, req_id, query)}
        if len(values_sent) > 1:
            rule = "CON-034"
        elif narrow and not found <= pair:
            rule = "CON-035"
        else:
            rule = req_id
        expect_true(
            None,
            rule,
            found == wanted,
            expected=f"{query} finds exactly {sorted(wanted)}",
            got=f"found {sorted(map(str, found))}",
        )


ENUM_VALUES = {
    name: tuple(
        value
        for value in document.resolved(document.schema("Contact")["properties"][name])["enum"]
        if value is not None
    )
    for name in ("status", "score")
}
"""The enum filters and every value of each (the Contact table's rows)."""


@pytest.mark.parametrize(
    "field", [pytest.param(f, marks=pytest.mark.req(FILTERS[f])) for f in ENUM_VALUES]
)
def test_every_value_of_an_enum_filter_finds_its_contacts_alone(
    api: ApiClient, factory: RecordFactory, convention: Callable[[str], str], field: str
) -> None:
    """ "enum `open`, `on_hold`, `won`, `lost`" and "`cold`, `warm`, `hot`": one contact
    per value, narrowed to them by `external_id`; each value finds its contact and no
    other (a filter mapping two values to one, or missing one, shows on that value)."""
    param = convention(f"contact_filters.{field}")
    by_external_id = convention("contact_filters.external_id")
    made = {
        v: factory.contact(external_id=factory.unique("ext"), **{field: v})
        for v in ENUM_VALUES[field]
    }
    narrow = {by_external_id: [m["external_id"] for m in made.values()]}
    for value, contact in made.items():
        query = {**narrow, param: [value]}
        found = {row.get("id") for row in expect_pages(api, CONTACTS, FILTERS[field], query)}
        expect_true(
            None,
            FILTERS[field],
            found == {contact["id"]},
            expected=f"{field}={value} finds {contact['id']} alone among one contact per value",
            got=f"found {sorted(map(str, found))}",
        )


@pytest.mark.req("CON-029")
def test_the_email_filter_matches_the_whole_address(
    api: ApiClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
) -> None:
    """ "exact match": the stored address finds the contact; a part of it (the address
    without its first character, or without its last) does not, nor does a pattern (its
    last local character as `_`, or all but two as `%`: SQL LIKE's wildcards, which an
    exact match takes as themselves). Whether the match
    minds letter case is recorded, not judged: addresses are matched without regard to
    case in practice, and "exact" reads as well as "the whole value"."""
    contact = factory.contact(email=f"Ada.{secrets.token_hex(6)}@Example.com")
    stored = expect_success(api.get(f"{CONTACTS}/{contact['id']}"), "CON-029").get("email")
    if not isinstance(stored, str) or len(stored) < 3:
        pytest.skip(f"the stored email {stored!r} is not one to take parts of")
    name = convention("contact_filters.email")
    local, _, domain = stored.rpartition("@")
    wildcards = (f"{local[:-1]}_@{domain}", f"{local[:2]}%@{domain}")  # SQL LIKE's, unescaped
    for value, wanted in (
        (stored, [contact["id"]]),
        (stored[1:], []),
        (stored[:-1], []),
        *((w, []) for w in wildcards),
    ):
        found = [row.get("id") for row in expect_pages(api, CONTACTS, "CON-029", {name: value})]
        expect_true(
            None,
            "CON-029",
            found == wanted,
            expected=f"email={value} finds {wanted or 'nothing'} (exact match)",
            got=f"found {found}",
        )
    other_case = [
        r.get("id") for r in expect_pages(api, CONTACTS, "CON-029", {name: stored.swapcase()})
    ]
    observe("email filter matches another letter case", other_case == [contact["id"]])


PAIRED = ("status", "score", "owner_id", "organization_id")
"""The filters tried two by two. `email` is left out: three contacts would share one
address, which a server may refuse (uniqueness of email is not shown); `external_id`
narrows every query to the test's contacts, so it is ANDed in each."""


@pytest.mark.req("CON-035")
@pytest.mark.parametrize(
    ("first", "second"),
    [(a, b) for i, a in enumerate(PAIRED) for b in PAIRED[i + 1 :]],
    ids=lambda name: str(name),
)
def test_every_two_different_filters_are_anded(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    first: str,
    second: str,
) -> None:
    """ "different parameters are ANDed", for every pair: of three contacts matching
    the first filter only, the second only, and both, the query of both finds the last."""
    one, two = _two_values(first, factory, adapter), _two_values(second, factory, adapter)
    made = [
        factory.contact(external_id=factory.unique("ext"), **{first: a, second: b})
        for a, b in ((one[0], two[1]), (one[1], two[0]), (one[0], two[0]))
    ]
    query = {
        convention(f"contact_filters.{first}"): one[0],
        convention(f"contact_filters.{second}"): two[0],
    }
    _expect_found(api, convention, made, query, made[2:], f"{first}={one[0]} and {second}={two[0]}")


@pytest.mark.req("CON-035")
@pytest.mark.parametrize("other", PAIRED)
def test_the_email_filter_is_anded_with_every_other_filter(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    other: str,
) -> None:
    """ "different parameters are ANDed", the email filter beside each other one, with
    an address of each contact's own (a shared one is left out of the pairs above):
    `email=a` with the other filter's value of a's contact finds it alone, and with the
    value no contact of `a` has finds nothing, so neither filter is dropped."""
    values = _two_values(other, factory, adapter)
    emails = [f"{secrets.token_hex(6)}@example.com" for _ in range(3)]
    made = [
        factory.contact(external_id=factory.unique("ext"), email=address, **{other: value})
        for address, value in zip(emails, (values[0], values[0], values[1]), strict=True)
    ]
    email = convention("contact_filters.email")
    name = convention(f"contact_filters.{other}")
    for value, wanted in ((values[0], made[:1]), (values[1], [])):
        query = {email: emails[0], name: value}
        _expect_found(
            api, convention, made, query, wanted, f"email={emails[0]} and {other}={value}"
        )


def _expect_found(
    api: ApiClient,
    convention: Callable[[str], str],
    made: list[dict[str, Any]],
    query: dict[str, Any],
    wanted: list[dict[str, Any]],
    what: str,
    req_id: str = "CON-035",
) -> None:
    """The query, narrowed to the `made` contacts by their `external_id`, finds exactly
    the `wanted` ones (a failure is `req_id`'s)."""
    narrowed = {convention("contact_filters.external_id"): [m["external_id"] for m in made]}
    found = {row.get("id") for row in expect_pages(api, CONTACTS, req_id, {**narrowed, **query})}
    ids = {m["id"] for m in wanted}
    expect_true(
        None,
        req_id,
        found == ids,
        expected=f"{what} find only {sorted(ids)}",
        got=f"found {sorted(map(str, found))} of {[m['id'] for m in made]}",
    )


def _stamped(factory: RecordFactory, at: datetime, fields: dict[str, Any]) -> dict[str, Any]:
    """A contact with `fields` and an `external_id` of its own, created and changed at
    `at` (the adapter's stamps), left for the factory to delete."""
    stamp = at.isoformat()
    return factory.contact(
        **{"external_id": factory.unique("ext"), **fields}, created_at=stamp, updated_at=stamp
    )


SINCE = {"updated_since": "updated_since", "created since": "created_since_param"}
"""The two time filters, and where the query name of each is (`updated_since` is shown;
the created-since name is the target's)."""


@pytest.mark.req("CON-035")
@pytest.mark.parametrize("other", PAIRED)
@pytest.mark.parametrize("since", SINCE)
def test_a_time_filter_is_anded_with_every_other_filter(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    since: str,
    other: str,
) -> None:
    """ "different parameters are ANDed", a time filter with each value filter: of three
    contacts, one matching the value but stamped before the instant, one stamped after
    it with another value, and one matching both, the query of both finds the last."""
    instant = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=30)
    before, after = instant - timedelta(minutes=1), instant + timedelta(minutes=1)
    values = _two_values(other, factory, adapter)
    made = [
        _stamped(factory, at, {other: value})
        for value, at in ((values[0], before), (values[1], after), (values[0], after))
    ]
    name = SINCE[since] if since == "updated_since" else convention(SINCE[since])
    query = {convention(f"contact_filters.{other}"): values[0], name: instant.isoformat()}
    what = f"{other}={values[0]} and {since} {instant.isoformat()}"
    _expect_found(api, convention, made, query, made[2:], what)


# --- a repeated filter beside another --------------------------------------------------


@pytest.mark.req("CON-034", "CON-035")
@pytest.mark.parametrize(
    ("repeated", "other"),
    [(a, b) for a in PAIRED for b in PAIRED if a != b],
    ids=lambda name: str(name),
)
def test_a_repeated_filter_ors_its_values_beside_another_filter(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    repeated: str,
    other: str,
) -> None:
    """The two rules together, for every ordered pair: of three contacts, one with the
    repeated filter's first value and not the other filter's, one with its second value
    and the other filter's, one with its first value and the other filter's, the query of
    both values and the other filter finds the last two (a repeat still ORs when another
    filter is given)."""
    ones, twos = _two_values(repeated, factory, adapter), _two_values(other, factory, adapter)
    made = [
        factory.contact(external_id=factory.unique("ext"), **{repeated: a, other: b})
        for a, b in ((ones[0], twos[1]), (ones[1], twos[0]), (ones[0], twos[0]))
    ]
    query = {
        convention(f"contact_filters.{repeated}"): list(ones),
        convention(f"contact_filters.{other}"): twos[0],
    }
    what = f"{repeated} in {list(ones)} and {other}={twos[0]}"
    _expect_found(api, convention, made, query, made[1:], what, "CON-034")


# --- a filter whatever else the read asks ----------------------------------------------

WITH = {
    "sort": {"sort": "updated_at"},
    "fields": {"fields": "id"},
    "expand": {"expand": "organization"},
}
"""Parameters of every read besides the filters: a sort (`updated_at`, the key the sync
procedure pairs with `updated_since`, so one every list takes), `fields` and `expand`."""

FILTER_REQS = {**FILTERS, "updated_since": "SYNC-001", "created since": "CON-033"}
"""Every filter of the list, the time filters included, and the row that states it."""


@pytest.mark.parametrize("extra", WITH)
@pytest.mark.parametrize(
    "field", [pytest.param(f, marks=pytest.mark.req(r)) for f, r in FILTER_REQS.items()]
)
def test_a_filter_applies_whatever_else_the_read_asks(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    field: str,
    extra: str,
) -> None:
    """A filter's meaning does not depend on the read's other parameters: of two
    contacts, one matching the filter and one not, the filtered list with a sort, with
    `fields`, or with `expand` finds the first alone."""
    if field in SINCE:
        instant = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=30)
        made = [
            _stamped(factory, at, {})
            for at in (instant - timedelta(minutes=1), instant + timedelta(minutes=1))
        ]
        name = SINCE[field] if field == "updated_since" else convention(SINCE[field])
        query: dict[str, Any] = {name: instant.isoformat()}
        wanted = made[1:]
    else:
        values = _two_values(field, factory, adapter)
        made = [factory.contact(**{"external_id": factory.unique("ext"), field: v}) for v in values]
        query = {convention(f"contact_filters.{field}"): values[0]}
        wanted = made[:1]
    what = f"{query} with {WITH[extra]}"
    _expect_found(api, convention, made, {**query, **WITH[extra]}, wanted, what, FILTER_REQS[field])
