"""Client of the provisioning adapter (`spec/adapter.yaml`, table in ARCHITECTURE.md).

The adapter creates states the public API cannot (a running campaign, a token with
chosen scopes, ...). Whatever goes wrong with it, a non-2xx answer, a body that is not
JSON, a dropped connection, becomes one `AdapterError` saying which operation failed
and how: the plugin reports that as a setup `error`, never as a target failure.

Between the run and the adapter stand the same gateways as before the API, so its
requests go through the run's retry policy (`core.retries`) where sending again is
safe. The adapter takes no `Idempotency-Key`: a GET, PUT or DELETE (idempotent by
HTTP's definition) is sent again after any transport fault, a POST only when its
connection was never made (it cannot have been processed, while a POST whose answer was
lost may have made a record, and a second one would change what a test counts).
"""

import json as jsonlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, NoReturn, cast

import httpx

from crm_conformance import adapter_kit as kit
from crm_conformance._errors import AdapterError, ExchangeBoundExceeded, FeatureMissing
from crm_conformance.adapter_kit import (
    CustomFieldSample,
    Fixtures,
    IssuedToken,
    Pipeline,
    Stage,
    Workspace,
)
from crm_conformance.adapter_kit._types import TokenKind, TokenState
from crm_conformance.core.transport import retries
from crm_conformance.core.transport.bounds import (
    ExchangeBounds,
    bounded_transport,
    read_bounded,
)
from crm_conformance.core.transport.exchanges import record_exchange
from crm_conformance.core.transport.wiring import Wiring

IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE"})
"""Adapter methods safe to send again after any transport fault (the module docstring)."""

FEATURES = tuple(kit.FEATURES)
"""Features an adapter may offer, as `GET /v1/health` names them (the spec's `x-feature`)."""


def _raise_missing(reason: str) -> NoReturn:
    raise FeatureMissing(reason)


class AdapterClient:
    """Typed calls to the adapter at `adapter_url`; health and fixtures are cached."""

    def __init__(
        self,
        *,
        adapter_url: str,
        token: str | None = None,
        wiring: Wiring | None = None,
        transport: httpx.BaseTransport | None = None,
        skip: Callable[[str], NoReturn] = _raise_missing,
        on_require: Callable[[str], None] | None = None,
        **parts: Any,
    ) -> None:
        """`token`: the target's `adapter_token`, sent as `Authorization: Bearer` on every
        request (and filtered from everything recorded). `wiring`: the run's parts, the
        redactor, log, budget, ledger, bounds and retry policy its API clients share
        (`Wiring`); the keywords in `parts` replace fields of it, as `ApiClient`'s do."""
        wiring = replace(wiring or Wiring(), **parts) if parts else (wiring or Wiring())
        self.wiring = wiring
        self.adapter_url = adapter_url.rstrip("/")
        self.redactor = wiring.redactor
        self._token = token
        if token is not None:
            self.redactor.add(token)
        self.log = wiring.log
        self.budget = wiring.budget
        self._skip = skip
        self._on_require = on_require
        self._recording: list[set[str]] = []
        self._optional = 0
        self.ledger = wiring.ledger
        """Where the records this adapter makes are noted (`ledger`), if anywhere."""
        self._bounds = ExchangeBounds(wiring.timeout, wiring.max_response_bytes)
        self._http = httpx.Client(
            timeout=wiring.timeout, transport=transport or bounded_transport()
        )
        self._features: frozenset[str] | None = None
        self._fixtures: dict[Workspace, Fixtures] = {}
        self.retry = wiring.retry
        self._sleep = wiring.sleep
        self._health_failed: AdapterError | None = None

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    # --- discovery ---------------------------------------------------------------

    @property
    def features(self) -> frozenset[str]:
        """The features `GET /v1/health` lists (fetched once). A health check that got no
        answer after its retries (the adapter down or silent) fails again at once for
        every later caller: each test asks, and would otherwise spend the back-off again."""
        if self._health_failed is not None:
            raise AdapterError(str(self._health_failed))
        if self._features is None:
            try:
                body = self._call("GET", "/v1/health")
            except AdapterError as exc:
                if exc.status is None:
                    self._health_failed = exc
                raise
            listed = body.get("features")
            if body.get("ok") is not True or not isinstance(listed, list):
                raise AdapterError(
                    f"adapter GET /v1/health answered {_short(body)}; expected "
                    '{"ok": true, "features": [...]}'
                )
            self._features = frozenset(str(name) for name in listed)
        return self._features

    def has(self, feature: str) -> bool:
        """Whether the adapter offers `feature` (one of `FEATURES`)."""
        if feature not in FEATURES:
            raise ValueError(f"feature={feature!r}: not an adapter feature; known: {FEATURES}")
        return feature in self.features

    def require(self, feature: str) -> None:
        """Skip the calling test (via the `skip` callable) unless the adapter offers `feature`.

        Every operation below requires its feature, so `on_require` hears of each feature
        a test uses (`run --list --by-feature` learns from it what each feature unlocks).
        """
        for used in self._recording:
            used.add(feature)
        if self._on_require is not None and not self._optional:
            self._on_require(feature)
        if not self.has(feature):
            self._skip(
                f"the adapter at adapter_url does not offer {feature!r} "
                f"(GET /v1/health lists: {', '.join(sorted(self.features)) or 'nothing'}); "
                f"implement it in the adapter to run this test"
            )

    @contextmanager
    def recording(self) -> Iterator[set[str]]:
        """The features required inside: a caller that keeps what it made there requires
        them again each time it hands the kept result out, so every test using it is
        known to need them (`run --list --by-feature`)."""
        used: set[str] = set()
        self._recording.append(used)
        try:
            yield used
        finally:
            self._recording.pop()  # a stack: the innermost recording ends first

    @contextmanager
    def optional(self) -> Iterator[None]:
        """Features required inside are used when offered, not needed (the caller checked
        `has` and has another way): `on_require` does not hear of them."""
        self._optional += 1
        try:
            yield
        finally:
            self._optional -= 1

    def fixture_ids(self, kind: str) -> tuple[str, ...]:
        """The primary workspace's fixture ids of `kind` (a field of `Fixtures`, e.g.
        `users`), or the test is not applicable when the adapter lists none: a workspace
        without users or custom fields is legal, and says nothing of the rule."""
        ids: tuple[str, ...] = getattr(self.fixtures(), kind)
        if not ids:
            self._skip(f"the adapter's fixtures list no {kind.removesuffix('s').replace('_', ' ')}")
        return ids

    def fixtures(self, *, workspace: Workspace = "primary") -> Fixtures:
        """Pipelines, lost reasons, users and contact custom fields of `workspace` (cached)."""
        self.require("fixtures")
        if workspace not in self._fixtures:
            body = self._call("GET", "/v1/fixtures", params={"workspace": workspace})
            try:
                self._fixtures[workspace] = Fixtures(
                    pipelines=tuple(
                        Pipeline(
                            id=p["id"],
                            stages=tuple(
                                Stage(id=s["id"], default_probability=s.get("default_probability"))
                                for s in p["stages"]
                            ),
                        )
                        for p in body["pipelines"]
                    ),
                    lost_reasons=tuple(body["lost_reasons"]),
                    users=tuple(body["users"]),
                    contact_custom_fields=tuple(body["contact_custom_fields"]),
                    deal_custom_fields=tuple(body.get("deal_custom_fields") or ()),
                    organization_custom_fields=tuple(body.get("organization_custom_fields") or ()),
                    custom_field_samples={
                        resource: {
                            key: CustomFieldSample(
                                accepted=sample["accepted"],
                                refused=tuple(sample.get("refused") or ()),
                            )
                            for key, sample in samples.items()
                        }
                        for resource, samples in (body.get("custom_field_samples") or {}).items()
                    },
                )
            except (KeyError, TypeError) as exc:
                raise AdapterError(
                    f"adapter GET /v1/fixtures answered {_short(body)}: missing or mistyped {exc}"
                ) from None
        return self._fixtures[workspace]

    # --- provisioning ------------------------------------------------------------

    def create_token(
        self,
        *,
        workspace: Workspace = "primary",
        kind: str = "workspace",
        scopes: Sequence[str] | None = None,
        user_id: str | None = None,
        state: str | None = None,
        live: bool | None = None,
        rate_limit: Mapping[str, int] | None = None,
    ) -> IssuedToken:
        """Issue a token (`kind`: workspace | oauth; `state`: active | expired | revoked)."""
        self.require("tokens")
        body = _compact(
            workspace=workspace,
            kind=kind,
            scopes=list(scopes) if scopes is not None else None,
            user_id=user_id,
            state=state,
            live=live,
            rate_limit=dict(rate_limit) if rate_limit is not None else None,
        )
        answer = self._call("POST", "/v1/tokens", json=body)
        secret = answer.get("token")
        if not isinstance(secret, str) or not isinstance(answer.get("id"), str):
            raise AdapterError("adapter POST /v1/tokens answered without a string id and token")
        self.redactor.add(secret)
        return IssuedToken(  # the kit's, as a vendor's adapter makes it
            id=answer["id"],
            token=secret,  # already registered for redaction
            kind=cast(TokenKind, str(answer.get("kind", kind))),
            scopes=tuple(answer.get("scopes") or ()),
            user_id=user_id,
            state=cast(TokenState, state or "active"),
        )

    def revoke_token(self, token_id: str) -> dict[str, Any]:
        """Revoke a token the adapter issued."""
        self.require("tokens")
        return self._call("POST", f"/v1/tokens/{token_id}/revoke")

    def create_user(
        self, *, workspace: Workspace = "primary", name: str | None = None
    ) -> dict[str, Any]:
        """Create a person an OAuth token can act for; returns the User record."""
        self.require("users")
        return self._call("POST", "/v1/users", json=_compact(workspace=workspace, name=name))

    def create_record(
        self,
        *,
        kind: str,
        fields: Mapping[str, Any],
        workspace: Workspace = "primary",
        created_at: str | None = None,
        updated_at: str | None = None,
    ) -> dict[str, Any]:
        """Create a contact, organization, deal or activity as the API renders it."""
        self.require("records")
        body = _compact(
            workspace=workspace,
            kind=kind,
            fields=dict(fields),
            created_at=created_at,
            updated_at=updated_at,
        )
        return self._call("POST", "/v1/records", json=body)

    def delete_record(self, record_id: str) -> None:
        """Delete a record so it appears in the deletion feed."""
        self.require("records")
        self._call("DELETE", f"/v1/records/{record_id}")

    def create_conversation(
        self,
        *,
        status: str,
        workspace: Workspace = "primary",
        contact_id: str | bool | None = True,
        handler: str | None = None,
        channel: str | None = None,
        agent_available: bool | None = None,
    ) -> dict[str, Any]:
        """Create a conversation; `contact_id=None` gives one with no contact,
        `contact_id=True` (default) has the adapter make a new contact for it.
        `agent_available=False` queues it where no AI agent can take it back."""
        self.require("conversations")
        body: dict[str, Any] = _compact(
            workspace=workspace,
            status=status,
            handler=handler,
            channel=channel,
            agent_available=agent_available,
        )
        if contact_id is None:
            body["contact_id"] = None
        elif isinstance(contact_id, str):
            body["contact_id"] = contact_id
        return self._call("POST", "/v1/conversations", json=body)

    def inbound(self, *, contact_id: str, workspace: Workspace = "primary") -> dict[str, Any]:
        """The contact writes in: their open conversation, or a new one if the last closed."""
        self.require("inbound")
        return self._call(
            "POST",
            "/v1/conversations/inbound",
            json={"workspace": workspace, "contact_id": contact_id},
        )

    def create_campaign(
        self,
        *,
        status: str,
        workspace: Workspace = "primary",
        name: str | None = None,
        participants: Sequence[Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Create a campaign in `status` with the given participants and their events."""
        self.require("campaigns")
        body = _compact(
            workspace=workspace,
            status=status,
            name=name,
            participants=[dict(p) for p in participants] if participants is not None else None,
        )
        return self._call("POST", "/v1/campaigns", json=body)

    def set_permissions(
        self, user_id: str, *, changes: bool = True, conversations: bool = True
    ) -> dict[str, Any]:
        """What a person `create_user` made may do through their OAuth tokens: `False`
        withholds changing CRM records (403 `user_grant_denied`) or acting on
        conversations (403 `conversation_access_denied`)."""
        self.require("permissions")
        body = {"changes": changes, "conversations": conversations}
        return self._call("PUT", f"/v1/users/{user_id}/permissions", json=body)

    def set_policy(
        self, entity: str, *, local_write: bool, workspace: Workspace = "primary"
    ) -> dict[str, Any]:
        """`local_write=False` mirrors `entity` from an external CRM (writes answer 403)."""
        self.require("policy")
        return self._call(
            "PUT", f"/v1/policy/{entity}", json={"workspace": workspace, "local_write": local_write}
        )

    def create_success_event_type(
        self, *, code: str, value: str, workspace: Workspace = "primary"
    ) -> dict[str, Any]:
        """Define a success event type whose `value` is `required` or `forbidden`."""
        self.require("success_event_types")
        return self._call(
            "POST",
            "/v1/success-event-types",
            json={"workspace": workspace, "code": code, "value": value},
        )

    # --- transport ---------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        json: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        where = f"adapter {method} {path}"
        content = None if json is None else jsonlib.dumps(json).encode()
        headers = {"Accept": "application/json"}
        if content is not None:
            headers["Content-Type"] = "application/json"
        if self._token is not None:
            headers["Authorization"] = f"Bearer {self._token}"
        request = self._http.build_request(
            method, self.adapter_url + path, params=params, content=content, headers=headers
        )
        response = self._send(request, where)
        if response.status_code == 204:
            return {}
        if not 200 <= response.status_code < 300:
            raise AdapterError(
                f"{where} answered {response.status_code}: "
                f"{self.redactor.text(_short(response.text))}",
                status=response.status_code,
            )
        try:
            body = response.json()
        except ValueError:
            raise AdapterError(
                f"{where} answered {response.status_code} with a body that is not JSON: "
                f"{self.redactor.text(_short(response.text))}"
            ) from None
        if not isinstance(body, dict):
            raise AdapterError(f"{where} answered {_short(body)}; expected a JSON object")
        if method == "POST" and self.ledger is not None:
            self.ledger.observe_adapter(path=path, sent=json, answer=body)
        return body

    def _send(self, request: httpx.Request, where: str) -> httpx.Response:
        """Send `request`, again after a transport fault where that is safe (the module
        docstring), each exchange logged; its answer, or `AdapterError`."""
        faults: list[str] = []
        while True:
            if self.budget is not None:
                self.budget.spend()
            started = time.perf_counter()
            try:
                response = read_bounded(self._http, request, self._bounds)
            except (httpx.TransportError, ExchangeBoundExceeded) as exc:
                self.log.exchanges.append(
                    record_exchange(
                        self.redactor, request, None, time.perf_counter() - started, error=str(exc)
                    )
                )
                if isinstance(exc, ExchangeBoundExceeded):
                    raise AdapterError(f"{where} failed: {exc}") from None
                reason = retries.fault_of_error(exc)
                never_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
                if reason is not None and self._again(request, faults, reason, never_sent):
                    continue
                raise AdapterError(
                    f"{where} failed: {type(exc).__name__}: {exc or 'no detail'}"
                    f"{_tried(faults)} (is adapter_url = {self.adapter_url!r} right and the "
                    "adapter running?)"
                ) from None
            self.log.exchanges.append(
                record_exchange(self.redactor, request, response, time.perf_counter() - started)
            )
            reason = retries.fault_of_answer(response, retry=False)
            if reason is None or not self._again(request, faults, reason, never_sent=False):
                return response

    def _again(
        self, request: httpx.Request, faults: list[str], reason: str, never_sent: bool
    ) -> bool:
        """Note the fault `reason`; wait and say True when `request` may be sent again."""
        faults.append(reason)
        again = (request.method in IDEMPOTENT or never_sent) and len(faults) < self.retry.attempts
        self.log.faults.append(retries.Fault(reason, retried=again))
        if again:
            self._sleep(self.retry.backoff(len(faults) - 1))
        return again


def _tried(faults: list[str]) -> str:
    """ ", after 502 ×1, dropped connection ×2" when the request met faults before."""
    return f", after {retries.tally(faults[:-1])}" if len(faults) > 1 else ""


def _compact(**fields: Any) -> dict[str, Any]:
    """The given fields without those left at None (the adapter's defaults apply)."""
    return {key: value for key, value in fields.items() if value is not None}


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else jsonlib.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "…"
