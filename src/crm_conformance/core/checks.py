"""The rules that hold on every response, in one registry.

Each check is a plain function `fn(response) -> None` taking an `httpx.Response` (the
request is `response.request`) and raising `ConformanceFailure` naming its
requirement. Hand-written suites call them (`run_checks(response)` or one by name),
and the fuzzing layer registers the same functions as schemathesis checks, so there
is one definition of "a conformant error body". A check that does not apply to a
response (an error rule on a 200) returns quietly.

The document states many things and leaves others "not shown"; each docstring says
which sentence the check rests on and why it is no stricter than that.
"""

import functools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx

from crm_conformance.core import answers, evidence
from crm_conformance.core.failure import ConformanceFailure

Evaluated = bool | frozenset[str]
"""What a check returns when nothing broke: True when it evaluated every requirement it
names, a set of the ids it evaluated, or False (an empty set) when it did not apply."""
CheckFunction = Callable[[httpx.Response], Evaluated]


@dataclass(frozen=True)
class Check:
    """A registered check: its name, the requirement ids it may fail, the function."""

    name: str
    requirements: tuple[str, ...]
    function: CheckFunction


_REGISTRY: dict[str, Check] = {}


def check(*requirements: str, name: str | None = None) -> Callable[[CheckFunction], CheckFunction]:
    """Register `fn` as a check failing `requirements`.

    The function registered (and returned) reports each requirement `fn` evaluated and
    found held to `evidence`, so a requirement is verified only where its check applied
    to an answer: an error rule says nothing about a 200.
    """
    if not requirements:
        raise ValueError("a check names at least one requirement id")

    def register(fn: CheckFunction) -> CheckFunction:
        key = name or fn.__name__

        @functools.wraps(fn)
        def reporting(response: httpx.Response) -> Evaluated:
            held = fn(response)
            for req_id in requirements if held is True else held or ():
                evidence.passed(req_id, key)
            return held

        if key in _REGISTRY:
            raise ValueError(f"name={key!r}: a check of that name is already registered")
        _REGISTRY[key] = Check(name=key, requirements=tuple(requirements), function=reporting)
        return reporting

    return register


def registered() -> tuple[Check, ...]:
    """Every registered check, in registration order."""
    return tuple(_REGISTRY.values())


def get(name: str) -> Check:
    """The check called `name`; KeyError lists the known names."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"name={name!r}: no such check; known: {', '.join(_REGISTRY)}") from None


def failures(response: httpx.Response) -> list[ConformanceFailure]:
    """Every failure the registered checks find in `response` (empty when it conforms)."""
    found = []
    for registered_check in _REGISTRY.values():
        try:
            registered_check.function(response)
        except ConformanceFailure as failure:
            found.append(failure)
    return found


def run_checks(response: httpx.Response) -> None:
    """Raise the first failure any registered check finds in `response`."""
    found = failures(response)
    if found:
        raise found[0]


# --- helpers -----------------------------------------------------------------------

ERROR_TYPES = (
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "not_found_error",
    "conflict_error",
    "rate_limit_error",
    "api_error",
)

_NO_BODY = object()


def _json(response: httpx.Response) -> Any:
    """The parsed body, or `_NO_BODY` when it is empty or not JSON (read, never changed)."""
    if not response.content:
        return _NO_BODY
    return _parsed(response.content)


@functools.lru_cache(maxsize=4)
def _parsed(content: bytes) -> Any:
    """One parse per body for every check that reads it (all of them run on each answer)."""
    try:
        return json.loads(content)
    except ValueError:
        return _NO_BODY


def _is_error(response: httpx.Response) -> bool:
    # "Every non-2xx response": 304 carries no body by HTTP's own rules, so it is left out.
    return not 200 <= response.status_code < 300 and response.status_code != 304


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


def _error_object(response: httpx.Response) -> dict[str, Any] | None:
    body = _json(response)
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else None


def _fail(req_id: str, response: httpx.Response, *, expected: str, got: str) -> ConformanceFailure:
    return ConformanceFailure(req_id, expected=expected, got=got, response=response)


# --- errors ------------------------------------------------------------------------


@check("ERR-001")
def error_envelope(response: httpx.Response) -> Evaluated:
    """Errors: "Every non-2xx response has body `{error: {...}}`"."""
    if not _is_error(response):
        return False
    if _error_object(response) is None:
        body = _json(response)
        got = "a body that is not JSON" if body is _NO_BODY else _short(body)
        raise _fail("ERR-001", response, expected='a body {"error": {...}}', got=got)
    return True


@check("ERR-002")
def error_type_enum(response: httpx.Response) -> Evaluated:
    """Errors table: `type` is one of the seven listed values ("coarse and stable").

    Only `type` is closed; new `code` values may appear, so codes are not checked here.
    """
    error = _error_object(response)
    if not _is_error(response) or error is None:
        return False
    if error.get("type") not in ERROR_TYPES:
        raise _fail(
            "ERR-002",
            response,
            expected=f"error.type one of {', '.join(ERROR_TYPES)}",
            got=f"error.type = {_short(error.get('type'))}",
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
    error = _error_object(response)
    if not _is_error(response) or error is None:
        return False
    problems = [
        f"error.{key} = {_short(error.get(key))} (must be a string)"
        for key in ("code", "message")
        if not isinstance(error.get(key), str)
    ]
    problems += [
        f"error.{key} = {_short(error[key])} (must be a string or null)"
        for key in ("param", "documentation_url", "request_id")
        if error.get(key) is not None and not isinstance(error[key], str)
    ]
    detail = error.get("detail")
    if detail is not None:
        if not isinstance(detail, list):
            problems.append(f"error.detail = {_short(detail)} (must be an array or null)")
        else:
            for index, item in enumerate(detail):
                if not (
                    isinstance(item, dict)
                    and isinstance(item.get("field"), str)
                    and isinstance(item.get("message"), str)
                    and (item.get("code") is None or isinstance(item.get("code"), str))
                ):
                    problems.append(
                        f"error.detail[{index}] = {_short(item)} (must be "
                        "{field: string, message: string, code: string or null})"
                    )
    if problems:
        raise _fail(
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
    error = _error_object(response)
    if not _is_error(response) or error is None:
        return False
    status = response.status_code
    allowed = allowed_types(status)
    if error.get("type") not in ERROR_TYPES:
        return False  # already failed by error_type_enum
    if error["type"] not in allowed:
        raise _fail(
            "ERR-004",
            response,
            expected=f"error.type {' or '.join(sorted(allowed))} with status {status}",
            got=f"error.type = {error['type']!r} (code {_short(error.get('code'))})",
        )
    return True


@check("ERR-010")
def validation_detail(response: httpx.Response) -> Evaluated:
    """422: "`validation_failed` | fields invalid; `detail` lists each": a body refused as
    `validation_failed` has a `detail` array naming at least one field. Which fields, and
    that none is missing, only a test that knows what it sent can tell (ERR-010's own
    tests); every 422 of the run is held to this much. A 400 `validation_failed` (a
    query, path or header problem: "the same code") is left out: the sentence's `detail`
    is about fields."""
    error = _error_object(response)
    if response.status_code != 422 or error is None or error.get("code") != "validation_failed":
        return False
    detail = error.get("detail")
    if not (isinstance(detail, list) and detail):
        raise _fail(
            "ERR-010",
            response,
            expected="error.detail listing each invalid field",
            got=f"error.detail = {_short(detail)}",
        )
    return True


@check("ERR-005")
def error_request_id_matches_header(response: httpx.Response) -> Evaluated:
    """Errors table: `request_id` "equals the `X-Request-ID` response header".

    The column types it "string or null", but the same row says it equals the header,
    and Limits says every response carries that header: so where the header is sent, a
    null (or absent) `request_id` does not equal it. Where the header is missing, HDR-003
    fails instead and there is nothing to compare with.
    """
    error = _error_object(response)
    header = response.headers.get("X-Request-ID")
    if not _is_error(response) or error is None or header is None:
        return False
    got = error.get("request_id", "(absent)")
    if got != header:
        raise _fail(
            "ERR-005",
            response,
            expected="error.request_id equal to the X-Request-ID header",
            got=f"error.request_id = {got!r}, X-Request-ID = {header!r}",
        )
    return True


# --- headers -----------------------------------------------------------------------

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
        raise _fail(
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
        raise _fail(
            "HDR-002",
            response,
            expected="Retry-After with an integer number of seconds on a 429",
            got="no Retry-After header" if value is None else f"Retry-After: {value!r}",
        )
    return True


@check("HDR-003")
def request_id_header(response: httpx.Response) -> Evaluated:
    """Limits: every response carries `X-Request-ID`, a string (so, not empty)."""
    value = response.headers.get("X-Request-ID")
    if value is None or not value.strip():
        raise _fail(
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
        raise _fail(
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
        raise _fail(
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
    if not declared or _json(response) is _NO_BODY:
        raise _fail(
            "HDR-004",
            response,
            expected="a JSON body with Content-Type application/json",
            got=f"Content-Type {media_type or '(none)'!r}, body {_short(response.text, 80)!r}",
        )
    return True


# --- identifiers -------------------------------------------------------------------

OBJECT_PREFIXES: dict[str, tuple[str, ...]] = {
    "conversation": ("conv_",),
    "contact": ("con_",),
    "organization": ("org_",),
    "deal": ("deal_",),
    "activity": ("act_",),
    "tag": ("tag_",),
    "user": ("usr_",),
    "audience": ("aud_",),
    "campaign": ("camp_",),
    "owner": ("usr_", "agt_"),
}
"""`id` prefix of each documented `object` (identifier table; Owner: usr_ or agt_)."""

FIELD_PREFIXES: dict[str, tuple[str, ...]] = {
    "contact_id": ("con_",),
    "organization_id": ("org_",),
    "owner_id": ("usr_",),
    "assignee_id": ("usr_",),
    "pipeline_id": ("pipe_",),
    "stage_id": ("stg_",),
    "lost_reason_id": ("lrsn_",),
    "channel_id": ("chn_",),
    "campaign_id": ("camp_",),
    "record_id": ("con_", "org_", "deal_"),
}
"""`*_id` fields the resource tables type with a prefix."""

_DOCUMENTED_OBJECTS = frozenset(OBJECT_PREFIXES) | {"campaign_stats"}
_HEX32 = re.compile(r"^[0-9a-f]{32}$")


def _walk_resources(value: Any) -> Iterator[dict[str, Any]]:
    """Every object carrying a documented `object` value, however deeply embedded.

    `custom_fields` is not entered: its keys are the workspace's own, so a custom field
    called `partner_id` says nothing about identifier formats.
    """
    if isinstance(value, dict):
        if value.get("object") in _DOCUMENTED_OBJECTS:
            yield value
        for key, item in value.items():
            if key != "custom_fields":
                yield from _walk_resources(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk_resources(item)


def _first_five(problems: list[str]) -> str:
    """The first five problems, and how many more (a failure line stays readable)."""
    more = f"; {len(problems) - 5} more" if problems[5:] else ""
    return "; ".join(problems[:5]) + more


PREFIX_REQUIREMENTS: dict[str, str] = {
    "conv_": "IDN-004",
    "chn_": "IDN-005",
    "con_": "IDN-006",
    "org_": "IDN-007",
    "usr_": "IDN-008",
    "deal_": "IDN-010",
    "pipe_": "IDN-011",
    "stg_": "IDN-012",
    "lrsn_": "IDN-013",
    "tag_": "IDN-014",
    "act_": "IDN-015",
    "camp_": "IDN-016",
    "aud_": "IDN-017",
}
"""The identifier table's row of each prefix (`agt_`'s, IDN-009, no test can reach): an
id whose form is right but whose prefix is another kind's breaks that row."""


def _id_problem(where: str, value: Any, prefixes: tuple[str, ...]) -> tuple[str, str] | None:
    """None for a well-formed id of one of `prefixes`; else the requirement it breaks
    (its kind's row when only the prefix is wrong, the format's otherwise) and why."""
    if isinstance(value, str):
        for prefix in prefixes:
            if value.startswith(prefix) and _HEX32.match(value[len(prefix) :]):
                return None
    why = f"{where} = {_short(value)} (expected {' or '.join(prefixes)} + 32 lowercase hex)"
    head, underscore, tail = value.partition("_") if isinstance(value, str) else ("", "", "")
    wrong_prefix = bool(underscore and head and _HEX32.match(tail))
    if wrong_prefix and len(prefixes) == 1 and prefixes[0] in PREFIX_REQUIREMENTS:
        return PREFIX_REQUIREMENTS[prefixes[0]], why
    return "IDN-001", why


@check("IDN-001", *sorted(set(PREFIX_REQUIREMENTS.values())))
def identifier_formats(response: httpx.Response) -> Evaluated:
    """Conventions: an identifier is "Prefix, underscore, 32 lowercase hex characters",
    with the prefix of its kind (identifier table).

    Checked on the `id` of every documented resource in a 2xx body (Owner: `usr_` for
    `kind: user`, `agt_` for `kind: agent`) and on the prefixed `*_id` fields of those
    resources. Null `*_id` values are allowed (e.g. a conversation's `contact_id`).
    Resources whose fields are "not shown" (pipelines, deleted records, ...) are skipped.
    """
    if not 200 <= response.status_code < 300:
        return False
    body = _json(response)
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    for resource in _walk_resources(body):
        kind = resource["object"]
        values: list[tuple[str, Any, tuple[str, ...]]] = []
        if kind in OBJECT_PREFIXES and "id" in resource:
            prefixes = OBJECT_PREFIXES[kind]
            if kind == "owner" and resource.get("kind") in ("user", "agent"):
                prefixes = ("usr_",) if resource["kind"] == "user" else ("agt_",)
            values.append((f"{kind}.id", resource["id"], prefixes))
        values += [
            (f"{kind}.{field}", resource[field], prefixes)
            for field, prefixes in FIELD_PREFIXES.items()
            if resource.get(field) is not None
        ]
        for where, value, prefixes in values:
            problem = _id_problem(where, value, prefixes)
            if problem:
                problems.append(problem)
            seen |= _rows_read(value, prefixes)
    if problems:
        # Charged to the first problem's rule: a kind's prefix row when only the prefix
        # is wrong (a deal id reading `dl_...` breaks "deal | `deal_`"), else the format.
        raise _fail(
            problems[0][0],
            response,
            expected="identifiers of the form <prefix>_<32 lowercase hex> with their kind's prefix",
            got=_first_five([why for _, why in problems]),
        )
    return frozenset(seen)


def _rows_read(value: Any, prefixes: tuple[str, ...]) -> set[str]:
    """The identifier rules a well-formed `value` verified: the format (IDN-001) and, for
    an id of one kind, that kind's prefix row; nothing for a value that is no id."""
    if not isinstance(value, str):
        return set()
    prefix = next((p for p in prefixes if value.startswith(p)), None)
    if prefix is None:
        return set()
    row = PREFIX_REQUIREMENTS.get(prefix)
    return {"IDN-001", row} if row and len(prefixes) == 1 else {"IDN-001"}


OWNER_FIELDS: dict[str, tuple[str, ...]] = {
    "contact": ("owner",),
    "organization": ("owner",),
    "deal": ("owner",),
    "activity": ("assignee", "created_by"),
    "conversation": ("handler",),
}
"""The fields each resource types Owner (or Owner or null), by the resource's `object`."""

OWNER_KINDS: dict[str, tuple[str, ...]] = {"user": ("usr_",), "agent": ("agt_",)}
"""Owner `kind` -> the prefix of its `id` ("`usr_...` for a teammate, `agt_...` for an agent")."""


def _owner_problems(where: str, owner: Any) -> list[tuple[str, str]]:
    """(requirement, problem) for each way `owner` is not an Owner `{id, kind, name, object}`."""
    if not isinstance(owner, dict):
        return [("IDN-021", f"{where} = {_short(owner)} (not an Owner object)")]
    problems = []
    if owner.get("object") != "owner":
        problems.append(("IDN-021", f"{where}.object = {_short(owner.get('object'))}"))
    kind = owner.get("kind")
    if kind not in OWNER_KINDS:
        problems.append(("IDN-019", f"{where}.kind = {_short(kind)} (not user or agent)"))
    prefixes = OWNER_KINDS.get(str(kind), ("usr_", "agt_"))
    id_problem = _id_problem(f"{where}.id", owner.get("id"), prefixes)
    if id_problem:
        problems.append(("IDN-018", id_problem[1]))
    if owner.get("name") is not None and not isinstance(owner["name"], str):
        problems.append(("IDN-020", f"{where}.name = {_short(owner['name'])} (not a string)"))
    return problems


@check("IDN-021", "IDN-019", "IDN-018", "IDN-020")
def owners(response: httpx.Response) -> Evaluated:
    """The Owner table: every field a resource types Owner (`OWNER_FIELDS`) holds, where
    present and not null, `object: owner`, a `kind` of `user` or `agent`, an `id` of that
    kind's prefix, and a `name` that is a string or null (absent is read as null).

    Checked in every 2xx body, wherever the resource is embedded; the failure names the
    requirement of the first problem found.
    """
    if not 200 <= response.status_code < 300:
        return False
    present = [
        (f"{resource['object']}.{field}", resource[field])
        for resource in _walk_resources(_json(response))
        for field in OWNER_FIELDS.get(resource["object"], ())
        if resource.get(field) is not None
    ]
    problems = [problem for where, owner in present for problem in _owner_problems(where, owner)]
    if problems:
        raise _fail(
            problems[0][0],
            response,
            expected="Owner objects {id: usr_/agt_ id, kind: user or agent, name, object: owner}",
            got=_first_five([text for _, text in problems]),
        )
    return bool(present)


ALWAYS_PRESENT: dict[str, tuple[str, tuple[str, ...]]] = {
    "contact": ("CON-003", ("id", "object", "status", "visibility", "created_at", "updated_at")),
    "deal": (
        "DEAL-002",
        (
            "id",
            "object",
            "pipeline_id",
            "stage_id",
            "title",
            "visibility",
            "created_at",
            "updated_at",
        ),
    ),
}
"""Resource `object` -> (requirement, the fields its "Always present: ..." sentence lists)."""


DOCUMENTED_RENDERINGS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (method, re.compile(pattern))
    for method, pattern in (
        ("GET", r"/v1/contacts"),
        ("GET", r"/v1/contacts/[^/]+"),
        ("POST", r"/v1/contacts/search"),
        ("POST", r"/v1/deals"),
    )
)
"""Operations whose answer the document shows as a Contact or Deal (or a collection of
Contact). Other answers may carry an `object` of `contact` or `deal` in a shape the
document does not show (a deletion feed item `{id, object, deleted}`, an upsert result),
where "Always present" says nothing."""


def _api_path(request: httpx.Request) -> str:
    """The request path from its `/v1/` on (a base URL may carry a path of its own)."""
    path = request.url.path
    return path[path.find("/v1/") :] if "/v1/" in path else path


def renders_records(request: httpx.Request) -> bool:
    """Whether the document shows the answer to `request` as Contacts or a Deal."""
    path = _api_path(request)
    return any(
        request.method == method and pattern.fullmatch(path)
        for method, pattern in DOCUMENTED_RENDERINGS
    )


def _request_param(request: httpx.Request, name: str) -> Any:
    """A query parameter of the request, or else a key of its JSON body (search)."""
    if name in request.url.params:
        return request.url.params.get(name)
    if request.content:
        try:
            body = json.loads(request.content)
        except ValueError:
            return None
        return body.get(name) if isinstance(body, dict) else None
    return None


@check("CON-003", "DEAL-002")
def always_present_fields(response: httpx.Response) -> Evaluated:
    """Contact and Deal: "Always present: `id`, `object`, `status`, ...".

    Keys, not values: a present key may hold null where the type allows it. Only on the
    answers the document shows as Contacts or a Deal (`renders_records`). Skipped when
    the request sent `fields`, which narrows a read to `id`, `object` and the names given
    (and may carry `object` and `id` alone); the spec's schemas cannot see the request,
    so this rule lives here and not in `required`.
    """
    if (
        not 200 <= response.status_code < 300
        or not renders_records(response.request)
        or _request_param(response.request, "fields")
    ):
        return False
    seen: set[str] = set()
    for resource in _walk_resources(_json(response)):
        rule = ALWAYS_PRESENT.get(resource["object"])
        if rule is None:
            continue
        req_id, names = rule
        seen.add(req_id)
        missing = [name for name in names if name not in resource]
        if missing:
            raise _fail(
                req_id,
                response,
                expected=f"every {resource['object']} carries {', '.join(names)}",
                got=f"{resource['object']} {_short(resource.get('id'))} lacks {', '.join(missing)}",
            )
    return frozenset(seen)


# --- timestamps --------------------------------------------------------------------


def is_timestamp(value: Any) -> bool:
    """Whether `value` is an ISO 8601 date-time string (a date alone is not one)."""
    if not isinstance(value, str) or "T" not in value.upper():
        return False
    try:
        datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        return False
    return True


DATE_TIME_FIELDS: dict[str, tuple[str, ...]] = {
    "contact": ("created_at", "updated_at"),
    "organization": ("created_at", "updated_at"),
    "deal": ("created_at", "updated_at", "expected_close_date", "stage_changed_at"),
    "activity": ("due_at", "created_at", "updated_at"),
    "conversation": ("last_message_at", "created_at", "updated_at"),
    "user": ("created_at",),
    "audience": ("created_at", "updated_at"),
    "campaign": ("created_at", "updated_at"),
    "campaign_stats": ("window_start", "window_end"),
}
"""The fields each resource table types `date-time`, by the resource's `object`."""


@check("IDN-003")
def timestamps(response: httpx.Response) -> Evaluated:
    """ "Timestamps are ISO 8601 date-time strings": every date-time field of every
    documented resource in a 2xx body, wherever it is embedded.

    Null (or absent) passes: several of these fields are "or null" (`last_message_at`),
    and presence is a rule of its own. Only the fields the resource tables type
    `date-time` are read, so an undocumented field of a documented object says nothing.
    """
    if not 200 <= response.status_code < 300:
        return False
    present = [
        (resource, field)
        for resource in _walk_resources(_json(response))
        for field in DATE_TIME_FIELDS.get(resource["object"], ())
        if resource.get(field) is not None
    ]
    problems = [
        f"{resource['object']}.{field} = {_short(resource[field])}"
        for resource, field in present
        if not is_timestamp(resource[field])
    ]
    if problems:
        raise _fail(
            "IDN-003",
            response,
            expected="ISO 8601 date-time strings in every date-time field",
            got=_first_five(problems),
        )
    return bool(present)


# --- collections -------------------------------------------------------------------

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
    body = _json(response)
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
        problems.append(f"body {_short(body, 80)} is not an object")
    else:
        if not isinstance(body.get("data"), list):
            problems.append("data is not an array")
        meta, links = body.get("meta"), body.get("links")
        if not isinstance(meta, dict):
            problems.append("meta is not an object")
        else:
            if not isinstance(meta.get("has_more"), bool):
                problems.append(f"meta.has_more = {_short(meta.get('has_more'))} (not a boolean)")
            limit = meta.get("limit")
            if not isinstance(limit, int) or isinstance(limit, bool):
                problems.append(f"meta.limit = {_short(limit)} (not an integer)")
        if not isinstance(links, dict) or "next" not in links:
            problems.append("links.next is missing")
        elif links["next"] is not None and not isinstance(links["next"], str):
            problems.append(f"links.next = {_short(links['next'])} (not a string or null)")
    if problems:
        raise _fail(
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
    kind = COLLECTION_OBJECTS.get((response.request.method, _api_path(response.request)))
    body = _json(response)
    if kind is None or not isinstance(body, dict) or not isinstance(body.get("data"), list):
        return False  # shape problems are collection_envelope's
    wrong = [
        f"data[{index}].object = {_short(row.get('object') if isinstance(row, dict) else row)}"
        for index, row in enumerate(body["data"])
        if not (isinstance(row, dict) and row.get("object") == kind)
    ]
    if wrong:
        raise _fail(
            "IDN-002",
            response,
            expected=f"every row of the list with object {kind!r}",
            got=_first_five(wrong),
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
        raise _fail(
            "PAG-002",
            response,
            expected="links.next a cursor when meta.has_more is true, null when false",
            got=f"meta.has_more = {json.dumps(has_more)}, links.next = {_short(cursor)}",
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
        raise _fail(
            "PAG-003",
            response,
            expected=f"at most meta.limit = {limit} rows",
            got=f"{len(data)} rows",
        )
    requested = _requested_limit(response)
    if requested is not None and requested != limit:
        raise _fail(
            "PAG-003",
            response,
            expected=f"meta.limit = {requested}, the limit the request asked for",
            got=f"meta.limit = {limit}",
        )
    return True


def _requested_limit(response: httpx.Response) -> int | None:
    request = response.request
    raw: Any = request.url.params.get("limit")
    if raw is None and request.method == "POST" and request.content:
        try:
            raw = json.loads(request.content).get("limit")
        except (ValueError, AttributeError):
            raw = None
    if isinstance(raw, str) and raw.isdigit():
        raw = int(raw)
    if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= 200:
        return raw
    return None
