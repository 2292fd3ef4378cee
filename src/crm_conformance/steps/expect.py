"""Shared steps of suite tests: "expect this answer", each raising `ConformanceFailure`.

Every step applies the universal rules (`checks.failures`) and the one rule the test is
about, so a suite says what it expects in one line and a failure always names the
requirement whose check failed. A universal rule broken in a test's call is kept, not
raised (`evidence.keep`): the step goes on to its own rule, so a server that breaks
both fails both, the specific one included. A step whose answer the test uses (a
status, an error) stops the test; a predicate (a value, a presence, a format) keeps its
failure and lets the test go on to its other checks. Where the document leaves a choice open (the
success status of a create, the order of validation) these steps accept every
reading; a test that wants to record what the target chose calls `observe` itself.
"""

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

import httpx

from crm_conformance.core.verdicts import evidence
from crm_conformance.core.verdicts.checks import (
    ALWAYS_PRESENT,
    failures,
    is_timestamp,
    limit_refused,
)
from crm_conformance.core.verdicts.evidence import checks_predicate, checks_requirement
from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.steps.json_values import json_equal

_SHORT = 200
SERVER_FAULT = "ERR-018"
"""`internal_error`: "server fault". A 500 to a request a test expected to succeed says
the server failed, not that the rule the test judges is broken: a list that crashes on
every read would otherwise fail the rule of every test that reads it (an independent
server's organization list failed 22 rules that way)."""


def universal(response: httpx.Response) -> None:
    """The rules that hold on every answer: each broken one kept where a test goes on,
    raised anywhere else (`evidence.keep`)."""
    for failure in failures(response):
        evidence.keep(failure)


def _text(response: httpx.Response) -> str:
    return f"{response.status_code} {response.text[:_SHORT]}"


@checks_requirement
def expect_status(response: httpx.Response, req_id: str, *statuses: int) -> Any:
    """The parsed body of `response`, which must have one of `statuses`."""
    if not statuses:
        raise ValueError("expect_status needs at least one status")
    universal(response)
    if response.status_code not in statuses:
        raise _elsewhere(response, statuses) or ConformanceFailure(
            req_id,
            expected=f"status {_statuses(statuses)}",
            got=_text(response),
            response=response,
        )
    return response.json() if response.content else None


def _elsewhere(response: httpx.Response, statuses: tuple[int, ...]) -> ConformanceFailure | None:
    """The failure of an answer that breaks another rule than the test's, where the test
    expected a success: a server fault (ERR-018), or a page size within the bounds
    refused (`limit_refused`). None when the answer is the test's own to judge."""
    if response.status_code == 500 and all(status < 400 for status in statuses):
        return ConformanceFailure(
            SERVER_FAULT,
            expected=f"status {_statuses(statuses)}, to a request the document lets succeed",
            got=_text(response),
            response=response,
        )
    return limit_refused(response)


def _statuses(statuses: tuple[int, ...]) -> str:
    """`statuses` said shortly: a whole class as `2xx`, the others one by one."""
    classes = {
        s // 100
        for s in statuses
        if set(range(s // 100 * 100, s // 100 * 100 + 100)) <= set(statuses)
    }
    named = [f"{c}xx" for c in sorted(classes)]
    named += [str(s) for s in statuses if s // 100 not in classes]
    return " or ".join(named)


@checks_requirement
def expect_success(response: httpx.Response, req_id: str) -> dict[str, Any]:
    """The JSON object of a 2xx answer.

    "Success status code of create operations: not shown", so any 2xx is success; the
    caller observes which one if it matters.
    """
    universal(response)
    body = response.json() if 200 <= response.status_code < 300 and response.content else None
    if not isinstance(body, dict):
        raise _elsewhere(response, (200,)) or ConformanceFailure(
            req_id,
            expected="a 2xx answer with a JSON object body",
            got=_text(response),
            response=response,
        )
    return body


def expect_written(response: httpx.Response, req_id: str, method: str) -> dict[str, Any] | None:
    """A write's success: a 2xx with a JSON object body, as `expect_success`; a `DELETE`
    may answer any 2xx with or without one (what a delete answers is not shown): its
    JSON body, or None."""
    if method.upper() != "DELETE":
        return expect_success(response, req_id)
    body = expect_status(response, req_id, *range(200, 300))
    return body if isinstance(body, dict) else None


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The `error` object of an answer, or `{}` when it has none (no JSON, no envelope)."""
    try:
        body = response.json() if response.content else None
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


_UNSET: Any = object()


@checks_requirement
def expect_error(
    response: httpx.Response,
    req_id: str,
    *,
    status: int,
    code: str | Collection[str],
    param: str | None = _UNSET,
) -> dict[str, Any]:
    """The `error` object of an answer with `status` and `code` (one of `code` when several).

    `param`, when given, must equal `error.param` (for rules such as "`param` names
    the field"); left out, `param` is not looked at.
    """
    universal(response)
    codes = (code,) if isinstance(code, str) else tuple(code)
    error = error_of(response)
    wanted = f"{status} with error.code {' or '.join(repr(c) for c in codes)}"
    if response.status_code != status or error.get("code") not in codes:
        raise ConformanceFailure(req_id, expected=wanted, got=_text(response), response=response)
    if param is not _UNSET and error.get("param") != param:
        raise ConformanceFailure(
            req_id,
            expected=f"{wanted} and error.param {param!r}",
            got=f"error.param = {error.get('param')!r}",
            response=response,
        )
    return error


PAST_EVERY_INTEGER: Mapping[int, Collection[str]] = {
    422: ("validation_failed",),
    400: ("bad_request", "validation_failed"),
}
"""How a body number past the 32-bit range may be refused (for `expect_error_among`): as
an invalid field (422), or as a body the parser did not understand (400 `bad_request`,
"request not understood"), which a parser typed to 32 or 64 bits may answer."""


@checks_requirement
def expect_error_among(
    response: httpx.Response, req_id: str, allowed: Mapping[int, Collection[str]]
) -> dict[str, Any]:
    """The `error` of an answer whose status is a key of `allowed` with one of its codes:
    for a request two rules refuse and the document does not rank them."""
    status = response.status_code if response.status_code in allowed else min(allowed)
    if len(allowed) > 1 and response.status_code not in allowed:
        universal(response)
        wanted = "; ".join(f"{s} with error.code {' or '.join(c)}" for s, c in allowed.items())
        raise ConformanceFailure(req_id, expected=wanted, got=_text(response), response=response)
    return expect_error(response, req_id, status=status, code=tuple(allowed[status]))


@checks_requirement
@checks_predicate
def expect_refusal(
    response: httpx.Response, req_id: str, *, status: int, code: str | Collection[str]
) -> None:
    """As `expect_error`, for a refusal whose error the test does not read: a predicate,
    so the test goes on to the other rules the same answer answers to (the general ones
    after the specific)."""
    universal(response)
    codes = (code,) if isinstance(code, str) else tuple(code)
    expect_true(
        response,
        req_id,
        response.status_code == status and error_of(response).get("code") in codes,
        expected=f"{status} with error.code {' or '.join(repr(c) for c in codes)}",
        got=_text(response),
    )


def expect_refused_body(response: httpx.Response, req_id: str) -> dict[str, Any]:
    """The `error` of a body the target rejects, as "unknown keys rejected" asks.

    Which status is not pinned: a body problem reads as 422 (`validation_failed`, "fields
    invalid"), and 400 (`bad_request`, "request not understood") reads as fitting too.
    Any code is taken, since "new codes may appear under a type"; the caller observes it.
    """
    body = expect_status(response, req_id, 400, 422)
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def _because(text: str, why: str) -> str:
    """`text` with what makes it expected, where a step was told (`why=`)."""
    return f"{text} ({why})" if why else text


@checks_predicate
def expect_value(
    response: httpx.Response | None,
    req_id: str,
    what: str,
    *,
    got: Any,
    expected: Any,
    why: str = "",
) -> None:
    """`got` (the value of `what` in `response`) equals `expected`; `why` says what makes
    it the expected one ("kept", "after a refused reopening"), in the failure's message.

    Both are keyword-only: they are values of one type, so swapped positions would go
    unnoticed and turn the failure message around."""
    if not json_equal(got, expected):
        shown = _because(f"{what} = {expected!r}", why)
        raise ConformanceFailure(req_id, expected=shown, got=f"{what} = {got!r}", response=response)


def expect_field(
    response: httpx.Response | None,
    req_id: str,
    record: Mapping[str, Any],
    key: str,
    *,
    expected: Any,
    why: str = "",
) -> None:
    """`record` (read from `response`) shows `key` = `expected`: `expect_value` of one
    field of a record, which most equalities of the suites are."""
    expect_value(response, req_id, key, got=record.get(key), expected=expected, why=why)


@checks_predicate
def expect_text(
    response: httpx.Response | None,
    req_id: str,
    record: Mapping[str, Any],
    key: str,
    *,
    containing: str = "",
    why: str = "",
) -> None:
    """`record` (read from `response`) shows `key` as a non-empty string, holding
    `containing` where given; `why` says what the text is, in the failure's message."""
    text = record.get(key)
    if not (isinstance(text, str) and text and containing in text):
        wanted = f"{key} a non-empty string" + (f" holding {containing!r}" if containing else "")
        shown = _because(wanted, why)
        raise ConformanceFailure(req_id, expected=shown, got=f"{key} = {text!r}", response=response)


@checks_predicate
def expect_true(
    response: httpx.Response | None, req_id: str, holds: bool, *, expected: str, got: str
) -> None:
    """A rule that is not a plain equality: fail with `expected`/`got` unless `holds`.

    `response` is None for a rule about several answers (a walk over many pages)."""
    if not holds:
        raise ConformanceFailure(req_id, expected=expected, got=got, response=response)


@checks_predicate
def expect_present(
    response: httpx.Response, req_id: str, record: Mapping[str, Any], fields: Collection[str]
) -> None:
    """Every name in `fields` is a key of `record` (for "Always present: ..." lists)."""
    missing = [name for name in fields if name not in record]
    expect_true(
        response,
        req_id,
        not missing,
        expected=f"fields {', '.join(fields)} present",
        got=f"missing: {', '.join(missing)}",
    )


@checks_predicate
def expect_narrowed(
    response: httpx.Response, req_id: str, record: Mapping[str, Any], names: Collection[str]
) -> None:
    """`record` carries no field beyond `names`, `id` and `object` (what `fields` asked for).

    A contact's or deal's "Always present" fields may stay too: the document says both
    that `fields` returns the names given and that those fields are always present, and a
    server reading "always" as winning is as right as one reading `fields` as winning.
    """
    _, always = ALWAYS_PRESENT.get(str(record.get("object")), ("", ()))
    extra = sorted(set(record) - {"id", "object", *names, *always})
    expect_true(
        response,
        req_id,
        not extra,
        expected=f"only {', '.join(['id', 'object', *names])} (and Always present fields)",
        got=f"also {', '.join(extra)}",
    )


def ids_of(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The `id` of each record, in order (as strings, so a missing one shows as 'None')."""
    return [str(record.get("id")) for record in records]


@checks_predicate
def expect_enum(
    response: httpx.Response,
    req_id: str,
    record: Mapping[str, Any],
    field: str,
    allowed: Collection[str],
) -> None:
    """`record[field]` is one of `allowed` when it is there and not null.

    Presence is a separate rule ("Always present"), so an absent or null value passes.
    """
    value = record.get(field)
    expect_true(
        response,
        req_id,
        value is None or value in allowed,
        expected=f"{field} one of {', '.join(allowed)}",
        got=f"{field} = {value!r}",
    )


@checks_predicate
def expect_identifier(
    response: httpx.Response | None,
    req_id: str,
    record: Mapping[str, Any],
    field: str,
    prefix: str,
    *,
    nullable: bool = False,
) -> None:
    """`record[field]` is `prefix` then 32 lowercase hex (the identifier table and format).

    With `nullable`, a null or absent value passes: the field is "string or null".
    """
    value = record.get(field)
    expect_true(
        response,
        req_id,
        (nullable and value is None) or matches(rf"{prefix}[0-9a-f]{{32}}", value),
        expected=f"{field} {prefix} followed by 32 lowercase hex"
        + (" (or null)" if nullable else ""),
        got=f"{field} = {value!r}",
    )


@checks_predicate
def expect_type_or_null(
    response: httpx.Response | None,
    req_id: str,
    record: Mapping[str, Any],
    field: str,
    kind: type,
    called: str,
) -> None:
    """`record[field]` is a `kind` (`called` in the message, e.g. "a string") or null;
    absent reads as null, since presence is a rule of its own ("Always present")."""
    value = record.get(field)
    expect_true(
        response,
        req_id,
        value is None or isinstance(value, kind),
        expected=f"{field} {called} or null",
        got=f"{field} = {value!r}",
    )


@checks_predicate
def expect_timestamp(
    response: httpx.Response, req_id: str, record: Mapping[str, Any], field: str
) -> None:
    """`record[field]` is a date-time string when it is there and not null."""
    value = record.get(field)
    expect_true(
        response,
        req_id,
        value is None or is_timestamp(value),
        expected=f"{field} an ISO 8601 date-time",
        got=f"{field} = {value!r}",
    )


def matches(pattern: str, value: Any) -> bool:
    """Whether `value` is a string matching `pattern` in full."""
    return isinstance(value, str) and re.fullmatch(pattern, value) is not None


def strings_in(value: Any) -> set[str]:
    """Every string anywhere in a JSON value: for answers whose shape is not shown
    (`GET /v1/me`, the deletion feed), where only "it names X" can be checked."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, Mapping):
        return {s for item in value.values() for s in strings_in(item)}
    if isinstance(value, list):
        return {s for item in value for s in strings_in(item)}
    return set()


def words_in(value: Any) -> set[str]:
    """Every whitespace-separated word of every string in a JSON value: a list written as
    one string ("contacts:read deals:write") names each of its items too."""
    return {word for text in strings_in(value) for word in text.split()}
