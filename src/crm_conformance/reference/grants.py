"""A person's permissions, which the adapter's `permissions` feature withholds.

"An OAuth token is refused where its person lacks permission": the API grants and
withholds none, so the adapter sets them on a person (`withheld` on the user row) and
every OAuth token acting for that person is refused, whatever its scopes: a change to a
CRM record answers 403 `user_grant_denied`, a move of a conversation 403
`conversation_access_denied`.
"""

from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Transaction

RECORD_ENTITIES = ("contacts", "organizations", "deals", "activities", "tags")
"""The entities whose writes are changes to CRM records (`changes`)."""

PERMISSIONS = ("changes", "conversations")


def withheld(tx: Transaction, workspace: str, user_id: str) -> frozenset[str]:
    """The permissions withheld from the person (none for an unknown one)."""
    user = tx.get(workspace, "user", user_id)
    return frozenset(user.get("withheld") or ()) if user else frozenset()


def require_grant(
    tx: Transaction,
    workspace: str,
    user_id: str,
    *,
    entity: str,
    method: str,
    path: str,
    settings: ServerSettings,
) -> None:
    """Refuse a write (`method` at `path`, to `entity`) by a person whose permission for
    it is withheld."""
    missing = withheld(tx, workspace, user_id)
    checked = method == "POST" or not settings.has_fault("user_grant_checked_on_posts_only")
    if entity in RECORD_ENTITIES and "changes" in missing and checked:
        code = "insufficient_scope" if settings.has_fault("user_grant_as_scope") else None
        raise ApiError(
            403,
            code or "user_grant_denied",
            f"The person this token acts for may not change {entity}.",
        )
    moves = not path.endswith("/close") or not settings.has_fault(
        "conversation_access_on_moves_only"
    )
    if entity == "conversations" and "conversations" in missing and moves:
        raise ApiError(
            403, "conversation_access_denied", "The person this token acts for cannot act on it."
        )
