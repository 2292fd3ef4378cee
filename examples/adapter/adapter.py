"""A vendor's provisioning adapter in one file: a sidecar over the server's own endpoints.

The kit (`crm_conformance.adapter_kit`) does the HTTP of `spec/adapter.yaml`: routing,
validation, errors, and `GET /v1/health` listing the features this class implements.
Each method below gets a typed, already validated request and calls the server's
internal admin endpoints. Here those are the reference server's control endpoints
(`CRM_ADMIN_URL`); put your own admin API or database calls in their place.

    export CRM_ADAPTER_TOKEN=<a long random secret>
    CRM_ADMIN_URL=http://127.0.0.1:8000/_adapter uvicorn adapter:app --port 9100

then set `adapter_url = "http://127.0.0.1:9100"` and `[adapter_token] value_env =
"CRM_ADAPTER_TOKEN"` in the target file (the adapter mints tokens: with the secret set,
the kit answers 401 to any request without it) and check it with
`crm-conformance adapter-check --target my-target.toml`. Five features are here; the
kit answers 501 for the others and the tests needing them are not applicable.
"""

import os
from typing import Any

import httpx

from crm_conformance.adapter_kit import (
    ConversationRequest,
    Fixtures,
    IssuedToken,
    Pipeline,
    RecordRequest,
    Refusal,
    Stage,
    TokenRequest,
    UserRequest,
    Workspace,
    adapter_app,
)

admin = httpx.Client(base_url=os.environ.get("CRM_ADMIN_URL", "http://127.0.0.1:8000/_adapter"))


def call(method: str, path: str, **options: Any) -> dict[str, Any]:
    """One internal call; its refusal becomes the adapter's (same status and code)."""
    response = admin.request(method, path, **options)
    if response.is_error:
        error = response.json().get("error", {})
        raise Refusal(response.status_code, error.get("code", "internal"), error.get("message", ""))
    answer: dict[str, Any] = response.json() if response.content else {}
    return answer


class SidecarAdapter:
    def fixtures(self, workspace: Workspace) -> Fixtures:
        found = call("GET", "/v1/fixtures", params={"workspace": workspace})
        return Fixtures(
            pipelines=tuple(
                Pipeline(id=p["id"], stages=tuple(Stage(**s) for s in p["stages"]))
                for p in found["pipelines"]
            ),
            lost_reasons=tuple(found["lost_reasons"]),
            users=tuple(found["users"]),
            contact_custom_fields=tuple(found["contact_custom_fields"]),
        )

    def create_token(self, request: TokenRequest) -> IssuedToken:
        body: dict[str, Any] = {"workspace": request.workspace, "kind": request.kind}
        body |= {"state": request.state, "live": request.live}
        if request.scopes is not None:
            body["scopes"] = list(request.scopes)
        if request.user_id is not None:
            body["user_id"] = request.user_id
        if request.rate_limit is not None:
            limit = request.rate_limit
            body["rate_limit"] = {"limit": limit.limit, "window_seconds": limit.window_seconds}
        made = call("POST", "/v1/tokens", json=body)
        return IssuedToken(**{**made, "scopes": tuple(made["scopes"])})

    def revoke_token(self, token_id: str) -> None:
        call("POST", f"/v1/tokens/{token_id}/revoke")

    def create_user(self, request: UserRequest) -> dict[str, Any]:
        body = {"workspace": request.workspace, "name": request.name}
        return call("POST", "/v1/users", json={k: v for k, v in body.items() if v is not None})

    def create_record(self, request: RecordRequest) -> dict[str, Any]:
        body = {"workspace": request.workspace, "kind": request.kind, "fields": request.fields}
        for name in ("created_at", "updated_at"):
            if (instant := getattr(request, name)) is not None:
                body[name] = instant.isoformat()
        return call("POST", "/v1/records", json=body)

    def delete_record(self, record_id: str) -> None:
        call("DELETE", f"/v1/records/{record_id}")

    def create_conversation(self, request: ConversationRequest) -> dict[str, Any]:
        body = {
            "workspace": request.workspace,
            "status": request.status,
            "handler": request.handler,
            "channel": request.channel,
            "agent_available": request.agent_available,
        }
        if not request.new_contact:
            body["contact_id"] = request.contact_id
        if request.user_id is not None:
            body["user_id"] = request.user_id
        return call("POST", "/v1/conversations", json=body)


app = adapter_app(SidecarAdapter(), token=os.environ.get("CRM_ADAPTER_TOKEN") or None)
