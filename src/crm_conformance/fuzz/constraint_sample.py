"""The quick profile's coverage cases: each constraint of a request broken once.

Why this exists: schemathesis's coverage phase breaks each constrained place of a request
with every value it has for the kind of break. An integer `limit` gets five wrong-typed
values (`0.5`, `true`, `null`, `AAA`, a repeated parameter), a string member five (`0`,
`false`, `null`, an array, an object). Against a production rate limit each is one request
of the token's allowance, and most repeat a break of the same constraint at the same
place. The rule demanding the refusal (the place's `negative_demands` in the catalogue)
is covered by any of them, so the quick profile, a CI gate, sends the first case of each
(`one_per_constraint`); `full` and `deep` send every value, where a server that coerces
one kind of value and not another is found.

What counts as one constraint (`constraint_of`): the kind of break (schemathesis's
scenario: wrong type, above the maximum, pattern, missing member...), where (the part and
the parameter; in a body, the schema keyword's path, so a nested search group is its own
place) and, for a missing required member, which member. A string sent as text (a path
id, a date-time query value) has no type to break on the wire (`request_constraints`):
schemathesis's "wrong type" values arrive as strings breaking its pattern or format, so
those three kinds are one constraint there. Everything else is kept whole: positive
cases (each enum value, each boundary, each optional member is a member of a class the
document names), undeclared methods and Content-Type probes.
"""

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from crm_conformance.fuzz.request_constraints import constrained_places

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


def constraint_of(case: Any, places: Mapping[str, frozenset[str]]) -> Hashable | None:
    """The constraint a negative coverage case breaks, or None for a case that is its
    own point (a positive case, a method or Content-Type probe, a generated case).
    `places`: the spec's constrained places (`request_constraints.constrained_places`)."""
    meta = getattr(case, "_meta", None)  # `case.meta` would revalidate the case
    data = getattr(getattr(meta, "phase", None), "data", None)
    scenario = str(getattr(data, "scenario", "") or "")
    mode = str(getattr(getattr(getattr(meta, "generation", None), "mode", None), "value", ""))
    if not scenario or mode != "negative" or scenario in KEPT_WHOLE:
        return None
    location = getattr(data, "parameter_location", None)
    part = str(getattr(location, "value", location) or "")
    parameter = str(getattr(data, "parameter", "") or "")
    # A body's place is the schema path it broke; a parameter's, its name (its schema
    # path is the same whether schemathesis sent the parameter alone or with the others).
    where = str(getattr(data, "location", "") or "") if part == "body" else ""
    wire = part in ("query", "path", "header")
    operation = case.operation
    place = f"{str(operation.method).upper()} {operation.path} {part}:{parameter}"
    if scenario in STRING_FORM and wire and "type" not in places.get(place, frozenset()):
        scenario, where = "string_form", ""
    which = str(getattr(data, "description", "")) if "missing_required" in scenario else ""
    return (scenario, part, parameter, where, which)


def one_per_constraint(cases: Iterable[Any], spec: Mapping[str, Any]) -> list[Any]:
    """`cases` (of an operation of `spec`) in their order, keeping of each constraint's
    cases the first."""
    places = constrained_places(spec)
    seen: set[Hashable] = set()
    kept = []
    for case in cases:
        constraint = constraint_of(case, places)
        if constraint is not None:
            if constraint in seen:
                continue
            seen.add(constraint)
        kept.append(case)
    return kept
