"""Every typed query parameter of every read, given an invalid value, is refused with 400.

"`validation_failed` | fields invalid ... Query, path and header problems answer 400 with
the same code": a value outside a parameter's type is refused, never read as a value no
record has (a status filter of `archived` answering 200 with nothing hides the caller's
typo). The matrix is derived, not listed: the query parameters and their types come from
`spec/openapi.yaml` (`document.query_parameters()`: `limit` an integer from 1 to 200,
`updated_since`, `window_start` and `window_end` date-times, `cursor`, `expand`,
`fields`, `sort`), and the contact list's filters from the document's filter table
(status and score enums, owner and organization ids, created since), under the names the
target file gives them (`contact_filters.*`, `created_since_param`). Every list the target
file names (`[conventions.lists]`) takes the common parameters of reads, and a list of
records `updated_since`, as the contact list does. One test id per operation, parameter
and kind of invalid value.

Where the document's 400 table has a row for the very case, that code is the answer
(`invalid_cursor`, `unknown_expand`, `unknown_field`, `unknown_sort_field`); a window bound
that is no date-time may also read as `invalid_window` ("time window empty or
reversed"), so both pass. Writes (`POST /v1/deals?expand=`) are left out: the order in
which a server checks a query and a body is not shown.
"""

import dataclasses
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    NOT_A_DATE_TIME,
    RecordFactory,
    expect_error,
    expect_error_among,
    listings,
    operations,
)

NO_OFFSET = "2026-01-02T03:04:05"
"""A date-time without the timezone offset a parameter requires ("date-time with timezone
offset", "timezone offset required"): a server reading it as UTC, or as its own local
time, answers for an instant the caller never named."""
STATUSES = document.enum("Contact", "status")
SCORES = document.enum("Contact", "score")
VALIDATION: tuple[str, ...] = ("validation_failed",)
WRAPPED = {
    "2^31": str(2**31),
    "2^32+1": str(2**32 + 1),
    "2^63": str(2**63),
    "-(2^32-1)": str(-(2**32 - 1)),
}
"""Values past every bound that a server reading them into a 32- or 64-bit integer
wraps: 2^32+1 and -(2^32-1) read as 1 in 32 bits, 2^31 and 2^63 as negatives. Each is
outside the bound, so it is refused, never read as the value it wraps to."""
UNREADABLE = ("validation_failed", "bad_request")
"""The codes a number no integer type holds may be refused with: an invalid value, or a
request the parser did not understand ("request not understood")."""


@dataclass(frozen=True)
class Point:
    """One parameter of one operation given one kind of invalid value."""

    method: str
    path: str
    label: str
    """The parameter as the document names it (a filter's name is the target's)."""
    kind: str
    value: str
    req: str
    """The requirement charged when the answer is not a refusal."""
    reqs: tuple[str, ...]
    codes: tuple[str, ...] = VALIDATION
    convention: str | None = None
    """The target-file key naming the parameter, for a filter whose name is not shown."""
    listing: listings.Listing | None = None
    """The list the target file names, whose path is the target's (`path` names it)."""

    @property
    def id(self) -> str:
        return f"{self.method} {self.path} {self.label} {self.kind}"


def _typed_points(parameter: document.QueryParameter) -> Iterator[Point]:
    """The invalid values of one parameter the description types, with the code each
    must be refused with."""
    where = (parameter.method, parameter.path, parameter.name)
    if parameter.type == "integer" and parameter.minimum is not None:
        maximum = parameter.maximum if parameter.maximum is not None else 2**31
        reqs = ("PAG-008", "ERR-011")
        for kind, value in (
            ("below-minimum", str(parameter.minimum - 1)),
            ("above-maximum", str(maximum + 1)),
            ("negative", "-1"),
            ("fraction", "2.5"),
            ("digits-then-letters", "12abc"),
            ("word", "many"),
        ):
            yield Point(*where, kind, value, "PAG-008", reqs)
        for kind, value in WRAPPED.items():
            yield Point(*where, kind, value, "PAG-008", reqs, UNREADABLE)
    elif parameter.format == "date-time":
        codes: tuple[str, ...]
        if parameter.name.startswith("window_"):
            reqs, codes = ("ERR-011", "STAT-008"), ("validation_failed", "invalid_window")
            offset = ("STAT-005", "ERR-011")
        else:
            reqs, codes = ("ERR-011", "SYNC-002"), VALIDATION
            offset = ("SYNC-002", "ERR-011")
        for kind, value in NOT_A_DATE_TIME.items():
            yield Point(*where, kind, value, "ERR-011", reqs, codes)
        if parameter.offset_required:
            yield Point(*where, "no-offset", NO_OFFSET, offset[0], offset, codes)
    elif parameter.name in NAMED_REFUSALS:
        kind, value, req, code = NAMED_REFUSALS[parameter.name]
        codes = (code, *ALSO_SAID.get(parameter.name, ()))
        yield Point(*where, kind, value, req, (req,), codes)
        if parameter.name in KNOWN_FIRST:
            yield Point(*where, "unknown-second", after_known(parameter.name), req, (req,), codes)
        if parameter.name == "cursor":
            yield Point(*where, "non-ascii", NON_ASCII_CURSOR, req, (req,), (code,))


NAMED_REFUSALS = {
    "cursor": ("corrupt", "not-a-cursor-%%", "PAG-007", "invalid_cursor"),
    "expand": ("unknown-name", "no_such_relation", "QRY-007", "unknown_expand"),
    "fields": ("unknown-name", "no_such_field", "QRY-012", "unknown_field"),
    "sort": ("unknown-key", "no_such_field_for_sorting", "QRY-003", "unknown_sort_field"),
}
"""String parameters whose invalid value has a row of its own in the 400 table."""
ALSO_SAID = {"sort": ("unsupported_sort",)}
"""A second row that may say it: a list with one order may refuse any `sort` as
"collection cannot be sorted that way" before reading the key."""
KNOWN_FIRST = {"expand": "organization", "fields": "id", "sort": "created_at"}
"""A name each comma-separated list may start with, before the unknown one: a server
checking the first name only takes the list. (Where the first is not on the resource
either, the refusal is the same.)"""


def after_known(name: str) -> str:
    """`name`'s unknown value second in its list, after a known name."""
    return f"{KNOWN_FIRST[name]},{NAMED_REFUSALS[name][1]}"


NON_ASCII_CURSOR = "\u00e9t\u00e9.\U0001d11e#\u00f3"
"""A cursor no server issued whose characters are past ASCII (one astral): a decoder
that expects its own base64 meets bytes it cannot read, and must still answer
`invalid_cursor`."""


def _filter_points() -> Iterator[Point]:
    """The contact list's filters the document's table types (email and external_id are
    free strings: no value is invalid)."""
    where = ("GET", "/v1/contacts")
    unknown_status = next(v for v in ("archived", "closed", "deleted") if v not in STATUSES)
    unknown_score = next(v for v in ("lukewarm", "frozen") if v not in SCORES)
    for name, kind, value, req in (
        ("status", "unknown-value", unknown_status, "CON-027"),
        ("score", "unknown-value", unknown_score, "CON-028"),
        ("owner_id", "not-an-id", "not-a-user-id", "CON-030"),
        ("organization_id", "not-an-id", "not-an-organization-id", "CON-031"),
    ):
        key = f"contact_filters.{name}"
        yield Point(*where, name, kind, value, "ERR-011", ("ERR-011", req), convention=key)
    for kind, value in NOT_A_DATE_TIME.items():
        yield Point(
            *where,
            "created-since",
            kind,
            value,
            "ERR-011",
            ("ERR-011", "CON-033"),
            convention="created_since_param",
        )


COMMON = ("limit", "cursor", "sort", "expand", "fields")
"""The "common query parameters of reads": every list takes them, and a list of records
`updated_since` too ("changes to records are read by listing each resource with the
`updated_since` filter")."""


def _named_list_points() -> Iterator[Point]:
    """The contact list's common parameters (and `updated_since`), each invalid value of
    each, on every list the target file names."""
    shown = [
        p for p in document.query_parameters() if (p.method, p.path) == ("GET", "/v1/contacts")
    ]
    for listing in listings.NAMED:
        taken = (*COMMON, "updated_since") if listing.synced else COMMON
        for parameter in shown:
            if parameter.name in taken:
                for point in _typed_points(dataclasses.replace(parameter, path=listing.name)):
                    yield dataclasses.replace(point, listing=listing)


POINTS = (
    *(
        point
        for parameter in document.query_parameters()
        if parameter.method == "GET"
        for point in _typed_points(parameter)
    ),
    *_filter_points(),
    *_named_list_points(),
)


PATH_FEATURES = {"contact_id": "records", "campaign_id": "campaigns"}
"""The adapter feature making the record each path placeholder names."""


@pytest.fixture(scope="module")
def contact_id(module_factory: RecordFactory) -> str:
    """The record a contact path names: a point changes nothing, so one serves all."""
    return str(module_factory.contact()["id"])


@pytest.fixture(scope="module")
def campaign_id(module_factory: RecordFactory) -> str:
    return str(module_factory.requiring("campaigns").campaign()["id"])


@pytest.mark.parametrize(
    "point", [pytest.param(p, id=p.id, marks=pytest.mark.req(*p.reqs)) for p in POINTS]
)
def test_an_invalid_query_value_is_refused(
    api: ApiClient,
    request: pytest.FixtureRequest,
    convention: Callable[[str], str],
    module_factory: RecordFactory,
    point: Point,
) -> None:
    """A path's ids are of records that exist (`{contact_id}`, `{campaign_id}` from the
    module's fixtures), so the only problem of the request is the value under test."""
    names = {name for _, name, _, _ in string.Formatter().parse(point.path) if name}
    for name in names:  # noted on every point that reads the shared record
        module_factory.adapter.require(PATH_FEATURES[name])
    path = point.path.format(**{name: request.getfixturevalue(name) for name in names})
    if point.listing is not None:
        path = point.listing.path(convention)
    name = convention(point.convention) if point.convention else point.label
    response = api.get(path, params={name: point.value})
    expect_error(response, point.req, status=400, code=point.codes)


@pytest.mark.parametrize(
    ("name", "second"),
    [
        pytest.param(n, second, marks=pytest.mark.req(NAMED_REFUSALS[n][2]))
        for n in NAMED_REFUSALS
        for second in ((False, True) if n in KNOWN_FIRST else (False,))
    ],
)
def test_an_unknown_name_in_a_search_body_is_refused(
    api: ApiClient, name: str, second: bool
) -> None:
    """Search "accepts the same `expand` and `fields`" and `sort` "same syntax as the
    `sort` query parameter", a `cursor` "as above": a name not on the resource, or a
    corrupt cursor, is refused with the 400 table's own code, in a body as in a query (a
    body's problem may read as 422: the code is what the table pins); alone, and second
    after a known name."""
    _, value, req, code = NAMED_REFUSALS[name]
    response = api.post("/v1/contacts/search", json={name: after_known(name) if second else value})
    expect_error_among(response, req, {400: (code,), 422: (code,)})


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        pytest.param(kind, name, marks=pytest.mark.req(NAMED_REFUSALS[name][2]))
        for kind in conventions.RETRIEVED
        for name in ("expand", "fields")
    ],
)
def test_an_unknown_name_on_a_named_retrieve_is_refused(
    api: ApiClient, maker: operations.Maker, convention: conventions.Lookup, kind: str, name: str
) -> None:
    """Each retrieve the target file names is held to the rules of every read: an
    `expand` or `fields` name not on the resource is refused with the 400 table's code,
    as on the contact retrieve; alone, and second after a known name."""
    ids = {f"{kind}_id": maker.listed_id(kind)}
    path = conventions.path(convention, f"retrieve.{kind}_path", **ids)
    _, value, req, code = NAMED_REFUSALS[name]
    for sent in (value, after_known(name)):
        expect_error(api.get(path, params={name: sent}), req, status=400, code=code)
