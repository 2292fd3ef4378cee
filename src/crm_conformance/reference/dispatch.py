"""Dispatch: how a request reaches its handler, once the routes are declared.

`starlette_routes` mounts every `RouteTable`'s routes, one Starlette route per path. For
each request it builds the `Call`, then, before the handler runs: checks the declared
scopes (403 `insufficient_scope`), holds a write to the workspace's policy (403
`local_write_denied` for a mirrored entity) and to the permissions of the person an OAuth
token acts for (`grants`) and, for every write, applies the `Idempotency-Key`. Reads run
in the event loop, writes in a worker thread.
"""

import asyncio
import random
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from crm_conformance.reference import grants, idempotency, policy
from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.rendering import error_envelope, error_response, render
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.routing import (
    WRITE_METHODS,
    Call,
    RouteSpec,
    RouteTable,
    require_scopes,
)
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Store


def starlette_routes(
    tables: list[RouteTable], settings: ServerSettings, store: Store
) -> list[Route]:
    """Starlette routes for the tables; one Route per path, with every method declared."""
    by_path: dict[str, dict[str, RouteSpec]] = {}
    for table in tables:
        for spec in table.specs:
            if not spec.mounted(settings):
                continue
            path = spec.path
            if path == "/v1/audiences" and settings.has_fault("audience_list_unversioned"):
                path = "/audiences"  # its router was included without the version prefix
            methods = by_path.setdefault(path, {})
            if spec.method in methods:
                raise ValueError(f"{spec.method} {spec.path} is declared twice")
            methods[spec.method] = spec
    routes = []
    for path, specs in by_path.items():
        route = Route(path, _endpoint(specs, settings, store, {}), methods=list(specs))
        literals = {
            other: sorted(methods)
            for other, methods in by_path.items()
            if other != path and "{" not in other and route.path_regex.match(other)
        }
        if literals:
            route = Route(path, _endpoint(specs, settings, store, literals), methods=list(specs))
        routes.append(route)
        if settings.has_fault("trailing_slash_unscoped") and "POST" in specs and "{" not in path:
            alias = {"POST": specs["POST"]}  # a second router mounted without the guard
            routes.append(
                Route(f"{path}/", _endpoint(alias, settings, store, {}), methods=["POST"])
            )
    return routes


def _endpoint(
    specs: dict[str, RouteSpec],
    settings: ServerSettings,
    store: Store,
    literals: dict[str, list[str]],
) -> Callable[[Request], Any]:
    """The endpoint of one path. `literals` are literal paths its parameters would also
    match (`/v1/contacts/search` for `/v1/contacts/{contact_id}`): a method the literal
    path lacks answers 405 there instead of reaching this route with "search" as an id."""

    guarded = not settings.has_variant("put_contact_update")

    async def endpoint(request: Request) -> Response:
        if request.url.path in literals and guarded:
            allowed = literals[request.url.path]
            raise HTTPException(405, headers={"Allow": ", ".join(allowed)})
        spec = specs[request.method if request.method != "HEAD" else "GET"]
        call = Call(
            settings=settings,
            store=store,
            method=request.method,
            path=request.url.path,
            path_params=dict(request.path_params),
            query=request.query_params,
            headers=request.headers,
            raw_body=await request.body(),
            request_id=request.state.request_id,
            principal=getattr(request.state, "principal", None),
        )
        if settings.has_variant("added_latency"):
            await asyncio.sleep(random.uniform(0.005, 0.02))
        try:
            # A read runs in the event loop: every store access is serialized anyway, and
            # the hop to a worker thread cost a list more than rendering its page. Writes
            # keep the thread, so a duplicate can arrive while one is in flight.
            if spec.method == "GET":
                reply = _run(spec, call)
            else:
                reply = await run_in_threadpool(_run, spec, call)
        except ApiError as error:
            if spec.method == "PATCH" and settings.has_fault("update_detail_lists_first_problem"):
                error = ApiError(  # the update's own validator stops at the first bad field
                    error.status,
                    error.code,
                    error.message,
                    param=error.param,
                    detail=(error.detail or [])[:1] or None,
                )
            return error_response(error, call.request_id, settings)
        return render(reply, call)

    return endpoint


def _run(spec: RouteSpec, call: Call) -> Reply:
    if not spec.authenticated:
        return spec.handler(call)
    assert call.principal is not None
    if spec.precheck is not None:
        spec.precheck(call)
    if call.settings.has_fault("handoff_needs_read_only") and call.path.endswith("/handoff"):
        require_scopes(call, ("conversations:read",))
    elif call.settings.has_fault("trailing_slash_unscoped") and call.path.endswith("/"):
        pass
    else:
        require_scopes(call, spec.needed_scopes(call.settings))
    exempt = (
        (call.principal.kind == "oauth" and call.settings.has_fault("policy_ignored_for_oauth"))
        or (spec.method != "POST" and call.settings.has_fault("policy_checked_on_posts_only"))
        or (spec.method == "DELETE" and call.settings.has_fault("policy_ignored_on_deletes"))
    )
    if spec.method in WRITE_METHODS and spec.entity is not None and not exempt:
        with call.transaction() as tx:
            mirrored = not policy.local_write(tx, call.workspace, spec.entity)
        if mirrored and call.user_id and call.settings.has_variant("mirrored_refused_as_grant"):
            raise ApiError(
                403,
                "user_grant_denied",
                f"No person may change {spec.entity}: an external CRM owns them here.",
            )
        if mirrored and call.settings.has_fault("mirrored_write_forbidden"):
            raise ApiError(403, "forbidden", f"Writes to {spec.entity} are not allowed.")
        with call.transaction() as tx:
            policy.require_local_write(tx, call.workspace, spec.entity)
    read_of = spec.scopes[0].split(":")[0] if spec.scopes else None
    if (
        spec.method == "GET"
        and read_of in policy.ENTITIES
        and call.settings.has_fault("mirrored_entity_refuses_reads")
    ):
        with call.transaction() as tx:
            policy.require_local_write(tx, call.workspace, read_of)  # keyed on entity alone
    if spec.method in WRITE_METHODS and spec.entity is not None and call.user_id is not None:
        with call.transaction() as tx:
            grants.require_grant(
                tx,
                call.workspace,
                call.user_id,
                entity=spec.entity,
                method=spec.method,
                path=call.path,
                settings=call.settings,
            )
    if spec.method not in WRITE_METHODS or idempotency.ignores_key(
        spec.method, spec.path, call.settings
    ):
        return spec.handler(call)
    target = call.path + (f"?{call.query}" if call.query else "")
    if call.settings.has_fault("idempotency_print_ignores_path"):
        target = spec.path  # the route's template: every record's path prints alike
    body = call.raw_body
    if spec.path.endswith("/assign") and call.settings.has_fault("assign_key_ignores_body"):
        body = b""  # the moves were wired as if their bodies were fixed
    return idempotency.run_once(
        call.store,
        call.settings,
        workspace=call.workspace,
        token_id=call.principal.token_id,
        key=call.headers.get(idempotency.HEADER),
        fingerprint=idempotency.fingerprint(spec.method, target, body),
        handler=lambda: _answered(spec, call),
    )


def _answered(spec: RouteSpec, call: Call) -> Reply:
    """The handler's reply; a refusal its key keeps (the variant `replays_refusals`) too,
    rendered as answered, so that a repeat replays it."""
    try:
        return spec.handler(call)
    except ApiError as error:
        if not idempotency.keeps(error.status, call.settings):
            raise
        answered, body = error_envelope(error, call.request_id, call.settings)
        return Reply(answered.status, body, dict(answered.headers))
