"""The shared steps of `adapter-check`: call the adapter as the contract says, read the
public API as the document says, and stop at the first broken promise with its request.

`Probe` talks to the adapter (with the target's `adapter_token`, if any) and to the
public API (tokens.full and, when the target has one, tokens.other_workspace) through
`ApiClient`, so every request is recorded with tokens redacted and a broken promise can
print its request as a curl line. Answers of the adapter are checked against
`spec/adapter.yaml` with the kit's validators, so "what the contract says" has one
reading for the kit and the check.
"""

import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import httpx

from crm_conformance.adapter_kit import load_contract, schema_problems
from crm_conformance.core.hygiene.redaction import Redactor
from crm_conformance.core.model.target import Target
from crm_conformance.core.transport.client import ApiClient, connect
from crm_conformance.core.transport.exchanges import Exchange, ExchangeLog
from crm_conformance.core.transport.wiring import Wiring
from crm_conformance.steps.expect import strings_in
from crm_conformance.steps.pages import walk


class Broken(Exception):
    """A promise of the adapter does not hold: why, and the request that shows it."""

    def __init__(self, reason: str, exchange: Exchange | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.exchange = exchange


class Probe:
    """The adapter and the public API of one target, with the run's prefix for names."""

    def __init__(self, target: Target, *, prefix: str, redactor: Redactor | None = None) -> None:
        assert target.adapter_url is not None
        self.target = target
        self.prefix = prefix
        self.contract = load_contract()
        self.log = ExchangeLog()
        self.redactor = redactor if redactor is not None else Redactor(target.secrets)
        wiring = Wiring.for_target(target, redactor=self.redactor, log=self.log)
        self.adapter = connect(wiring, target.adapter_url, target.adapter_token)
        self.api = connect(wiring, target.base_url, target.tokens["full"])
        other = target.token("other_workspace")
        self.other: ApiClient | None = None
        if other is not None:
            self.other = self.api.with_token(other)
        self.listed: frozenset[str] = frozenset()
        """The features `GET /v1/health` lists (set by `health`)."""

    def close(self) -> None:
        self.adapter.close()
        self.api.close()

    def broken(self, reason: str) -> Broken:
        """A `Broken` naming the request just sent."""
        last = self.log.exchanges[-1] if self.log.exchanges else None
        return Broken(self.redactor.text(reason), last)

    def name(self, label: str) -> str:
        """A name carrying the check's prefix, so `sweep` finds what the check made."""
        return f"{self.prefix}{label}"

    # --- the adapter -------------------------------------------------------------------

    def call(
        self,
        operation_id: str,
        *,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        path: Mapping[str, str] | None = None,
        accept: tuple[int, ...] = (),
    ) -> Any:
        """Call an adapter operation that must succeed: a documented success status
        (or one of `accept`) and an answer the contract's schema allows."""
        operation = self.contract.operation(operation_id)
        response = self._send(operation_id, json=json, params=params, path=path)
        allowed = (*operation.answers, *accept)
        if response.status_code not in allowed:
            raise self.broken(
                f"{operation.method} {operation.path} answered {response.status_code}"
                f"{_error_text(response)}; the contract answers "
                + " or ".join(str(s) for s in allowed)
            )
        validator = operation.answers.get(response.status_code)
        if validator is None:
            return None
        body = _json(response)
        problems = schema_problems(validator, body)
        if problems:
            raise self.broken(
                f"{operation.method} {operation.path} answered {response.status_code} outside "
                "the contract: " + "; ".join(f"{p.field}: {p.message}" for p in problems[:3])
            )
        return body

    def refused(
        self,
        operation_id: str,
        *,
        json: Any = None,
        params: Mapping[str, str] | None = None,
        path: Mapping[str, str] | None = None,
        status: int | None = None,
    ) -> dict[str, Any]:
        """Call an adapter operation with a request it must refuse: a 4xx (or exactly
        `status`) in the `{error: {...}}` envelope."""
        operation = self.contract.operation(operation_id)
        response = self._send(operation_id, json=json, params=params, path=path)
        wanted = f"{status}" if status is not None else "a 4xx"
        if (status is not None and response.status_code != status) or not (
            400 <= response.status_code < 500
        ):
            raise self.broken(
                f"{operation.method} {operation.path} with a request the contract refuses "
                f"answered {response.status_code}; expected {wanted} with the error envelope"
            )
        body = _json(response)
        problems = schema_problems(self.contract.error, body)
        if problems:
            raise self.broken(
                f"{operation.method} {operation.path} answered {response.status_code} without "
                "the error envelope: " + "; ".join(f"{p.field}: {p.message}" for p in problems[:3])
            )
        return dict(body["error"])

    def _send(
        self,
        operation_id: str,
        *,
        json: Any,
        params: Mapping[str, str] | None,
        path: Mapping[str, str] | None,
    ) -> httpx.Response:
        operation = self.contract.operation(operation_id)
        route = operation.path.format(**(path or {}))
        if json is None:
            return self.adapter.request(operation.method, route, params=params)
        return self.adapter.request(operation.method, route, params=params, json=json)

    # --- the public API ----------------------------------------------------------------

    def read(self, client: ApiClient, path: str, *, params: Mapping[str, str] | None = None) -> Any:
        """A GET the document shows, which must answer 200 with JSON."""
        response = client.get(path, params=params)
        if response.status_code != 200:
            raise self.broken(
                f"GET {path} answered {response.status_code}{_error_text(response)}; expected 200"
            )
        return _json(response)

    def status_of(self, client: ApiClient, method: str, path: str, **options: Any) -> int:
        """The status of one public API request (its answer is in the log)."""
        return client.request(method, path, **options).status_code

    def listed_ids(
        self, client: ApiClient, path: str, *, params: Mapping[str, str] | None = None
    ) -> set[str]:
        """Every string of a list's records (`links.next` followed, bounded); a page that
        is not a 200 is broken."""
        found = walk(client, path, params=params)
        if found.refused is not None:
            raise self.broken(f"GET {path} answered {found.refused}; expected 200")
        return strings_in(found.records)

    def role(self, client: ApiClient) -> str:
        """The target file's name for the token of `client`."""
        return "tokens.full" if client is self.api else "tokens.other_workspace"

    @contextmanager
    def cleanup(self) -> Iterator[list[tuple[str, str]]]:
        """Operations to undo when a check ends, broken or not: (operation id, path id)."""
        undo: list[tuple[str, str]] = []
        try:
            yield undo
        finally:
            for operation_id, value in reversed(undo):
                key = "record_id" if operation_id == "deleteRecord" else "token_id"
                self._send(operation_id, json=None, params=None, path={key: value})


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def error_code(response: httpx.Response) -> str | None:
    """The `error.code` of an answer in the envelope, or None."""
    body = _json(response)
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


def _error_text(response: httpx.Response) -> str:
    """` (code: message)` of an error answer, or nothing."""
    body = _json(response)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    return f" ({error.get('code')}: {str(error.get('message'))[:160]})"


# --- steps the feature checks share ---------------------------------------------------


def workspaces(probe: Probe) -> list[tuple[str, ApiClient, list[ApiClient]]]:
    """(workspace, its token's client, the other workspace's clients) for each workspace
    the target has a token of."""
    if probe.other is None:
        return [("primary", probe.api, [])]
    return [("primary", probe.api, [probe.other]), ("secondary", probe.other, [probe.api])]


def contact(probe: Probe, workspace: str, **extra: Any) -> dict[str, Any]:
    made: dict[str, Any] = probe.call(
        "createRecord",
        json={
            "workspace": workspace,
            "kind": "contact",
            "fields": {"first_name": probe.name("contact"), "last_name": "Check"},
            **extra,
        },
    )
    return made


def expect_status(
    probe: Probe, client: ApiClient, method: str, path: str, expected: int, promise: str, **kw: Any
) -> None:
    status = probe.status_of(client, method, path, **kw)
    if status != expected:
        raise probe.broken(
            f"{promise}, but {method} {path} with {probe.role(client)} answered {status} "
            f"(expected {expected})"
        )


def instant(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def new_tag(probe: Probe, selector: str) -> httpx.Response:
    return probe.api.post(
        "/v1/tags", json={"name": probe.name(secrets.token_hex(3)), selector: "contact"}
    )
