"""The fixtures a suite uses (ARCHITECTURE.md, "What the plugin gives a suite").

Each hands out part of the run state (`plugin.session`): clients bound to the target's
tokens, the adapter, the run prefix. A precondition the target cannot supply skips the
test with a reason naming what to add to the target file; it never fails it.
"""

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from crm_conformance.core.transport import run_lock
from crm_conformance.core.transport.client import connect
from crm_conformance.core.verdicts.outcomes import PROP_ADAPTER_FEATURE, PROP_OBSERVATION
from crm_conformance.plugin.session import ensure_target, jsonable
from crm_conformance.plugin.state import STATE, RunState, state_of

if TYPE_CHECKING:
    from crm_conformance.adapter.provisioning import AdapterClient
    from crm_conformance.core.model.capabilities import Capabilities
    from crm_conformance.core.model.target import Target
    from crm_conformance.core.transport.client import ApiClient
    from crm_conformance.steps.calls import Maker
    from crm_conformance.steps.factories import RecordFactory
    from crm_conformance.steps.updates import Updates
    from crm_conformance.steps.workspace_records import WorkspaceRecords

_ADAPTER = pytest.StashKey["AdapterClient"]()


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> "Target":
    """The loaded target: base_url, adapter_url, token roles, conventions."""
    return ensure_target(pytestconfig)


def _client(state: RunState, token: str | None) -> "ApiClient":
    assert state.target is not None
    assert state.wiring is not None
    client = connect(state.wiring, state.target.base_url, token)
    state.closers.append(client.close)
    return client


@pytest.fixture(scope="session")
def api(pytestconfig: pytest.Config, target: "Target") -> "ApiClient":
    """ApiClient bound to tokens.full, or to this process's token of the run's pool (a
    full-scope token of the same workspace: `token_pool`); `api.with_token(value)` for
    another token."""
    return _session_client(state_of(pytestconfig), state_of(pytestconfig).api_token)


@pytest.fixture(scope="session")
def configured_api(pytestconfig: pytest.Config, target: "Target") -> "ApiClient":
    """ApiClient bound to the configured tokens.full, even when the run has a token pool:
    for the tests whose meaning depends on that one token (what `/v1/me` says of it, the
    scopes the target file declares for it). Without a pool, the client of `api`."""
    return _session_client(state_of(pytestconfig), target.tokens["full"])


def _session_client(state: RunState, token: str) -> "ApiClient":
    """The process's one client of `token` (`api` and `configured_api` share it when
    they send the same token, as they do without a pool)."""
    client = state.clients.get(token)
    if client is None:
        client = state.clients[token] = _client(state, token)
    return client


@pytest.fixture(scope="session")
def other_workspace_client(pytestconfig: pytest.Config, target: "Target") -> "ApiClient":
    """ApiClient for tokens.other_workspace; skipped when the target has none."""
    token = target.token("other_workspace")
    if token is None:
        pytest.skip(
            "needs a second workspace: add [tokens.other_workspace] (value_env or value: a "
            "full-scope token of another workspace) to the target file"
        )
    return _client(state_of(pytestconfig), token)


@pytest.fixture
def other_api(
    pytestconfig: pytest.Config, other_workspace_client: "ApiClient"
) -> "Iterator[ApiClient]":
    """ApiClient for tokens.other_workspace, with the second workspace held by this test
    alone among the run's processes while it runs (`run_lock`: the policy tests mirror
    its entities)."""
    with run_lock.held(state_of(pytestconfig).pacing_dir, "other-workspace"):
        yield other_workspace_client


def _adapter_or_none(config: pytest.Config) -> "AdapterClient | None":
    state = state_of(config)
    target = ensure_target(config)
    if target.adapter_url is None:
        return None
    cached = config.stash.get(_ADAPTER, None)
    if cached is None:
        from crm_conformance.adapter.provisioning import AdapterClient

        assert state.wiring is not None
        cached = AdapterClient(
            adapter_url=target.adapter_url,
            token=target.adapter_token,
            wiring=state.wiring,
            skip=pytest.skip,
            on_require=functools.partial(_note_feature, state),
        )
        state.closers.append(cached.close)
        config.stash[_ADAPTER] = cached
    return cached


def _note_feature(state: RunState, feature: str) -> None:
    """Note on the running test that it requires an adapter feature, and on each fixture
    being set up (`_note_fixture_features` passes it on to every test using one)."""
    for name in state.setting_up:
        state.fixture_features.setdefault(name, set()).add(feature)
    if state.testing is not None:
        _note_on(state.testing, feature)


def _note_on(item: pytest.Item, feature: str) -> None:
    entry = (PROP_ADAPTER_FEATURE, feature)
    if entry not in item.user_properties:
        item.user_properties.append(entry)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Iterator[Any]:
    state = request.config.stash.get(STATE, None)
    if state is None:
        return (yield)
    state.setting_up.append(fixturedef.argname)
    try:
        return (yield)
    finally:
        state.setting_up.pop()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """The features a test's fixtures required, set up for it or before it, are its too."""
    state = item.config.stash.get(STATE, None)
    if state is None:
        return
    for name in getattr(item, "fixturenames", ()):
        for feature in sorted(state.fixture_features.get(name, ())):
            _note_on(item, feature)


@pytest.fixture(scope="session")
def adapter(pytestconfig: pytest.Config) -> "AdapterClient":
    """AdapterClient for adapter_url; skipped when the target has none."""
    client = _adapter_or_none(pytestconfig)
    if client is None:
        from crm_conformance.steps.factories import NO_ADAPTER

        pytest.skip(NO_ADAPTER)
    return client


@pytest.fixture(scope="session")
def run_prefix(pytestconfig: pytest.Config) -> str:
    """Per-run, per-worker prefix for names and external ids (`cc-<run id>-<worker>-`)."""
    return state_of(pytestconfig).run_prefix


@pytest.fixture
def unique(pytestconfig: pytest.Config, run_prefix: str) -> Callable[[str], str]:
    """`unique("label")`: a string unique within the run, starting with the run prefix."""
    return _unique_maker(pytestconfig, run_prefix)


def _unique_maker(pytestconfig: pytest.Config, run_prefix: str) -> Callable[[str], str]:
    counter = state_of(pytestconfig).counter

    def make(label: str) -> str:
        return f"{run_prefix}{label[:40]}-{next(counter)}"

    return make


@pytest.fixture
def factory(
    pytestconfig: pytest.Config,
    api: "ApiClient",
    target: "Target",
    unique: Callable[[str], str],
) -> "RecordFactory":
    """RecordFactory: contacts, deals, tags, conversations, tokens, ... with the run prefix."""
    from crm_conformance.steps.factories import RecordFactory

    return RecordFactory(
        api=api,
        adapter=_adapter_or_none(pytestconfig),
        target=target,
        unique=unique,
        skip=pytest.skip,
    )


@pytest.fixture(scope="module")
def module_factory(
    pytestconfig: pytest.Config, api: "ApiClient", target: "Target", run_prefix: str
) -> "RecordFactory":
    """A `RecordFactory` shared by one module's tests (in each process running them): for
    the records a matrix reads and never changes, made once instead of per point."""
    from crm_conformance.steps.factories import RecordFactory

    return RecordFactory(
        api=api,
        adapter=_adapter_or_none(pytestconfig),
        target=target,
        unique=_unique_maker(pytestconfig, run_prefix),
        skip=pytest.skip,
    )


@pytest.fixture
def observe(request: pytest.FixtureRequest) -> Callable[[str, Any], None]:
    """`observe("key", value)`: record what the target chose where the document is silent."""
    item = request.node

    def record(key: str, value: Any) -> None:
        value = jsonable(item.config, value)
        item.user_properties.append((PROP_OBSERVATION, {"key": key, "value": value}))

    return record


@pytest.fixture
def convention(target: "Target") -> Callable[[str], str]:
    """`convention("tag_catalogue_field")`: the target's name for something "not shown"."""

    def lookup(key: str) -> str:
        value = target.conventions.get(key)
        if value is None:
            table, _, name = key.rpartition(".")
            where = f"[conventions.{table}]" if table else "[conventions]"
            pytest.skip(
                f'the document does not name this: add {name} = "..." under {where} '
                "in the target file"
            )
        return value

    return lookup


@pytest.fixture
def maker(
    adapter: "AdapterClient",
    unique: Callable[[str], str],
    convention: Callable[[str], str],
    api: "ApiClient",
) -> "Maker":
    """Maker: one acceptable call of each operation, on fresh data (`steps.operations`)."""
    from crm_conformance.steps.calls import Maker

    return Maker(adapter, unique, convention, pytest.skip, client=api)


@pytest.fixture(scope="module")
def workspaces() -> dict[str, "WorkspaceRecords"]:
    """The records of both workspaces by identifier prefix, each made on first use and
    kept for the module (`steps.WorkspaceRecords`)."""
    from crm_conformance.steps.workspace_records import WorkspaceRecords

    return {name: WorkspaceRecords(name) for name in ("primary", "secondary")}


@pytest.fixture
def here(
    api: "ApiClient", maker: "Maker", workspaces: dict[str, "WorkspaceRecords"]
) -> "WorkspaceRecords":
    """The token's own workspace's records, that make the rest of a request valid."""
    return workspaces["primary"].bind(maker, api)


@pytest.fixture
def updates(
    api: "ApiClient", convention: Callable[[str], str], factory: "RecordFactory"
) -> "Updates":
    """Updates: the target's update and read of each record kind (`[conventions.updates]`,
    `[conventions.retrieve]`), and records made to change."""
    from crm_conformance.steps.updates import Updates

    return Updates(api, convention, factory, pytest.skip)


@pytest.fixture(scope="session")
def capabilities(
    pytestconfig: pytest.Config, target: "Target", configured_api: "ApiClient"
) -> "Capabilities":
    """Scopes per token and write policy, read from the target, else from the target file
    (whose declared scopes are those of the configured tokens.full: `configured_api`)."""
    from crm_conformance.core.model.capabilities import discover

    api = configured_api
    clients = {"full": api}
    other = target.token("other_workspace")
    if other is not None:
        clients["other_workspace"] = api.with_token(other)
    found = discover(target=target, clients=clients)
    state_of(pytestconfig).pending_observations.append(("capabilities", found.describe()))
    return found
