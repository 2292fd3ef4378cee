"""`create_app`: the reference server as one Starlette application.

Every resource module offers a `routes: RouteTable`; this module mounts them, wraps
them in `ApiMiddleware` (request id, authentication, rate limit, headers) and turns
routing misses into the error envelope (404 `not_found`, 405 `api_error`).
"""

import importlib
import importlib.util
import re
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount

from crm_conformance.adapter_kit import adapter_app
from crm_conformance.reference import (
    activities,
    contact_list,
    contact_search,
    contact_upsert,
    contacts,
    deal_list,
    deals,
    directory,
    field_definitions,
    notes,
    organizations,
    pipelines,
    tags,
)
from crm_conformance.reference.adapter import Backend, ReferenceAdapter
from crm_conformance.reference.adapter_domain import DomainAdapter
from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.choices import conventions_for
from crm_conformance.reference.dispatch import starlette_routes
from crm_conformance.reference.middleware import ApiMiddleware
from crm_conformance.reference.rendering import error_response
from crm_conformance.reference.routing import RouteTable
from crm_conformance.reference.seed import seed
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Store

CORE_TABLES: tuple[RouteTable, ...] = (
    contact_search.routes,  # before contacts: /v1/contacts/search is not a contact id
    contact_upsert.routes,  # and neither is /v1/contacts/upsert
    contacts.routes,
    contact_list.routes,
    organizations.routes,
    deals.routes,
    deal_list.routes,
    activities.routes,
    tags.routes,
    notes.routes,
    directory.routes,
    pipelines.routes,
    field_definitions.routes,
)

DOMAIN_MODULES = (
    "conversations",
    "campaigns",
    "success_events",
    "sync",
    "meta",
    "optional_operations",
)
"""Modules of the domain areas, each with a `routes` table, mounted when present."""
ADAPTER_PATH = "/_adapter"

RECORD_ID = re.compile(r"/[a-z]+_[0-9a-f]{32}(/|$)")
"""A path segment that is a record id (`record_path_method_not_allowed_404`)."""
"""Where the provisioning adapter is mounted: `adapter_url` is `<origin>/_adapter`."""


def _optional_routes(name: str) -> RouteTable | None:
    qualified = f"{__package__}.{name}"
    if importlib.util.find_spec(qualified) is None:
        return None
    routes: RouteTable = importlib.import_module(qualified).routes
    return routes


class ReferenceApp(Starlette):
    """The Starlette app, carrying its settings, store and seeded tokens."""

    settings: ServerSettings
    store: Store
    seeded_tokens: dict[str, str]
    """Full-scope workspace token of each seeded workspace, by workspace name."""
    adapter_mounted: bool
    conventions: dict[str, Any]
    """What this server chose where the document says "not shown" (its variants' choices
    included), for the target file it writes."""


def create_app(settings: ServerSettings | None = None) -> ReferenceApp:
    """The reference server with a freshly seeded store."""
    settings = settings or ServerSettings()
    store = Store(settings.db)
    with store.transaction() as tx:
        seeded = seed(tx, settings.secret)
    tables = list(CORE_TABLES)
    tables += [t for t in map(_optional_routes, DOMAIN_MODULES) if t is not None]
    routes: list[BaseRoute] = list(starlette_routes(tables, settings, store))
    if settings.adapter:
        # The adapter is built on the kit vendors use (crm_conformance.adapter_kit).
        backend = Backend(settings, store)
        kit = adapter_app(
            ReferenceAdapter(backend), DomainAdapter(backend), token=settings.adapter_token
        )
        routes.append(Mount(ADAPTER_PATH, app=kit))

    async def routing_miss(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        on_contacts = request.url.path == "/v1/contacts"
        on_record = RECORD_ID.search(request.url.path) is not None
        as_404 = (
            settings.has_fault("method_not_allowed_404")
            or (on_contacts and settings.has_fault("contact_list_method_not_allowed_404"))
            or (on_record and settings.has_fault("record_path_method_not_allowed_404"))
        )
        if exc.status_code == 405 and not as_404:
            error = ApiError(
                405,
                "method_not_allowed",
                f"{request.method} is not supported on {request.url.path}.",
                headers=dict(exc.headers or {}),
            )
        elif exc.status_code in (404, 405) and settings.has_variant("unknown_path_400"):
            error = ApiError(400, "bad_request", f"{request.url.path} is not a path of this API.")
        elif exc.status_code == 404 and settings.has_fault("unknown_path_framework_body"):
            return JSONResponse({"detail": "Not Found"}, 404)  # the framework's own answer
        elif exc.status_code in (404, 405):
            error = ApiError(404, "not_found", f"No route {request.url.path}.")
        else:
            error = ApiError(exc.status_code, "bad_request", str(exc.detail))
        return error_response(error, request.state.request_id, settings)

    middleware = [Middleware(ApiMiddleware, settings=settings, store=store)]
    if settings.has_variant("gzip_answers"):  # outermost: errors and 404s are compressed too
        middleware.insert(0, Middleware(GZipMiddleware, minimum_size=1))  # not empty bodies (204)
    app = ReferenceApp(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: routing_miss},
    )
    app.settings = settings
    app.store = store
    app.seeded_tokens = seeded
    app.adapter_mounted = settings.adapter
    app.conventions = conventions_for(settings.variants)
    return app
