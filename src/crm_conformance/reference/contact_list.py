"""The contact list: `GET /v1/contacts`, newest first by default, its filters (a
repeated filter ORs its values, different filters AND), `updated_since` and created
since, and the variants and faults of the list. The contact itself (its fields, its
rendering, its writes) is `contacts.py`'s.
"""

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from starlette.datastructures import QueryParams

from crm_conformance.reference import (
    phones,
)
from crm_conformance.reference.api_errors import ApiError, bad_query
from crm_conformance.reference.clock import parse_instant
from crm_conformance.reference.contacts import (
    MAX_FILTER_VALUES,
    SCORES,
    SPEC,
    STATUSES,
    render,
)
from crm_conformance.reference.identifiers import is_id
from crm_conformance.reference.listing import SortKey, parse_since
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record

routes = RouteTable()


def _field(name: str) -> SortKey:
    """Sorts by a contact's `name`, absent as null."""
    return lambda row: row.get(name)


WIDE_SPEC = replace(
    SPEC,
    sort_keys={
        **SPEC.sort_keys,
        **{
            name: _field(name)
            for name in (
                *("id", "visibility", "phone", "address", "city", "state", "job_title"),
                *("company_name", "organization_id", "owner_id", "lost_reason", "external_id"),
            )
        },
    },
)
"""The contact list under the `every_contact_field_sortable` variant: every scalar field
sorts (which keys sort is not shown)."""

FILTERS = {
    "status": STATUSES,
    "score": SCORES,
    "email": None,
    "owner_id": "user",
    "organization_id": "organization",
    "external_id": None,
    "phone": None,
}
"""Repeatable list filters: enum values, an id kind, or None for free text."""
SINCE_FILTERS = ("updated_since", "created_since")
UNVALIDATED_FILTER_FAULTS = {
    "status": "status_filter_unvalidated",
    "organization_id": "organization_id_filter_unvalidated",
}
"""Faults under which a filter's values are not checked against its type."""


PAGE_CACHE_SECONDS = 30.0
_page_cache: dict[tuple[int, str, str], tuple[float, Reply]] = {}
"""The `unfiltered_contact_page_cached` fault's cache: (store, workspace, query) -> the
time and answer of an unfiltered page."""
UNFILTERED = frozenset({"limit", "sort", "expand", "fields"})


@routes.get("/v1/contacts", scopes=("contacts:read",))
def list_contacts(call: Call) -> Reply:
    """Under the `unfiltered_contact_page_cached` fault, a first page with no filter is
    served from a cache no write evicts (a deleted contact stays on it)."""
    if (
        not call.settings.has_fault("unfiltered_contact_page_cached")
        or set(call.query) - UNFILTERED
    ):
        return _list_contacts(call)
    key = (id(call.store), call.workspace, str(call.query))
    held = _page_cache.get(key)
    if held is None or time.monotonic() - held[0] >= PAGE_CACHE_SECONDS:
        held = _page_cache[key] = (time.monotonic(), _list_contacts(call))
    return held[1]


def _list_contacts(call: Call) -> Reply:
    """Newest first by default; repeated filters OR, different filters AND."""
    if call.settings.has_variant("bracket_filter_names"):
        call.query = _bracketed(call.query)  # in place: rendering reads this call's state
    if call.settings.has_fault("contact_owner_expand_accepted"):
        call.query = _without_owner_expand(call.query)
    spec = WIDE_SPEC if call.settings.has_variant("every_contact_field_sortable") else SPEC
    params = call.list_params(spec, filters=(*FILTERS, *SINCE_FILTERS))
    if call.settings.has_fault("contacts_oldest_first") and call.single("sort") is None:
        params = replace(params, sort=(("created_at", False),))
    if call.settings.has_fault("contacts_by_name_descending") and call.single("sort") is None:
        params = replace(params, sort=(("name", True),))  # "newest" read as the last name
    if call.settings.has_fault("list_expand_ignored"):
        params = replace(params, expand=())  # validated, but only retrieve embeds
    if call.settings.has_fault("updated_at_sort_descending") and params.sort[:1] == (
        ("updated_at", False),
    ):
        params = replace(params, sort=(("updated_at", True), *params.sort[1:]))  # "latest first"
    filters = _filters(call)
    since = {name: parse_since(name, _naive_as_utc(call, name)) for name in SINCE_FILTERS}
    bounds = {name: value for name, value in since.items() if value is not None}
    if "status" in filters and call.settings.has_fault("created_since_dropped_with_status"):
        bounds.pop("created_since", None)  # the status query path builds its own WHERE
    if call.single("sort") and call.settings.has_fault("created_since_dropped_with_sort"):
        bounds.pop("created_since", None)  # the sorted query path builds its own WHERE
    if "status" in filters and call.settings.has_fault("email_filter_dropped_with_status"):
        filters.pop("email", None)  # the status query path forgets the e-mail clause
    if len(filters) > 1 and call.settings.has_fault("repeated_filter_first_value_beside_another"):
        filters = {name: values[:1] for name, values in filters.items()}  # one-column IN only
    with call.transaction() as tx:
        places = [call.workspace]
        if "email" in filters and call.settings.has_fault("email_filter_all_workspaces"):
            places = tx.workspaces()  # the e-mail index is one for every workspace
        blind = "external_id" in filters and call.settings.has_fault("external_id_lookup_blind")
        rows = [
            row for place in places for row in tx.view(place, "contact") if blind or call.sees(row)
        ]
        if filters or bounds:
            rows = list(filter(_row_test(call, filters, bounds), rows))
        object_name = "lead" if call.settings.has_fault("contact_list_object_lead") else "contact"
        return call.list_reply(
            spec,
            rows,
            params,
            {"filters": filters, "since": since},
            lambda r: {
                **_list_row(render(tx, call.workspace, r, params.expand, call.settings), call),
                "object": object_name,
                **_organization_id_unjoined(call, params.expand),
            },
            kept_in=(tx, "contact"),
        )


def _list_row(rendered: dict[str, Any], call: Call) -> dict[str, Any]:
    """A contact as the list renders it; under its faults the list's lighter query leaves
    out the owner it would join, or the custom fields no value was stored for."""
    if call.settings.has_fault("contact_owner_missing_on_list"):
        rendered.pop("owner", None)
    custom = rendered.get("custom_fields")
    if isinstance(custom, dict) and call.settings.has_fault("unset_custom_fields_dropped_on_list"):
        rendered["custom_fields"] = {k: v for k, v in custom.items() if v is not None}
    return rendered


def _organization_id_unjoined(call: Call, expand: Sequence[str]) -> dict[str, Any]:
    """The `list_organization_id_needs_expand` fault: the list reads organization_id from
    the organization it joins only for an expand, so without one it is null."""
    if "organization" in expand or not call.settings.has_fault("list_organization_id_needs_expand"):
        return {}
    return {"organization_id": None}


def _without_owner_expand(query: QueryParams) -> QueryParams:
    """The fault `contact_owner_expand_accepted`: `owner` left out of `expand` (the owner
    is rendered anyway), so naming it is no error."""
    items = []
    for name, value in query.multi_items():
        if name == "expand":
            value = ",".join(part for part in value.split(",") if part.strip() != "owner")
        items.append((name, value))
    return QueryParams(items)


BRACKETED = {f"filter[{name}]": name for name in FILTERS} | {"created_after": "created_since"}
"""The `bracket_filter_names` variant's query names, and the reference's for each."""


def _bracketed(query: QueryParams) -> QueryParams:
    """The query with the variant's names read as the reference's; the reference's own
    names become unknown parameters, refused like any other."""
    plain = set(BRACKETED.values())
    return QueryParams(
        [
            (BRACKETED.get(name, f"unknown:{name}" if name in plain else name), value)
            for name, value in query.multi_items()
        ]
    )


def _naive_as_utc(call: Call, name: str) -> str | None:
    """The raw `*_since` value; under its fault an `updated_since` without an offset is
    read as UTC instead of refused."""
    raw = call.single(name)
    if raw is not None and call.settings.has_fault("since_fraction_read_as_microseconds"):
        # the hand parser reads the digits after the point as a count of microseconds
        raw = re.sub(r"\.(\d{1,5})(?=\D|$)", lambda m: "." + m.group(1).rjust(6, "0"), raw)
    if name != "updated_since" or raw is None or parse_instant(raw) is not None:
        return raw
    if call.settings.has_fault("naive_updated_since_as_utc"):
        instant = parse_instant(raw, require_offset=False)
        return raw if instant is None else instant.isoformat()
    return raw


def _row_test(
    call: Call, filters: dict[str, list[str]], bounds: dict[str, str]
) -> Callable[[Record], bool]:
    """Whether a row matches every filter and `*_since` bound: a repeated filter ORs its
    values, different filters AND. The faults that bend a filter are read once here,
    not once per row: a run lists a workspace of thousands of contacts hundreds of times.
    Under `status_and_score_ored` the two enum filters are one "standing" condition that
    either satisfies."""
    has = call.settings.has_fault
    if "status" in filters and has("status_filter_won_as_closed"):
        # the filter reads the pipeline's closed statuses: won and lost are one "closed"
        closed = {"won", "lost"}
        if closed & set(filters["status"]):
            filters = {**filters, "status": [*filters["status"], *closed]}
    anded = has("filter_values_anded")
    likes = None
    if "email" in filters and has("email_filter_like_wildcards"):
        # a LIKE ? whose % and _ are not escaped
        likes = [re.escape(v).replace("%", ".*").replace("_", ".") for v in filters["email"]]
    prefix = "email" in filters and has("email_filter_prefix_match")  # a LIKE 'value%'
    standing = has("status_and_score_ored") and {"status", "score"} <= set(filters)
    stamps = [
        (_stamp_field(call, name), _exclusive(call, name), value) for name, value in bounds.items()
    ]
    join = any if has("different_filters_ored") else all

    def test(row: Record) -> bool:
        matched = {
            name: all(row.get(name) == each for each in values)
            if anded
            else row.get(name) in values
            for name, values in filters.items()
        }
        if likes is not None:
            matched["email"] = any(re.fullmatch(like, row.get("email") or "") for like in likes)
        if prefix:
            email = row.get("email") or ""
            matched["email"] = any(email.startswith(value) for value in filters["email"])
        if standing:
            matched["status"] = matched["score"] = matched["status"] or matched["score"]
        after = [
            row[field] > value if exclusive else row[field] >= value
            for field, exclusive, value in stamps
        ]
        return join([*matched.values(), *after])

    return test


def _stamp_field(call: Call, name: str) -> str:
    """The row's stamp a `*_since` filter compares, under the faults that read another."""
    if name == "updated_since" and call.settings.has_fault("updated_since_reads_created_at"):
        return "created_at"  # the index the filter was written against
    if name == "created_since" and call.settings.has_fault("created_since_reads_updated_at"):
        return "updated_at"  # one stamp index serves both filters
    return name.replace("_since", "_at")


def _exclusive(call: Call, name: str) -> bool:
    """Whether a `*_since` filter drops the instant itself (its fault)."""
    fault = {"updated_since": "updated_since_exclusive", "created_since": "created_since_exclusive"}
    return call.settings.has_fault(fault[name])


ID_FILTERS = ("owner_id", "organization_id")
"""The filters that take ids."""


def _filters(call: Call) -> dict[str, list[str]]:
    chosen: dict[str, list[str]] = {}
    for name, rule in FILTERS.items():
        values = call.query.getlist(name)
        if not values:
            continue
        cap = MAX_FILTER_VALUES
        if call.settings.has_fault("filter_cap_off_by_one"):
            cap -= 1
        uncapped = call.settings.has_fault("filter_cap_unchecked") or (
            name in ID_FILTERS and call.settings.has_fault("id_filters_uncapped")
        )  # where the cap sits in one parser of values, and another parser reads these
        if len(values) > cap and not uncapped:
            raise ApiError(
                400,
                "too_many_filter_values",
                f"{name} is repeated {len(values)} times; at most {MAX_FILTER_VALUES} values.",
                param=name,
            )
        for value in values:
            if name in UNVALIDATED_FILTER_FAULTS and call.settings.has_fault(
                UNVALIDATED_FILTER_FAULTS[name]
            ):
                continue  # compared as text: an invalid value matches nothing
            if isinstance(rule, tuple) and value not in rule:
                raise bad_query(name, f"must be one of {', '.join(rule)}", "enum")
            if isinstance(rule, str) and not is_id(value, rule):
                raise bad_query(name, f"must be a {rule} id", "pattern")
        if name == "phone":
            values = [phones.normalize(value) or value for value in values]
        ignored = IGNORED_FILTER_FAULTS.get(name)
        if ignored is None or not call.settings.has_fault(ignored):
            chosen[name] = sorted(set(values))
    return chosen


IGNORED_FILTER_FAULTS = {
    "status": "status_filter_ignored",
    "score": "score_filter_ignored",
    "email": "email_filter_ignored",
    "owner_id": "owner_filter_ignored",
    "organization_id": "organization_filter_ignored",
    "external_id": "external_id_filter_ignored",
}
"""Faults: a filter validated but never applied (left out of the chosen filters)."""
