"""The constraints `spec/openapi.yaml` puts on requests: each one a refusal the fuzz layer
demands.

Why this exists: schemathesis reads every `maxLength`, `pattern`, `enum`, `required`,
bound, format and type of a request part as a rule, and its negative cases (and the
coverage phase's boundary cases) break each one and demand a 4xx
(`negative_data_rejection`). So a constraint in the spec is an assertion about servers,
and it may only be there where the document says a server must refuse. The catalogue
names, for each constrained place, the requirement whose sentence demands the refusal
(`negative_demands` in `spec/requirements.yaml`); `tests/test_negative_demands.py` keeps
the two equal, so a constraint added to the spec without a sentence behind it fails.

A place is named `"<METHOD> <path> <part>"`: `query:limit`, `path:contact_id`,
`header:Idempotency-Key`, `body` (the body as a whole: required members, unknown keys,
alternatives), `body.title`, `body.filter.conditions[].join` (nested groups fold into
one place). Pure data over the parsed spec: no pytest, no schemathesis.
"""

from collections.abc import Iterator, Mapping
from typing import Any

REFUSABLE = frozenset(
    {
        "maxLength",
        "minLength",
        "pattern",
        "enum",
        "const",
        "required",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "format",
        "type",
        "additionalProperties",
    }
)
"""Schema keywords a value can break, so a negative case can be made of each."""

WIRE_PARTS = ("query", "path", "header")
"""Parts sent as text: a `type: string` there cannot be broken on the wire."""


def constrained_places(spec: Mapping[str, Any]) -> dict[str, frozenset[str]]:
    """Each constrained place of every request in `spec`, with the keywords it carries."""
    places: dict[str, set[str]] = {}
    for method, path, operation, path_item in _operations(spec):
        prefix = f"{method.upper()} {path}"
        for parameter in [*path_item.get("parameters", ()), *operation.get("parameters", ())]:
            parameter = _resolved(spec, parameter)
            part = f"{parameter['in']}:{parameter['name']}"
            found = set(_keywords(spec, parameter.get("schema", {}), wire=True))
            if parameter.get("required") and parameter["in"] != "path":
                found.add("required")
            if found:
                places.setdefault(f"{prefix} {part}", set()).update(found)
        body = _resolved(spec, operation.get("requestBody", {}))
        schema = body.get("content", {}).get("application/json", {}).get("schema")
        if body.get("required"):
            places.setdefault(f"{prefix} body", set()).add("required")
        if schema is not None:
            for place, keywords in _body_places(spec, schema, "body", frozenset()):
                places.setdefault(f"{prefix} {place}", set()).update(keywords)
    return {place: frozenset(keywords) for place, keywords in sorted(places.items())}


def _operations(spec: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any], Any]]:
    for path, path_item in spec.get("paths", {}).items():
        for method, operation in path_item.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield method, path, operation, path_item


def _resolved(spec: Mapping[str, Any], node: Any) -> Any:
    """`node`, or what its local `$ref` points to (followed until none is left)."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        target: Any = spec
        for step in node["$ref"].removeprefix("#/").split("/"):
            target = target[step]
        node = target
    return node


def _keywords(spec: Mapping[str, Any], schema: Any, *, wire: bool) -> Iterator[str]:
    """The refusable keywords of one schema node (its own, not its members')."""
    schema = _resolved(spec, schema)
    if not isinstance(schema, dict):
        return
    for keyword in REFUSABLE & schema.keys():
        value = schema[keyword]
        if keyword == "type" and (value == "object" or (wire and value == "string")):
            continue
        if keyword == "additionalProperties" and value is not False:
            continue
        yield keyword


def _body_places(
    spec: Mapping[str, Any], schema: Any, place: str, seen: frozenset[str]
) -> Iterator[tuple[str, frozenset[str]]]:
    """(place, keywords) for a body schema and its members; a schema met again inside
    itself (nested search groups) adds nothing new, so recursion stops there."""
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if ref in seen:
        return
    seen = seen | {ref} if ref else seen
    schema = _resolved(spec, schema)
    if not isinstance(schema, dict):
        return
    own = frozenset(_keywords(spec, schema, wire=False))
    if own:
        yield place, own
    for alternative in (*schema.get("anyOf", ()), *schema.get("oneOf", ())):
        yield from _body_places(spec, alternative, place, seen)
    for member, member_schema in schema.get("properties", {}).items():
        yield from _body_places(spec, member_schema, f"{place}.{member}", seen)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _body_places(spec, items, f"{place}[]", seen)
