"""The headers every answer carries, and the rules over every answer of the run
(`answers`): a request id on one answer, a code under one type."""

import re

import httpx

from crm_conformance.core.transport import answers
from crm_conformance.core.verdicts.checks.body import (
    NO_BODY,
    body_json,
    failed,
    shorten,
)
from crm_conformance.core.verdicts.checks.registry import Evaluated, check

_INTEGER = re.compile(r"^[0-9]+$")


@check("HDR-001")
def rate_limit_headers(response: httpx.Response) -> Evaluated:
    """Limits: "Every response carries" `X-RateLimit-Limit`, `-Remaining`, `-Reset`, integers.

    Errors included: the sentence has no exception. Counts and seconds are never
    negative, so an integer here is a run of digits.
    """
    problems = []
    for name in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"):
        value = response.headers.get(name)
        if value is None:
            problems.append(f"{name} missing")
        elif not _INTEGER.match(value.strip()):
            problems.append(f"{name}: {value!r} is not an integer")
    if problems:
        raise failed(
            "HDR-001",
            response,
            expected="X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset as integers",
            got="; ".join(problems),
        )
    return True


@check("HDR-002")
def retry_after_on_429(response: httpx.Response) -> Evaluated:
    """Limits: `Retry-After`, integer, "only on 429; seconds to wait".

    Checked on 429 only: "only on 429" describes when it is promised, and failing a
    server that also sends it on a 503 would be stricter than the text.
    """
    if response.status_code != 429:
        return False
    value = response.headers.get("Retry-After")
    if value is None or not _INTEGER.match(value.strip()):
        raise failed(
            "HDR-002",
            response,
            expected="Retry-After with an integer number of seconds on a 429",
            got="no Retry-After header" if value is None else f"Retry-After: {value!r}",
        )
    return True


@check("HDR-010")
def no_retry_after_off_429(response: httpx.Response) -> Evaluated:
    """Limits: `Retry-After` "only on 429": no other answer of the API carries it, errors
    included (a 409 "retry shortly" as well).

    A 5xx is not judged: a gateway in front of the target may add it to a 503, as HTTP
    lets it, and a 5xx is the transport's to retry, not a verdict.
    """
    if response.status_code == 429 or response.status_code >= 500:
        return False
    value = response.headers.get("Retry-After")
    if value is not None:
        raise failed(
            "HDR-010",
            response,
            expected="no Retry-After header on an answer other than a 429",
            got=f"{response.status_code} with Retry-After: {value!r}",
        )
    return True


@check("HDR-003")
def request_id_header(response: httpx.Response) -> Evaluated:
    """Limits: every response carries `X-Request-ID`, a string (so, not empty)."""
    value = response.headers.get("X-Request-ID")
    if value is None or not value.strip():
        raise failed(
            "HDR-003",
            response,
            expected="a non-empty X-Request-ID header",
            got="no X-Request-ID header" if value is None else "an empty X-Request-ID header",
        )
    return True


@check("HDR-005")
def request_id_names_one_answer(response: httpx.Response) -> Evaluated:
    """Limits: `X-Request-ID` is a "unique request id": no other answer of the run carries
    this one's (`answers`, where the client noted every answer once as it arrived, 429s
    and unread answers included). A replay or a cache's copy may repeat an earlier id
    and is not judged; an answer the client never received (built by hand) neither.
    """
    value = response.headers.get("X-Request-ID")
    if not value or answers.repeated_legally(response):
        return False
    count = answers.answers_with(value)
    if count == 0:
        return False
    if count > 1:
        raise failed(
            "HDR-005",
            response,
            expected="an X-Request-ID that no other answer of the run carries",
            got=f"X-Request-ID {value!r} on {count} answers of this run",
        )
    return True


@check("ERR-021")
def code_keeps_its_type(response: httpx.Response) -> Evaluated:
    """The error `type` is "coarse and stable; new codes may appear under a type": a
    code sits under one type, so over the whole run (every answer the client received,
    `answers`) it comes with that one, and a client branching on `type` never sees one
    code take two paths.
    """
    error = answers.error_of(response)
    if error is None:
        return False
    code, kind = error
    others = {other: where for other, where in answers.types_of(code).items() if other != kind}
    if others:
        seen = "; ".join(f"type {other} on {where}" for other, where in sorted(others.items()))
        raise failed(
            "ERR-021",
            response,
            expected=f"code {code} with the one type it has elsewhere in the run",
            got=f"type {kind} here; {seen}",
        )
    return True


@check("HDR-004")
def json_content_type(response: httpx.Response) -> Evaluated:
    """ "Request and response bodies are JSON": a body is declared and parses as JSON.

    Responses without a body (204, HEAD) have nothing to declare. `application/json` and
    any `+json` media type are accepted, with or without a charset.
    """
    if not response.content or response.request.method == "HEAD":
        return False
    media_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    declared = media_type == "application/json" or media_type.endswith("+json")
    if not declared or body_json(response) is NO_BODY:
        raise failed(
            "HDR-004",
            response,
            expected="a JSON body with Content-Type application/json",
            got=f"Content-Type {media_type or '(none)'!r}, body {shorten(response.text, 80)!r}",
        )
    return True
