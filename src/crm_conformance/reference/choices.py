"""The names, paths and bodies this server chose where the document says "not shown".

They go into the target file the server writes (`serve --target-out`, `ServedTarget`),
under `[conventions]`, so the suite tests the server by its own choices. A variant that
chooses otherwise (`Variant.conventions`) overrides the keys it changes, so its target
file says what it does.
"""

import json
from collections.abc import Iterable, Mapping
from typing import Any

from crm_conformance.reference.tags import CATALOGUE_FIELD
from crm_conformance.reference.variants import VARIANTS

_MOVE = "/v1/conversations/{conversation_id}/"
_UPDATED = {
    "contact": "contacts",
    "organization": "organizations",
    "deal": "deals",
    "activity": "activities",
    "tag": "tags",
}
"""Each resource this server updates (PATCH at its own path, the fields as the body) and
deletes (DELETE at the same path)."""
_PLURALS = {
    **{kind: _UPDATED[kind] for kind in ("organization", "deal", "activity", "tag")},
    "conversation": "conversations",
    "campaign": "campaigns",
}
"""Each resource whose list and retrieve this server offers beyond the shown ones."""

CONVENTIONS: dict[str, Any] = {
    "tag_catalogue_field": CATALOGUE_FIELD,
    "created_since_param": "created_since",
    "deleted_records_entity_param": "entity",
    "fields_query": "resource=contact",
    "contact_filters": {
        name: name
        for name in ("status", "score", "email", "owner_id", "organization_id", "external_id")
    },
    "deleted_records_values": {
        name: name for name in ("contacts", "organizations", "deals", "activities")
    },
    "upsert": {
        "body": json.dumps(
            {"external_id": "{external_id}", "phone": "{phone}", "first_name": "{first_name}"}
        )
    },
    "conversation_moves": {
        "handoff_path": _MOVE + "handoff",
        "handoff_body": "{}",
        "assign_path": _MOVE + "assign",
        "assign_body": json.dumps({"assignee_id": "{assignee_id}"}),
        "resume_path": _MOVE + "resume",
        "resume_body": "{}",
    },
    "campaigns": {"resume_path": "/v1/campaigns/{campaign_id}/resume"},
    "expand": {"contact": "organization", "deal": "organization,contact,pipeline,stage,activities"},
    "activities": {
        "cancel_method": "POST",
        "cancel_path": "/v1/activities/{activity_id}/cancel",
        "cancel_body": "{}",
    },
    "success_events": {
        "create_path": "/v1/success-events",
        "create_body": json.dumps({"code": "{code}", "value": "{value}"}),
        "reverse_path": "/v1/success-events/{event_id}/reverse",
        "retrieve_path": "/v1/success-events/{event_id}",
    },
    "updates": {
        f"{resource}_{part}": value
        for resource, plural in _UPDATED.items()
        for part, value in (
            ("method", "PATCH"),
            ("path", f"/v1/{plural}/{{{resource}_id}}"),
            ("body", json.dumps("{changes}")),
        )
    },
    "creates": {
        f"{resource}_{part}": value
        for resource in ("contact", "organization")
        for part, value in (("path", f"/v1/{_UPDATED[resource]}"), ("body", json.dumps("{fields}")))
    },
    "deletes": {
        f"{resource}_path": f"/v1/{plural}/{{{resource}_id}}"
        for resource, plural in _UPDATED.items()
    },
    "retrieve": {
        f"{resource}_path": f"/v1/{plural}/{{{resource}_id}}"
        for resource, plural in _PLURALS.items()
    },
    "lists": {f"{resource}_path": f"/v1/{plural}" for resource, plural in _PLURALS.items()},
    "notes": {
        "create_path": "/v1/notes",
        "create_body": json.dumps({"record_id": "{record_id}", "content": "{text}"}),
        "update_method": "PATCH",
        "update_path": "/v1/notes/{note_id}",
        "update_body": json.dumps({"content": "{text}"}),
        "delete_path": "/v1/notes/{note_id}",
        "retrieve_path": "/v1/notes/{note_id}",
        "list_path": "/v1/notes",
    },
}
"""The reference's choices: the defaults `examples/target.toml` documents."""


def conventions_for(variants: Iterable[str]) -> dict[str, Any]:
    """CONVENTIONS with the overrides of each variant in `variants` merged in (a `None`
    drops the key: the variant offers no such operation)."""
    merged = {k: dict(v) if isinstance(v, Mapping) else v for k, v in CONVENTIONS.items()}
    for name in sorted(variants):
        for key, value in VARIANTS[name].conventions.items():
            if value is None:
                merged.pop(key, None)
            elif isinstance(value, Mapping):
                merged.setdefault(key, {}).update(value)
            else:
                merged[key] = value
    return merged
