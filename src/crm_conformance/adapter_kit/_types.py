"""What an adapter's methods receive and answer: the bodies of `spec/adapter.yaml`, typed.

The kit has already checked each request against the contract (required fields, enums,
unknown keys, which combinations exist) and applied its defaults, so a method reads
plain values: timestamps are aware `datetime`s, absent options have their documented
default, and `workspace` is `primary` or `secondary`.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Self

Workspace = Literal["primary", "secondary"]
"""`primary`: the workspace of the target file's tokens.full; `secondary`: that of
tokens.other_workspace."""
RecordKind = Literal["contact", "organization", "deal", "activity"]
TokenKind = Literal["workspace", "oauth"]
TokenState = Literal["active", "expired", "revoked"]
Holder = Literal["agent", "user"]
ValueBasis = Literal["required", "forbidden"]
Definition = Literal["created", "existing"]
"""What `create_success_event_type` did: made the type (201) or found it unchanged (200)."""


# --- fixtures --------------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """A pipeline stage and what a deal's `probability` reads there when given none."""

    id: str
    default_probability: int | None


@dataclass(frozen=True)
class Pipeline:
    """A pipeline with its stages in order."""

    id: str
    stages: tuple[Stage, ...]


@dataclass(frozen=True)
class CustomFieldSample:
    """Values of one custom field for the tests that write it (the document gives no
    custom field types): one it takes and reads back as sent, and any it refuses as
    invalid (`validation_failed`)."""

    accepted: Any
    refused: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Fixtures:
    """Ids of a workspace's fixed set-up that the public API cannot list portably."""

    pipelines: tuple[Pipeline, ...]
    lost_reasons: tuple[str, ...]
    users: tuple[str, ...]
    contact_custom_fields: tuple[str, ...]
    deal_custom_fields: tuple[str, ...] = ()
    """Keys of the deals' custom fields (optional in the answer: empty when left out)."""
    organization_custom_fields: tuple[str, ...] = ()
    """Keys of the organizations' custom fields (optional likewise)."""
    custom_field_samples: Mapping[str, Mapping[str, CustomFieldSample]] = field(
        default_factory=dict
    )
    """By resource (`contact`, `organization`, `deal`), then field key: values to write
    (optional: without them, the tests writing custom fields are not applicable)."""


# --- tokens and people -----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RateLimit:
    """`limit` requests per `window_seconds`, counted as the service's own limiter counts."""

    limit: int
    window_seconds: int


@dataclass(frozen=True, kw_only=True)
class TokenRequest:
    """`POST /v1/tokens`. `scopes` None means every operation a full token can call."""

    workspace: Workspace
    kind: TokenKind
    scopes: tuple[str, ...] | None = None
    user_id: str | None = None
    state: TokenState = "active"
    live: bool = False
    rate_limit: RateLimit | None = None


@dataclass(frozen=True, kw_only=True)
class IssuedToken:
    """A token the adapter made: `token` is the secret, shown once (kept out of reprs)."""

    id: str
    token: str = field(repr=False)
    kind: TokenKind
    scopes: tuple[str, ...]
    user_id: str | None = None
    state: TokenState = "active"


@dataclass(frozen=True, kw_only=True)
class UserRequest:
    """`POST /v1/users`: a new active member with the least privileged role and no team."""

    workspace: Workspace
    name: str | None = None


# --- records ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RecordRequest:
    """`POST /v1/records`: `fields` in the public API's response names (derived ones refused)."""

    workspace: Workspace
    kind: RecordKind
    fields: Mapping[str, Any]
    created_at: datetime | None = None
    updated_at: datetime | None = None
    """Already defaulted to `created_at` when only that was given."""


# --- conversations and campaigns -------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ConversationRequest:
    """`POST /v1/conversations`, with the holder rules of the document's states applied.

    `contact_id` None with `new_contact` False is a conversation with no known contact;
    `new_contact` True asks the adapter to make a contact for it.
    """

    workspace: Workspace
    status: Literal["waiting", "active"]
    contact_id: str | None
    new_contact: bool
    handler: Holder | None
    user_id: str | None = None
    """The teammate holding it (`handler: user`); None means any active teammate."""
    channel: str = "chatapp_api"
    agent_available: bool = True


@dataclass(frozen=True, kw_only=True)
class InboundRequest:
    """`POST /v1/conversations/inbound`: the contact writes in."""

    workspace: Workspace
    contact_id: str


@dataclass(frozen=True, kw_only=True)
class Participant:
    """One contact's history in a campaign; the kit checked the order of its events."""

    enrolled_at: datetime
    status_changed_at: datetime
    """Defaulted to the latest event when the body left it out."""
    contact_id: str | None = None
    """None asks the adapter to make a contact."""
    contacted_at: datetime | None = None
    replied_at: datetime | None = None
    reply_automated: bool = False
    converted_at: datetime | None = None
    not_contacted_reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class CampaignRequest:
    """`POST /v1/campaigns`."""

    workspace: Workspace
    status: Literal["draft", "scheduled", "running", "paused", "completed"]
    name: str | None = None
    participants: tuple[Participant, ...] = ()


@dataclass(frozen=True, kw_only=True)
class PermissionsRequest:
    """`PUT /v1/users/{user_id}/permissions`: what the person's OAuth tokens may do from
    now on, whatever their scopes (`changes`: change CRM records; `conversations`: act on
    conversations). False withholds the permission, true gives it back."""

    user_id: str
    changes: bool
    conversations: bool


# --- workspace -------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class PolicyRequest:
    """`PUT /v1/policy/{entity}`; `entity` is a resource name of the document's scope table."""

    workspace: Workspace
    entity: str
    local_write: bool


@dataclass(frozen=True, kw_only=True)
class SuccessEventTypeRequest:
    """`POST /v1/success-event-types`."""

    workspace: Workspace
    code: str
    value: ValueBasis


# --- refusals --------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One item of an error's `detail`: a field (dotted path), what is wrong, a code."""

    field: str
    message: str
    code: str | None = None


ERROR_TYPES: Mapping[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "api_error",
    409: "conflict_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}
"""Status -> the error's `type`, as the public API maps them; anything else (5xx) is
`api_error`. One table, so a code is never sent under the wrong type."""


def error_envelope(
    status: int,
    code: str,
    message: str,
    *,
    param: str | None = None,
    detail: Sequence[Problem] | None = None,
    request_id: str | None,
) -> dict[str, Any]:
    """The `{error: {...}}` body of every non-2xx answer, the public API's and the
    adapter's alike (the reference server renders its errors with it too); `request_id`
    equals the X-Request-ID header."""
    return {
        "error": {
            "type": ERROR_TYPES.get(status, "api_error"),
            "code": code,
            "message": message,
            "param": param,
            "detail": None
            if detail is None
            else [{"field": p.field, "message": p.message, "code": p.code} for p in detail],
            "documentation_url": None,
            "request_id": request_id,
        }
    }


class Refusal(Exception):
    """Raised by an adapter method (or the kit) to answer an error in the API's envelope.

    The status picks the envelope's `type` as the public API does; the shortcuts below
    cover what an adapter usually says.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        param: str | None = None,
        detail: Sequence[Problem] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.detail = tuple(detail) if detail is not None else None

    @classmethod
    def not_found(cls, what: str, *, code: str = "not_found") -> Self:
        """404: no such `what` (a contact, a token, ...)."""
        return cls(404, code, f"No such {what}.")

    @classmethod
    def invalid(cls, problems: Sequence[Problem], *, status: int = 422) -> Self:
        """422 `validation_failed` listing each problem (400 for query and path problems)."""
        where = "request body" if status == 422 else "request"
        fields = ", ".join(problem.field for problem in problems)
        return cls(
            status,
            "validation_failed",
            f"The {where} has invalid fields: {fields}.",
            param=problems[0].field if problems else None,
            detail=problems,
        )

    @classmethod
    def conflict(cls, code: str, message: str, *, param: str | None = None) -> Self:
        """409: the request conflicts with data that exists."""
        return cls(409, code, message, param=param)
