"""Tokens a matrix suite needs many times over, minted through the adapter once each.

The scope matrix sends every operation with tokens of chosen scopes, the authentication
matrix with expired and revoked ones: a token per point would mint hundreds. `Minted`
keeps one per kind of token (its scopes, kind, state and workspace) for the module that
holds it, so each is minted on first use and reused by every point after.
"""

from collections.abc import Iterable

from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.adapter_kit import Workspace

SCOPE_TABLE: tuple[str, ...] = (
    "contacts:read",
    "contacts:write",
    "organizations:read",
    "organizations:write",
    "deals:read",
    "deals:write",
    "pipelines:read",
    "pipelines:write",
    "fields:read",
    "fields:write",
    "notes:read",
    "notes:write",
    "activities:read",
    "activities:write",
    "tags:read",
    "tags:write",
    "conversations:read",
    "messages:write",
    "conversations:write",
    "campaigns:read",
    "campaigns:write",
    "analytics:read",
    "success_events:read",
    "success_events:write",
)
"""The scope table of Authentication 4, row by row."""


class Minted:
    """Tokens minted once each, by what they are: scopes, kind, state, workspace."""

    def __init__(self, adapter: AdapterClient) -> None:
        self.adapter = adapter
        self._minted: dict[tuple[object, ...], str] = {}

    def token(
        self,
        *,
        scopes: Iterable[str] | None = None,
        kind: str = "workspace",
        state: str | None = None,
        workspace: Workspace = "primary",
    ) -> str:
        """The token of that description, minted on first use."""
        chosen = None if scopes is None else tuple(sorted(set(scopes)))
        key = (chosen, kind, state, workspace)
        if key not in self._minted:
            issued = self.adapter.create_token(
                scopes=chosen, kind=kind, state=state, workspace=workspace
            )
            self._minted[key] = issued.token
        else:
            self.adapter.require("tokens")  # a kept token: this test needs the feature too
        return self._minted[key]

    def holding(self, scopes: Iterable[str], workspace: Workspace = "primary") -> str:
        """A workspace token holding exactly `scopes`."""
        return self.token(scopes=scopes, workspace=workspace)

    def all_but(self, scope: str, workspace: Workspace = "primary") -> str:
        """A workspace token holding every scope the document names but `scope`."""
        return self.holding((s for s in SCOPE_TABLE if s != scope), workspace)
