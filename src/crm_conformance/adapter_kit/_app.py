"""`adapter_app`: the adapter's HTTP surface as an ASGI app, over a vendor's plain methods.

The app does everything HTTP: routing (paths relative to `adapter_url`), parameter and
body validation against `spec/adapter.yaml`, the typed requests of `_types`, status
codes, the `{error: {...}}` envelope with `X-Request-ID`, and `GET /v1/health` listing
the features the given objects implement. An operation of a feature nobody implements
answers 501 `not_implemented`; a method's answer that breaks the contract answers 500
`invalid_answer` naming the field, so a vendor finds the mistake on the first call.
Given a secret (`token=`), every request without it answers 401 `unauthorized` before
any routing (`_secret`).
"""

import dataclasses
import json
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

import crm_conformance.adapter_kit._requests as requests
from crm_conformance.adapter_kit._contract import (
    Contract,
    Operation,
    load_contract,
    schema_problems,
)
from crm_conformance.adapter_kit._features import FEATURES, implemented
from crm_conformance.adapter_kit._secret import SCHEME, check_secret, presents
from crm_conformance.adapter_kit._types import Problem, Refusal, error_envelope

log = logging.getLogger("crm_conformance.adapter_kit")


@dataclass(frozen=True)
class Inputs:
    """What one request brings a handler: the validated body, path and query parameters."""

    body: Mapping[str, Any]
    params: Mapping[str, str]
    contract: Contract


Handler = Callable[[Any, Inputs], tuple[int, Any]]
"""(the implementing object, inputs) -> (status, answer body or None)."""


def _typed(build: Callable[..., Any], inputs: Inputs, *extra: Any) -> Any:
    """The typed request, or a 422 naming what the schema could not check."""
    reader = requests.Reader(inputs.body)
    typed = build(inputs.body, reader, *extra)
    if reader.problems:
        raise Refusal.invalid(reader.problems)
    return typed


def _fixtures(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    return 200, impl.fixtures(inputs.params["workspace"])


def _create_token(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    issued = impl.create_token(_typed(requests.token_request, inputs))
    return 201, {
        "id": issued.id,
        "token": issued.token,
        "kind": issued.kind,
        "scopes": list(issued.scopes),
        "user_id": issued.user_id,
        "state": issued.state,
    }


def _revoke_token(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    impl.revoke_token(inputs.params["token_id"])
    return 200, {"id": inputs.params["token_id"], "state": "revoked"}


def _create_user(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    return 201, impl.create_user(_typed(requests.user_request, inputs))


def _set_permissions(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    user_id = inputs.params["user_id"]
    in_force = impl.set_permissions(_typed(requests.permissions_request, inputs, user_id))
    return 200, {
        "user_id": user_id,
        "changes": bool(in_force.changes),
        "conversations": bool(in_force.conversations),
    }


def _create_record(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    request = _typed(requests.record_request, inputs, inputs.contract.derived_fields)
    return 201, impl.create_record(request)


def _delete_record(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    impl.delete_record(inputs.params["record_id"])
    return 204, None


def _create_conversation(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    return 201, impl.create_conversation(_typed(requests.conversation_request, inputs))


def _inbound(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    return 200, impl.inbound(_typed(requests.inbound_request, inputs))


def _create_campaign(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    return 201, impl.create_campaign(_typed(requests.campaign_request, inputs))


def _set_policy(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    entity = inputs.params["entity"]
    in_force = impl.set_policy(_typed(requests.policy_request, inputs, entity))
    return 200, {"entity": entity, "local_write": bool(in_force)}


def _create_success_event_type(impl: Any, inputs: Inputs) -> tuple[int, Any]:
    request = _typed(requests.success_event_type_request, inputs)
    done = impl.create_success_event_type(request)
    return (201 if done == "created" else 200), {"code": request.code, "value": request.value}


HANDLERS: dict[str, Handler] = {
    "getFixtures": _fixtures,
    "createToken": _create_token,
    "revokeToken": _revoke_token,
    "createUser": _create_user,
    "setPermissions": _set_permissions,
    "createRecord": _create_record,
    "deleteRecord": _delete_record,
    "createConversation": _create_conversation,
    "inboundMessage": _inbound,
    "createCampaign": _create_campaign,
    "setPolicy": _set_policy,
    "createSuccessEventType": _create_success_event_type,
}
"""operationId -> handler, for every operation of a feature."""


def adapter_app(
    *implementations: object, contract: Contract | None = None, token: str | None = None
) -> Starlette:
    """The adapter's ASGI app over `implementations`, objects with the methods of the
    features they offer (see `FEATURES`). Raises `TypeError` for a feature half done.

    `token`: a secret every request must carry as `Authorization: Bearer <token>` (the
    target file's `adapter_token`); without it or with another, 401 `unauthorized`.
    None serves anyone who can reach the app: loopback only (`spec/adapter.yaml`).
    """
    secret = check_secret(token)
    contract = contract if contract is not None else load_contract()
    offered = implemented(implementations)
    operations = [op for op in contract.operations if op.feature is not None]
    if set(contract.features) != set(FEATURES) or {op.operation_id for op in operations} != set(
        HANDLERS
    ):
        raise RuntimeError("the adapter kit and spec/adapter.yaml name different operations")
    features = [name for name in contract.features if name in offered]

    async def health(request: Request) -> Response:
        return _json(200, {"ok": True, "features": features}, _request_id(request))

    routes = [Route("/v1/health", health, methods=["GET"])]
    for operation in operations:
        implementation = offered.get(operation.feature or "")
        routes.append(
            Route(
                operation.path,
                _endpoint(operation, implementation, features, contract),
                methods=[operation.method],
            )
        )

    async def routing_miss(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        request_id = _request_id(request)
        if exc.status_code == 405:
            refusal = Refusal(405, "method_not_allowed", f"{request.method} is not supported here.")
            return _error(refusal, request_id, headers=dict(exc.headers or {}))
        return _error(Refusal(404, "not_found", f"No route {request.url.path}."), request_id)

    middleware = [Middleware(_RequireSecret, secret=secret)] if secret is not None else []
    return Starlette(
        routes=routes,
        exception_handlers={HTTPException: routing_miss},
        middleware=middleware,
    )


class _RequireSecret:
    """Answers 401 in the error envelope, before any routing, to a request without the
    adapter's secret."""

    def __init__(self, app: ASGIApp, secret: str) -> None:
        self.app = app
        self.secret = secret

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if presents(request.headers.get("authorization"), self.secret):
            await self.app(scope, receive, send)
            return
        refusal = Refusal(
            401,
            "unauthorized",
            "This adapter requires its secret: send Authorization: Bearer <secret> "
            "(adapter_token in the target file).",
        )
        headers = {"WWW-Authenticate": f'{SCHEME} realm="adapter"'}
        await _error(refusal, _request_id(request), headers)(scope, receive, send)


def _endpoint(
    operation: Operation, implementation: object | None, features: list[str], contract: Contract
) -> Callable[[Request], Any]:
    handler = HANDLERS[operation.operation_id]

    async def endpoint(request: Request) -> Response:
        request_id = _request_id(request)
        try:
            if implementation is None:
                raise Refusal(
                    501,
                    "not_implemented",
                    f"This adapter does not offer feature {operation.feature!r} "
                    f"(GET /v1/health lists: {', '.join(features) or 'nothing'}).",
                )
            inputs = Inputs(
                body=await _body(operation, request),
                params=_parameters(operation, request),
                contract=contract,
            )
            status, answer = await run_in_threadpool(handler, implementation, inputs)
            answer = _plain(answer)
            problems = _answer_problems(operation, status, answer)
            if problems:
                raise Refusal(
                    500,
                    "invalid_answer",
                    f"The adapter's {operation.operation_id} answered outside the contract: "
                    + "; ".join(f"{p.field}: {p.message}" for p in problems[:5]),
                    detail=problems,
                )
        except Refusal as refusal:
            return _error(refusal, request_id)
        except Exception as exc:
            log.exception("adapter %s failed (request %s)", operation.operation_id, request_id)
            failure = Refusal(
                500, "internal_error", f"The adapter failed: {type(exc).__name__}: {exc}"
            )
            return _error(failure, request_id)
        return _json(status, answer, request_id)

    return endpoint


async def _body(operation: Operation, request: Request) -> Mapping[str, Any]:
    if operation.body is None:
        return {}
    raw = await request.body()
    if not raw.strip():
        raise Refusal.invalid([Problem("body", "is required: a JSON object", "missing")])
    try:
        body = json.loads(raw)
    except ValueError:
        raise Refusal(400, "bad_request", "The body is not valid JSON.") from None
    problems = schema_problems(operation.body, body)
    if problems:
        raise Refusal.invalid(problems)
    assert isinstance(body, dict)
    return body


def _parameters(operation: Operation, request: Request) -> dict[str, str]:
    """Path and query parameters, checked; unknown or repeated query names are refused."""
    known = {p.name for p in operation.parameters if p.location == "query"}
    problems = [
        Problem(name, "unknown query parameter", "unknown_parameter")
        for name in dict.fromkeys(request.query_params.keys())
        if name not in known
    ]
    values: dict[str, str] = {}
    for parameter in operation.parameters:
        if parameter.location == "path":
            given = [request.path_params[parameter.name]]
        else:
            given = request.query_params.getlist(parameter.name)
        if len(given) > 1:
            problems.append(Problem(parameter.name, "must be given at most once", "repeated"))
        elif not given:
            if parameter.required:
                problems.append(Problem(parameter.name, "is required", "missing"))
        else:
            found = schema_problems(parameter.validator, given[0], prefix=parameter.name)
            problems.extend(found)
            values[parameter.name] = given[0]
    if problems:
        raise Refusal.invalid(problems, status=400)
    return values


def _plain(answer: Any) -> Any:
    """A method's answer as plain JSON data: dataclasses and mappings become dicts,
    tuples lists."""
    if dataclasses.is_dataclass(answer) and not isinstance(answer, type):
        return _plain(dataclasses.asdict(answer))
    if isinstance(answer, Mapping):
        return {key: _plain(value) for key, value in answer.items()}
    if isinstance(answer, list | tuple):
        return [_plain(item) for item in answer]
    return answer


def _answer_problems(operation: Operation, status: int, answer: Any) -> list[Problem]:
    validator = operation.answers.get(status)
    if validator is None:
        return []
    return schema_problems(validator, answer)


def _request_id(request: Request) -> str:
    """The id the surrounding server gave this request, or a new one."""
    given = request.scope.get("state", {}).get("request_id")
    return str(given) if given else f"req_{secrets.token_hex(16)}"


def _json(
    status: int, body: Any, request_id: str, headers: Mapping[str, str] | None = None
) -> Response:
    if body is None:
        return Response(status_code=status, headers={"X-Request-ID": request_id})
    return Response(
        json.dumps(body, separators=(",", ":"), default=str),
        status_code=status,
        media_type="application/json",
        headers={"X-Request-ID": request_id, **(headers or {})},
    )


def _error(refusal: Refusal, request_id: str, headers: Mapping[str, str] | None = None) -> Response:
    """The `{error: {...}}` envelope of the public API, `request_id` equal to the header."""
    body = error_envelope(
        refusal.status,
        refusal.code,
        refusal.message,
        param=refusal.param,
        detail=refusal.detail,
        request_id=request_id,
    )
    return _json(refusal.status, body, request_id, headers)
