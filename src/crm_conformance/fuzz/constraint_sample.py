"""The quick profile's fuzz cases: each constraint of a request broken once, each valid
value sent once, and no generated case that only breaks again what was broken.

Why this exists: schemathesis's coverage phase breaks each constrained place of a request
with every value it has for the kind of break. An integer `limit` gets five wrong-typed
values (`0.5`, `true`, `null`, `AAA`, a repeated parameter), a string member five (`0`,
`false`, `null`, an array, an object). Its valid cases also send every combination of
optional members, values one step inside each bound beside the bound itself, and each
nested search group again one level deeper. Against a production rate limit each is one
request of the token's allowance. The rule demanding a refusal (the place's
`negative_demands` in the catalogue) is covered by any one break of the place, and a
valid value's rules by one request carrying it, so the quick profile, a CI gate, sends
`thinned` cases; `full` and `deep` send every case, where a server that coerces one kind
of value and not another, or trips over one combination of members, is found.

What counts as one constraint (`constraint_of`): the kind of break (schemathesis's
scenario: wrong type, above the maximum, pattern, missing member...), where (the part and
the parameter; in a body, the schema keyword's path, a nested search group's read as the
group's, as `request_constraints` reads it) and, for a missing required member, which
member. A string sent as text (a path id, a date-time query value) has no type to break
on the wire (`request_constraints`): schemathesis's "wrong type" values arrive as
strings breaking its pattern or format, so those three kinds are one constraint there.
The same holds in a body for a string member with a pattern or format that may also be
null: a string that "breaks the null type" breaks the pattern or format.

What a valid case repeats (`repeats_a_valid_case`): a combination of optional members
(each member is sent present, with its values, in the case with all of them, and absent
in the case with the required ones only); a value one step inside a bound where the bound
itself is sent (a server accepting `200` and `1` for `limit` has no bug `199` shows); a
case two levels deep in a nested search group (the items of a nested group's conditions
are the filter's conditions again). Everything else is kept whole: each enum value, each
bound, each null, undeclared methods and Content-Type probes.

What a generated case repeats (`breaks_of`): the generated phase's negative cases name
each break they make (schemathesis's mutations); one whose every break is a place and
keyword an earlier case of the test broke and passed asserts the same refusals again
(`FuzzRun.already_passed`).
"""

import re
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from crm_conformance.fuzz.request_constraints import WIRE_PARTS, constrained_places

KEPT_WHOLE = frozenset(
    {
        "unspecified_http_method",
        "malformed_content_type",
        "unsupported_content_type",
        "unsupported_path_pattern",
    }
)
"""Scenarios never thinned, schemathesis's request-shape probes: each undeclared method is
a point of ERR-013's 405, each Content-Type probe one request per operation already."""

STRING_FORM = frozenset({"incorrect_type", "invalid_pattern", "invalid_format"})
"""Breaks that, on a string sent as text, all break the string's pattern or format."""

KEYWORD_OF = {
    "incorrect_type": "type",
    "invalid_pattern": "pattern",
    "invalid_format": "format",
    "invalid_enum_value": "enum",
    "value_above_maximum": "maximum",
    "value_below_minimum": "minimum",
    "string_above_max_length": "maxLength",
    "string_below_min_length": "minLength",
    "object_unexpected_properties": "additionalProperties",
    "missing_parameter": "required",
}
"""The schema keyword each coverage scenario breaks, as schemathesis's mutations name it."""

OPTIONAL_COMBINATION = re.compile(
    r"^(Object with all required properties and '"
    r"|Object with all required and a subset of optional properties"
    r"|All required properties and optional '"
    r"|All required and \d+ optional properties)"
)
"""The last step of a valid case's description when it is a combination of optional members."""

NEAR_BOUNDARY = ("Near-boundary number", "Near-boundary length string")
BOUNDARY = ("Maximum value", "Minimum value", "Maximum length string", "Minimum length string")

_NULLABLE_STRING = re.compile(
    r"^(?:/anyOf/\d+)?/properties/([^/]+)/anyOf/\d+/(?:type|pattern|format)$"
)
"""A top-level body member's break inside one alternative of (its own schema | null)."""


def constraint_of(case: Any, places: Mapping[str, frozenset[str]]) -> Hashable | None:
    """The constraint a negative coverage case breaks, or None for a case that is its
    own point (a positive case, a method or Content-Type probe, a generated case).
    `places`: the spec's constrained places (`request_constraints.constrained_places`)."""
    data = _phase_data(case)
    scenario = str(getattr(data, "scenario", "") or "")
    if not scenario or mode_of(case) != "negative" or scenario in KEPT_WHOLE:
        return None
    part = _part(getattr(data, "parameter_location", None))
    parameter = str(getattr(data, "parameter", "") or "")
    # A body's place is the schema path it broke; a parameter's, its name (its schema
    # path is the same whether schemathesis sent the parameter alone or with the others).
    where = _unnested(str(getattr(data, "location", "") or "")) if part == "body" else ""
    operation = _operation(case)
    if scenario in STRING_FORM:
        if part in WIRE_PARTS:
            if _sent_as_text(places, operation, part, parameter):
                scenario, where = "string_form", ""
        elif (member := _NULLABLE_STRING.match(where)) and _is_text_break(
            case, member.group(1), places.get(f"{operation} body.{member.group(1)}", frozenset())
        ):
            scenario, where = "string_form", f"/properties/{member.group(1)}"
    which = str(getattr(data, "description", "")) if "missing_required" in scenario else ""
    return (scenario, part, parameter, where, which)


def repeats_a_valid_case(case: Any, bounded: frozenset[tuple[str, str, str]]) -> bool:
    """Whether a positive coverage case only repeats what another valid case of its
    operation sends (the module docstring says which). `bounded`: the (part, parameter,
    description prefix) of the operation's cases that send a bound itself."""
    if mode_of(case) != "positive" or not getattr(_phase_data(case), "scenario", None):
        return False
    description = _description(case)
    prefix, _, last = description.rpartition(": ")
    if OPTIONAL_COMBINATION.match(last) or _nested_twice(description):
        return True
    return last in NEAR_BOUNDARY and _place(case, prefix) in bounded


def thinned(cases: Iterable[Any], spec: Mapping[str, Any]) -> list[Any]:
    """`cases` (the coverage cases of an operation of `spec`) in their order, keeping of
    each constraint's cases the first and no valid case that repeats another."""
    cases = list(cases)
    places = constrained_places(spec)
    bounded = bounds_sent(cases)
    seen: set[Hashable] = set()
    kept = []
    for case in cases:
        if repeats_a_valid_case(case, bounded):
            continue
        constraint = constraint_of(case, places)
        if constraint is not None:
            if constraint in seen:
                continue
            seen.add(constraint)
        kept.append(case)
    return kept


def bounds_sent(cases: Iterable[Any]) -> frozenset[tuple[str, str, str]]:
    """The places (part, parameter, description prefix) whose bound itself a valid case
    of `cases` sends (`repeats_a_valid_case`)."""
    return frozenset(
        _place(case, _description(case).rpartition(": ")[0])
        for case in cases
        if mode_of(case) == "positive" and _description(case).endswith(BOUNDARY)
    )


def breaks_of(case: Any, places: Mapping[str, frozenset[str]]) -> frozenset[tuple[str, ...]] | None:
    """What a negative case breaks, as (part, parameter, keyword) for a parameter and
    (part, schema path) in a body; None for a positive case, a request-shape probe, or
    a break that cannot be told from another (random bytes for a body, a required member
    dropped, a part broken without a named break)."""
    if mode_of(case) != "negative":
        return None
    data = _phase_data(case)
    operation = _operation(case)
    scenario = str(getattr(data, "scenario", "") or "")
    if scenario:
        keyword = KEYWORD_OF.get(scenario)
        if keyword is None:
            return None
        part = _part(getattr(data, "parameter_location", None))
        parameter = str(getattr(data, "parameter", "") or "")
        if part == "body":
            return frozenset({(part, str(getattr(data, "location", "") or ""))})
        return frozenset({_wire_break(operation, part, parameter, keyword, places)})
    found: set[tuple[str, ...]] = set()
    for mutation in getattr(data, "mutations", None) or ():
        part = _part(mutation.parameter_location)
        if str(mutation.operator.value) in ("syntax_fuzzing", "remove_required_property"):
            return None
        for keyword in mutation.keywords:
            if part == "body":
                found.add((part, f"{mutation.schema_pointer}/{keyword}"))
            else:
                parameter = str(mutation.parameter or "")
                found.add(_wire_break(operation, part, parameter, keyword, places))
    broken_parts = {item[0] for item in found}
    negative_parts = {
        _part(location)
        for location, component in (
            getattr(getattr(case, "_meta", None), "components", None) or {}
        ).items()
        if str(getattr(component.mode, "value", component.mode)) == "negative"
    }
    if not found or not negative_parts <= broken_parts:
        return None
    return frozenset(found)


def broken_before(breaks: frozenset[tuple[str, ...]], passed: set[tuple[str, ...]]) -> bool:
    """Whether every break of `breaks` (`breaks_of`) is one of `passed`, the breaks of
    cases sent and passed. A body value matching none of a member's alternatives (the
    overlay's `anyOf: [its schema, null]`: a negated `anyOf`, or a wrong type for the
    null alternative) breaks one of the first alternative's keywords, so it was broken
    before when any break inside those alternatives was: under the quick profile the
    coverage phase, which runs first and must pass, broke each of them."""
    for broken in breaks:
        if broken in passed:
            continue
        inside = _ALTERNATIVES.match(str(broken[1])) if broken[0] == "body" else None
        if inside is None or not any(
            before[0] == "body" and str(before[1]).startswith(f"{inside.group(1)}/anyOf/")
            for before in passed
        ):
            return False
    return True


_ALTERNATIVES = re.compile(r"^(.*)/anyOf(?:/\d+/type)?$")
"""A body break of "none of the alternatives": a negated `anyOf`, or an alternative's type."""


def _wire_break(
    operation: str, part: str, parameter: str, keyword: str, places: Mapping[str, frozenset[str]]
) -> tuple[str, str, str]:
    """A parameter's break; a string's type, pattern and format breaks are one on the wire."""
    if keyword in ("type", "pattern", "format") and _sent_as_text(
        places, operation, part, parameter
    ):
        keyword = "string_form"
    return (part, parameter, keyword)


def _sent_as_text(
    places: Mapping[str, frozenset[str]], operation: str, part: str, parameter: str
) -> bool:
    """Whether a parameter has no type of its own on the wire (`request_constraints`: a
    string's type is none of its constraints there), so every break of it is of its form."""
    return "type" not in places.get(f"{operation} {part}:{parameter}", frozenset())


def _operation(case: Any) -> str:
    """ "METHOD /path" of the case's operation, as `request_constraints` names places."""
    return f"{str(case.operation.method).upper()} {case.operation.path}"


def _unnested(location: str) -> str:
    """`location` read as the nested group's own: from the second step into a member's
    items back to the first (`.../conditions/items/.../conditions/items/x` reads as
    `.../conditions/items/x`), as `request_constraints` folds nested groups."""
    steps = list(re.finditer(r"/properties/([^/]+)/items", location))
    for i, first in enumerate(steps):
        for again in steps[i + 1 :]:
            if again.group(1) == first.group(1):
                return _unnested(location[: first.start()] + location[again.start() :])
    return location


def _nested_twice(description: str) -> bool:
    """Whether a case's description steps into the items of the same member twice."""
    steps = re.findall(r"'([^']+)' value: Single-item array", description)
    steps += re.findall(r"(\S+) -> Array with invalid items", description)
    return len(steps) != len(set(steps))


def _is_text_break(case: Any, member: str, keywords: frozenset[str]) -> bool:
    """Whether a body member with a pattern or format was sent a string: its break is
    of the pattern or format, whatever alternative schemathesis meant to break."""
    body = getattr(case, "body", None)
    return (
        bool(keywords & {"pattern", "format"})
        and isinstance(body, dict)
        and isinstance(body.get(member), str)
    )


def _place(case: Any, prefix: str) -> tuple[str, str, str]:
    data = _phase_data(case)
    location = _part(getattr(data, "parameter_location", None))
    return (location, str(getattr(data, "parameter", "") or ""), prefix)


def _description(case: Any) -> str:
    return str(getattr(_phase_data(case), "description", "") or "")


def _phase_data(case: Any) -> Any:
    meta = getattr(case, "_meta", None)  # `case.meta` would revalidate the case
    return getattr(getattr(meta, "phase", None), "data", None)


def mode_of(case: Any) -> str:
    """A case's generation mode: `positive` or `negative` ("" for none)."""
    mode = getattr(getattr(getattr(case, "_meta", None), "generation", None), "mode", None)
    return str(getattr(mode, "value", mode) or "")


def _part(location: Any) -> str:
    return str(getattr(location, "value", location) or "")
