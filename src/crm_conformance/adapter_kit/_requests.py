"""Request bodies, already valid against the contract's schema, as typed requests.

The schema has refused unknown keys, wrong types, bad enums and missing fields. What
is left here is what a schema cannot say: timestamps that must carry an offset, the
order of a participant's events, which holders the document's conversation states
allow, the derived record fields nobody may set, and the documented defaults.
"""

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, cast

from crm_conformance.adapter_kit._types import (
    CampaignRequest,
    ConversationRequest,
    Holder,
    InboundRequest,
    Participant,
    PermissionsRequest,
    PolicyRequest,
    Problem,
    RateLimit,
    RecordKind,
    RecordRequest,
    SuccessEventTypeRequest,
    TokenRequest,
    UserRequest,
    ValueBasis,
    Workspace,
)

Body = Mapping[str, Any]


class Reader:
    """Reads one validated body, gathering the problems a schema cannot express."""

    def __init__(self, body: Body, path: str = "") -> None:
        self.body = body
        self.path = path
        self.problems: list[Problem] = []

    def field(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name

    def problem(self, name: str, message: str, code: str) -> None:
        self.problems.append(Problem(self.field(name), message, code))

    def instant(self, name: str) -> datetime | None:
        """An RFC 3339 date-time with an offset, or None when absent."""
        value = self.body.get(name)
        if value is None:
            return None
        try:
            parsed = datetime.fromisoformat(str(value).replace("z", "Z"))
        except ValueError:
            parsed = None
        if parsed is None or parsed.tzinfo is None:
            self.problem(name, "must be an RFC 3339 date-time with a timezone offset", "datetime")
            return None
        return parsed


def token_request(body: Body, reader: Reader) -> TokenRequest:
    if body["kind"] == "workspace" and "user_id" in body:
        reader.problem("user_id", "is only allowed with kind oauth", "not_allowed")
    limit = body.get("rate_limit")
    scopes = body.get("scopes")
    return TokenRequest(
        workspace=_workspace(body),
        kind=body["kind"],
        scopes=tuple(scopes) if scopes is not None else None,
        user_id=body.get("user_id"),
        state=body.get("state", "active"),
        live=bool(body.get("live", False)),
        rate_limit=RateLimit(limit=limit["limit"], window_seconds=limit["window_seconds"])
        if limit is not None
        else None,
    )


def user_request(body: Body, reader: Reader) -> UserRequest:
    return UserRequest(workspace=_workspace(body), name=body.get("name"))


def record_request(
    body: Body, reader: Reader, derived: Mapping[str, tuple[str, ...]]
) -> RecordRequest:
    kind = cast(RecordKind, body["kind"])
    for name in derived.get(kind, ()):
        if name in body["fields"]:
            reader.problem(
                f"fields.{name}",
                f"is derived by the service for a {kind}; the suite never sets it",
                "derived",
            )
    created_at = reader.instant("created_at")
    return RecordRequest(
        workspace=_workspace(body),
        kind=kind,
        fields=dict(body["fields"]),
        created_at=created_at,
        updated_at=reader.instant("updated_at") or created_at,
    )


_HOLDERS: dict[str, tuple[Holder | None, ...]] = {
    "waiting": (None, "user"),
    "active": ("agent", "user"),
}
"""Who may hold a conversation in each open state: "waiting (open, in a queue or assigned
to a teammate who has not accepted), active (open and handled by the AI agent or a
teammate)"."""


def conversation_request(body: Body, reader: Reader) -> ConversationRequest:
    status = body["status"]
    handler: Holder | None = body.get("handler", "agent" if status == "active" else None)
    if handler not in _HOLDERS[status]:
        reader.problem(
            "handler",
            f"a {status} conversation is held by "
            + " or ".join("nobody (queued)" if h is None else h for h in _HOLDERS[status]),
            "state",
        )
    agent_available = bool(body.get("agent_available", True))
    if handler == "agent" and not agent_available:
        reader.problem(
            "agent_available",
            "an AI agent cannot hold a conversation in a queue with none available "
            "(name handler: user)",
            "state",
        )
    if "user_id" in body and handler != "user":
        reader.problem("user_id", "is only allowed with handler: user", "not_allowed")
    return ConversationRequest(
        workspace=_workspace(body),
        status=status,
        contact_id=body.get("contact_id"),
        new_contact="contact_id" not in body,
        handler=handler,
        user_id=body.get("user_id"),
        channel=body.get("channel", "chatapp_api"),
        agent_available=agent_available,
    )


def inbound_request(body: Body, reader: Reader) -> InboundRequest:
    return InboundRequest(workspace=_workspace(body), contact_id=body["contact_id"])


def campaign_request(body: Body, reader: Reader) -> CampaignRequest:
    participants = []
    for index, item in enumerate(body.get("participants", ())):
        one = Reader(item, reader.field(f"participants.{index}"))
        participants.append(_participant(one))
        reader.problems.extend(one.problems)
    return CampaignRequest(
        workspace=_workspace(body),
        status=body["status"],
        name=body.get("name"),
        participants=tuple(participants),
    )


def _participant(reader: Reader) -> Participant:
    events = {
        name: reader.instant(name)
        for name in ("enrolled_at", "contacted_at", "replied_at", "converted_at")
    }
    contacted = events["contacted_at"]
    for later in ("replied_at", "converted_at"):
        stamp = events[later]
        if stamp is not None and contacted is not None and stamp < contacted:
            reader.problem(later, "is before contacted_at", "order")
    # enrolled_at is required by the schema; unparsable, the request is refused anyway.
    enrolled = events["enrolled_at"] or datetime.min.replace(tzinfo=UTC)
    changed = reader.instant("status_changed_at")
    latest = max((stamp for stamp in events.values() if stamp is not None), default=enrolled)
    return Participant(
        enrolled_at=enrolled,
        status_changed_at=changed or latest,
        contact_id=reader.body.get("contact_id"),
        contacted_at=contacted,
        replied_at=events["replied_at"],
        reply_automated=bool(reader.body.get("reply_automated", False)),
        converted_at=events["converted_at"],
        not_contacted_reason=reader.body.get("not_contacted_reason"),
    )


def permissions_request(body: Body, reader: Reader, user_id: str) -> PermissionsRequest:
    return PermissionsRequest(
        user_id=user_id, changes=body["changes"], conversations=body["conversations"]
    )


def policy_request(body: Body, reader: Reader, entity: str) -> PolicyRequest:
    return PolicyRequest(workspace=_workspace(body), entity=entity, local_write=body["local_write"])


def success_event_type_request(body: Body, reader: Reader) -> SuccessEventTypeRequest:
    return SuccessEventTypeRequest(
        workspace=_workspace(body), code=body["code"], value=cast(ValueBasis, body["value"])
    )


def _workspace(body: Body) -> Workspace:
    return cast(Workspace, body["workspace"])


Builder = Callable[[Body, Reader], Any]
