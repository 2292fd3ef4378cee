"""The document's constants, as `spec/openapi.yaml` states them: limits and enums.

A suite that types `200` or `("open", "won", "lost")` again keeps a second copy of the
contract that can drift from the first. Every number and enum a test needs is read from
the description here instead, where it is written once, next to the rule it belongs to.
Read on first use (the YAML is parsed once per process), so importing costs nothing.
"""

import functools
from typing import Any

from crm_conformance.paths import OPENAPI


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
