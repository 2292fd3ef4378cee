"""The error envelope: its fields, its type, its request id, a 422's detail."""

import json

import httpx

from crm_conformance.core.transport import answers
from crm_conformance.core.verdicts.checks.body import (
    ERROR_TYPES,
    NO_BODY,
    body_json,
    error_object,
    failed,
    is_error_answer,
    shorten,
)
from crm_conformance.core.verdicts.checks.registry import Evaluated, check


@check("ERR-001")
def error_envelope(response: httpx.Response) -> Evaluated:
    """Errors: "Every non-2xx response has body `{error: {...}}`"."""
    if not is_error_answer(response):
        return False
    if error_object(response) is None:
        body = body_json(response)
        got = "a body that is not JSON" if body is NO_BODY else shorten(body)
        raise failed("ERR-001", response, expected='a body {"error": {...}}', got=got)
    return True


@check("ERR-002")
def error_type_enum(response: httpx.Response) -> Evaluated:
    """Errors table: `type` is one of the seven listed values ("coarse and stable").

    Only `type` is closed; new `code` values may appear, so codes are not checked here.
    """
    error = error_object(response)
    if not is_error_answer(response) or error is None:
        return False
    if error.get("type") not in ERROR_TYPES:
        raise failed(
            "ERR-002",
            response,
            expected=f"error.type one of {', '.join(ERROR_TYPES)}",
            got=f"error.type = {shorten(error.get('type'))}",
        )
    return True


@check("ERR-003")
def error_fields(response: httpx.Response) -> Evaluated:
    """Errors table: `code` and `message` are strings; `param`, `documentation_url` and
    `request_id` are string or null; `detail` is an array of `{field, message, code}` or null.

    A field left out entirely is read as null for the nullable ones: the document gives
    types, not presence, and additive evolution allows extra fields, so neither an
    absent nullable field nor an extra field fails.
    """
    error = error_object(response)
    if not is_error_answer(response) or error is None:
        return False
    problems = [
        f"error.{key} = {shorten(error.get(key))} (must be a string)"
        for key in ("code", "message")
        if not isinstance(error.get(key), str)
    ]
    problems += [
        f"error.{key} = {shorten(error[key])} (must be a string or null)"
        for key in ("param", "documentation_url", "request_id")
        if error.get(key) is not None and not isinstance(error[key], str)
    ]
    detail = error.get("detail")
    if detail is not None:
        if not isinstance(detail, list):
            problems.append(f"error.detail = {shorten(detail)} (must be an array or null)")
        else:
            for index, item in enumerate(detail):
                if not (
                    isinstance(item, dict)
                    and isinstance(item.get("field"), str)
                    and isinstance(item.get("message"), str)
                    and (item.get("code") is None or isinstance(item.get("code"), str))
                ):
                    problems.append(
                        f"error.detail[{index}] = {shorten(item)} (must be "
                        "{field: string, message: string, code: string or null})"
                    )
    if problems:
        raise failed(
            "ERR-003",
            response,
            expected="the error fields typed as the Errors table says",
            got="; ".join(problems),
        )
    return True


_RETRYABLE_TYPES = frozenset({"api_error", "rate_limit_error"})
PINNED_TYPES: dict[int, frozenset[str]] = {
    405: frozenset({"api_error"}),
    429: _RETRYABLE_TYPES,
}
"""Statuses whose type the document fixes: 405 is "`api_error`: method not supported";
a 429 is retried ("wait `Retry-After` seconds"), so its type is a retryable one."""


def allowed_types(status: int) -> frozenset[str]:
    """The error types a `status` may carry.

    "The mapping of each type to statuses: not shown", so only the retry advice binds:
    "Retry `rate_limit_error` and `api_error` with exponential backoff and jitter; do not
    retry 4xx unchanged". A 4xx may carry any type but those two (a 403 typed
    `authentication_error`, a 404 typed `invalid_request_error` are readings other APIs
    made), except where the document pins it (PINNED_TYPES); a 5xx, a "server fault;
    retry with backoff", carries a retryable type.
    """
    if status in PINNED_TYPES:
        return PINNED_TYPES[status]
    if status >= 500:
        return _RETRYABLE_TYPES
    return frozenset(ERROR_TYPES) - _RETRYABLE_TYPES


@check("ERR-004")
def error_type_matches_status(response: httpx.Response) -> Evaluated:
    """The error `type` agrees with the status as far as the document says (`allowed_types`).

    "Rules: branch on `type` for flow": a client that branches on `type` must not be
    told to retry a 4xx the document says not to retry, nor be told not to retry a
    server fault or a 429.
    """
    error = error_object(response)
    if not is_error_answer(response) or error is None:
        return False
    status = response.status_code
    allowed = allowed_types(status)
    if error.get("type") not in ERROR_TYPES:
        return False  # already failed by error_type_enum
    if error["type"] not in allowed:
        raise failed(
            "ERR-004",
            response,
            expected=f"error.type {' or '.join(sorted(allowed))} with status {status}",
            got=f"error.type = {error['type']!r} (code {shorten(error.get('code'))})",
        )
    return True


@check("ERR-010")
def validation_detail(response: httpx.Response) -> Evaluated:
    """422: "`validation_failed` | fields invalid; `detail` lists each": a body refused as
    `validation_failed` has a `detail` array naming at least one field. Which fields, and
    that none is missing, only a test that knows what it sent can tell (ERR-010's own
    tests); every 422 of the run is held to this much. A 400 `validation_failed` (a
    query, path or header problem: "the same code") is left out: the sentence's `detail`
    is about fields. So is a 422 to a body that is not a JSON object (an array, a
    number): it has no field to list."""
    error = error_object(response)
    if response.status_code != 422 or error is None or error.get("code") != "validation_failed":
        return False
    if not _fields_sent(response):
        return False
    detail = error.get("detail")
    if not (isinstance(detail, list) and detail):
        raise failed(
            "ERR-010",
            response,
            expected="error.detail listing each invalid field",
            got=f"error.detail = {shorten(detail)}",
        )
    return True


def _fields_sent(response: httpx.Response) -> bool:
    """Whether the request sent no body or a JSON object: one whose fields `detail` can
    name (a missing required field included)."""
    try:
        content = response.request.content
    except (RuntimeError, httpx.RequestNotRead):
        return True
    if not content.strip():
        return True
    try:
        return isinstance(json.loads(content), dict)
    except ValueError:
        return False


def _replayed_from(response: httpx.Response, request_id: object) -> bool:
    """Whether `response` is a replay ("returns the original response") whose body's
    `request_id` names an answer this run received: the original's. Whether a replay
    sends the original's `X-Request-ID` or its own is not shown, and the body of "the
    original response" is the original's either way, so a replay is not judged against
    its own header."""
    return (
        answers.repeated_legally(response)
        and isinstance(request_id, str)
        and answers.answers_with(request_id) > 0
    )


@check("ERR-005")
def error_request_id_matches_header(response: httpx.Response) -> Evaluated:
    """Errors table: `request_id` "equals the `X-Request-ID` response header".

    The column types it "string or null", but the same row says it equals the header,
    and Limits says every response carries that header: so where the header is sent, a
    null (or absent) `request_id` does not equal it. Where the header is missing, HDR-003
    fails instead and there is nothing to compare with.
    """
    error = error_object(response)
    header = response.headers.get("X-Request-ID")
    if not is_error_answer(response) or error is None or header is None:
        return False
    got = error.get("request_id", "(absent)")
    if got == header:
        return True
    if _replayed_from(response, got):
        return False  # the original's body, replayed: its request_id names that answer
    raise failed(
        "ERR-005",
        response,
        expected="error.request_id equal to the X-Request-ID header",
        got=f"error.request_id = {got!r}, X-Request-ID = {header!r}",
    )
