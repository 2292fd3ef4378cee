"""Contact search: `POST /v1/contacts/search` with condition groups, free text and paging.

Refusals (unknown body keys, `limit` out of range) need nothing but the token. Rules
about matches use contacts made through the adapter, each carrying a search word of
letters only (`search_word`) in its last name and e-mail.
The document shows the operator `equals` and leaves the field names usable in
conditions "not shown"; the contact's own field names (`email`, `status`) are tried,
and a target refusing them skips the condition tests rather than failing them.
"""

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from string import ascii_lowercase
from typing import Any

import httpx
import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import document
from crm_conformance.steps import (
    NOT_SORTABLE,
    PAST_EVERY_INTEGER,
    TWO_KEYS,
    RecordFactory,
    error_of,
    expect_error,
    expect_error_among,
    expect_narrowed,
    expect_organization,
    expect_refused_body,
    expect_status,
    expect_true,
    expect_value,
    expect_walk,
    ids_of,
    instant,
    search_word,
    two_key_order,
    two_key_stamps,
)

SEARCH = "/v1/contacts/search"
LIMIT = document.page_limit()
MAX_PAGES = 20


class Searched:
    """This test's contacts, all sharing one search token."""

    def __init__(self, api: ApiClient, factory: RecordFactory) -> None:
        self.api = api
        self.factory = factory
        label = factory.unique("search")
        self.token = search_word(label)
        self.number = int(hashlib.sha256(label.encode()).hexdigest()[:10], 16)
        self.made: list[dict[str, Any]] = []

    def make(
        self,
        *,
        updated_at: datetime | None = None,
        created_at: datetime | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        contact = self.factory.contact(
            **{
                "first_name": "Search",
                "last_name": self.token,
                "email": f"{self.token}.{ascii_lowercase[len(self.made)]}@example.com",
                **fields,
            },
            updated_at=updated_at.isoformat() if updated_at else None,
            created_at=created_at.isoformat() if created_at else None,
        )
        self.made.append(contact)
        return contact

    def ids(
        self, req_id: str, body: dict[str, Any], *, limit: int = LIMIT, max_pages: int = MAX_PAGES
    ) -> list[str]:
        """Ids of every match of `body`, over all pages (cursor sent in the body), at most
        `max_pages` of them (`expect_walk`'s bound)."""

        def fetch(cursor: str | None) -> httpx.Response:
            return self.api.post(
                SEARCH, json={**body, "limit": limit, **({"cursor": cursor} if cursor else {})}
            )

        pages = expect_walk(fetch, req_id, max_pages=max_pages)
        return [str(row.get("id")) for page in pages for row in page]


@pytest.fixture
def searched(api: ApiClient, factory: RecordFactory) -> Searched:
    return Searched(api, factory)


def _equals(field: str, value: Any) -> dict[str, Any]:
    return {"field": field, "operator": "equals", "value": value}


@pytest.mark.req("SRCH-001", "PAG-001", "PAG-003")
def test_search_answers_the_collection_envelope(api: ApiClient) -> None:
    """The envelope and `meta.limit` echoing the body's `limit` are the universal
    collection checks, which hold search to the same rules as the list."""
    expect_status(api.post(SEARCH, json={"limit": 1}), "SRCH-001", 200)


@pytest.mark.req("SRCH-010")
@pytest.mark.parametrize("key", ["filters", "query", "status"])
def test_an_unknown_body_key_is_refused(
    api: ApiClient, key: str, observe: Callable[[str, Any], None]
) -> None:
    response = api.post(SEARCH, json={key: {"conditions": [], "join": "and"}})
    error = expect_refused_body(response, "SRCH-010")
    observe("unknown search body key: status and code", [response.status_code, error.get("code")])


MISSPELT: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "group key": lambda condition: {"join": "and", "conditons": [condition]},
    "condition key": lambda condition: {
        "join": "and",
        "conditions": [
            {"feild": condition["field"], **{k: v for k, v in condition.items() if k != "field"}}
        ],
    },
    "nested group key": lambda condition: {
        "join": "and",
        "conditions": [{"join": "or", "conditons": [condition]}],
    },
}
"""A filter selecting one contact by its email, with one key misspelt at each depth."""


@pytest.mark.req("SRCH-010")
@pytest.mark.parametrize("where", list(MISSPELT))
def test_a_misspelt_key_inside_the_filter_never_returns_everything(
    searched: Searched, where: str
) -> None:
    """ "Unknown body keys are rejected, so a misspelt filter fails instead of returning
    everything", at any depth of the filter: two contacts share the search's `q`, and a
    filter that would select one of them by e-mail has a key misspelt. The search is
    refused (400 or 422), or at least does not return the contact the filter excludes
    (whether a key inside the filter counts as a body key is read either way)."""
    wanted, excluded = searched.make(), searched.make()
    _conditions_usable(searched, wanted)
    body = {"q": searched.token, "filter": MISSPELT[where](_equals("email", wanted["email"]))}
    response = searched.api.post(SEARCH, json=body)
    if response.status_code in (400, 422):
        expect_refused_body(response, "SRCH-010")
        return
    rows = expect_status(response, "SRCH-010", 200).get("data") or []
    expect_true(
        response,
        "SRCH-010",
        excluded["id"] not in ids_of(rows),
        expected=f"the filter with its {where} misspelt refused, or not returning "
        f"{excluded['id']}, which it excludes",
        got=f"returned {ids_of(rows)}",
    )


@pytest.mark.req("SRCH-008")
@pytest.mark.parametrize("limit", [0, LIMIT + 1, 2**31, 2**32 + 1, 2**63, -(2**32 - 1)])
def test_a_body_limit_outside_1_to_200_is_refused(api: ApiClient, limit: int) -> None:
    """Both sides of the bound, and values a 32- or 64-bit reader wraps into it (2^32+1
    and -(2^32-1) read as 1 in 32 bits); a number no integer type holds may also be a
    body the parser did not understand (400 `bad_request`)."""
    response = api.post(SEARCH, json={"limit": limit})
    if abs(limit) < 2**31:
        expect_error(response, "SRCH-008", status=422, code="validation_failed")
    else:
        expect_error_among(response, "SRCH-008", PAST_EVERY_INTEGER)


@pytest.mark.req("SRCH-008")
@pytest.mark.parametrize("limit", [1, LIMIT])
def test_a_body_limit_of_1_or_200_is_accepted(api: ApiClient, limit: int) -> None:
    expect_status(api.post(SEARCH, json={"limit": limit}), "SRCH-008", 200)


@pytest.mark.req("SRCH-001")
def test_search_returns_the_same_object_as_the_list(
    searched: Searched, convention: Callable[[str], str]
) -> None:
    contact = searched.make()
    listed = expect_status(
        searched.api.get(
            "/v1/contacts", params={convention("contact_filters.email"): contact["email"]}
        ),
        "SRCH-001",
        200,
    )["data"]
    response = searched.api.post(SEARCH, json={"q": contact["email"]})
    found = [
        r for r in expect_status(response, "SRCH-001", 200)["data"] if r.get("id") == contact["id"]
    ]

    def comparable(record: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in record.items() if k != "avatar_url"}  # a fresh signed URL

    expect_true(
        response,
        "SRCH-001",
        len(found) == 1 and len(listed) == 1 and comparable(found[0]) == comparable(listed[0]),
        expected=f"contact {contact['id']} rendered as the list renders it",
        got=f"search: {found}, list: {listed}",
    )


@pytest.mark.req("SRCH-006")
@pytest.mark.parametrize("by", ["name", "email", "phone"])
def test_q_matches_name_email_and_phone(searched: Searched, by: str) -> None:
    number = searched.number
    exchange, line = 200 + number % 800, number // 800 % 10_000  # a valid NANP number
    contact = searched.make(phone=f"+1415{exchange}{line:04d}")
    q = {"name": searched.token, "email": contact["email"], "phone": contact["phone"]}[by]
    ids = searched.ids("SRCH-006", {"q": q})
    expect_true(
        None,
        "SRCH-006",
        contact["id"] in ids,
        expected=f"contact {contact['id']} among the matches of q={q!r} (its {by})",
        got=f"matches {ids}",
    )


def _conditions_usable(searched: Searched, contact: dict[str, Any]) -> None:
    """Skip unless `email` and `status` work as condition fields (names not shown)."""
    for condition in (_equals("email", contact["email"]), _equals("status", contact["status"])):
        body = {"filter": {"join": "and", "conditions": [condition]}}
        response = searched.api.post(SEARCH, json=body)
        if response.status_code in (400, 422):
            pytest.skip(
                f"the target refuses the condition field {condition['field']!r} (field names "
                "usable in conditions are not shown)"
            )


@pytest.mark.req("SRCH-003", "SRCH-004", "SRCH-005")
def test_nested_groups_combine_and_with_or(searched: Searched) -> None:
    first = searched.make(status="won")
    second = searched.make(status="open")
    third = searched.make(status="won")
    _conditions_usable(searched, first)
    both = [
        {"join": "and", "conditions": [_equals("email", c["email"]), _equals("status", "won")]}
        for c in (second, third)
    ]
    body = {"filter": {"join": "or", "conditions": [_equals("email", first["email"]), *both]}}
    got = searched.ids("SRCH-003", body)
    for req_id in ("SRCH-004", "SRCH-003"):  # a group as a condition, then the joins
        expect_value(
            None,
            req_id,
            "matches of (first) or (second and won) or (third and won)",
            got=sorted(got),
            expected=sorted(ids_of([first, third])),
        )


@pytest.mark.req("SRCH-003", "SRCH-004")
def test_a_nested_or_group_inside_an_and_group_ors(searched: Searched) -> None:
    """The other nesting: won and (first's email or second's email) finds the first only
    (the second is open); a nested `or` read as `and` finds nobody."""
    first = searched.make(status="won")
    second = searched.make(status="open")
    searched.make(status="won")
    _conditions_usable(searched, first)
    either = {
        "join": "or",
        "conditions": [_equals("email", first["email"]), _equals("email", second["email"])],
    }
    body = {"filter": {"join": "and", "conditions": [_equals("status", "won"), either]}}
    got = searched.ids("SRCH-003", body)
    for req_id in ("SRCH-004", "SRCH-003"):
        expect_value(
            None,
            req_id,
            "matches of won and (first or second)",
            got=sorted(got),
            expected=[first["id"]],
        )


@pytest.mark.req("SRCH-004", "SRCH-005")
def test_equals_matches_the_whole_value(searched: Searched) -> None:
    """A flat group of one `equals` condition finds the contact of that email, and an
    email one character short of it (a prefix, contained in it), or with its last local
    character as `_` (a LIKE pattern matching it), finds nothing of ours."""
    contact = searched.make()
    _conditions_usable(searched, contact)
    local, _, domain = str(contact["email"]).rpartition("@")
    for value, wanted, req_id in (
        (contact["email"], [contact["id"]], "SRCH-004"),
        (contact["email"][:-1], [], "SRCH-005"),
        (f"{local[:-1]}_@{domain}", [], "SRCH-005"),  # SQL LIKE's wildcard, unescaped
    ):
        body = {"filter": {"join": "and", "conditions": [_equals("email", value)]}}
        got = [one for one in searched.ids(req_id, body) if one in ids_of(searched.made)]
        expect_value(
            None, req_id, f"our matches of email equals {value!r}", got=got, expected=wanted
        )


@pytest.mark.req("SRCH-009", "SRCH-007", "PAG-005")
def test_search_pages_through_every_match_in_the_sort_order(searched: Searched) -> None:
    """Every match over pages of 2 (SRCH-009), in the order `sort` asked for (SRCH-007);
    then `-` for descending, in one page."""
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    for minutes in (4, 1, 5, 3, 2):
        searched.make(updated_at=base + timedelta(minutes=minutes))
    expected = ids_of(sorted(searched.made, key=lambda c: instant(c["updated_at"])))
    got = searched.ids("SRCH-009", {"q": searched.token, "sort": "updated_at"}, limit=2)
    expect_value(
        None, "SRCH-009", "ids over pages of 2", got=sorted(got), expected=sorted(expected)
    )
    expect_value(
        None, "SRCH-007", "ids over pages of 2, sort=updated_at", got=got, expected=expected
    )
    descending = searched.ids("SRCH-007", {"q": searched.token, "sort": "-updated_at"})
    expect_value(None, "SRCH-007", "ids, sort=-updated_at", got=descending, expected=expected[::-1])


@pytest.mark.req("SRCH-007")
def test_search_sorts_by_two_keys(searched: Searched) -> None:
    """ "same syntax as the `sort` query parameter", comma-separated keys included: three
    groups of three matches share an `updated_at`, and `updated_at,-created_at` orders
    each group newest first (`steps.TWO_KEY_GROUPS`). A target that does not sort by
    `created_at` (no such key is shown) makes the point not applicable."""
    base = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
    for created, updated in two_key_stamps(
        base, base + timedelta(minutes=10), timedelta(minutes=1)
    ):
        searched.make(created_at=created, updated_at=updated)
    first = searched.api.post(SEARCH, json={"q": searched.token, "sort": TWO_KEYS})
    if first.status_code in (400, 422) and error_of(first).get("code") in NOT_SORTABLE:
        pytest.skip("the target does not sort a search by created_at (no such key is shown)")
    got = searched.ids("SRCH-007", {"q": searched.token, "sort": TWO_KEYS})
    expected = two_key_order(searched.made)
    expect_value(None, "SRCH-007", f"ids with sort={TWO_KEYS}", got=got, expected=expected)


@pytest.mark.req("PAG-004", "SRCH-009")
def test_a_search_page_ending_at_the_last_match_has_no_next(searched: Searched) -> None:
    """Four matches in pages of two: the second page is full and the last, so its
    `links.next` is null (a walk asked to read a third page fails PAG-004)."""
    for _ in range(4):
        searched.make()
    got = searched.ids("PAG-004", {"q": searched.token}, limit=2, max_pages=2)
    expected = sorted(ids_of(searched.made))
    expect_value(
        None, "SRCH-009", "matches over two full pages", got=sorted(got), expected=expected
    )


@pytest.mark.req("SRCH-002", "QRY-010", "QRY-011", "QRY-005")
def test_search_accepts_expand_and_fields(searched: Searched, factory: RecordFactory) -> None:
    organization = factory.organization()
    contact = searched.make(organization_id=organization["id"])
    response = searched.api.post(
        SEARCH, json={"q": searched.token, "expand": "organization", "fields": "email,organization"}
    )
    data = expect_status(response, "SRCH-002", 200)["data"]
    expect_value(response, "SRCH-002", "matches", got=len(data), expected=1)
    expect_value(response, "SRCH-002", "email", got=data[0].get("email"), expected=contact["email"])
    expect_organization(response, "SRCH-002", data[0], organization["id"])
    record = data[0]
    expect_narrowed(response, "SRCH-002", record, ("email", "organization"))
