"""What the target offers: each token's scopes and the workspace write policy.

DESIGN.md: read from the target itself where the API allows (`GET /v1/me` lists a
token's scopes, `GET /v1/capabilities` the effective write policy per entity), from
the target file otherwise, and say which. Both shapes are "not shown", so parsing is
forgiving: a shape it cannot read falls back to the file and the source says so.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from crm_conformance.core.model.target import Target
from crm_conformance.core.transport.client import ApiClient


@dataclass(frozen=True)
class Capabilities:
    """Scopes per token role and write policy per entity, each with where it came from."""

    scopes: Mapping[str, frozenset[str] | None] = field(default_factory=dict)
    scopes_source: Mapping[str, str] = field(default_factory=dict)
    write_policy: Mapping[str, bool] = field(default_factory=dict)
    write_policy_source: str = "unknown"

    def describe(self) -> dict[str, Any]:
        """A JSON-ready form for observations and the report."""
        return {
            "scopes": {role: None if s is None else sorted(s) for role, s in self.scopes.items()},
            "scopes_source": dict(self.scopes_source),
            "write_policy": dict(self.write_policy),
            "write_policy_source": self.write_policy_source,
        }


def discover(*, target: Target, clients: Mapping[str, ApiClient]) -> Capabilities:
    """Ask the target (`clients`: token role -> client), falling back to the target file."""
    scopes: dict[str, frozenset[str] | None] = {}
    sources: dict[str, str] = {}
    for role, client in clients.items():
        found = _scopes_from_me(client)
        if found is not None:
            scopes[role], sources[role] = found, "GET /v1/me"
        elif role in target.declared_scopes:
            scopes[role] = target.declared_scopes[role]
            sources[role] = f"target file (tokens.{role}.scopes)"
        else:
            scopes[role], sources[role] = None, "unknown (GET /v1/me unreadable, none declared)"
    policy = _policy_from_capabilities(clients["full"]) if "full" in clients else None
    if policy is not None:
        policy_source = "GET /v1/capabilities"
    elif target.write_policy:
        policy, policy_source = dict(target.write_policy), "target file ([write_policy])"
    else:
        policy, policy_source = {}, "unknown (GET /v1/capabilities unreadable, none declared)"
    return Capabilities(
        scopes=scopes,
        scopes_source=sources,
        write_policy=policy,
        write_policy_source=policy_source,
    )


def _json_or_none(client: ApiClient, path: str) -> Any:
    try:
        response = client.get(path)
    except httpx.TransportError:
        return None
    if response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def _scopes_from_me(client: ApiClient) -> frozenset[str] | None:
    return listed_scopes(_json_or_none(client, "/v1/me"))


def listed_scopes(body: Any) -> frozenset[str] | None:
    """The scopes an answer of `GET /v1/me` lists, or None when it has no readable list.

    The shape is not shown, so both common forms are read, at the top level or under
    `data`/`token`: `scopes` (or `scope`) as a list of strings, or as one string of
    scopes separated by spaces, as OAuth token introspection (RFC 7662) writes `scope`.
    """
    for holder in (
        (body, *(body.get(k) for k in ("data", "token"))) if isinstance(body, dict) else ()
    ):
        for key in ("scopes", "scope"):
            listed = holder.get(key) if isinstance(holder, dict) else None
            if isinstance(listed, str):
                return frozenset(listed.split())
            if isinstance(listed, list) and all(isinstance(s, str) for s in listed):
                return frozenset(listed)
    return None


def _policy_from_capabilities(client: ApiClient) -> dict[str, bool] | None:
    """Entity -> local write allowed, from `{entity: bool}`, `{entity: {local_write: bool}}`
    or a list of `{entity, local_write}`, at the top level or under `entities`,
    `write_policy` or `data`."""
    body = _json_or_none(client, "/v1/capabilities")
    if not isinstance(body, dict):
        return None
    for holder in (body.get("entities"), body.get("write_policy"), body.get("data"), body):
        if isinstance(holder, list):
            holder = {
                row["entity"]: row
                for row in holder
                if isinstance(row, dict) and isinstance(row.get("entity"), str)
            }
        if not isinstance(holder, dict):
            continue
        policy: dict[str, bool] = {}
        for entity, value in holder.items():
            if isinstance(value, bool):
                policy[entity] = value
            elif isinstance(value, dict) and isinstance(value.get("local_write"), bool):
                policy[entity] = value["local_write"]
        if policy:
            return policy
    return None
