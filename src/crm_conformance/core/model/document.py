"""The document's constants, as `spec/openapi.yaml` states them: limits, enums and the
operations with their scopes (`operations()`).

A suite that types `200` or `("open", "won", "lost")` again keeps a second copy of the
contract that can drift from the first. Every number and enum a test needs is read from
the description here instead, where it is written once, next to the rule it belongs to.
Read on first use (the YAML is parsed once per process), so importing costs nothing.
"""

import functools
import re
from dataclasses import dataclass
from typing import Any

from crm_conformance.core.model.paths import OPENAPI


@functools.cache
def _spec() -> dict[str, Any]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loaded: dict[str, Any] = yaml.load(OPENAPI.read_text(encoding="utf-8"), Loader=loader)
    return loaded


def _component(kind: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = _spec()["components"][kind][name]
    return found


def schema(name: str) -> dict[str, Any]:
    """The component schema `name` (`Contact`, `Visibility`, ...)."""
    return _component("schemas", name)


def enum(name: str, field: str | None = None) -> tuple[str, ...]:
    """The values of the enum schema `name`, or of its property `field`, nulls left out
    (a nullable enum lists null; "null" is no value a record is in)."""
    node = schema(name)
    if field is not None:
        node = node["properties"][field]
        if "$ref" in node:
            node = schema(node["$ref"].rsplit("/", 1)[1])
    return tuple(value for value in node["enum"] if value is not None)


def page_limit() -> int:
    """The largest `limit` ("integer 1 to 200")."""
    return int(_component("parameters", "Limit")["schema"]["maximum"])


def max_expand() -> int:
    """Most `expand` relationships per request ("at most 4")."""
    return int(_component("parameters", "Expand")["x-max-relationships"])


def max_filter_values() -> int:
    """Most values of one repeated filter ("a cap of 100")."""
    return int(_component("parameters", "UpdatedSince")["x-max-filter-values"])


def max_idempotency_key() -> int:
    """Longest `Idempotency-Key` ("at most 255 characters")."""
    return int(_component("parameters", "IdempotencyKey")["schema"]["maxLength"])


def number_range(name: str, field: str) -> tuple[int, int]:
    """`minimum` and `maximum` of the integer property `field` of schema `name` (a deal's
    probability 0 to 100)."""
    node = schema(name)["properties"][field]
    return int(node["minimum"]), int(node["maximum"])


def length_range(name: str, field: str) -> tuple[int, int]:
    """`minLength` and `maxLength` of the string property `field` of schema `name`
    (tag name 1 to 100, activity title 1 to 500, external_id 1 to 255)."""
    node = schema(name)["properties"][field]
    if "$ref" in node:
        node = schema(node["$ref"].rsplit("/", 1)[1])
    return int(node["minLength"]), int(node["maxLength"])


def default_window_days() -> int:
    """The campaign stats default window ("30 days ending now")."""
    return int(_component("parameters", "WindowStart")["x-default-window-days"])


@dataclass(frozen=True)
class QueryParameter:
    """One query parameter of one operation, typed as the description types it."""

    method: str
    path: str
    name: str
    type: str
    """Its schema's `type` (`integer`, `string`, ...)."""
    format: str | None = None
    """Its schema's `format` (`date-time`), if any."""
    minimum: int | None = None
    maximum: int | None = None
    offset_required: bool = False
    """A date-time that must carry its timezone offset (`x-offset-required`: "date-time
    with timezone offset", "timezone offset required")."""


def query_parameters() -> tuple[QueryParameter, ...]:
    """Every query parameter of every operation `spec/openapi.yaml` describes (a path
    item's shared parameters included, `$ref`s resolved), in its order: the matrices
    that give each one an invalid value read them here, so a parameter added to the
    description is a new point of each."""
    found = []
    for path, item in _spec()["paths"].items():
        for method, operation in item.items():
            if not (isinstance(operation, dict) and "operationId" in operation):
                continue
            for parameter in (*item.get("parameters", ()), *operation.get("parameters", ())):
                if "$ref" in parameter:
                    parameter = _component("parameters", parameter["$ref"].rsplit("/", 1)[1])
                if parameter["in"] != "query":
                    continue
                schema = parameter.get("schema", {})
                found.append(
                    QueryParameter(
                        method=method.upper(),
                        path=path,
                        name=parameter["name"],
                        type=str(schema.get("type", "string")),
                        format=schema.get("format"),
                        minimum=schema.get("minimum"),
                        maximum=schema.get("maximum"),
                        offset_required=bool(parameter.get("x-offset-required")),
                    )
                )
    return tuple(found)


@functools.cache
def bounded_integers() -> dict[str, tuple[int, int]]:
    """Every integer with both bounds that an operation takes, as `METHOD /path
    query:name` or `METHOD /path body.name` (a body's top-level members), with its
    bounds: places the description constrains fully, where any value in range is valid
    whatever the rest of the request."""
    found: dict[str, tuple[int, int]] = {}
    for parameter in query_parameters():
        if parameter.type == "integer" and None not in (parameter.minimum, parameter.maximum):
            place = f"{parameter.method} {parameter.path} query:{parameter.name}"
            found[place] = (int(parameter.minimum or 0), int(parameter.maximum or 0))
    for path, item in _spec()["paths"].items():
        for method, operation in item.items():
            if not (isinstance(operation, dict) and "requestBody" in operation):
                continue
            content = operation["requestBody"].get("content", {})
            body = resolved(content.get("application/json", {}).get("schema", {}))
            for name, member in (body.get("properties") or {}).items():
                member = resolved(member)
                if member.get("type") in ("integer", ["integer", "null"]) and {
                    "minimum",
                    "maximum",
                } <= set(member):
                    place = f"{method.upper()} {path} body.{name}"
                    found[place] = (int(member["minimum"]), int(member["maximum"]))
    return found


@dataclass(frozen=True)
class DescribedOperation:
    """One operation of the description, as the scope and authentication matrices see it."""

    operation_id: str
    method: str
    path: str
    group: str
    """Its first tag: the document's resource group (`contacts`, `meta`, `sync`, ...)."""
    scopes: tuple[str, ...]
    """Its `x-scopes`; empty where the description marks the scope not shown."""

    @property
    def reads(self) -> bool:
        """A read: its scopes are read scopes ("`read` covers list and retrieve"), or,
        none being shown, its method is GET. Contact search is a read sent with POST."""
        if self.scopes:
            return all(scope.endswith(":read") for scope in self.scopes)
        return self.method == "GET"


def operations() -> tuple[DescribedOperation, ...]:
    """Every operation `spec/openapi.yaml` describes, in its order."""
    found = []
    for path, item in _spec()["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                found.append(
                    DescribedOperation(
                        operation_id=operation["operationId"],
                        method=method.upper(),
                        path=path,
                        group=operation["tags"][0],
                        scopes=tuple(operation.get("x-scopes", ())),
                    )
                )
    return tuple(found)


def resolved(node: Any) -> Any:
    """`node`, or the component its local `$ref` names (followed until none is left)."""
    while isinstance(node, dict) and "$ref" in node:
        kind, name = node["$ref"].rsplit("/", 2)[1:]
        node = _component(kind, name)
    return node


def identifier_prefixes(node: Any) -> tuple[str, ...]:
    """The identifier prefixes a schema allows ("Prefix, underscore, 32 lowercase hex
    characters"), read from its `pattern` through `$ref`, `oneOf` and `anyOf`: `('usr',)`
    for an owner_id, `('con', 'org', 'deal')` for an activity's record_id; empty when the
    schema is no identifier."""
    node = resolved(node)
    if not isinstance(node, dict):
        return ()
    found = re.fullmatch(r"\^\(?([a-z|]+)\)?_\[0-9a-f\]\{32\}\$", str(node.get("pattern", "")))
    if found:
        return tuple(found.group(1).split("|"))
    return tuple(
        prefix
        for branch in (*node.get("oneOf", ()), *node.get("anyOf", ()))
        for prefix in identifier_prefixes(branch)
    )


def field_prefixes(name: str) -> tuple[str, ...]:
    """The identifier prefixes of a field called `name` in any schema of the description
    (an `assignee_id` is a `usr_` id wherever it appears): for the inputs a target's
    convention names, whose own schema is not shown."""
    for node in _spec()["components"]["schemas"].values():
        prefixes = identifier_prefixes(node.get("properties", {}).get(name))
        if prefixes:
            return prefixes
    return ()


@dataclass(frozen=True)
class IdInput:
    """One input of one operation that takes an identifier."""

    operation_id: str
    method: str
    path: str
    where: str
    """`path`, `query` or `body` (a top-level member of the JSON request body)."""
    name: str
    prefixes: tuple[str, ...]
    shape_shown: bool
    """False for an operation the document only names (`x-shape-not-shown`): its path
    and body are the target's conventions."""


def request_schema(method: str, path: str) -> dict[str, Any] | None:
    """The JSON request body schema of an operation (resolved), or None without one."""
    operation = _spec()["paths"][path][method.lower()]
    body = resolved(operation.get("requestBody"))
    if not isinstance(body, dict):
        return None
    node = resolved(body.get("content", {}).get("application/json", {}).get("schema"))
    return node if isinstance(node, dict) else None


def body_required(method: str, path: str) -> bool:
    """Whether the operation's request body is required."""
    body = resolved(_spec()["paths"][path][method.lower()].get("requestBody"))
    return bool(isinstance(body, dict) and body.get("required"))


def id_inputs() -> tuple[IdInput, ...]:
    """Every identifier an operation takes, in the path, the query or the JSON body, as
    `spec/openapi.yaml` describes them: the tenancy matrix sends each one naming another
    workspace's record, so an input added to the description is a new point of it."""
    found = []
    for described in operations():
        item = _spec()["paths"][described.path]
        operation = item[described.method.lower()]
        inputs = [
            (parameter["in"], parameter["name"], parameter.get("schema"))
            for parameter in map(
                resolved, (*item.get("parameters", ()), *operation.get("parameters", ()))
            )
            if parameter["in"] in ("path", "query")
        ]
        schema = request_schema(described.method, described.path) or {}
        inputs += [("body", name, node) for name, node in schema.get("properties", {}).items()]
        for where, name, node in inputs:
            prefixes = identifier_prefixes(node)
            if prefixes:
                found.append(
                    IdInput(
                        operation_id=described.operation_id,
                        method=described.method,
                        path=described.path,
                        where=where,
                        name=name,
                        prefixes=prefixes,
                        shape_shown=not operation.get("x-shape-not-shown", False),
                    )
                )
    return tuple(found)
