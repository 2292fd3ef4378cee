"""Scopes exactly as the document's table: `<resource>:<access>`."""

SCOPES_BY_RESOURCE: dict[str, tuple[str, ...]] = {
    "contacts": ("contacts:read", "contacts:write"),
    "organizations": ("organizations:read", "organizations:write"),
    "deals": ("deals:read", "deals:write"),
    "pipelines": ("pipelines:read", "pipelines:write"),
    "fields": ("fields:read", "fields:write"),
    "notes": ("notes:read", "notes:write"),
    "activities": ("activities:read", "activities:write"),
    "tags": ("tags:read", "tags:write"),
    "conversations": ("conversations:read", "messages:write", "conversations:write"),
    "campaigns": ("campaigns:read", "campaigns:write"),
    "analytics": ("analytics:read",),
    "success_events": ("success_events:read", "success_events:write"),
}

ALL_SCOPES: tuple[str, ...] = tuple(
    scope for scopes in SCOPES_BY_RESOURCE.values() for scope in scopes
)
