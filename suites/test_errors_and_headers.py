"""Errors and headers: the envelope, its fields and the headers every answer carries.

Each error here is provoked with the full-scope token through documented operations
only, so the cause is one the document names: a missing token (401), a well-formed id
with no record (404), a path the API does not have (404), a method the path does not
support (405), an invalid query value (400), an invalid body field (422), a body that
is not JSON (400 `bad_request`). Every answer also goes through the universal checks
(`universal`), which hold the envelope, the type enum and agreement with the status,
`request_id` against `X-Request-ID`, the rate-limit headers and the JSON content type.
"""

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from crm_conformance import ApiClient, Target
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    RecordFactory,
    absent_id,
    detail_fields,
    error_of,
    expect_error,
    expect_error_among,
    expect_status,
    expect_true,
    expect_value,
    listings,
    methods,
    names_path,
    operations,
    refill_window,
    universal,
)

MISSING_CONTACT = "/v1/contacts/con_" + "0" * 32
"""A well-formed contact id that names no record (ids are 32 random hex characters)."""
CLOSE_PATH = "/v1/conversations/conv_" + "0" * 32 + "/close"
"""An action path: POST is its only method under any reading. `/v1/contacts/search` is
not, since contact update is not shown and a router may send a method search lacks to
`/v1/contacts/{contact_id}` (which then refuses "search" as an id)."""

LIMIT, REMAINING, RESET = "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"

Provoke = Callable[[ApiClient], httpx.Response]


@dataclass(frozen=True)
class Provocation:
    """A request every conforming target refuses, and the rule a target that takes it
    breaks: the envelope and its fields are rules of errors, so a request answered 2xx
    fails its own refusal's requirement, never ERR-001 or ERR-005 (a server taking
    `limit=0` breaks the refusal of an invalid query value, not the envelope). Each is
    a core rule, so no provocation moves its test out of a run that claims core only."""

    send: Provoke
    refused_by: str
    statuses: tuple[int, ...]
    """What the refusal's own test holds it to, said in the failure's message."""


PROVOKED: dict[str, Provocation] = {
    "401 without a token": Provocation(
        lambda api: api.get("/v1/contacts", token=None), "AUTH-003", (401,)
    ),
    "404 for a missing record": Provocation(
        lambda api: api.get(MISSING_CONTACT), "ERR-012", (404,)
    ),
    "an unknown path": Provocation(
        lambda api: api.get("/v1/no-such-resource"), "ERR-001", tuple(range(400, 500))
    ),
    "405 for an unsupported method": Provocation(
        lambda api: api.delete(CLOSE_PATH), "ERR-013", (405,)
    ),
    "400 for an invalid query value": Provocation(
        lambda api: api.get("/v1/contacts", params={"limit": 0}), "ERR-011", (400,)
    ),
    "422 for an invalid body field": Provocation(
        lambda api: api.post("/v1/contacts/search", json={"limit": "ten"}), "ERR-010", (400, 422)
    ),
    "400 for a body that is not JSON": Provocation(
        lambda api: api.post(
            "/v1/contacts/search", content="{not json", headers={"Content-Type": "application/json"}
        ),
        "ERR-009",
        (400,),
    ),
}
"""Errors any conforming target gives to a full-scope token, by what provokes them."""


def _causes(*causes: str) -> list[Any]:
    """`causes` (default: every one) as parameters naming each one's refusal rule too."""
    return [
        pytest.param(cause, marks=pytest.mark.req(PROVOKED[cause].refused_by))
        for cause in causes or sorted(PROVOKED)
    ]


def _provoked(api: ApiClient, cause: str) -> httpx.Response:
    """The error `cause` provokes. A target that takes the request (no error status)
    fails the provocation's own rule here, and the test stops: its rules are an error's."""
    provocation = PROVOKED[cause]
    response = provocation.send(api)
    if response.status_code < 400:
        expect_status(response, provocation.refused_by, *provocation.statuses)
    return response


@pytest.mark.req("ERR-001", "ERR-002", "ERR-003", "ERR-004", "HDR-001", "HDR-003", "HDR-004")
@pytest.mark.parametrize("cause", _causes())
def test_every_error_has_the_envelope_and_headers(api: ApiClient, cause: str) -> None:
    response = _provoked(api, cause)
    universal(response)
    expect_true(
        response,
        "ERR-001",
        response.status_code >= 400 and bool(error_of(response)),
        expected="an error status with a body {error: {...}}",
        got=f"{response.status_code} {response.text[:200]}",
    )


@pytest.mark.req("ERR-005", "HDR-003")
@pytest.mark.parametrize("cause", _causes())
def test_error_request_id_equals_the_header(api: ApiClient, cause: str) -> None:
    """`request_id` "equals the `X-Request-ID` response header", and every response
    carries that header, so a null `request_id` beside a header does not equal it."""
    response = _provoked(api, cause)
    universal(response)
    request_id = error_of(response).get("request_id")
    header = response.headers.get("X-Request-ID")
    expect_true(
        response,
        "ERR-005",
        request_id == header,
        expected=f"error.request_id = {header!r} (the X-Request-ID header)",
        got=f"error.request_id = {request_id!r}",
    )


def _same_codes(maker: operations.Maker) -> list[Provoke]:
    """Requests whose errors share codes across operations: a missing id in a body (the
    deal's and the activity's record_not_found), a missing record on each retrieve, an
    invalid query value on each list and an invalid body field on each create
    (validation_failed, 400 and 422), a corrupt cursor on each list. The named retrieves
    and lists are among them where the target file names them."""
    absent_contact = absent_id("con")
    deal = {**maker.deal_body(), "contact_id": absent_contact}
    provoked: list[Provoke] = [
        lambda a: a.post("/v1/deals", json=deal),
        lambda a: a.post(
            "/v1/activities", json={**maker.activity_body(), "record_id": absent_contact}
        ),
        lambda a: a.post("/v1/deals", json={**deal, "title": ""}),
        lambda a: a.post("/v1/activities", json={"title": ""}),
        PROVOKED["404 for a missing record"].send,
        PROVOKED["400 for an invalid query value"].send,
        PROVOKED["422 for an invalid body field"].send,
    ]
    paths = [listing.name for listing in listings.SHOWN]
    for kind in conventions.LISTED:
        try:
            paths.append(conventions.path(maker.convention, f"lists.{kind}_path"))
        except pytest.skip.Exception:
            continue  # a list the target does not offer: nothing to compare there
    for path in paths:
        provoked.append(_get(path, limit=0))
        provoked.append(_get(path, cursor="not-a-cursor-%%"))
    for kind in conventions.RETRIEVED:
        ids = {f"{kind}_id": absent_id(operations.PREFIXES[kind])}
        try:
            path = conventions.path(maker.convention, f"retrieve.{kind}_path", **ids)
        except pytest.skip.Exception:
            continue
        provoked.append(_get(path))
    return provoked


def _get(path: str, **params: Any) -> Provoke:
    return lambda api: api.get(path, params=params)


@pytest.mark.req("ERR-021")
def test_an_error_code_keeps_one_type_on_every_operation(
    api: ApiClient, maker: operations.Maker
) -> None:
    """The type is "coarse and stable; new codes may appear under a type": a code sits
    under one type, whichever operation answers it. The same codes are provoked on each
    operation that can answer them, and each code's types compared. (Every answer of
    the run is held to it as well: `checks.code_keeps_its_type`.)"""
    seen: dict[str, dict[str, str]] = {}
    last = None
    for provoke in _same_codes(maker):
        last = provoke(api)
        universal(last)
        error = error_of(last) if last.status_code >= 400 else {}
        code, kind = error.get("code"), error.get("type")
        if isinstance(code, str) and isinstance(kind, str):
            where = f"{last.request.method} {last.request.url.path} -> {last.status_code}"
            seen.setdefault(code, {}).setdefault(kind, where)
    split = {code: types for code, types in seen.items() if len(types) > 1}
    expect_true(
        last,
        "ERR-021",
        not split,
        expected="each error code under one type on every operation",
        got="; ".join(f"{code}: {types}" for code, types in sorted(split.items())),
    )


SERVED_REFUSALS = (400, 403, 409, 422)
"""Answers of an operation that is there and refuses this call (a `PUT` replacing the
whole record refuses `{}`; an event's own path refuses an edit): the method is taken
there, though no convention names it, and the point is not applicable."""


def _expect_405_api_error(response: httpx.Response) -> None:
    """ "`api_error`: method not supported on the path": 405, typed `api_error`."""
    expect_status(response, "ERR-013", 405)
    got = error_of(response).get("type")
    expect_value(response, "ERR-013", "error.type", got=got, expected="api_error", why="on a 405")


@pytest.mark.req("ERR-013", "ERR-004")
@pytest.mark.parametrize(
    "operation",
    [*document.operations(), *operations.NAMED],
    ids=lambda operation: operation.operation_id,
)
def test_a_method_no_operation_takes_on_a_path_answers_405_api_error(
    api: ApiClient,
    maker: operations.Maker,
    target: Target,
    operation: document.DescribedOperation | operations.NamedOperation,
) -> None:
    """On the path of each operation shown or named, on a record that exists, every
    method no operation takes there (`steps.methods`: those the description shows and
    the target file names, on every template that routes the path) is "not supported on
    the path": 405 `api_error`, never a 404, as the path and its record exist. A method
    the target serves there anyway (a success, or a refusal of the call's body,
    `SERVED_REFUSALS`) is its own operation and is not judged."""
    path = operations.call_of(operation, maker).path
    served: list[str] = []
    checked = 0
    for method in methods.not_taken(path, target.conventions):
        body: dict[str, Any] = {"json": {}} if method in ("POST", "PUT", "PATCH") else {}
        response = api.request(method, path, **body)
        if response.is_success or response.status_code in SERVED_REFUSALS:
            served.append(f"{method} -> {response.status_code}")
            continue
        _expect_405_api_error(response)
        checked += 1
    if not checked:
        pytest.skip(f"the target takes every method on {path}: {', '.join(served) or 'none'}")


@pytest.mark.req("ERR-012", "ERR-004")
def test_a_missing_record_answers_404_not_found(api: ApiClient) -> None:
    """`not_found` is "no such record"; `contact_not_found` ("contact id in request does
    not exist") reads as fitting too, so either passes."""
    codes = ("not_found", "contact_not_found")
    expect_error(api.get(MISSING_CONTACT), "ERR-012", status=404, code=codes)


@pytest.mark.req("ERR-006")
@pytest.mark.parametrize(
    "cause", _causes("400 for an invalid query value", "422 for an invalid body field")
)
def test_param_names_the_offending_field(api: ApiClient, cause: str) -> None:
    """`param` is "string or null" and names the "offending request field" (`limit` in
    both requests): null passes, a string must name the one field the request got wrong
    (a dotted path ending in it is read as naming it too). A request taken (no error)
    fails its refusal's rule, not this one: a 200 has no `param` to judge."""
    field = "limit"
    response = _provoked(api, cause)
    param = error_of(response).get("param")
    expect_true(
        response,
        "ERR-006",
        param is None or param == field or (isinstance(param, str) and param.endswith(f".{field}")),
        expected=f"error.param null or naming {field!r}",
        got=f"error.param = {param!r}",
    )


@pytest.mark.req("ERR-001")
def test_an_unknown_path_answers_an_error_with_the_envelope(
    api: ApiClient, observe: Callable[[str, Any], None]
) -> None:
    """No row of the error tables names a path the API does not have: 404 reads as
    fitting ("no such record"), and so does 400 `bad_request` ("request not understood"),
    so any 4xx with the envelope passes and the status is observed."""
    response = api.get("/v1/no-such-resource")
    expect_status(response, "ERR-001", *range(400, 500))
    observe("unknown path: status and code", [response.status_code, error_of(response).get("code")])


@pytest.mark.req("ERR-011", "PAG-008")
@pytest.mark.parametrize("limit", ["0", str(document.page_limit() + 1), "ten"])
def test_an_invalid_query_value_answers_400_validation_failed(api: ApiClient, limit: str) -> None:
    response = api.get("/v1/contacts", params={"limit": limit})
    expect_error(response, "ERR-011", status=400, code="validation_failed")


@pytest.mark.req("ERR-011")
def test_a_malformed_path_id_answers_400_validation_failed(api: ApiClient) -> None:
    """The retrieve's path id "matches `con_` pattern"; a path problem answers 400."""
    response = api.get("/v1/contacts/not_a_contact_id")
    expect_error(response, "ERR-011", status=400, code="validation_failed")


TWO_INVALID_FIELDS = {
    "limit": document.page_limit() + 1,
    "filter": {"conditions": [], "join": "xor"},
}
"""A search body with two invalid fields: `limit` out of 1 to 200, and the nested
`filter.join`, which is `and` or `or`."""


@pytest.mark.req("ERR-010", "ERR-007", "SRCH-008")
def test_invalid_body_fields_answer_422_with_a_detail_item_each(api: ApiClient) -> None:
    """Body fields out of range are field problems (422), not query problems (400);
    `detail` "lists each", and names each by its dotted path, so the nested one is
    `filter.join`. Other items (an empty group refused too, say) may be listed besides."""
    response = api.post("/v1/contacts/search", json=TWO_INVALID_FIELDS)
    error = expect_error(response, "ERR-010", status=422, code="validation_failed")
    fields = detail_fields(error)
    expect_true(
        response,
        "ERR-010",
        any(names_path(field, "limit") for field in fields)
        and any("join" in str(field) for field in fields),
        expected="error.detail with an item for each invalid field, limit and filter.join",
        got=f"detail fields {fields}",
    )
    expect_true(
        response,
        "ERR-007",
        any(names_path(field, "filter.join") for field in fields),
        expected="the nested field named by its dotted path 'filter.join'",
        got=f"detail fields {fields}",
    )


INVALID_PAIRS: dict[
    str, tuple[str, Callable[[operations.Maker], dict[str, Any]], dict[str, Any]]
] = {
    "deal": ("/v1/deals", operations.Maker.deal_body, {"title": "", "probability": 101}),
    "activity": (
        "/v1/activities",
        operations.Maker.activity_body,
        {"title": "", "due_at": "not a date-time"},
    ),
    "tag": ("/v1/tags", operations.Maker.tag_body, {"name": "", "color": "red"}),
}
"""Each shown create, its valid body, and two of its fields made invalid (an empty title
or name, a bound, a pattern, a date-time)."""


INVALID_CHANGES: dict[str, dict[str, Any]] = {
    "deal": INVALID_PAIRS["deal"][2],
    "activity": INVALID_PAIRS["activity"][2],
    "tag": INVALID_PAIRS["tag"][2],
    "contact": {"status": "archived", "score": "lukewarm"},
}
"""Two invalid fields each update may be sent: the creates' pairs, and for a contact two
values outside their enums."""


def _detail_points() -> Iterator[Any]:
    for write in sorted(INVALID_PAIRS):
        yield pytest.param("create", write, id=f"create {write}")
    for kind in sorted(INVALID_CHANGES):
        yield pytest.param("update", kind, id=f"update {kind}")


@pytest.mark.req("ERR-010")
@pytest.mark.parametrize(("action", "kind"), list(_detail_points()))
def test_every_write_lists_each_invalid_field_in_detail(
    api: ApiClient, maker: operations.Maker, action: str, kind: str
) -> None:
    """ "`validation_failed` | fields invalid; `detail` lists each", on every create the
    document shows and every update the target file names, not only search: two invalid
    fields, an item naming each."""
    if action == "create":
        path, body_of, invalid = INVALID_PAIRS[kind]
        response = api.post(path, json={**body_of(maker), **invalid})
    else:
        invalid = INVALID_CHANGES[kind]
        update = conventions.update(maker.convention, kind, maker.record_id(kind), invalid)
        response = api.request(update.method, update.path, json=update.body)
    error = expect_error(response, "ERR-010", status=422, code="validation_failed")
    fields = detail_fields(error)
    expect_true(
        response,
        "ERR-010",
        all(any(names_path(field, name) for field in fields) for name in invalid),
        expected=f"error.detail with an item for each of {', '.join(invalid)}",
        got=f"detail fields {fields}",
    )


@pytest.mark.req("ERR-009")
def test_a_body_that_is_not_json_answers_400_bad_request(api: ApiClient) -> None:
    response = PROVOKED["400 for a body that is not JSON"].send(api)
    expect_error(response, "ERR-009", status=400, code="bad_request")


CHARSET_JSON = "application/json; charset=utf-8"
"""JSON labelled with its charset: a parameter of the media type many HTTP clients send."""

WRITES = [
    op for op in operations.every() if not op.reads and not op.operation_id.startswith("delete")
]
"""Every write the description shows or the target file may name, but the deletes (a
`DELETE` sends no body)."""


@pytest.mark.req("HDR-004")
@pytest.mark.parametrize("operation", [pytest.param(op, id=op.operation_id) for op in WRITES])
def test_a_json_body_labelled_with_its_charset_is_read_as_json(
    api: ApiClient,
    maker: operations.Maker,
    operation: document.DescribedOperation | operations.NamedOperation,
) -> None:
    """ "Request and response bodies are JSON": `application/json; charset=utf-8` labels
    a JSON body as `application/json` does, so a write the target accepts is accepted
    under it too. A write it refuses is sent again as `application/json`: refused again,
    the refusal is for something else and the point is not applicable."""
    call = operations.call_of(operation, maker)
    if call.body is operations.NO_BODY:
        pytest.skip(f"{operation.operation_id} sends no body")
    response = call.send(api, headers={"Content-Type": CHARSET_JSON})
    if not response.is_success:
        control = operations.call_of(operation, maker).send(api)
        if not control.is_success:
            pytest.skip(f"the same write as application/json answered {control.status_code}")
    expect_true(
        response,
        "HDR-004",
        response.is_success,
        expected=f"the write accepted under Content-Type: {CHARSET_JSON}, as under "
        "application/json",
        got=f"{response.status_code} {response.text[:200]}",
    )


READ_BODIES = [
    *WRITES,
    *(op for op in document.operations() if op.operation_id == "closeConversation"),
]
"""Every write that may read a body: each of `WRITES`, and the close, whose body is
optional ("may be absent or null") yet read ("unknown keys rejected")."""
SHOWN_OBJECTS = {
    "searchContacts",
    "createDeal",
    "createActivity",
    "createTag",
    "closeConversation",
    *(f"update{kind.title()}" for kind in conventions.UPDATED),
    *(f"create{kind.title()}" for kind in conventions.CREATED),
}
"""The writes whose body the document shows as an object of fields: its own, or the
resource table's for a create or an update. (Upsert, the moves, notes, events and the
cancel have shapes "not shown".)"""
UNREADABLE_BODIES: dict[str, tuple[str, dict[int, tuple[str, ...]]]] = {
    "not JSON": ("{not json", {400: ("bad_request",)}),
    "an array": ("[]", {400: ("bad_request", "validation_failed"), 422: ("validation_failed",)}),
    "a number": ("42", {400: ("bad_request", "validation_failed"), 422: ("validation_failed",)}),
}
"""Bodies labelled JSON that a write reading fields cannot take, and the refusals each may
get: a text that is not JSON is "request not understood" (400 `bad_request`); JSON that
is not an object is that, or fields that are not there (`validation_failed`, 400 or
422)."""


def _unreadable_points() -> Iterator[Any]:
    for operation in READ_BODIES:
        for body in sorted(UNREADABLE_BODIES):
            if body == "not JSON" or operation.operation_id in SHOWN_OBJECTS:
                yield pytest.param(operation, body, id=f"{operation.operation_id}-{body}")


@pytest.mark.req("ERR-009")
@pytest.mark.parametrize(("operation", "body"), list(_unreadable_points()))
def test_a_body_no_write_can_read_is_refused(
    api: ApiClient,
    maker: operations.Maker,
    operation: document.DescribedOperation | operations.NamedOperation,
    body: str,
) -> None:
    """On every write that reads fields from its body, not only search: a body that is
    not JSON is refused, never taken as an empty or absent one (a close that closes, an
    update that changes nothing and answers 200); where the document shows the body as an
    object, JSON that is not one is refused too. A write whose call sends no fields (no
    body, or `{}` the target may never read) is not applicable, the close aside."""
    call = operations.call_of(operation, maker)
    reads_fields = isinstance(call.body, dict) and bool(call.body)
    if not reads_fields and operation.operation_id != "closeConversation":
        pytest.skip(f"{operation.operation_id} sends no fields to read")
    text, refusals = UNREADABLE_BODIES[body]
    response = api.request(
        call.method,
        call.path,
        params=list(call.query),
        content=text,
        headers={"Content-Type": "application/json"},
    )
    expect_error_among(response, "ERR-009", refusals)


@pytest.mark.req("VER-001", "IDN-001", "IDN-002")
@pytest.mark.parametrize(
    "listing",
    [pytest.param(s, id=s.name, marks=pytest.mark.req(s.req)) for s in listings.SHOWN],
)
def test_each_documented_list_is_served_under_v1(api: ApiClient, listing: listings.Listing) -> None:
    """ "The version is in the path prefix `/v1`": each documented list answers its page
    at its `/v1` path, not only at a path of another version or none. The universal
    checks hold its rows to the identifier format (IDN-001) and their resource's
    `object` (IDN-002)."""
    path = listing.name
    response = api.get(path, params={"limit": 1})
    body = expect_status(response, "VER-001", 200)
    expect_true(
        response,
        listing.req,
        isinstance(body, dict) and isinstance(body.get("data"), list),
        expected=f"a collection of records at {path}",
        got=f"{response.status_code} {response.text[:200]}",
    )


@pytest.mark.req("HDR-001", "HDR-003", "HDR-004", "HDR-010")
def test_a_success_carries_the_headers_and_no_retry_after(api: ApiClient) -> None:
    response = api.get("/v1/users", params={"limit": 1})
    universal(response)
    expect_true(
        response,
        "HDR-010",
        "Retry-After" not in response.headers,
        expected="no Retry-After header on a 200 (it is sent only on 429)",
        got=f"Retry-After: {response.headers.get('Retry-After')!r}",
    )


@pytest.mark.req("HDR-005")
def test_each_response_has_its_own_request_id(api: ApiClient) -> None:
    responses = [api.get("/v1/users", params={"limit": 1}) for _ in range(3)]
    responses += [PROVOKED[cause].send(api) for cause in sorted(PROVOKED)]
    ids = [response.headers.get("X-Request-ID") for response in responses]
    expect_true(
        responses[-1],
        "HDR-005",
        len(set(ids)) == len(ids),
        expected=f"{len(ids)} distinct X-Request-ID values",
        got=f"{len(set(ids))} distinct: {ids}",
    )


PAIR_TRIES = 3
"""Pairs of requests sent for one that surely falls in one window."""
MAX_REFILL_WAIT = 5.0
"""Seconds waited into the next window between pairs (a Reset under two seconds waits
at most its own length and the slack)."""


def _header_int(response: httpx.Response, name: str) -> int:
    return int(response.headers[name].strip())


SECOND_REQUESTS: dict[str, Callable[[operations.Maker], operations.Call]] = {
    "GET": lambda maker: operations.Call("GET", "/v1/users", query=(("limit", "1"),)),
    "POST": lambda maker: operations.Call("POST", "/v1/contacts/search", body={"limit": 1}),
    "update": operations.BUILDERS["updateContact"],
}
"""The request after a GET, one of each method the API takes: a request is counted
whatever its method (a read, a POST, the target's update method)."""


@pytest.mark.req("HDR-007")
@pytest.mark.parametrize("method", SECOND_REQUESTS)
def test_remaining_counts_down_within_the_limit(
    api: ApiClient,
    factory: RecordFactory,
    maker: operations.Maker,
    observe: Callable[[str, Any], None],
    method: str,
) -> None:
    """With a token of its own, two requests in one window leave fewer requests the
    second time, never more than the limit; the second is a GET, a POST or the target's
    update ("requests left in the window": every request is one).

    "In one window" is read from the first answer, whatever the window's shape (fixed,
    sliding, a bucket; the direction Reset moves in is not shown): its `Reset`, an
    integer rounded either way, promises no refill for at least `Reset` less a second,
    so two requests sent and answered within that time are in one window. Where a pair
    does not surely fit (a Reset of 0 or 1, a slow exchange), the test waits into the
    next window and sends the pair again, at most `PAIR_TRIES` times; a target where no
    pair fits is not applicable, with the reason, never passed. The allowance and window
    length are not shown and are recorded."""
    client = api.with_token(factory.token().token)
    seconds = [SECOND_REQUESTS[method](maker) for _ in range(PAIR_TRIES)]
    for call in seconds:
        started = time.monotonic()
        first = client.get("/v1/users", params={"limit": 1})
        second = call.send(client)
        elapsed = time.monotonic() - started
        earliest_refill, latest_refill = refill_window(_header_int(first, RESET))
        if elapsed < earliest_refill:
            break
        observe(
            "rate limit: two requests not surely in one window (sent again after a refill)",
            {"reset": first.headers[RESET], "seconds_between": round(elapsed, 2)},
        )
        time.sleep(min(latest_refill, MAX_REFILL_WAIT))
    else:
        pytest.skip(
            f"no two requests surely fit in one window of this token ({RESET} "
            f"{first.headers[RESET]}, {PAIR_TRIES} tries): the count-down is not verified"
        )
    for response in (first, second):
        universal(response)
        # "requests left": the request answered is no longer left, so at most Limit - 1
        expect_true(
            response,
            "HDR-007",
            _header_int(response, REMAINING) < _header_int(response, LIMIT),
            expected=f"{REMAINING} below {LIMIT}: the request it answers is counted",
            got=f"{REMAINING}: {response.headers[REMAINING]}, {LIMIT}: {response.headers[LIMIT]}",
        )
    observe(
        "rate limit: allowance and seconds to reset", [first.headers[LIMIT], first.headers[RESET]]
    )
    expect_true(
        second,
        "HDR-007",
        _header_int(second, REMAINING) < _header_int(first, REMAINING),
        expected=f"{REMAINING} lower after a second request in the same window",
        got=f"{first.headers[REMAINING]} then {second.headers[REMAINING]}",
    )
