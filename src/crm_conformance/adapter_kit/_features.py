"""The features of the adapter contract as typed protocols of plain methods.

A vendor implements the features they can, as methods of any object (no base class to
inherit); the kit finds which features an object implements by the methods it has, and
`GET /v1/health` lists exactly those. Each feature's methods go together: an object
with some of them but not all is a mistake the kit refuses when the app is built.

Methods are synchronous and run in a worker thread, so they may call an admin API or a
database directly. They answer what the public API would render, and raise `Refusal`
for a request they cannot honour.
"""

from collections.abc import Mapping
from typing import Any, Protocol

from crm_conformance.adapter_kit._types import (
    CampaignRequest,
    ConversationRequest,
    Definition,
    Fixtures,
    InboundRequest,
    IssuedToken,
    PermissionsRequest,
    PolicyRequest,
    RecordRequest,
    SuccessEventTypeRequest,
    TokenRequest,
    UserRequest,
    Workspace,
)


class FixturesFeature(Protocol):
    """`fixtures`: `GET /v1/fixtures`."""

    def fixtures(self, workspace: Workspace) -> Fixtures:
        """Pipelines (stages in order), lost reasons, active teammates, contact custom fields."""
        ...


class TokensFeature(Protocol):
    """`tokens`: `POST /v1/tokens` and `POST /v1/tokens/{token_id}/revoke`."""

    def create_token(self, request: TokenRequest) -> IssuedToken:
        """A token of `request.workspace` with exactly the scopes asked for, in that state."""
        ...

    def revoke_token(self, token_id: str) -> None:
        """Revoke at once (again is fine); `Refusal.not_found("token")` for an unknown id."""
        ...


class UsersFeature(Protocol):
    """`users`: `POST /v1/users`."""

    def create_user(self, request: UserRequest) -> Mapping[str, Any]:
        """The new member as `GET /v1/users` renders them."""
        ...


class PermissionsFeature(Protocol):
    """`permissions`: `PUT /v1/users/{user_id}/permissions`."""

    def set_permissions(self, request: PermissionsRequest) -> PermissionsRequest:
        """Withhold or give back a person's permissions (a person `create_user` made;
        `Refusal.not_found("user")` for another id); answer those now in force."""
        ...


class RecordsFeature(Protocol):
    """`records`: `POST /v1/records` and `DELETE /v1/records/{record_id}`."""

    def create_record(self, request: RecordRequest) -> Mapping[str, Any]:
        """The record as the public API renders it on retrieve."""
        ...

    def delete_record(self, record_id: str) -> None:
        """Delete a con_/org_/deal_/act_/tag_ record of any workspace (the deletion feed
        lists it); `Refusal.not_found("record")` for an unknown id."""
        ...


class ConversationsFeature(Protocol):
    """`conversations`: `POST /v1/conversations`."""

    def create_conversation(self, request: ConversationRequest) -> Mapping[str, Any]:
        """The conversation as the public API renders it."""
        ...


class InboundFeature(Protocol):
    """`inbound`: `POST /v1/conversations/inbound`."""

    def inbound(self, request: InboundRequest) -> Mapping[str, Any]:
        """The open conversation the message landed in (a new one after a close)."""
        ...


class CampaignsFeature(Protocol):
    """`campaigns`: `POST /v1/campaigns`."""

    def create_campaign(self, request: CampaignRequest) -> Mapping[str, Any]:
        """The campaign as the public API renders it."""
        ...


class PolicyFeature(Protocol):
    """`policy`: `PUT /v1/policy/{entity}`."""

    def set_policy(self, request: PolicyRequest) -> bool:
        """Mirror the entity (`local_write` false) or stop; answer the policy now in force."""
        ...


class SuccessEventTypesFeature(Protocol):
    """`success_event_types`: `POST /v1/success-event-types`."""

    def create_success_event_type(self, request: SuccessEventTypeRequest) -> Definition:
        """`created`, or `existing` when the code exists with the same basis;
        `Refusal.conflict(...)` when it exists with the other basis."""
        ...


FEATURES: dict[str, type[Any]] = {
    "fixtures": FixturesFeature,
    "tokens": TokensFeature,
    "users": UsersFeature,
    "permissions": PermissionsFeature,
    "records": RecordsFeature,
    "conversations": ConversationsFeature,
    "inbound": InboundFeature,
    "campaigns": CampaignsFeature,
    "policy": PolicyFeature,
    "success_event_types": SuccessEventTypesFeature,
}
"""Feature name (as `GET /v1/health` lists it, the spec's `x-feature`) -> its protocol."""


def methods_of(feature: str) -> tuple[str, ...]:
    """The method names a feature's protocol declares, in declaration order."""
    protocol = FEATURES[feature]
    return tuple(
        name
        for name, value in vars(protocol).items()
        if callable(value) and not name.startswith("_")
    )


def implemented(implementations: tuple[object, ...]) -> dict[str, object]:
    """Feature -> the object implementing it; raises `TypeError` for a feature half done
    or implemented twice, naming the methods."""
    found: dict[str, object] = {}
    for feature in FEATURES:
        methods = methods_of(feature)
        for implementation in implementations:
            present = [name for name in methods if callable(getattr(implementation, name, None))]
            if not present:
                continue
            missing = [name for name in methods if name not in present]
            owner = type(implementation).__name__
            if missing:
                raise TypeError(
                    f"{owner} implements {', '.join(present)} of feature {feature!r} but not "
                    f"{', '.join(missing)}: implement every method of a feature, or none"
                )
            if feature in found:
                raise TypeError(
                    f"feature {feature!r} is implemented by both {type(found[feature]).__name__} "
                    f"and {owner}: give each feature to one object"
                )
            found[feature] = implementation
    return found
