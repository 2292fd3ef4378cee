"""Field types: every field a resource table types, as typed, wherever a record is rendered.

A deal's `value` is "string (monetary ...)" in every answer that shows a deal, not only
in the answers the test that wrote it reads: a server that renders the update's own
answer from the body it was sent (`"value": 12.5`) breaks the row there and nowhere
else (blind set C's). So each record any 2xx answer carries (`resources_of`), whatever
the operation (a named update, retrieve or list included), has each documented field
it shows checked against the field's schema in `spec/openapi.yaml`.

Only the type and its values are judged here (JSON type, enum, constant, the keys of a
channel): identifiers, date-times, owners and phones have their own checks, and bounds
and patterns are judged where a value is written. A nested resource (a tag in `tags`, an
embedded organization) is a record of its own, checked under its own rows. A check of a
type verifies no rule by itself (`name` typed a string says nothing of its derivation),
so this check fails its rows and never counts as their evidence.
"""

import functools
import json
from collections.abc import Callable
from typing import Any

import httpx

from crm_conformance.core.model import document
from crm_conformance.core.verdicts.checks.body import failed, shorten
from crm_conformance.core.verdicts.checks.identifiers import resources_of
from crm_conformance.core.verdicts.checks.registry import Evaluated, check

FIELD_ROWS: dict[str, dict[str, str]] = {
    "contact": {
        "status": "CON-004",
        "visibility": "CON-005",
        "first_name": "CON-006",
        "last_name": "CON-006",
        "name": "CON-007",
        "email": "CON-008",
        "address": "CON-010",
        "city": "CON-010",
        "state": "CON-010",
        "job_title": "CON-010",
        "company_name": "CON-012",
        "organization": "CON-016",
        "score": "CON-020",
        "lost_reason": "CON-021",
        "channels": "CON-022",
        "tags": "CON-023",
        "custom_fields": "CON-024",
        "external_id": "CON-048",
    },
    "organization": {
        "name": "CON-026",
        "website": "CON-026",
        "tags": "CON-026",
        "visibility": "CON-005",
        "custom_fields": "CON-024",
        "external_id": "CON-048",
    },
    "deal": {
        "title": "DEAL-005",
        "value": "DEAL-014",
        "probability": "DEAL-035",
        "score": "DEAL-017",
        "status": "DEAL-018",
        "lost_reason": "DEAL-020",
        "lost_justification": "DEAL-013",
        "organization": "DEAL-026",
        "custom_fields": "DEAL-028",
        "tags": "DEAL-029",
        "visibility": "DEAL-030",
        "external_id": "CON-048",
    },
    "activity": {
        "title": "ACT-004",
        "description": "ACT-005",
        "type": "ACT-007",
        "status": "ACT-010",
    },
    "tag": {"name": "TAG-003", "color": "TAG-007"},
    "conversation": {
        "status": "CONV-003",
        "channel": "CONV-004",
        "needs_human": "CONV-009",
        "queue_name": "CONV-011",
    },
    "campaign": {"name": "CAMP-001", "instructions": "CAMP-001", "status": "CAMP-002"},
}
"""Each typed field of each resource, by its `object` (whose schema is the capitalized
name), and the row of the document that types it: the requirement a wrong type breaks.
Rows recorded untestable (`avatar_url`'s lifetime, `status_reason`'s cause) are left
out: a type alone would not make them testable."""

_JUDGED = frozenset({"type", "enum", "const", "oneOf", "anyOf", "items", "properties"})
"""The keywords kept: a type and its values, not bounds, patterns or formats."""


def _shallow(node: dict[str, Any]) -> dict[str, Any]:
    """`node` with its references inlined, a resource's replaced by "an object" (it is
    checked as a record of its own), and only the keywords of `_JUDGED` kept."""
    if "$ref" in node:
        target = document.schema(node["$ref"].rsplit("/", 1)[1])
        if "const" in target.get("properties", {}).get("object", {}):
            return {"type": "object"}
        return _shallow(target)
    kept: dict[str, Any] = {}
    for key, value in node.items():
        if key not in _JUDGED:
            continue
        if key in ("oneOf", "anyOf"):
            kept[key] = [_shallow(branch) for branch in value]
        elif key == "items":
            kept[key] = _shallow(value)
        elif key == "properties":
            kept[key] = {name: _shallow(sub) for name, sub in value.items()}
        else:
            kept[key] = value
    return kept


@functools.cache
def _typed(kind: str) -> tuple[tuple[str, str, Callable[[Any], bool]], ...]:
    """`kind`'s typed fields, each with its row and whether a value is of the type the
    schema gives it: compiled once per kind, so a record costs one lookup."""
    import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev extras

    properties = document.schema(kind.capitalize())["properties"]
    return tuple(
        (field, req_id, jsonschema.Draft202012Validator(_shallow(properties[field])).is_valid)
        for field, req_id in FIELD_ROWS[kind].items()
    )


@check(*sorted({req for rows in FIELD_ROWS.values() for req in rows.values()}))
def field_types(response: httpx.Response) -> Evaluated:
    """Every field a record shows, in any 2xx answer, of the type its row gives it."""
    if not 200 <= response.status_code < 300:
        return False
    for resource in resources_of(response):
        kind = resource["object"]
        if kind not in FIELD_ROWS:
            continue
        for field, req_id, is_valid in _typed(kind):
            if field in resource and not is_valid(resource[field]):
                raise failed(
                    req_id,
                    response,
                    expected=f"a {kind}'s {field} typed as its row says",
                    got=f"{kind} {shorten(resource.get('id'))} {field} = "
                    f"{shorten(json.dumps(resource[field], default=str))}",
                )
    return False
