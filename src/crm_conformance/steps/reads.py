"""Reads that would find one record, and what a token is shown by each.

Tenancy and OAuth visibility are one rule seen from two sides: a record a token may not
see appears in no read, not in the one its test's author met first. `contact_reads`
names every read that can find a contact: the contact list under each filter the target
names and each date-time query the description gives it, and search by `q` on each field
it covers and by a condition. `seen` collects what a token is shown by a read, page
after page (bounded).
"""

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from crm_conformance.core.model import conventions, document
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.clock import lookup_since
from crm_conformance.steps.expect import expect_status, strings_in
from crm_conformance.steps.factories import phone_number
from crm_conformance.steps.pages import with_cursor

CONTACTS = "/v1/contacts"
SEARCH = "/v1/contacts/search"
MAX_PAGES = 20

Q_FIELDS = ("name", "email", "phone")
"""Search `q`: "free text across name, email and phone"."""

_LETTERS = str.maketrans("0123456789", "ghijklmnop")


def search_word(label: str) -> str:
    """A word of 18 lowercase letters, unique to `label`, that search's `q` finds only in
    the records carrying it. Letters only: "free text across ... phone" may match the
    digits of `q` inside phone numbers, so a digit in the word could find any contact
    whose phone holds it; and any tokenizer keeps a word of letters whole."""
    return "cc" + hashlib.sha256(label.encode()).hexdigest()[:16].translate(_LETTERS)


def findable(name: str, *, owner_id: str, organization_id: str) -> dict[str, Any]:
    """The fields of a contact every contact read can find it by (`name`, unique to it,
    gives its last name, a search word, and its e-mail)."""
    word = search_word(name)
    return {
        "first_name": "Findable",
        "last_name": word,
        "email": f"{word}@example.com",
        "phone": phone_number(),
        "external_id": name,
        "status": "won",
        "score": "hot",
        "owner_id": owner_id,
        "organization_id": organization_id,
    }


@dataclass(frozen=True)
class Read:
    """A read, and the string (an id, a code) of the record it must not show."""

    method: str
    path: str
    query: Mapping[str, str]
    body: Mapping[str, Any] | None
    marker: str
    pages: bool = True
    refusable: str = ""
    """Why the target may refuse the read (400 or 422): it is skipped then."""


ContactRead = Callable[[conventions.Lookup, Mapping[str, Any]], Read]
"""(the target's conventions, the contact as its create rendered it) -> the read."""


def _contact_list(
    filter_of: Callable[[conventions.Lookup, Mapping[str, Any]], dict[str, str]],
) -> ContactRead:
    """The contact list with a filter matching the contact, ANDed with `updated_since` at
    its last change (so the answer stays a page or two)."""

    def read(convention: conventions.Lookup, contact: Mapping[str, Any]) -> Read:
        query = {"updated_since": lookup_since(contact["updated_at"]), "sort": "updated_at"}
        return Read(
            "GET", CONTACTS, {**query, **filter_of(convention, contact)}, None, contact["id"]
        )

    return read


def _filter(field: str) -> ContactRead:
    return _contact_list(lambda c, contact: {c(f"contact_filters.{field}"): str(contact[field])})


def _search(
    body_of: Callable[[Mapping[str, Any]], dict[str, Any]], refusable: str = ""
) -> ContactRead:
    def read(_: conventions.Lookup, contact: Mapping[str, Any]) -> Read:
        return Read("POST", SEARCH, {}, body_of(contact), contact["id"], refusable=refusable)

    return read


def _q(field: str) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """The search body whose free text matches the contact by `field` (its last name is
    a search token of letters and digits, which any tokenizer keeps whole)."""
    return lambda contact: {"q": str(contact["last_name" if field == "name" else field])}


def contact_reads(*, id_filters: bool) -> dict[str, ContactRead]:
    """Every read that can find a contact, by name. `id_filters`: the list filtered by
    the contact's own `owner_id` and `organization_id` too (tenancy holds those apart,
    as ids of another workspace)."""
    reads: dict[str, ContactRead] = {}
    fields = document.schema("Contact")["properties"]
    for key in conventions.KEYS:
        table, _, name = key.key.partition(".")
        is_id = bool(document.identifier_prefixes(fields.get(name)))
        if table == "contact_filters" and (id_filters or not is_id):
            reads[f"listContacts-{name}"] = _filter(name)
    reads["listContacts-created_since"] = _contact_list(
        lambda c, contact: {c("created_since_param"): contact["created_at"]}
    )
    reads["listContacts-updated_since"] = _contact_list(lambda c, contact: {})
    for field in Q_FIELDS:
        reads[f"searchContacts-q-{field}"] = _search(_q(field))
    condition = {"field": "email", "operator": "equals"}
    reads["searchContacts-filter-email"] = _search(
        lambda c: {"filter": {"join": "and", "conditions": [{**condition, "value": c["email"]}]}},
        "field names usable in conditions are not shown, and the target refuses `email`",
    )
    return reads


def _answers(
    client: ApiClient, read: Read, req_id: str, headers: Mapping[str, str] | None
) -> tuple[list[Any], httpx.Response]:
    """The read's pages to `client` (bounded, at the largest `limit`; the cursor in the
    query, or in the body of a search; one answer for a read that does not page), each
    request carrying `headers` too, and the first answer. A read the target may refuse
    (`refusable`) and does is skipped."""
    limit = {"limit": str(document.page_limit())} if read.pages else {}
    sent = dict(headers or {})

    def fetch(cursor: str | None) -> httpx.Response:
        if read.body is None:
            query = dict(with_cursor({**read.query, **limit}, cursor))
            return client.get(read.path, params=query, headers=sent)
        body = with_cursor({**read.body, "limit": document.page_limit()}, cursor)
        return client.request(read.method, read.path, json=dict(body), headers=sent)

    pages: list[Any] = []
    first = response = fetch(None)
    if read.refusable and first.status_code in (400, 422):
        pytest.skip(read.refusable)
    for _ in range(MAX_PAGES):
        page = expect_status(response, req_id, 200)
        pages.append(page)
        cursor = (page.get("links") or {}).get("next") if read.pages else None
        if not isinstance(cursor, str) or not page.get("meta", {}).get("has_more", True):
            break
        response = fetch(cursor)
    return pages, first


def seen(
    client: ApiClient, read: Read, req_id: str, headers: Mapping[str, str] | None = None
) -> tuple[set[str], httpx.Response]:
    """Every string of the read's answers to `client`, page after page (`_answers`), and
    the first answer."""
    pages, first = _answers(client, read, req_id, headers)
    if not read.pages:
        return strings_in(pages[0]), first
    return set().union(*(strings_in(page.get("data")) for page in pages)), first


def read_rows(client: ApiClient, read: Read, req_id: str) -> tuple[list[Any], httpx.Response]:
    """Every row of a paged read's answers to `client` (`_answers`), and the first answer:
    the rows themselves, so a row served twice counts twice."""
    pages, first = _answers(client, read, req_id, None)
    return [row for page in pages for row in page.get("data") or []], first
