"""`external_id`: the caller's own id, unique per workspace and resource; null clears it."""

from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Transaction

MAX_LENGTH = 255


def read(fields: BodyFields, settings: ServerSettings, *, updating: bool = False) -> str | None:
    """The `external_id` of a body: 1 to 255 characters, or null. Under its fault the
    bound is checked on creates only; under its variant a character is a UTF-16 code
    unit, as "characters" reads too."""
    unbounded = updating and settings.has_fault("external_id_unbounded_on_update")
    value = fields.string("external_id", min_length=1, max_length=None if unbounded else MAX_LENGTH)
    units = len(value.encode("utf-16-le")) // 2 if isinstance(value, str) else 0
    if units > MAX_LENGTH and settings.has_variant("lengths_in_utf16_units"):
        fields.problem("external_id", f"must be at most {MAX_LENGTH} characters", "string_too_long")
    if (
        isinstance(value, str)
        and not updating
        and settings.has_fault("external_id_trimmed_on_create")
    ):
        return value.strip()
    return value


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
