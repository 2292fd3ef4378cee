"""`external_id`: the caller's own id, unique per workspace and resource; null clears it."""

from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.storage import Transaction

MAX_LENGTH = 255


def read(fields: BodyFields) -> str | None:
    """The `external_id` of a body: 1 to 255 characters, or null."""
    return fields.string("external_id", min_length=1, max_length=MAX_LENGTH)


def ensure_unique(
    tx: Transaction, workspace: str, kind: str, external_id: str | None, own_id: str | None = None
) -> None:
    """409 external_id_taken when another record of `kind` already has `external_id`."""
    if external_id is None:
        return
    for other in tx.find(workspace, kind, external_id=external_id):
        if other["id"] != own_id:
            raise ApiError(
                409,
                "external_id_taken",
                f"Another {kind} ({other['id']}) already has this external_id.",
                param="external_id",
            )
