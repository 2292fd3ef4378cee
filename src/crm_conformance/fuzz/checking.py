"""What judges a fuzz case: the harness's checks adapted to schemathesis, and
`validate`, which charges each failure to its own requirement.

Why an adapter: the hand-written suites and this layer must fail on the same rules with
the same requirement ids (STYLE.md), so each registered harness check is wrapped as a
schemathesis check rather than re-written.
"""

import re
from collections.abc import Callable
from typing import Any

import httpx
from schemathesis.checks import CheckContext
from schemathesis.core.transport import Response

from crm_conformance.core.model import document
from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.verdicts import checks, evidence
from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.fuzz import charges as fuzz_charges
from crm_conformance.fuzz.exchange import as_httpx


def adapted(check: checks.Check) -> Callable[[CheckContext, Response, Any], None]:
    """`check` as a schemathesis check; its ConformanceFailure (AssertionError) carries the id."""

    def run(ctx: CheckContext, response: Response, case: Any) -> None:
        check.function(as_httpx(response))

    run.__name__ = f"crm_{check.name}"
    return run


def fuzzed_checks() -> tuple[checks.Check, ...]:
    """The harness checks the fuzz layer runs: all but those of opt-in classes.

    An opt-in requirement (Retry-After on a 429, of the rate-limits class) must never
    keep the fuzz tests from running against a target that did not claim its class;
    its own tests (suites/test_rate_limits.py) check it when the class is claimed.
    """
    catalogue = load_catalogue()
    opt_in = catalogue.opt_in_classes
    return tuple(
        check
        for check in checks.registered()
        if not any(catalogue.class_of(req) in opt_in for req in check.requirements)
    )


def harness_checks() -> list[Callable[[CheckContext, Response, Any], None]]:
    """Every fuzzed harness check, adapted."""
    return [adapted(check) for check in fuzzed_checks()]


def requirement_ids() -> tuple[str, ...]:
    """The requirement ids the adapted checks enforce, for the suites' req markers."""
    return tuple(dict.fromkeys(req for c in fuzzed_checks() for req in c.requirements))


SCHEMATHESIS_CHECKS = fuzz_charges.BY_CHECK
"""Requirement ids of schemathesis's own checks that one sentence covers whatever the
case; the others (by where the case or the body broke) and the reasons for each choice
are in `fuzz_charges`, which attributes every check this layer runs, so a failure lands
on its own requirement and never on every id of its test."""


def validate(case: Any, response: Any, **kwargs: Any) -> None:
    """`case.validate_response` on `response` (schemathesis's, made from the harness
    client's by `as_schemathesis`), with the headers as sent (they tell schemathesis
    the token was the run's own, not generated) and its failures charged
    (`fuzz_charges.charge`), so each lands on its own requirement with its own request:
    what the fuzz suites call."""
    from schemathesis.core.failures import Failure, FailureGroup

    sent = as_httpx(response)
    if blank_body_taken(case, sent):
        from schemathesis.checks import negative_data_rejection

        kwargs["excluded_checks"] = [*kwargs.get("excluded_checks", ()), negative_data_rejection]
    try:
        case.validate_response(response, headers=dict(sent.request.headers), **kwargs)
    except (FailureGroup, Failure) as exc:
        fuzz_charges.charge(exc, case, sent)
        raise
    refused_in_bounds(case, sent)
    held(case, sent)


BLANK = bytes(range(0x21))
"""Bytes a server may trim off a body as blank: JSON's whitespace, and every control
character below it (Java's `String.trim` and many parsers' "is space" take them all)."""


def blank_body_taken(case: Any, response: httpx.Response) -> bool:
    """A body of blank bytes alone (schemathesis's "random bytes" may be just a newline,
    or one control character), taken (2xx) by an operation whose body is optional: read
    as no body, which the operation allows. Whether a body holding nothing printable is
    "no body" or invalid JSON is not shown, so taking it is not judged (a body of
    anything else is)."""
    content = response.request.content
    method, path = str(case.operation.method), str(case.operation.path)
    return (
        response.is_success
        and bool(content)
        and not content.strip(BLANK)
        and not document.body_required(method, path)
    )


def refused_in_bounds(case: Any, response: httpx.Response) -> None:
    """A schema-valid case refused as `validation_failed` where every field the refusal
    names is an integer the description bounds fully (`document.bounded_integers`: a
    page's `limit`, a deal's `probability`) and was sent in range: a false refusal,
    charged to the bound's rule ("1 to 200" accepts 200). A refusal naming anything else
    may have a reason no schema states (a cursor, a name not on the resource, a rule
    between fields), and passes, as `ACCEPTED_WHEN_VALID` lets it. A valid case answered
    2xx verified the acceptance of each bounded value it sent."""
    if fuzz_charges.is_negative(case):
        return
    operation = f"{str(case.operation.method).upper()} {case.operation.path}"
    sent = _bounded_values(case, operation)
    if 200 <= response.status_code < 300:
        for place in sent:
            evidence.passed(bound_rule(operation, place), "accepted_in_bounds")
        return
    named = _refused_fields(response)
    places = {place for place in sent if re.split(r"[:.]", place, maxsplit=1)[1] in named}
    if not named or len(places) < len(named):
        return  # a refusal of anything else, or of a value out of range
    place = sorted(places)[0]
    raise ConformanceFailure(
        bound_rule(operation, place),
        expected=f"{place} = {sent[place]} accepted (within the description's bounds)",
        got=f"{response.status_code} validation_failed naming {', '.join(sorted(named))}",
        response=response,
    )


def bound_rule(operation: str, place: str) -> str:
    """The rule of a bounded place: the first requirement demanding its refusal outside
    the bounds (`PAG-008` for a list's `limit`), which also accepts inside them."""
    return load_catalogue().negative_demands[f"{operation} {place}"][0]


def bound_requirements() -> tuple[str, ...]:
    """The rules `refused_in_bounds` checks, for the fuzz test's marker."""
    places = document.bounded_integers()
    found: dict[str, None] = {}
    for place in places:
        method, path, where = place.split(" ", 2)
        found[bound_rule(f"{method} {path}", where)] = None
    return tuple(found)


def _bounded_values(case: Any, operation: str) -> dict[str, int]:
    """The fully bounded integers `case` sends in range, by place (`query:limit`)."""
    bounded = document.bounded_integers()
    sent = {f"query:{k}": v for k, v in (case.query or {}).items()}
    if isinstance(case.body, dict):
        sent |= {f"body.{k}": v for k, v in case.body.items()}
    found = {}
    for place, value in sent.items():
        bounds = bounded.get(f"{operation} {place}")
        number = _integer(value)
        if bounds is not None and number is not None and bounds[0] <= number <= bounds[1]:
            found[place] = number
    return found


def _refused_fields(response: httpx.Response) -> set[str]:
    """The fields a 400 or 422 `validation_failed` names (`param`, `detail[].field`)."""
    if response.status_code not in (400, 422):
        return set()
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return set()
    if not isinstance(error, dict) or error.get("code") != "validation_failed":
        return set()
    detail = error.get("detail")
    items = detail if isinstance(detail, list) else []
    named = {error.get("param"), *(i.get("field") for i in items if isinstance(i, dict))}
    return {str(name) for name in named if name is not None}


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value)
    digits = text.removeprefix("-")
    return int(text) if digits.isascii() and digits.isdecimal() else None


def held(case: Any, response: Any) -> None:
    """Report what schemathesis's own checks verified on an answer they all passed (the
    harness checks report themselves): an undeclared method answered 405 (ERR-013,
    `unsupported_method`), and a valid case's 2xx body conforming to the operation's
    schema (the sentence naming the answer, `fuzz_charges.ANSWERS`). A refused negative
    case verifies no demand here: the hand-written suites check its status and code."""
    declared = str(case.operation.method).upper()
    if str(case.method).upper() != declared:
        if response.status_code == 405:
            evidence.passed("ERR-013", "unsupported_method")
        return
    if fuzz_charges.is_negative(case) or not 200 <= response.status_code < 300:
        return
    path = str(case.operation.path)
    answers = next((ids for prefix, ids in fuzz_charges.ANSWERS if path.startswith(prefix)), ())
    for req_id in answers:
        evidence.passed(req_id, "response_schema_conformance")
