"""Sync: the documented procedure finds every change and every deletion.

"Sync procedure: list with `sort=updated_at` and `updated_since`, and read deletions
from `GET /v1/deleted-records`." `updated_since` keeps "records changed at or after
that instant", so a change stamped exactly at a run's start is found by the next run,
and a run started "from the previous run's start time minus a few minutes" finds a
change stamped before the previous run began but written after it. The adapter
stamps records with chosen `updated_at` values in the past (whole seconds, so any
storage precision keeps them exact), and deletes records; the target's own deletes
(`[conventions.deletes]`) delete others, which the feed must list as well.

The deletion feed's shape is not shown. The document says only that it lists one
resource and needs that resource's read scope; the query parameter naming the resource
is the target's `conventions.deleted_records_entity_param` and its value for each
resource `conventions.deleted_records_values.<resource>`, and a deleted id must appear
in the feed's items. The item shape is observed. A name that is no resource answers
400 `unknown_entity`.
"""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import conventions
from crm_conformance.steps import (
    RecordFactory,
    expect_error,
    expect_insufficient_scope,
    expect_pages,
    expect_status,
    expect_true,
    first_page,
    instant,
    listings,
    operations,
    stamp,
    strings_in,
)

FEED = "/v1/deleted-records"


class Stamped:
    """Records made with a chosen `updated_at`, around an instant an hour ago."""

    def __init__(self, adapter: AdapterClient, maker: operations.Maker) -> None:
        self.adapter = adapter
        self.maker = maker
        self.start = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)

    def contact(self, updated_at: datetime, created_at: datetime | None = None) -> dict[str, Any]:
        """A contact last changed at `updated_at`, created then too unless `created_at`."""
        return self.adapter.create_record(
            kind="contact",
            fields={"first_name": self.maker.unique("sync"), "last_name": "Conformance"},
            created_at=stamp(created_at or updated_at),
            updated_at=stamp(updated_at),
        )

    def row(
        self, listing: listings.Listing, updated_at: datetime, created_at: datetime | None = None
    ) -> dict[str, Any]:
        """A row of `listing` (a list of records) last changed at `updated_at`, created
        then too unless `created_at`."""
        if listing.kind is None:
            return self.contact(updated_at, created_at)
        made = stamp(created_at or updated_at)
        return self.maker.record(listing.kind, created_at=made, updated_at=stamp(updated_at))


@pytest.fixture
def stamped(adapter: AdapterClient, maker: operations.Maker) -> Stamped:
    adapter.require("records")
    return Stamped(adapter, maker)


def _changed_since(
    api: ApiClient, since: datetime, req_id: str, path: str = "/v1/contacts"
) -> list[dict[str, Any]]:
    query = {"updated_since": stamp(since), "sort": "updated_at"}
    return expect_pages(api, path, req_id, query)


@pytest.mark.req("SYNC-001", "SYNC-003", "SYNC-005")
@pytest.mark.parametrize("listing", [pytest.param(s, id=s.name) for s in listings.SYNCED])
def test_updated_since_finds_changes_at_or_after_the_instant_in_updated_at_order(
    api: ApiClient,
    stamped: Stamped,
    convention: Callable[[str], str],
    listing: listings.Listing,
) -> None:
    """On the contact list and on every list of records the target file names ("changes
    to records are read by listing each resource with the `updated_since` filter")."""
    path = listing.path(convention)
    edge = stamped.row(listing, stamped.start)
    before = stamped.row(listing, stamped.start - timedelta(seconds=1))
    stamped.row(listing, stamped.start + timedelta(seconds=1))  # a second row to order
    query = {"updated_since": stamp(stamped.start), "sort": "updated_at"}
    response = first_page(api, path, query)
    records = _changed_since(api, stamped.start, "SYNC-001", path)
    ids = [record.get("id") for record in records]
    expect_true(
        response,
        "SYNC-001",
        edge["id"] in ids,
        expected=f"{edge['id']}, changed exactly at updated_since, listed (at or after)",
        got="not listed",
    )
    expect_true(
        response,
        "SYNC-001",
        before["id"] not in ids,
        expected=f"{before['id']}, changed a second before updated_since, not listed",
        got="listed",
    )
    stamps = [instant(r["updated_at"]) for r in records if isinstance(r.get("updated_at"), str)]
    expect_true(
        response,
        "SYNC-003",
        stamps == sorted(stamps) and all(s >= stamped.start for s in stamps),
        expected="records in ascending updated_at order, none before updated_since",
        got=f"updated_at values {[stamp(s) for s in stamps[:10]]}...",
    )


@pytest.mark.req("SYNC-005", "SYNC-001", "SYNC-007")
def test_a_change_at_the_edge_of_the_previous_run_is_not_lost(
    api: ApiClient, stamped: Stamped
) -> None:
    """A change stamped just before the previous run started, written after it ran."""
    previous_start = stamped.start
    _changed_since(api, previous_start - timedelta(minutes=5), "SYNC-005")  # the previous run
    late = stamped.contact(previous_start - timedelta(seconds=30))
    at_start = stamped.contact(previous_start)
    next_run = previous_start - timedelta(minutes=5)
    response = first_page(
        api, "/v1/contacts", {"updated_since": stamp(next_run), "sort": "updated_at"}
    )
    ids = {record.get("id") for record in _changed_since(api, next_run, "SYNC-005")}
    lost = [made["id"] for made in (late, at_start) if made["id"] not in ids]
    for req_id in ("SYNC-005", "SYNC-007"):  # the procedure, then polling as the way
        expect_true(
            response,
            req_id,
            not lost,
            expected="the next run (previous start minus five minutes) lists both late changes",
            got=f"not listed: {', '.join(lost)}",
        )


@pytest.mark.req("SYNC-005", "SYNC-001")
@pytest.mark.parametrize("listing", [pytest.param(s, id=s.name) for s in listings.SYNCED])
def test_a_change_to_an_older_record_is_found_by_updated_since(
    api: ApiClient, stamped: Stamped, convention: Callable[[str], str], listing: listings.Listing
) -> None:
    """ "Changes to records are read by listing each resource with the `updated_since`
    filter": a record created a day before the instant and changed a second after it
    is a change, listed whatever its creation time, on the contact list and every list
    of records the target file names."""
    path = listing.path(convention)
    changed = stamped.row(
        listing, stamped.start + timedelta(seconds=1), stamped.start - timedelta(days=1)
    )
    query = {"updated_since": stamp(stamped.start), "sort": "updated_at"}
    response = first_page(api, path, query)
    ids = {record.get("id") for record in _changed_since(api, stamped.start, "SYNC-005", path)}
    expect_true(
        response,
        "SYNC-005",
        changed["id"] in ids,
        expected=f"{changed['id']}, created before updated_since and changed after it, listed",
        got="not listed",
    )


DELETABLE: dict[str, Callable[[RecordFactory], dict[str, Any]]] = {
    "contacts": RecordFactory.contact,
    "organizations": RecordFactory.organization,
    "deals": RecordFactory.deal,
    "activities": RecordFactory.activity,
}
"""Resources the adapter deletes, by the scope table's name, and how to make one."""


@pytest.fixture(scope="module")
def deleted(module_factory: RecordFactory) -> dict[str, str]:
    """One record of each deletable resource, made and deleted through the adapter: the
    id of each, by the resource's name."""
    made = {entity: str(make(module_factory)["id"]) for entity, make in DELETABLE.items()}
    for record_id in made.values():
        module_factory.adapter.delete_record(record_id)
    return made


def _expect_in_feed(
    api: ApiClient, convention: Callable[[str], str], entity: str, record_id: str
) -> tuple[httpx.Response, list[Any], set[str]]:
    """The deletion feed of `entity`, walked whole (bounded), names `record_id`: its
    first page, its items and every string in them."""
    query = conventions.deletion_feed(convention, entity)
    items = expect_pages(api, FEED, "SYNC-004", query, max_pages=50)
    response = first_page(api, FEED, query)
    named = strings_in(items)
    # where the procedure reads deletions, then the feed as the separate place, then
    # as the way to detect a change
    for req_id in ("SYNC-004", "SYNC-006", "SYNC-007"):
        expect_true(
            response,
            req_id,
            record_id in named,
            expected=f"the deleted record {record_id} in the {entity} deletion feed",
            got=f"not among {len(items)} items",
        )
    return response, items, named


@pytest.mark.req("SYNC-004", "SYNC-006", "SYNC-007", "SCOPE-020")
@pytest.mark.parametrize("entity", sorted(DELETABLE))
def test_a_deletion_appears_in_its_resources_deletion_feed_only(
    api: ApiClient,
    deleted: dict[str, str],
    convention: Callable[[str], str],
    observe: Callable[[str, Any], None],
    entity: str,
) -> None:
    """The feed of `entity` names its deleted record, and no record another resource
    deleted: the feed lists "the resource listed", whose read scope it needs, so a
    contacts feed naming a deleted deal shows deals to a token that may not read them."""
    response, items, named = _expect_in_feed(api, convention, entity, deleted[entity])
    observe(f"GET /v1/deleted-records item ({entity})", next(iter(items[-1:]), None))
    others = {other: i for other, i in deleted.items() if other != entity and i in named}
    expect_true(
        response,
        "SCOPE-020",
        not others,
        expected=f"the {entity} deletion feed naming no other resource's deleted record",
        got=f"it names {others}",
    )


@pytest.mark.req("SYNC-004", "SYNC-006", "SYNC-007")
@pytest.mark.parametrize("entity", sorted(DELETABLE))
def test_a_deletion_through_the_api_appears_in_the_deletion_feed(
    api: ApiClient, factory: RecordFactory, convention: Callable[[str], str], entity: str
) -> None:
    """A record removed by the target's own delete (`[conventions.deletes]`) is in its
    feed too: "Deletions are read from a separate deletion feed", whatever deleted it."""
    record_id = str(DELETABLE[entity](factory)["id"])
    operations.delete_through_api(api, convention, operations.FEED_KINDS[entity], record_id)
    _expect_in_feed(api, convention, entity, record_id)


@pytest.mark.req("SCOPE-020", "SCOPE-021", "SCOPE-022", "SCOPE-023", "SCOPE-028")
def test_the_deletion_feed_needs_the_read_scope_of_the_resource(
    api: ApiClient, factory: RecordFactory, convention: Callable[[str], str]
) -> None:
    query = conventions.deletion_feed(convention, "contacts")
    without = factory.token(scopes=["contacts:write", "deals:read"]).token
    response = api.with_token(without).get(FEED, params=query)
    expect_insufficient_scope(response, "contacts:read", "SCOPE-020")
    only_read = factory.token(scopes=["contacts:read"]).token
    expect_status(api.with_token(only_read).get(FEED, params=query), "SCOPE-020", 200)


NO_RESOURCE = "cc_no_such_resource"
RESOURCE_NAMES = {name for kind in operations.ROWS for name in (kind, operations.ROWS[kind])}
"""The names a query may give a resource by: each record kind, singular and plural."""


def _fields_query_naming_no_resource(convention: Callable[[str], str]) -> list[tuple[str, str]]:
    """The target's `fields_query` with the resource it names swapped for one no resource
    has; a skip where it names no resource (its shape is not shown)."""
    query = conventions.query(convention, "fields_query")
    named = [i for i, (_, value) in enumerate(query) if value in RESOURCE_NAMES]
    if not named:
        pytest.skip(f"the target's fields_query {query} names no resource")
    return [(name, NO_RESOURCE if i in named else value) for i, (name, value) in enumerate(query)]


@pytest.mark.req("SYNC-010")
@pytest.mark.parametrize("read", ["deletion feed", "field definitions"])
def test_a_name_that_is_no_resource_answers_unknown_entity(
    api: ApiClient, convention: Callable[[str], str], read: str
) -> None:
    """Each read that names a resource in a query parameter (the target's): the feed,
    and the field definitions where the target's `fields_query` names one. A name no
    resource has is `unknown_entity`, "no resource of that name". The field definitions'
    query is not shown, so its value may also be an invalid query value
    (`validation_failed`, "query ... problems answer 400 with the same code"); either
    way it is refused, never answered with no fields."""
    if read == "deletion feed":
        response = api.get(FEED, params={convention("deleted_records_entity_param"): NO_RESOURCE})
        expect_error(response, "SYNC-010", status=400, code="unknown_entity")
        return
    response = api.get("/v1/fields", params=_fields_query_naming_no_resource(convention))
    expect_error(response, "SYNC-010", status=400, code=("unknown_entity", "validation_failed"))
