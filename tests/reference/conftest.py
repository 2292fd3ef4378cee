"""Fixtures for testing the reference server in-process (Starlette's TestClient).

`api` is a client of the primary workspace's full-scope token, `other_api` of the
secondary workspace's; `client_for(token)` and `issue(...)` give clients for other
tokens. Each test gets a freshly seeded app unless it asks for `make_app` itself.
"""

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():
    # Starlette 1.x nudges TestClient users towards httpx2; httpx is what this project
    # pins, and TestClient over it is the supported in-process way to drive the app.
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from crm_conformance.reference import ServerSettings, create_app
from crm_conformance.reference.app import ReferenceApp
from crm_conformance.reference.tokens import issue_token

AppFactory = Callable[..., ReferenceApp]


@pytest.fixture
def make_app() -> AppFactory:
    """`make_app(**settings)`: a fresh app with those `ServerSettings`."""

    def make(**settings: Any) -> ReferenceApp:
        return create_app(ServerSettings(**settings))

    return make


@pytest.fixture
def app(make_app: AppFactory) -> ReferenceApp:
    return make_app()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client_for(app: ReferenceApp) -> Iterator[Callable[[str | None], TestClient]]:
    clients: list[TestClient] = []

    def make(token: str | None) -> TestClient:
        client = TestClient(app, headers=bearer(token) if token else {})
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def api(app: ReferenceApp, client_for: Callable[[str | None], TestClient]) -> TestClient:
    return client_for(app.seeded_tokens["primary"])


@pytest.fixture
def other_api(app: ReferenceApp, client_for: Callable[[str | None], TestClient]) -> TestClient:
    return client_for(app.seeded_tokens["secondary"])


@pytest.fixture
def issue(
    app: ReferenceApp, client_for: Callable[[str | None], TestClient]
) -> Callable[..., TestClient]:
    """`issue(workspace="primary", **issue_token options)`: a client for a new token."""

    def make(workspace: str = "primary", **options: Any) -> TestClient:
        with app.store.transaction() as tx:
            issued = issue_token(tx, app.settings.secret, workspace=workspace, **options)
        return client_for(issued.token)

    return make


@pytest.fixture
def ids(app: ReferenceApp) -> dict[str, Any]:
    """Seeded ids of the primary workspace: users, pipelines (with stages), lost reasons."""
    with app.store.transaction() as tx:
        return {
            "users": [u["id"] for u in tx.all("primary", "user")],
            "pipelines": tx.all("primary", "pipeline"),
            "lost_reasons": [r["id"] for r in tx.all("primary", "lost_reason")],
            "agent": tx.setting("primary", "agent_id"),
        }
