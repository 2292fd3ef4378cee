"""Which requirement a failure of schemathesis's own checks is charged to.

Why this exists: a fuzz test names every id its checks enforce, and a failure that did
not say which one it broke was charged to them all: one 502 failed seventeen
requirements. Each check schemathesis runs for the fuzz layer is attributed here to the
sentence of the document it enforces (`BY_CHECK`, `requirements_of`), and each failure
of a validated response is charged (`charge`) with its ids, the request that provoked it
and, for a gateway's answer, that it is no answer of the service (charged to none).

Where no requirement states what a check checks, the choice is written beside it:
- `status_code_conformance`, `positive_data_acceptance`: the document lists no statuses
  per operation; its error table gives each status the type that agrees with it, so a
  status outside an operation's answers is charged to ERR-004.
- `not_a_server_error`: the document foresees a server fault (`internal_error`, ERR-018)
  but never a request that causes one; a 5xx to a request the document demands a
  refusal of is charged to those demands (`negative_demands`), any other to ERR-018.
- `response_schema_conformance`: where the body broke the schema: the error envelope
  (ERR-001, ERR-003), a list's `meta`/`links` (PAG-001), a timestamp, an id's pattern or
  `object` (IDN-003, IDN-001, IDN-002), else the sentence naming the operation's answer
  (`ANSWERS`).
- `use_after_free`, `ensure_resource_availability`: a deleted record still served, or a
  created one not found: ERR-012 ("404 not_found for a well-formed id with no record").
"""

from collections.abc import Mapping
from typing import Any

import httpx

from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.transport import retries
from crm_conformance.core.verdicts import outcomes

BY_CHECK: Mapping[str, tuple[str, ...]] = {
    "unsupported_method": ("ERR-013",),
    "content_type_conformance": ("HDR-004",),
    "ST104": ("HDR-004",),  # MissingContentType
    "ST109": ("HDR-004",),  # MalformedJson: the body does not parse
    "ST110": ("HDR-004",),  # ContentDeserializationError: the body cannot be decoded
    "ignored_auth": ("AUTH-002",),
    "object_level_authorization": ("TEN-001",),
    "status_code_conformance": ("ERR-004",),
    "positive_data_acceptance": ("ERR-004",),
    "use_after_free": ("ERR-012",),
    "ensure_resource_availability": ("ERR-012",),
}
"""Requirement ids of schemathesis's checks (or of one failure kind, by code) that one
sentence of the document covers whatever the case (the module docstring says why)."""

ANSWERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("/v1/contacts/search", ("SRCH-001",)),
    ("/v1/contacts", ("CON-003",)),
    ("/v1/deals", ("DEAL-002",)),
    ("/v1/activities", ("ACT-001",)),
    ("/v1/tags", ("TAG-001",)),
    ("/v1/users", ("USR-003",)),
    ("/v1/audiences", ("AUD-003",)),
    ("/v1/conversations/{conversation_id}/close", ("CONV-015",)),
    ("/v1/conversations", ("CONV-003",)),
    ("/v1/campaigns/{campaign_id}/stats", ("STAT-001",)),
    ("/v1/campaigns", ("CAMP-001",)),
    ("/v1/me", ("SCOPE-026",)),
    ("/v1/capabilities", ("SCOPE-027",)),
    ("/v1/fields", ("CON-042",)),
    ("/v1/pipelines", ("DEAL-031",)),
    ("/v1/deleted-records", ("SYNC-004",)),
    ("/v1/success-event-types", ("SEV-001",)),
)
"""Path prefixes (first match wins) and the sentence saying what the operation answers:
a 2xx body breaking the schema outside a list's envelope is charged there."""

HEADERS: Mapping[str, tuple[str, ...]] = {
    "x-request-id": ("HDR-003",),
    "x-ratelimit-limit": ("HDR-001",),
    "x-ratelimit-remaining": ("HDR-001",),
    "x-ratelimit-reset": ("HDR-001",),
    "retry-after": ("HDR-002",),
}
"""The requirement of each response header the spec declares (response_headers_conformance)."""


def requirements_of(
    failure: BaseException, case: Any = None, status: int | None = None
) -> tuple[str, ...] | None:
    """The ids a schemathesis failure is charged to; None for one this module does not
    know (a check added later: its test then charges every id it names).

    `case` (the generated case, when known) tells where a negative case broke the
    request; without it, a refusal the document demands is charged to every demand of
    the operation. `status`: the answer's status, when known.
    """
    code = str(getattr(failure, "code", ""))
    checks = tuple(getattr(failure, "checks", None) or ())
    operation = str(getattr(failure, "operation", "") or "")
    status = status if status is not None else getattr(failure, "status_code", None)
    if code == "ST201":  # AcceptedNegativeData: negative_data_rejection
        return demands_of(operation, case) or ("ERR-009",)
    if code in ("ST101", "ST102"):  # ServerError: not_a_server_error
        negative = case is not None and is_negative(case)
        return (demands_of(operation, case) if negative else ()) or ("ERR-018",)
    if code == "ST203":  # MissingHeaderNotRejected: a required header left out, accepted
        return _demands(operation, lambda part: part.startswith("header:")) or ("ERR-011",)
    if code == "ST107":  # MissingHeaders: response_headers_conformance
        missing = [str(h).lower() for h in getattr(failure, "missing_headers", ())]
        found = [i for h in missing for i in HEADERS.get(h, ("HDR-001", "HDR-003"))]
        return tuple(dict.fromkeys(found)) or ("HDR-001", "HDR-003")
    if code in ("ST108", "ST111"):  # JsonSchemaError, DiscriminatorMismatch
        return _schema_requirements(failure, operation, status)
    for name in (code, *checks):
        if name in BY_CHECK:
            return BY_CHECK[name]
    return None


def _schema_requirements(
    failure: BaseException, operation: str, status: Any
) -> tuple[str, ...] | None:
    where = [str(p) for p in getattr(failure, "instance_path", None) or ()]
    if where[:1] == ["error"]:
        return ("ERR-003",)
    if (isinstance(status, int) and status >= 400) or _is_error_answer(failure):
        return ("ERR-001",)
    if where[:1] in (["meta"], ["links"]):
        return ("PAG-001",)
    named = _universal_rule(where, [str(k) for k in getattr(failure, "schema_path", None) or ()])
    if named:
        return named
    path = operation.partition(" ")[2]
    return next((ids for prefix, ids in ANSWERS if path.startswith(prefix)), None)


def _universal_rule(where: list[str], keywords: list[str]) -> tuple[str, ...]:
    """The identifier rule a value broke, by its property's name: a timestamp (`*_at`,
    IDN-003), an id's pattern (IDN-001), the `object` discriminator (IDN-002)."""
    name = next((p for p in reversed(where) if not p.isdigit()), "")
    keyword = keywords[-1] if keywords else ""
    if name.endswith("_at") or keyword == "format":
        return ("IDN-003",)
    if (name == "id" or name.endswith("_id")) and keyword == "pattern":
        return ("IDN-001",)
    if name == "object":
        return ("IDN-002",)
    return ()


def _is_error_answer(failure: BaseException) -> bool:
    """Whether the body that broke the schema is an error envelope (status unknown)."""
    instance = getattr(failure, "instance", None)
    path = getattr(failure, "instance_path", None)
    return not path and isinstance(instance, dict) and "error" in instance


def demands_of(operation: str, case: Any = None) -> tuple[str, ...]:
    """The requirements demanding a refusal at the place `case` broke in `operation`
    ("GET /v1/contacts"): the coverage phase's parameter (a body's by the schema path it
    broke, nested places folded as `request_constraints` folds them), else every place of
    the part it broke or of the parts it generated invalid, else every place of the
    operation. A method the path does not declare is refused by ERR-013's 405."""
    sent = str(getattr(case, "method", "") or "").upper()
    if sent and sent != operation.partition(" ")[0].upper():
        return ("ERR-013",)  # the coverage phase's undeclared method: 405 is the refusal
    demands = load_catalogue().negative_demands
    data = getattr(getattr(getattr(case, "meta", None), "phase", None), "data", None)
    location = str(getattr(getattr(data, "parameter_location", None), "value", "") or "")
    parameter = getattr(data, "parameter", None)
    if location == "body":
        for part in _body_parts(str(getattr(data, "location", "") or "")):
            if f"{operation} {part}" in demands:
                return demands[f"{operation} {part}"]
    elif location and parameter and f"{operation} {location}:{parameter}" in demands:
        return demands[f"{operation} {location}:{parameter}"]
    broken = {location} if location else _negative_locations(case)
    found = _demands(operation, lambda part: part.split(":")[0].split(".")[0] in broken)
    return found or _demands(operation, lambda part: True)


def _body_parts(schema_path: str) -> list[str]:
    """The places a coverage case broke in a body, innermost first, from the schema path
    of the keyword it broke (`/properties/filter/anyOf/0/properties/conditions/items/...`
    gives `body.filter.conditions[]`, then `body.filter.conditions`, `body.filter`, `body`)."""
    names: list[str] = []
    tokens = schema_path.strip("/").split("/")
    for token, following in zip(tokens, [*tokens[1:], ""], strict=True):
        if token == "properties" and following:
            names.append(following)
        elif token == "items" and names and not names[-1].endswith("[]"):
            names[-1] += "[]"
    places = ["body"]
    for name in names:
        places.append(f"{places[-1]}.{name}")
    return places[::-1]


def _demands(operation: str, keep: Any) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for place, ids in load_catalogue().negative_demands.items():
        if place.startswith(f"{operation} ") and keep(place[len(operation) + 1 :]):
            found.update(dict.fromkeys(ids))
    return tuple(found)


def _negative_locations(case: Any) -> set[str]:
    components = getattr(getattr(case, "meta", None), "components", None) or {}
    return {
        str(getattr(location, "value", location))
        for location, info in components.items()
        if str(getattr(getattr(info, "mode", None), "value", "")) == "negative"
    }


def is_negative(case: Any) -> bool:
    generation = getattr(getattr(case, "meta", None), "generation", None)
    mode = str(getattr(getattr(generation, "mode", None), "value", ""))
    return mode == "negative" or bool(_negative_locations(case))


def is_gateway_answer(response: httpx.Response) -> bool:
    """Whether `response` is a transport fault's and not the service's answer (DESIGN.md,
    "On a real network"): any 503, or a 502 or 504 without the error envelope. One
    definition, the retry policy's (`retries.fault_of_answer`)."""
    return retries.fault_of_answer(response, retry=False) is not None


def request_line(response: httpx.Response) -> str:
    """`METHOD /path?query -> status` of the request `response` answers."""
    url = response.request.url
    target = url.path + (f"?{url.query.decode()}" if url.query else "")
    return f"{response.request.method} {target} -> {response.status_code}"


def charge(exc: BaseException, case: Any, response: httpx.Response) -> None:
    """Mark each failure in `exc` (a failure or a group) with the ids it is charged to,
    the request that provoked it, and whether the answer was a gateway's (none charged).

    A harness check's failure (wrapped by schemathesis) keeps its own id and request.
    """
    members = list(exc.exceptions) if isinstance(exc, BaseExceptionGroup) else [exc]
    gateway = is_gateway_answer(response)
    for member in members:
        if gateway:
            setattr(member, outcomes.TRANSPORT_ATTR, True)
        if getattr(member, "exception", None) is not None:
            continue  # CustomFailure around a ConformanceFailure: that one says it all
        ids = requirements_of(member, case, response.status_code)
        if ids is not None:
            setattr(member, outcomes.REQUIREMENTS_ATTR, ids)
        if not hasattr(member, outcomes.REQUEST_ATTR):
            setattr(member, outcomes.REQUEST_ATTR, request_line(response))


outcomes.attribute_checks(requirements_of)
