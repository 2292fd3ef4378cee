"""The outer layer every request passes: request id, authentication, rate limit, headers.

Pure ASGI rather than `BaseHTTPMiddleware`, so it adds headers to every response
(errors, 404 and 405 included) without buffering bodies. For `/v1` paths it
authenticates the bearer token before routing, so an unknown path with a bad token is
a 401 like any other, and counts the request against the token's allowance. Requests
to the provisioning adapter (`/_adapter/...`) carry no token and are not counted.
"""

import hashlib
import logging
import secrets
import time
import uuid
from dataclasses import replace

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from crm_conformance.reference import idempotency
from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.rate_limits import Allowance, RateLimiter, SlidingLog
from crm_conformance.reference.rendering import error_response
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Store
from crm_conformance.reference.tokens import Principal, authenticate, stored_form, unauthorized

log = logging.getLogger("crm_conformance.reference")


def _every_50th_refused(allowance: Allowance) -> Allowance:
    """The `occasional_429` variant: a burst limit refuses every 50th request for 1 s."""
    used = allowance.limit - allowance.remaining
    if allowance.allowed and used % 50 == 0:
        return Allowance(allowance.limit, 0, 1, allowed=False)
    return allowance


def _per_token_allowance(settings: ServerSettings, limit: int, window: int) -> tuple[int, int]:
    """The allowance of a valid token the adapter gave no `rate_limit` of its own.

    The production-like variants limit tokens only ("Rate limits are per token"); requests
    without a valid token keep the server's own limit.
    """
    if settings.has_variant("rate_limit_300_per_minute"):
        return 300, 60
    if settings.has_variant("sliding_rate_limit"):
        return 300, 120
    return limit, window


class ApiMiddleware:
    """Request id, authentication and rate limit before the app; headers after it."""

    def __init__(self, app: ASGIApp, *, settings: ServerSettings, store: Store) -> None:
        self.app = app
        self.settings = settings
        self.store = store
        sliding = settings.has_variant("sliding_rate_limit")
        self.limiter = SlidingLog() if sliding else RateLimiter()
        self._fixed_request_id = f"req_{secrets.token_hex(16)}"

    def _request_id(self) -> str:
        if self.settings.has_fault("request_id_fixed_per_process"):
            return self._fixed_request_id
        if self.settings.has_variant("uuid_request_ids"):
            return str(uuid.uuid4())
        return f"req_{secrets.token_hex(16)}"

    def _authenticate(self, authorization: str | None, method: str) -> Principal:
        if not authorization and self.settings.has_fault("missing_token_bad_request"):
            raise ApiError(400, "bad_request", "The Authorization header is required.")
        revocation = not (
            self.settings.has_fault("revoked_token_accepted")
            or (method == "DELETE" and self.settings.has_fault("revocation_unchecked_on_deletes"))
        )
        verifier = not self.settings.has_fault("verifier_not_checked")
        expiry = not self.settings.has_fault("expired_workspace_token_accepted")
        bare = bool(authorization) and " " not in (authorization or "").strip()
        if bare and self.settings.has_fault("bare_token_accepted"):  # the scheme is optional
            authorization = f"Bearer {(authorization or '').strip()}"
        try:
            with self.store.transaction() as tx:
                return authenticate(
                    tx,
                    self.settings.secret,
                    authorization,
                    honour_revocation=revocation,
                    check_verifier=verifier,
                    honour_workspace_expiry=expiry,
                    revoked_forbidden=self.settings.has_fault("revoked_token_forbidden"),
                    selector_case_folded=self.settings.has_fault("token_selector_case_folded"),
                )
        except ApiError as error:
            on_writes = self.settings.has_fault("expired_oauth_unauthorized_on_writes")
            if error.code == "token_expired" and (
                self.settings.has_fault("expired_oauth_unauthorized")
                or (on_writes and method not in ("GET", "HEAD"))
            ):
                raise unauthorized("The bearer token is no longer valid.") from None
            renamed = self.settings.has_fault("bad_token_invalid_token")
            if error.code == "unauthorized" and authorization and renamed:
                raise ApiError(401, "invalid_token", error.message) from None
            raise

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with idempotency.ACTIVE.request():
            await self._answer(scope, receive, send)

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        request_id = self._request_id()
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        headers = Headers(scope=scope)
        authorization = headers.get("authorization")
        if authorization and " " in authorization and self.settings.faults:  # token-form faults
            scheme, _, value = authorization.partition(" ")
            authorization = f"{scheme} {stored_form(value, self.settings.faults)}"
        path: str = scope["path"]
        problem: ApiError | None = None
        bucket = "client:" + str((scope.get("client") or ("?",))[0])
        limit, window = self.settings.rate_limit, self.settings.rate_window
        if self.settings.has_variant("small_rate_limit"):
            limit, window = 1000, 10
        if path == "/v1" or path.startswith("/v1/"):
            try:
                # In the event loop, not a worker thread: a token lookup is one indexed
                # query, cheaper than the thread hop, and every access is serialized anyway.
                principal = self._authenticate(authorization, scope["method"])
            except ApiError as error:
                problem = error
                if authorization:
                    bucket = "credential:" + hashlib.sha256(authorization.encode()).hexdigest()
            else:
                chosen = headers.get("x-workspace-id") or headers.get("x-tenant-id")
                if chosen and (
                    self.settings.has_fault("workspace_header_honoured")
                    or (
                        path == "/v1/contacts"
                        and self.settings.has_fault("contact_list_workspace_header")
                    )
                ):
                    # a support override left in: any value switches to the other workspace
                    other = "secondary" if principal.workspace != "secondary" else "primary"
                    principal = replace(principal, workspace=other)
                state["principal"] = principal
                bucket = "token:" + principal.token_id
                if self.settings.has_fault("rate_limit_per_workspace"):
                    bucket = "token:workspace-" + principal.workspace
                if principal.rate_limit:
                    limit, window = principal.rate_limit
                else:
                    limit, window = _per_token_allowance(self.settings, limit, window)
        if scope["method"] != "GET" and self.settings.has_fault("rate_limit_meters_gets_only"):
            bucket = "unmetered:" + bucket  # writes kept off the token's allowance
        # The provisioning adapter is a control plane beside the API: never counted.
        adapter = path == "/_adapter" or path.startswith("/_adapter/")
        lenient = self.settings.has_fault("rate_limit_off_by_one")  # allows used <= limit
        allowance = (
            None
            if adapter
            else self.limiter.count(
                bucket,
                limit + 1 if lenient else limit,
                window,
                sticky=self.settings.has_fault("rate_limit_never_refills"),
            )
        )
        if allowance is not None and lenient:
            allowance = replace(
                allowance, limit=allowance.limit - 1, remaining=max(0, allowance.remaining - 1)
            )
        # "too many requests on the token": a request without a valid one gets its 401.
        if (
            allowance is not None
            and bucket.startswith("token:")
            and self.settings.has_variant("occasional_429")
        ):
            allowance = _every_50th_refused(allowance)
        if allowance is not None and self.settings.has_fault("rate_remaining_counts_used"):
            allowance = replace(allowance, remaining=allowance.limit - allowance.remaining)
        if allowance is not None and self.settings.has_fault("rate_remaining_before_request"):
            # read before this request was counted: one more than is left
            allowance = replace(allowance, remaining=min(allowance.limit, allowance.remaining + 1))
        if allowance is not None and self.settings.has_fault("rate_remaining_frozen"):
            allowance = replace(allowance, remaining=allowance.limit)
        if allowance is not None and self.settings.has_fault("rate_reset_epoch"):
            until = allowance.retry_after or allowance.reset
            epoch = int(time.time()) + allowance.reset
            allowance = replace(allowance, reset=epoch, retry_after=until)
        if allowance is not None and not allowance.allowed:
            problem = ApiError(
                429,
                "too_many_requests"
                if self.settings.has_fault("rate_limit_code_too_many_requests")
                else "rate_limit_exceeded",
                f"Too many requests on this token; retry after {allowance.reset} seconds.",
            )
            if self.settings.has_fault("rate_limited_answers_share_request_id"):
                request_id = state["request_id"] = self._fixed_request_id  # the limiter's own
        status_seen: list[int] = []

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_seen.append(message["status"])
                outgoing = MutableHeaders(scope=message)
                outgoing["X-Request-ID"] = request_id
                if self.settings.has_variant("sunset_headers") and not adapter:
                    outgoing["Deprecation"] = "@1798761600"
                    outgoing["Sunset"] = "Fri, 01 Jan 2027 00:00:00 GMT"
                if allowance is not None and (
                    message["status"] < 400
                    or not self.settings.has_fault("rate_limit_headers_missing_on_errors")
                ):
                    for name, value in allowance.headers().items():
                        outgoing[name] = value
                    posted = scope["method"] == "POST"
                    if self.settings.has_fault("retry_after_missing_on_429") or (
                        posted and self.settings.has_fault("retry_after_missing_on_posts")
                    ):
                        del outgoing["Retry-After"]
                    if self.settings.has_fault("retry_after_on_every_response") or (
                        message["status"] >= 400
                        and self.settings.has_fault("retry_after_on_every_error")
                    ):
                        outgoing["Retry-After"] = str(max(1, allowance.reset))
            await send(message)

        try:
            introspected = path == "/v1/me" and self.settings.has_fault("me_answers_inactive")
            if problem is not None and problem.status == 401 and introspected:
                await JSONResponse({"active": False})(scope, receive, send_with_headers)
            elif problem is not None:
                response = error_response(problem, request_id, self.settings)
                await response(scope, receive, send_with_headers)
            else:
                await self.app(scope, receive, send_with_headers)
        except Exception:
            log.exception("request %s failed", request_id)
            if not status_seen:
                failure = ApiError(500, "internal_error", "The server failed; retry with backoff.")
                await error_response(failure, request_id, self.settings)(
                    scope, receive, send_with_headers
                )
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            log.info(
                "%s %s %s %.1fms %s",
                scope["method"],
                path,
                status_seen[0] if status_seen else "-",
                elapsed,
                request_id,
            )
