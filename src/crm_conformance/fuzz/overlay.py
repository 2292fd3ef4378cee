"""The overlays of spec/openapi.yaml: the points the document leaves open, settled in the
schema when it loads (the file is unchanged) so that every check stays on.

Why overlays and not dropped failures: schemathesis can only judge what the spec says,
and the points the document leaves open must not fail. The statuses left open (200 or
201 on create, 400 or 422 on validation) become aliases, still schema-checked; methods a
path may serve without the document showing them are declared and not generated
(`declare_open_methods`); `null` where a value may be left out is valid
(`absent_may_be_null`).
"""

import copy
from collections.abc import Mapping
from typing import Any

ALIASES: Mapping[str, tuple[tuple[str, str], ...]] = {
    "post": (("201", "200"), ("200", "201")),
    "*": (("422", "400"), ("400", "422")),
}
"""Status pairs the document leaves open: when one is documented, the other is too."""


def overlay(raw_schema: dict[str, Any]) -> None:
    """Add the open alternatives of ALIASES to every operation, in place."""
    for path_item in raw_schema.get("paths", {}).values():
        for method, operation in path_item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for documented, alias in ALIASES.get(method, ()) + ALIASES["*"]:
                if documented in responses and alias not in responses:
                    responses[alias] = responses[documented]


def absent_may_be_null(raw_schema: dict[str, Any]) -> None:
    """Let what a request may leave out also be `null`, in place: an optional JSON body,
    and each optional top-level property of a JSON body.

    The document never says how a server reads `null` where the value may be left out
    (contact search `{"fields": null}`, a `null` search body); reading it as absent is as
    legal as refusing it, so `negative_data_rejection` must not count it as invalid.
    Body schemas are copied first: a component shared with a response stays unchanged.
    """
    components = raw_schema.get("components", {})
    bodies = list(components.get("requestBodies", {}).values())
    for path_item in raw_schema.get("paths", {}).values():
        bodies += [op.get("requestBody", {}) for op in path_item.values() if isinstance(op, dict)]
    for body in bodies:
        media = body.get("content", {}).get("application/json")
        if media is None or "schema" not in media:
            continue
        schema = _dereferenced(components, media["schema"])
        required = set(schema.get("required", ()))
        properties = schema.get("properties", {})
        for name in properties:
            if name not in required:
                properties[name] = {"anyOf": [properties[name], {"type": "null"}]}
        media["schema"] = schema if body.get("required") else {"anyOf": [schema, {"type": "null"}]}


def _dereferenced(components: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of `schema`, or of the component schema it `$ref`s."""
    ref = schema.get("$ref", "")
    if ref.startswith("#/components/schemas/"):
        schema = components["schemas"][ref.rsplit("/", 1)[1]]
    return copy.deepcopy(schema)


NOT_RESOURCES = frozenset({"me", "capabilities", "deleted-records", "pipelines", "fields"})
"""Collections under /v1 that are not resources a client creates or lists generically:
the document says `pipelines:write` and `fields:write` "have no endpoints", and the
token, capabilities and deletion feed are named reads only."""


NOT_SHOWN = "x-method-not-shown"
"""Marks an operation the overlay declares because the document leaves it open."""


def open_methods(path: str) -> frozenset[str]:
    """Methods the document leaves open on `path`: neither shown nor ruled out.

    "Update, delete and retrieve operations of other resources: not shown" and "Contact
    create and update bodies: not shown": a resource collection (`/v1/<name>`) may also
    list and create, a record path (`.../{id}`) may also update and delete. Action paths
    (`/close`, `/search`, `/stats`) and the named reads get nothing: there a method the
    spec does not declare must answer 405 (ERR-013).
    """
    segments = path.strip("/").split("/")
    if len(segments) == 2 and segments[0] == "v1" and segments[1] not in NOT_RESOURCES:
        return frozenset({"get", "post"})
    if segments[-1].startswith("{"):
        return frozenset({"put", "patch", "delete"})
    return frozenset()


def declare_open_methods(raw_schema: dict[str, Any]) -> None:
    """Declare each open method of each path as a NOT_SHOWN operation, in place.

    Declared, schemathesis no longer sends it as an undeclared method expecting 405
    (a server may serve it; ST204 would be a false failure), and the suites exclude
    NOT_SHOWN operations from generation: their shapes are not shown, nothing to check.
    """
    paths = raw_schema.get("paths", {})
    for path, path_item in paths.items():
        shadows = [other for other in paths if _shadows(other, path)]
        methods = open_methods(path).union(*map(open_methods, shadows))
        for method in sorted(methods - set(path_item)):
            path_item[method] = {
                NOT_SHOWN: True,
                "responses": {"default": {"description": "Not shown by the document."}},
            }


def _shadows(record_path: str, path: str) -> bool:
    """Whether a router may send a request for the literal `path` to `record_path`
    (`/v1/contacts/search` and `/v1/contacts/{contact_id}`): then the methods left open
    on the record path are open on the literal one too."""
    record, literal = record_path.strip("/").split("/"), path.strip("/").split("/")
    return (
        len(record) == len(literal)
        and record[-1].startswith("{")
        and not literal[-1].startswith("{")
        and record[:-1] == literal[:-1]
    )


def is_not_shown(ctx: Any) -> bool:
    """Filter for `schema.exclude(func=...)`: the operation is one the overlay declared."""
    return bool(ctx.operation.definition.raw.get(NOT_SHOWN))
