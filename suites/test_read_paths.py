"""One record read through every path that renders it is the same object.

A contact is a Contact wherever it is read: the retrieve ("Response: Contact"), the list
("Response: collection of Contact") and search ("Returns the same objects and envelope
as the list and accepts the same `expand` and `fields`"), each with and without
`expand=organization`. So every rule of the Contact table holds on every path: the owner
"always present when the contact has an owner", every custom field (null when unset),
`lost_reason` when lost, tags as Tags. One rich contact (owner, organization, tags,
channels, lost with a reason, custom fields) is read through each path, and each field
of each path's row is compared with the retrieve's, a difference charged to the field's
own rule where it has one, else to the path's. A deal reads the same in its create's
answer (expanded or not) and at the target's retrieve, and an activity the same; a
deal, an organization and an activity read the same in the list of their kind the target
names as at its retrieve.

`null` and a field left out are one value here (the document does not say that a field
without a value is sent as null), except where it says a field appears: every custom
field, checked on each path. `avatar_url` is "short-lived": each read may sign another.
Only the fields of the record's table are compared: a field the document does not give
the resource (a tag's `created_at`) is the target's own, and what it renders where is
not stated.
"""

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    RecordFactory,
    Updates,
    expect_error_among,
    expect_field,
    expect_found,
    expect_owner,
    expect_pages,
    expect_pages_until,
    expect_status,
    expect_success,
    expect_true,
    expect_unset_custom_fields,
    is_record_object,
    json_equal,
    listings,
    lookup_since,
    operations,
    phone_number,
    reads,
    same_instant,
    search_word,
)

VOLATILE = frozenset({"avatar_url"})
"""Fields a read may render anew each time: a signed URL that "must not be stored"."""

CONTACT_FIELD_REQ = {
    "owner": "CON-018",
    "lost_reason": "CON-021",
    "channels": "CON-022",
    "tags": "CON-023",
    "custom_fields": "CON-025",
    "name": "CON-007",
    "phone": "CON-009",
}
"""The rule a contact field's own row states, charged when a path renders it otherwise."""

DEAL_FIELD_REQ = {
    "lost_reason": "DEAL-020",
    "probability": "DEAL-016",
    "stage_changed_at": "DEAL-022",
    "custom_fields": "DEAL-028",
}


def differences(reference: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, str]:
    """The fields of the record's table whose values differ, by name, with what each
    side holds; null and left out are one value, at every depth."""
    return {
        name: f"{reference.get(name)!r} | {other.get(name)!r}"
        for name in documented(reference, fields_of(reference, other))
        if not same(reference.get(name), other.get(name))
    }


def fields_of(*records: Mapping[str, Any]) -> list[str]:
    """The field names of `records`, sorted, but the volatile ones."""
    return sorted(set().union(*records) - VOLATILE)


def same(left: Any, right: Any) -> bool:
    """Equal values; two date-times naming one instant to within a second (a store may
    keep fewer digits than an answer rendered before storing), and two amounts of equal
    value ("1234.5" and "1234.50"), are equal."""
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return not differences(left, right)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, str) and isinstance(right, str) and left != right:
        return same_instant(left, right) or _same_amount(left, right)
    return json_equal(right, left) and json_equal(left, right)  # 1 is not true, nor 1.0


def _same_amount(left: str, right: str) -> bool:
    try:
        return Decimal(left) == Decimal(right)
    except InvalidOperation:
        return False


def expect_same_record(
    response: httpx.Response | None,
    reference: Mapping[str, Any],
    row: Mapping[str, Any] | None,
    *,
    path: str,
    path_req: str,
    field_req: Mapping[str, str],
    found_req: str | None = None,
) -> None:
    """`row` (the record as `path` renders it) is `reference` field by field; a row not
    found is charged to `found_req` (the rule that should have found it)."""
    expect_true(
        response,
        found_req or path_req,
        row is not None,
        expected=f"{reference.get('id')} among the rows of {path}",
        got=response.text[:300] if response is not None else "no row",
    )
    if row is None:
        return
    for name in documented(reference, fields_of(reference, row)):
        expect_true(
            response,
            field_req.get(name, path_req),
            same(reference.get(name), row.get(name)),
            expected=f"{name} through {path} as the retrieve renders it",
            got=f"retrieve | {path}: {reference.get(name)!r} | {row.get(name)!r}"[:400],
        )


def documented(record: Mapping[str, Any], names: list[str]) -> list[str]:
    """Those of `names` that the table of `record`'s kind (its `object`) gives it; all of
    them for a kind without a table."""
    try:
        given = document.schema(str(record.get("object", "")).capitalize())["properties"]
    except KeyError:
        return names
    return [name for name in names if name in given]


def row_of(rows: list[Any], record_id: str) -> dict[str, Any] | None:
    """The row whose id is `record_id`."""
    return next((r for r in rows if isinstance(r, dict) and r.get("id") == record_id), None)


@dataclass(frozen=True)
class Rich:
    """A contact with a value in every field a rule speaks of, and what made it."""

    contact: dict[str, Any]
    email: str
    external_id: str
    custom_keys: tuple[str, ...]


@pytest.fixture
def rich(factory: RecordFactory, adapter: AdapterClient, convention: Any) -> Rich:
    fixtures = adapter.fixtures()
    email = f"{factory.unique('read').lower().replace('_', '-')}@example.com"
    external_id = factory.unique("read-ext")
    fields: dict[str, Any] = {
        "first_name": "Ada",
        "last_name": factory.unique("Paths"),
        "email": email,
        "phone": phone_number(),
        "external_id": external_id,
        "visibility": "company",
        "score": "warm",
        "status": "lost",
        "lost_reason": "Price",
        "job_title": "Engineer",
        "organization_id": factory.organization()["id"],
        "channels": [
            {
                "identifier": "ada.example",
                "platform": "instagram",
                "status": "active",
                "username": "ada",
            }
        ],
    }
    if fixtures.users:
        fields["owner_id"] = fixtures.users[0]
    if factory.target.conventions.get("tag_catalogue_field") is not None:
        fields["tags"] = [factory.tag(kind="contact", color="#1a2b3c")["id"]]
    contact = factory.contact(**fields)
    return Rich(contact, email, external_id, tuple(fixtures.contact_custom_fields))


CONTACT_PATHS = {"list": ("CON-001", "CON-032"), "search": ("SRCH-001", "SRCH-006")}
"""Each path's own rule, and the rule that finds the contact there (its external_id
filter, `q` across its email)."""
FIELD_RULES = ("CON-018", "CON-021", "CON-022", "CON-023", "CON-025")


def _contact_points() -> list[Any]:
    points = []
    for path, reqs in CONTACT_PATHS.items():
        for expand in (False, True):
            shown = (*reqs, *FIELD_RULES, *(("CON-040",) if expand else ()))
            shown += ("SRCH-002",) if expand and path == "search" else ()
            name = f"{path} expand" if expand else path
            points.append(pytest.param(path, expand, id=name, marks=pytest.mark.req(*shown)))
    return points


@pytest.mark.parametrize(("path", "expand"), _contact_points())
def test_a_contact_reads_the_same_through_list_and_search(
    api: ApiClient, rich: Rich, convention: Callable[[str], str], path: str, expand: bool
) -> None:
    """Its row in the list (filtered by its external_id) and in search (`q`, its email)
    is its retrieve, field by field; every custom field appears on each."""
    contact_id = str(rich.contact["id"])
    query = {"expand": "organization"} if expand else {}
    retrieved = api.get(f"/v1/contacts/{contact_id}", params=query)
    reference = expect_success(retrieved, "CON-040" if expand else "CON-001")
    req_id, found_req = CONTACT_PATHS[path]
    if path == "list":
        params = {convention("contact_filters.external_id"): rich.external_id, **query}
        response = api.get("/v1/contacts", params=params)
        rows = expect_status(response, req_id, 200).get("data") or []
    else:
        rows, response = expect_found(api, "SRCH-001", {"q": rich.email, **query})
    row = row_of(rows, contact_id)
    if rich.custom_keys and row is not None:
        expect_unset_custom_fields(response, "CON-025", row, rich.custom_keys)
    expect_same_record(
        response,
        reference,
        row,
        path=f"{response.request.method} {response.request.url.path}"
        + (" expand=organization" if expand else ""),
        path_req="SRCH-002" if expand and path == "search" else req_id,
        field_req=CONTACT_FIELD_REQ,
        found_req=found_req,
    )


@pytest.mark.req("SRCH-001", "SRCH-006", "CON-001", "CON-032")
def test_a_changed_contact_reads_its_new_values_through_list_and_search(
    api: ApiClient, factory: RecordFactory, updates: Updates, convention: Callable[[str], str]
) -> None:
    """Search "returns the same objects ... as the list", after a change too: once the
    target's update gives a contact a new last name and e-mail, search by the new e-mail
    finds it and its row, like its list row, is its retrieve (an index written on create
    only would show the old values)."""
    made = factory.contact(external_id=factory.unique("changed"))
    word = "cc" + factory.unique("renamed").replace("-", "")[-16:]
    changes = {"last_name": word, "email": f"{word}@example.com"}
    response = updates.send("contact", str(made["id"]), changes)
    updates.applied(response, "SRCH-001", updates.control("contact", str(made["id"])))
    reference = expect_success(api.get(f"/v1/contacts/{made['id']}"), "CON-001")
    listed = api.get(
        "/v1/contacts", params={convention("contact_filters.external_id"): made["external_id"]}
    )
    found, first = expect_found(api, "SRCH-001", {"q": changes["email"]})
    list_rows = expect_status(listed, "CON-001", 200).get("data") or []
    for path, rows, answer in (("list", list_rows, listed), ("search", found, first)):
        path_req, found_req = CONTACT_PATHS[path]
        expect_same_record(
            answer,
            reference,
            row_of(rows, str(made["id"])),
            path=f"{answer.request.method} {answer.request.url.path}",
            path_req=path_req,
            field_req=CONTACT_FIELD_REQ,
            found_req=found_req,
        )


@pytest.mark.req("CON-040", "QRY-005", "QRY-006")
def test_a_contact_retrieved_with_expand_differs_only_by_the_organization(
    api: ApiClient, rich: Rich
) -> None:
    """Expanding adds `organization` and changes nothing else ("unexpanded relations stay
    identified by their `*_id` field")."""
    contact_id = str(rich.contact["id"])
    plain = expect_success(api.get(f"/v1/contacts/{contact_id}"), "CON-040")
    response = api.get(f"/v1/contacts/{contact_id}", params={"expand": "organization"})
    expanded = dict(expect_success(response, "CON-040"))
    embedded = expanded.pop("organization", None)
    expect_true(
        response,
        "QRY-005",
        isinstance(embedded, dict) and embedded.get("id") == plain.get("organization_id"),
        expected=f"organization {plain.get('organization_id')} embedded",
        got=f"organization = {embedded!r}"[:300],
    )
    expect_same_record(
        response,
        plain,
        expanded,
        path="GET /v1/contacts/{contact_id}?expand=organization",
        path_req="QRY-006",
        field_req=CONTACT_FIELD_REQ,
    )


EMBEDDING_READS = {
    "contact retrieve": "CON-016",
    "contact list": "CON-016",
    "contact search": "CON-016",
    "deal retrieve": "DEAL-026",
}
"""Each read that embeds an organization, with the rule of the embedded field."""


def _embedded(
    api: ApiClient, convention: Any, read: str, holder: dict[str, Any], req_id: str
) -> tuple[httpx.Response, Any]:
    """The `organization` `read` embeds in `holder` (a contact or deal), and the answer."""
    query = {"expand": "organization"}
    if read == "contact search":
        rows, response = expect_found(api, req_id, {"q": holder["email"], **query})
    elif read == "contact list":
        response = api.get(
            "/v1/contacts",
            params={convention("contact_filters.external_id"): holder["external_id"], **query},
        )
        rows = expect_status(response, req_id, 200).get("data") or []
    else:
        path = (
            f"/v1/contacts/{holder['id']}"
            if read == "contact retrieve"
            else conventions.path(convention, "retrieve.deal_path", deal_id=str(holder["id"]))
        )
        response = api.get(path, params=query)
        rows = [expect_success(response, req_id)]
    row = row_of(rows, str(holder["id"])) or {}
    return response, row.get("organization")


@pytest.mark.parametrize(
    "read", [pytest.param(r, marks=pytest.mark.req(q)) for r, q in EMBEDDING_READS.items()]
)
def test_an_embedded_organization_reads_its_new_name_after_a_change(
    api: ApiClient, factory: RecordFactory, updates: Updates, convention: Any, read: str
) -> None:
    """The embedded `organization` is the "organization record": once the target's update
    renames it, a read that embeds it shows the new name, though the same read embedded
    it before the change (an embed cached on first read, never invalidated, would not)."""
    req_id = EMBEDDING_READS[read]
    organization = factory.organization()
    org_id = str(organization["id"])
    if read.startswith("contact"):
        word = "ee" + factory.unique("embed").replace("-", "")[-16:]
        holder = factory.contact(
            organization_id=org_id, email=f"{word}@example.com", external_id=word
        )
    else:
        holder = factory.deal(organization_id=org_id)
    _embedded(api, convention, read, holder, req_id)  # the read before the change
    name = factory.unique("renamed org")
    response = updates.send("organization", org_id, {"name": name})
    updates.applied(response, req_id, updates.control("organization", org_id))
    answer, embedded = _embedded(api, convention, read, holder, req_id)
    expect_true(
        answer,
        req_id,
        isinstance(embedded, dict) and embedded.get("name") == name,
        expected=f"organization {org_id} embedded with its new name {name!r}",
        got=f"organization = {embedded!r}"[:300],
    )


# --- a deal and an activity: the create's answer is the record ----------------------------


@pytest.mark.req("DEAL-001", "DEAL-016")
@pytest.mark.parametrize(
    "expand",
    [
        pytest.param(False, id="plain"),
        pytest.param(True, id="expand", marks=pytest.mark.req("QRY-005")),
    ],
)
def test_a_deal_reads_the_same_from_its_create_and_its_retrieve(
    api: ApiClient,
    factory: RecordFactory,
    maker: operations.Maker,
    convention: Any,
    expand: bool,
) -> None:
    """The deal as POST /v1/deals answers it is the deal as the target's retrieve reads
    it, with the same `expand` ("Query: `expand`" on create; `expand` on every read)."""
    body = {**maker.deal_body(), "organization_id": factory.organization()["id"], "value": 1234.5}
    query = {"expand": "organization"} if expand else {}
    created = api.post("/v1/deals", params=query, json=body)
    answer = expect_success(created, "DEAL-001")
    path = conventions.path(convention, "retrieve.deal_path", deal_id=str(answer.get("id")))
    response = api.get(path, params=query)
    read = expect_success(response, "DEAL-001")
    if expand:
        embedded = read.get("organization")
        expect_true(
            response,
            "QRY-005",
            isinstance(embedded, dict) and embedded.get("id") == body["organization_id"],
            expected=f"organization {body['organization_id']} embedded in the retrieved deal",
            got=f"organization = {embedded!r}"[:300],
        )
    expect_same_record(
        response,
        answer,
        read,
        path=f"GET {path}" + (" expand=organization" if expand else ""),
        path_req="QRY-005" if expand else "DEAL-001",
        field_req=DEAL_FIELD_REQ,
    )


@pytest.mark.req("ACT-001")
def test_an_activity_reads_the_same_from_its_create_and_its_retrieve(
    api: ApiClient, factory: RecordFactory, updates: Updates
) -> None:
    made = factory.activity(description="Read through every path", type="call")
    read = updates.read("activity", str(made["id"]), "ACT-001")
    expect_same_record(
        None,
        made,
        read,
        path="the target's activity retrieve",
        path_req="ACT-001",
        field_req={},
    )


# --- a record in the list the target names is its retrieve --------------------------------

LISTED_FIELD_REQ = {"deal": DEAL_FIELD_REQ}
"""The rule of each field's own row, per kind whose list the target may name (others:
the list's)."""
LIST_REQ = {kind: "SYNC-005" for kind in conventions.SYNCED} | {
    "tag": "PAG-001",
    "conversation": "PAG-001",
    "campaign": "CAMP-001",
}
"""The rule a named list's row breaks by differing from the retrieve: a record's list is
how "changes to records are read"; a campaign row is the Campaign (its fields listed);
another kind's row is the list's "collection" of that resource."""
UNSYNCED_PAGES = 5
"""Pages (of the largest `limit`) a list that `updated_since` may not narrow is read for
the new row, whose place in its order is not shown."""


def _listed_record(kind: str, api: ApiClient, maker: operations.Maker) -> str:
    """A record with values in the fields rules speak of: a deal with an organization, a
    value, lost with a reason (where the workspace has one); others as the adapter (or
    the API, for a tag) makes them."""
    if kind != "deal":
        return maker.listed_id(kind, api)
    organization = maker.record_id("organization")
    body = {**maker.deal_body(), "organization_id": organization, "value": 1234.5}
    reasons = maker.adapter.fixtures().lost_reasons
    if reasons:
        body |= {"status": "lost", "lost_reason_id": reasons[0], "lost_justification": "Read"}
    return str(expect_success(api.post("/v1/deals", json=body), "DEAL-001").get("id"))


CUSTOM_FIELDS = {"organization": "organization_custom_fields", "deal": "deal_custom_fields"}
"""The kinds whose custom fields the adapter's fixtures name (`Fixtures`)."""


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(
            k, marks=pytest.mark.req(LIST_REQ[k], *(("CON-025",) if k in CUSTOM_FIELDS else ()))
        )
        for k in conventions.LISTED
    ],
)
def test_a_record_reads_the_same_in_the_list_the_target_names(
    api: ApiClient,
    maker: operations.Maker,
    updates: Updates,
    convention: Callable[[str], str],
    kind: str,
) -> None:
    """The row of a record in the list of its kind is the record the target's retrieve
    reads, field by field. A record's row is found from its own `updated_at` on, in
    `updated_at` order ("changes to records are read by listing each resource"); a tag,
    conversation or campaign is looked for on the list's first pages. Null and left out
    are one value there, but not in `custom_fields`: "every custom field defined for
    that resource in the workspace appears; an unset one is null", at the retrieve and
    in the row."""
    record_id = _listed_record(kind, api, maker)
    req_id = LIST_REQ[kind]
    reference = updates.read(kind, record_id, req_id)
    keys = getattr(maker.adapter.fixtures(), CUSTOM_FIELDS.get(kind, ""), ())
    if keys:
        expect_unset_custom_fields(None, "CON-025", reference, keys)
    path = conventions.path(convention, f"lists.{kind}_path")
    if kind in conventions.SYNCED:
        since = reference.get("updated_at")
        if not isinstance(since, str):
            pytest.skip(f"the {kind} retrieve shows no updated_at to list from")
        query = {"updated_since": lookup_since(since), "sort": "updated_at"}
        rows = expect_pages(api, path, req_id, query)
    else:
        pages = expect_pages_until(
            api,
            path,
            req_id,
            {"limit": str(document.page_limit())},
            max_pages=UNSYNCED_PAGES,
            done=lambda read: row_of(read, record_id) is not None,
        )
        rows = [row for page in pages for row in page.rows]
        ended = not isinstance(pages[-1].next, str) or pages[-1].has_more is False
        if row_of(rows, record_id) is None and not ended:
            pytest.skip(
                f"the new {kind} {record_id} is not on the first {UNSYNCED_PAGES} pages of "
                f"GET {path}: its place in the list's order is not shown, so not compared"
            )
    row = row_of(rows, record_id)
    expect_same_record(
        None,
        reference,
        row,
        path=f"GET {path}",
        path_req=req_id,
        field_req=LISTED_FIELD_REQ.get(kind, {}),
    )
    if keys and row is not None:
        expect_unset_custom_fields(None, "CON-025", row, keys)


# --- the people and tags of a record, on every read of it ------------------------------


def _reads_of(
    api: ApiClient, convention: Callable[[str], str], kind: str, record: Mapping[str, Any]
) -> list[tuple[str, httpx.Response | None, Mapping[str, Any] | None]]:
    """The record as the target's retrieve reads it, and as its list's row (found from
    its own `updated_at` on): (where, the answer, the record read there)."""
    path = conventions.path(convention, f"retrieve.{kind}_path", **{f"{kind}_id": record["id"]})
    response = api.get(path)
    found: list[tuple[str, httpx.Response | None, Mapping[str, Any] | None]] = [
        (f"GET {path}", response, expect_success(response, "SYNC-005"))
    ]
    listing = conventions.path(convention, f"lists.{kind}_path")
    query = {"updated_since": lookup_since(record["updated_at"]), "sort": "updated_at"}
    rows = expect_pages(api, listing, "SYNC-005", query)
    found.append((f"GET {listing}", None, row_of(rows, str(record["id"]))))
    return found


@pytest.mark.req("DEAL-025", "DEAL-029", "SYNC-005")
def test_a_deals_owner_and_tags_read_the_same_on_every_read(
    api: ApiClient, factory: RecordFactory, maker: operations.Maker, convention: Any
) -> None:
    """ "`owner` | Owner | populated when the deal has an owner" and "`tags` | array of
    Tag", wherever a deal is read: the retrieve and the list the target names show the
    Owner and each Tag whole (id, object, name, colour), not only the create's answer."""
    user = maker.adapter.fixture_ids("users")[0]
    tag = factory.tag(kind="deal", color="#1a2b3c")
    body = {**maker.deal_body(), "owner_id": user, "tags": [tag["id"]]}
    made = expect_success(api.post("/v1/deals", json=body), "DEAL-025")
    shown = ("id", "object", "name", "color")
    for where, response, deal in _reads_of(api, convention, "deal", made):
        present = deal is not None
        expect_true(response, "SYNC-005", present, expected=f"deal read by {where}", got="absent")
        if deal is None:
            continue
        expect_owner(response, "DEAL-025", deal, "owner", user)
        tags = deal.get("tags")
        expect_true(
            response,
            "DEAL-029",
            isinstance(tags, list)
            and [tuple(t.get(k) for k in shown) if isinstance(t, dict) else t for t in tags]
            == [tuple(tag.get(k) for k in shown)],
            expected=f"{where}: tags [the Tag {tag['id']}, colour {tag.get('color')!r}]",
            got=f"tags = {tags!r}",
        )


@pytest.mark.req("ACT-014", "SYNC-005")
def test_an_activitys_assignee_reads_the_same_on_every_read(
    api: ApiClient, factory: RecordFactory, maker: operations.Maker, convention: Any
) -> None:
    """ "`assignee` / `assignee_id` | Owner / `usr_` id | who does it", wherever an activity
    is read: the retrieve and the list the target names show the Owner."""
    user = maker.adapter.fixture_ids("users")[0]
    made = factory.activity(assignee_id=user)
    for where, response, activity in _reads_of(api, convention, "activity", made):
        present = activity is not None
        expect_true(response, "SYNC-005", present, expected=f"read by {where}", got="absent")
        if activity is None:
            continue
        expect_field(response, "ACT-014", activity, "assignee_id", expected=user, why=where)
        expect_owner(response, "ACT-014", activity, "assignee", user)


PEOPLE = {
    "contact": ("owner_id", "owner", "CON-018"),
    "organization": ("owner_id", "owner", "USR-004"),
    "deal": ("owner_id", "owner", "DEAL-025"),
    "activity": ("assignee_id", "assignee", "ACT-014"),
}
"""Each kind a teammate serves on: the id field the update writes, the Owner it renders,
and the rule of that Owner."""


def _contact_reads(
    api: ApiClient, convention: Callable[[str], str], contact: Mapping[str, Any], word: str
) -> list[tuple[str, httpx.Response | None, Mapping[str, Any] | None]]:
    """The contact as its retrieve, its list row (by its `external_id`) and its search
    row (by `q`, its last name) read it."""
    contact_id = str(contact["id"])
    response = api.get(f"/v1/contacts/{contact_id}")
    listed = api.get(
        "/v1/contacts", params={convention("contact_filters.external_id"): contact["external_id"]}
    )
    rows = expect_status(listed, "SYNC-005", 200).get("data") or []
    found, first = expect_found(api, "SRCH-001", {"q": word})
    return [
        (f"GET /v1/contacts/{contact_id}", response, expect_success(response, "CON-001")),
        ("GET /v1/contacts", listed, row_of(rows, contact_id)),
        ("POST /v1/contacts/search", first, row_of(found, contact_id)),
    ]


@pytest.mark.req("USR-004", "SYNC-005")
@pytest.mark.parametrize(
    "kind", [pytest.param(kind, marks=pytest.mark.req(PEOPLE[kind][2])) for kind in PEOPLE]
)
def test_a_teammate_changed_by_update_reads_anew_on_every_read(
    api: ApiClient,
    factory: RecordFactory,
    updates: Updates,
    maker: operations.Maker,
    convention: Any,
    kind: str,
) -> None:
    """ "A user id serves as `owner_id` on contacts, organizations and deals, and as
    `assignee_id` on activities", through the target's update too: a record moved from
    one teammate to another reads the new one, id and Owner, on every read (the
    retrieve, the list; search for a contact), not only at creation (an update leaving
    the field out of what it writes, or an Owner stored at create, shows the old)."""
    users = maker.adapter.fixture_ids("users")
    if len(users) < 2:
        pytest.skip("the adapter's fixtures list fewer than two teammates to move between")
    field, shown, req_id = PEOPLE[kind]
    word = search_word(factory.unique("moved"))
    extra = {"external_id": factory.unique("ext"), "last_name": word} if kind == "contact" else {}
    made = updates.made(kind, **{field: users[0]}, **extra)
    record_id = str(made["id"])
    response = updates.send(kind, record_id, {field: users[1]})
    updates.applied(response, "USR-004", updates.control(kind, record_id))
    if kind == "contact":
        reads = _contact_reads(api, convention, made, word)
    else:
        reads = _reads_of(api, convention, kind, updates.read(kind, record_id, "SYNC-005"))
    for where, answer, record in reads:
        expect_true(
            answer, "SYNC-005", record is not None, expected=f"read by {where}", got="absent"
        )
        if record is None:
            continue
        expect_field(answer, "USR-004", record, field, expected=users[1], why=where)
        expect_owner(answer, req_id, record, shown, users[1])


# --- a deleted record is read by no path ----------------------------------------------------


@pytest.mark.req("ERR-012", "SYNC-006")
@pytest.mark.parametrize("by", operations.DELETED_BY)
def test_a_deleted_contact_is_read_by_no_path(
    api: ApiClient,
    maker: operations.Maker,
    rich: Rich,
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    by: str,
) -> None:
    """Deleted (through the adapter, and through the target's own delete), the contact is
    "no such record": its retrieve answers 404, and the list (filtered by its external
    id, and unfiltered) and search no longer hold it ("Deletions are read from a
    separate deletion feed"). The unfiltered list is judged on its first page, newest
    first, where the contact was read just before it was deleted."""
    contact_id = str(rich.contact["id"])
    newest = {"limit": 200}
    before = expect_status(api.get("/v1/contacts", params=newest), "SYNC-006", 200)
    unfiltered = contact_id in {row.get("id") for row in before.get("data") or ()}
    operations.delete_by(by, api, maker, "contact", contact_id)
    response = api.get(f"/v1/contacts/{contact_id}")
    expect_error_among(response, "ERR-012", {404: ("contact_not_found", "not_found")})
    listed = api.get(
        "/v1/contacts", params={convention("contact_filters.external_id"): rich.external_id}
    )
    found, first = expect_found(api, "SYNC-006", {"q": rich.email})
    reads = [
        ("GET /v1/contacts", expect_status(listed, "SYNC-006", 200).get("data") or [], listed),
        ("POST /v1/contacts/search", found, first),
    ]
    if unfiltered:
        after = api.get("/v1/contacts", params=newest)
        page = expect_status(after, "SYNC-006", 200).get("data") or []
        reads.append(("GET /v1/contacts (unfiltered)", page, after))
    else:
        observe("deleted contact: unfiltered list not judged", "not among the newest 200")
    for path, rows, answer in reads:
        expect_true(
            answer,
            "SYNC-006",
            contact_id not in {row.get("id") for row in rows if isinstance(row, dict)},
            expected=f"the deleted contact {contact_id} not served by {path}",
            got="served",
        )


@pytest.mark.req("ERR-012", "SYNC-006")
@pytest.mark.parametrize("by", operations.DELETED_BY)
@pytest.mark.parametrize("kind", conventions.SYNCED)
def test_a_deleted_record_of_a_named_kind_is_read_by_no_path(
    api: ApiClient,
    maker: operations.Maker,
    convention: Callable[[str], str],
    kind: str,
    by: str,
) -> None:
    """As a deleted contact: an organization, deal or activity deleted (through the
    adapter, and through the target's own delete) is "no such record" on the retrieve
    the target names, and its list no longer holds it. The record is stamped at a past
    instant no other test uses, so an `updated_since` list sorted by `updated_at` serves
    it first while it exists."""
    at = (
        datetime.now(UTC).replace(microsecond=0)
        - timedelta(days=500, seconds=secrets.randbelow(86_400))
    ).isoformat()
    record_id = str(maker.record(kind, created_at=at, updated_at=at)["id"])
    path = convention(f"lists.{kind}_path")
    query = {"updated_since": lookup_since(at), "sort": "updated_at", "limit": 20}

    def listed() -> set[str]:
        body = expect_status(api.get(path, params=query), "SYNC-006", 200)
        return {str(row.get("id")) for row in body.get("data") or () if isinstance(row, dict)}

    if record_id not in listed():
        pytest.skip(f"GET {path} did not list the record before it was deleted")
    operations.delete_by(by, api, maker, kind, record_id)
    expect_true(
        None,
        "SYNC-006",
        record_id not in listed(),
        expected=f"the deleted {kind} {record_id} not served by GET {path}",
        got="served",
    )
    ids = {f"{kind}_id": record_id}
    response = api.get(conventions.path(convention, f"retrieve.{kind}_path", **ids))
    expect_error_among(response, "ERR-012", {404: ("not_found", "record_not_found")})


@pytest.mark.req("ERR-012", "SYNC-006")
@pytest.mark.parametrize("by", operations.DELETED_BY)
@pytest.mark.parametrize("kind", ["contact", "deal"])
def test_a_deleted_organization_is_embedded_by_no_record(
    api: ApiClient,
    maker: operations.Maker,
    updates: Updates,
    kind: str,
    by: str,
) -> None:
    """A deleted organization is "no such record" inside another record too: a contact or
    deal that named it, retrieved with `expand=organization`, embeds no object of that
    organization. What stands in its place (null, absent, the bare id) is not shown, so
    any is accepted; so is a refusal of the read. Where the read does not embed the
    organization before the delete, nothing is shown to hide: not applicable."""
    organization_id = str(maker.record("organization")["id"])
    fields = {"organization_id": organization_id}
    if kind == "deal":
        fields["contact_id"] = str(updates.made("contact")["id"])
    record_id = str(updates.made(kind, **fields)["id"])

    def embedded_now() -> tuple[httpx.Response, Any]:
        answer = api.get(updates.retrieve_path(kind, record_id), params={"expand": "organization"})
        body = answer.json() if answer.is_success and answer.content else {}
        return answer, body.get("organization") if isinstance(body, dict) else None

    _, before = embedded_now()
    if not is_record_object(before, organization_id):
        pytest.skip(f"the {kind} does not embed its organization before the delete")
    operations.delete_by(by, api, maker, "organization", organization_id)
    answer, embedded = embedded_now()
    expect_true(
        answer,
        "SYNC-006",
        not is_record_object(embedded, organization_id),
        expected=f"the deleted organization {organization_id} embedded in no {kind}",
        got=f"organization = {embedded!r}",
    )


# --- the object discriminator of every named read -------------------------------------


@pytest.mark.req("IDN-002")
@pytest.mark.parametrize("point", listings.NAMED_READS, ids="-".join)
def test_a_named_kind_carries_its_object_on_every_read(
    api: ApiClient,
    maker: operations.Maker,
    convention: Callable[[str], str],
    point: tuple[str, str],
) -> None:
    """ "Every resource carries a constant `object` discriminator (`conversation`,
    `contact`, `organization`, `deal`, `activity`, `tag`, ...)": a new row of its kind
    reads `object: <kind>` at the retrieve the target names, and every row of the first
    page of the list it names does too (the checks of every answer know the shown
    lists only)."""
    kind = point[0]
    record_id = maker.listed_id(kind, api)
    params = {"limit": 200} if point[1] == "list" else {}
    response, reads = listings.read_named(api, convention, point, record_id, "IDN-002", params)
    for where, record in reads:
        got = record.get("object") if isinstance(record, dict) else record
        expect_true(
            response, "IDN-002", got == kind, expected=f"object {kind!r} at {where}", got=f"{got!r}"
        )


# --- a contact is one row, however many tags and channels it has --------------------------

CONTACT_READS = reads.contact_reads(id_filters=True)
"""Every read that can find a contact (`steps.reads`)."""


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.req("SRCH-001" if n.startswith("search") else "PAG-009"))
        for n in CONTACT_READS
    ],
)
def test_a_contact_is_one_row_of_every_read_that_finds_it(
    name: str,
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    convention: conventions.Lookup,
) -> None:
    """A contact with two tags and two channels (a read joining either would serve it once
    per tag or channel) is one row of each read that finds it: the list under each filter
    and each date-time query, search by `q` on each field and by a condition. Search
    "returns the same objects ... as the list"; a list row served twice is a repeated row.
    A read that does not find it judges nothing here (its own rule's test does)."""
    fixtures = adapter.fixtures()
    if not fixtures.users:
        pytest.skip("the adapter's fixtures list no user to own the contact")
    fields = reads.findable(
        factory.unique("rows"),
        owner_id=fixtures.users[0],
        organization_id=factory.organization()["id"],
    )
    channels = [
        {"identifier": f"{n}.{fields['last_name']}", "platform": platform, "status": "active"}
        | {"username": f"{n}{fields['last_name']}"}
        for n, platform in (("a", "instagram"), ("b", "slack"))
    ]
    if factory.target.conventions.get("tag_catalogue_field") is not None:
        fields["tags"] = [factory.tag(kind="contact")["id"], factory.tag(kind="contact")["id"]]
    contact = factory.contact(**fields, channels=channels)
    read = CONTACT_READS[name](convention, contact)
    rows, answer = reads.read_rows(api, read, "SRCH-001")
    count = sum(1 for row in rows if isinstance(row, dict) and row.get("id") == contact["id"])
    if count == 0:
        pytest.skip(f"{read.method} {read.path} does not find {contact['id']}: judged elsewhere")
    expect_true(
        answer,
        "SRCH-001" if name.startswith("search") else "PAG-009",
        count == 1,
        expected=f"{contact['id']} once in {read.method} {read.path}",
        got=f"{count} rows of it",
    )
