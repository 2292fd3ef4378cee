"""Workspace write policy: entities mirrored from an external CRM refuse local writes.

Scopes intersect with this policy and never exceed it: a write to a mirrored entity
answers 403 `local_write_denied` whatever the token's scopes.
"""

from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.storage import Transaction

ENTITIES: tuple[str, ...] = (
    "contacts",
    "organizations",
    "deals",
    "activities",
    "tags",
    "notes",
    "conversations",
    "campaigns",
    "success_events",
)
"""Entities a workspace can mirror, named as the scope table names resources."""


def local_write(tx: Transaction, workspace: str, entity: str) -> bool:
    """Whether the workspace allows local writes to `entity` (the default)."""
    row = tx.setting(workspace, f"policy.{entity}")
    return row is None or bool(row)


def set_local_write(tx: Transaction, workspace: str, entity: str, allowed: bool) -> None:
    """Mirror `entity` (allowed=False) or give local writes back (allowed=True)."""
    if entity not in ENTITIES:
        raise ApiError(400, "unknown_entity", f"No entity named {entity!r}.", param="entity")
    tx.set_setting(workspace, f"policy.{entity}", allowed)


def require_local_write(tx: Transaction, workspace: str, entity: str) -> None:
    """Refuse a write to a mirrored entity with 403 local_write_denied."""
    if not local_write(tx, workspace, entity):
        raise ApiError(
            403,
            "local_write_denied",
            f"This workspace mirrors {entity} from an external CRM; local writes are disabled.",
        )
