"""Collections: the envelope, the rows' objects, `has_more` and `links.next`, a page within
its limit."""

import json
from typing import Any

import httpx

from crm_conformance.core.verdicts.checks.body import (
    api_path,
    body_json,
    error_object,
    failed,
    first_five,
    shorten,
)
from crm_conformance.core.verdicts.checks.registry import Evaluated, check
from crm_conformance.core.verdicts.failure import ConformanceFailure

COLLECTION_OBJECTS: dict[tuple[str, str], str] = {
    ("GET", "/v1/contacts"): "contact",
    ("POST", "/v1/contacts/search"): "contact",
    ("GET", "/v1/users"): "user",
    ("GET", "/v1/audiences"): "audience",
}
"""Operations the document says answer a collection ("Response: collection of ..."), and
the `object` of the resource they list."""
_COLLECTIONS = frozenset(COLLECTION_OBJECTS)


def _collection(response: httpx.Response) -> tuple[bool, Any]:
    """(whether the response must be a collection, its parsed body) for a 2xx answer.

    Documented list operations must be; any other 2xx body that has `data`, `meta` and
    `links` presents itself as one and is held to the same conventions.
    """
    if not 200 <= response.status_code < 300:
        return False, None
    body = body_json(response)
    documented = (response.request.method, response.request.url.path) in _COLLECTIONS
    looks_like = isinstance(body, dict) and {"data", "meta", "links"} <= body.keys()
    return documented or looks_like, body


@check("PAG-001")
def collection_envelope(response: httpx.Response) -> Evaluated:
    """Conventions: "Collections: Body `{data, meta, links}`; `meta` has `has_more`
    (boolean) and `limit` (integer); `links.next` is a string cursor or null"."""
    is_collection, body = _collection(response)
    if not is_collection:
        return False
    problems = []
    if not isinstance(body, dict):
        problems.append(f"body {shorten(body, 80)} is not an object")
    else:
        if not isinstance(body.get("data"), list):
            problems.append("data is not an array")
        meta, links = body.get("meta"), body.get("links")
        if not isinstance(meta, dict):
            problems.append("meta is not an object")
        else:
            if not isinstance(meta.get("has_more"), bool):
                problems.append(f"meta.has_more = {shorten(meta.get('has_more'))} (not a boolean)")
            limit = meta.get("limit")
            if not isinstance(limit, int) or isinstance(limit, bool):
                problems.append(f"meta.limit = {shorten(limit)} (not an integer)")
        if not isinstance(links, dict) or "next" not in links:
            problems.append("links.next is missing")
        elif links["next"] is not None and not isinstance(links["next"], str):
            problems.append(f"links.next = {shorten(links['next'])} (not a string or null)")
    if problems:
        raise failed(
            "PAG-001",
            response,
            expected="a collection {data: [...], meta: {has_more, limit}, links: {next}}",
            got="; ".join(problems),
        )
    return True


@check("IDN-002")
def collection_row_objects(response: httpx.Response) -> Evaluated:
    """ "Every resource carries a constant `object` discriminator": each row of a
    documented list (a "collection of Contact", of User, of Audience) carries its
    resource's `object`, also when `fields` narrows it ("`object` and `id` always
    included")."""
    if not 200 <= response.status_code < 300:
        return False
    kind = COLLECTION_OBJECTS.get((response.request.method, api_path(response.request)))
    body = body_json(response)
    if kind is None or not isinstance(body, dict) or not isinstance(body.get("data"), list):
        return False  # shape problems are collection_envelope's
    wrong = [
        f"data[{index}].object = {shorten(row.get('object') if isinstance(row, dict) else row)}"
        for index, row in enumerate(body["data"])
        if not (isinstance(row, dict) and row.get("object") == kind)
    ]
    if wrong:
        raise failed(
            "IDN-002",
            response,
            expected=f"every row of the list with object {kind!r}",
            got=first_five(wrong),
        )
    return bool(body["data"])


@check("PAG-002")
def has_more_matches_next(response: httpx.Response) -> Evaluated:
    """`meta.has_more` and `links.next` agree: a next cursor exactly when more rows exist.

    The cursor "from the previous `links.next`" is how the next page is read, so a page
    saying `has_more: true` with no cursor strands the caller, and a cursor on the last
    page (`has_more: false`) leads nowhere.
    """
    is_collection, body = _collection(response)
    if not is_collection or not isinstance(body, dict):
        return False
    meta, links = body.get("meta"), body.get("links")
    if not (isinstance(meta, dict) and isinstance(links, dict)):
        return False
    has_more, cursor = meta.get("has_more"), links.get("next")
    if not isinstance(has_more, bool) or (cursor is not None and not isinstance(cursor, str)):
        return False  # shape problems are collection_envelope's
    if has_more != (cursor is not None):
        raise failed(
            "PAG-002",
            response,
            expected="links.next a cursor when meta.has_more is true, null when false",
            got=f"meta.has_more = {json.dumps(has_more)}, links.next = {shorten(cursor)}",
        )
    return True


@check("PAG-003")
def page_within_limit(response: httpx.Response) -> Evaluated:
    """A page holds at most `meta.limit` rows, and `meta.limit` echoes a valid `limit`.

    `limit` is "integer 1 to 200"; when the request sent one in range, the page size in
    force is that value. The default page size is "not shown", so without a `limit`
    only `len(data) <= meta.limit` is checked.
    """
    is_collection, body = _collection(response)
    if not is_collection or not isinstance(body, dict):
        return False
    data, meta = body.get("data"), body.get("meta")
    if not (isinstance(data, list) and isinstance(meta, dict)):
        return False
    limit = meta.get("limit")
    if not isinstance(limit, int) or isinstance(limit, bool):
        return False
    if len(data) > limit:
        raise failed(
            "PAG-003",
            response,
            expected=f"at most meta.limit = {limit} rows",
            got=f"{len(data)} rows",
        )
    requested = _requested_limit(response)
    if requested is not None and requested != limit:
        raise failed(
            "PAG-003",
            response,
            expected=f"meta.limit = {requested}, the limit the request asked for",
            got=f"meta.limit = {limit}",
        )
    return True


SEARCH = ("POST", "/v1/contacts/search")
"""The read whose page size is a body field with a rule of its own (SRCH-008)."""


def limit_refused(response: httpx.Response) -> ConformanceFailure | None:
    """The failure of a first page refused for a `limit` within "1 to 200", or None.

    A test reading a list at a page size the document accepts, to judge something else,
    stands on that size being taken: a refusal whose `param` names `limit` breaks the
    bound's rule (PAG-008, SRCH-008 on search), not the rule the test judges. Only a
    read without a cursor is judged: a cursor "valid only for the query that produced
    it" may be refused beside another page size, and such a refusal may name `limit`."""
    if response.status_code not in (400, 422):
        return None
    request = response.request
    requested = _requested_limit(response)
    if requested is None or "cursor" in request.url.params or _body_field(request, "cursor"):
        return None
    error = error_object(response)
    if error is None or error.get("param") != "limit":
        return None
    return failed(
        "SRCH-008" if (request.method, api_path(request)) == SEARCH else "PAG-008",
        response,
        expected=f"limit={requested} taken (limit is 1 to 200)",
        got=f"{response.status_code} {shorten(error.get('code'))} naming limit",
    )


def _body_field(request: httpx.Request, name: str) -> Any:
    """Field `name` of a POST's JSON object body, None without one."""
    if request.method != "POST" or not request.content:
        return None
    try:
        return json.loads(request.content).get(name)
    except (ValueError, AttributeError):
        return None


def _requested_limit(response: httpx.Response) -> int | None:
    request = response.request
    raw: Any = request.url.params.get("limit")
    if raw is None:
        raw = _body_field(request, "limit")
    if isinstance(raw, str) and raw.isdigit():
        raw = int(raw)
    if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= 200:
        return raw
    return None
