"""Layer 2, the adapter kit: the provisioning adapter (`spec/adapter.yaml`) as plain methods.

A vendor writes the methods of the features they can offer, on any object, calling
their own admin API or database; `adapter_app(obj)` serves them over HTTP with routing,
validation, the error envelope and `GET /v1/health` derived from what `obj` implements.
Run it with any ASGI server (`uvicorn module:app`); `examples/adapter/` shows a whole
adapter in one short file.

    from crm_conformance.adapter_kit import IssuedToken, Refusal, TokenRequest, adapter_app

    class MyAdapter:
        def create_token(self, request: TokenRequest) -> IssuedToken: ...
        def revoke_token(self, token_id: str) -> None: ...

    app = adapter_app(MyAdapter())        # GET /v1/health lists ["tokens"]

The kit imports nothing of the harness but `crm_conformance.core.model.paths` (to find the spec),
so the reference server builds its own adapter on it too.
"""

from crm_conformance.adapter_kit._app import adapter_app
from crm_conformance.adapter_kit._contract import (
    Contract,
    Operation,
    load_contract,
    schema_problems,
)
from crm_conformance.adapter_kit._features import (
    FEATURES,
    CampaignsFeature,
    ConversationsFeature,
    FixturesFeature,
    InboundFeature,
    PermissionsFeature,
    PolicyFeature,
    RecordsFeature,
    SuccessEventTypesFeature,
    TokensFeature,
    UsersFeature,
)
from crm_conformance.adapter_kit._types import (
    ERROR_TYPES,
    CampaignRequest,
    ConversationRequest,
    CustomFieldSample,
    Definition,
    Fixtures,
    InboundRequest,
    IssuedToken,
    Participant,
    PermissionsRequest,
    Pipeline,
    PolicyRequest,
    Problem,
    RateLimit,
    RecordRequest,
    Refusal,
    Stage,
    SuccessEventTypeRequest,
    TokenRequest,
    UserRequest,
    Workspace,
    error_envelope,
)

__all__ = [
    "ERROR_TYPES",
    "FEATURES",
    "CampaignRequest",
    "CampaignsFeature",
    "Contract",
    "ConversationRequest",
    "ConversationsFeature",
    "CustomFieldSample",
    "Definition",
    "Fixtures",
    "FixturesFeature",
    "InboundFeature",
    "InboundRequest",
    "IssuedToken",
    "Operation",
    "Participant",
    "PermissionsFeature",
    "PermissionsRequest",
    "Pipeline",
    "PolicyFeature",
    "PolicyRequest",
    "Problem",
    "RateLimit",
    "RecordRequest",
    "RecordsFeature",
    "Refusal",
    "Stage",
    "SuccessEventTypeRequest",
    "SuccessEventTypesFeature",
    "TokenRequest",
    "TokensFeature",
    "UserRequest",
    "UsersFeature",
    "Workspace",
    "adapter_app",
    "error_envelope",
    "load_contract",
    "schema_problems",
]
