"""The target's lifecycle in one process, on the run state of `plugin.state`.

A given target is probed once before any test, so an
unreachable one is one message, not N errors. With no target given, each process
that tests starts its own embedded reference server, in a child process
(`crm_conformance.plugin.embedded`), and stops it at the end.
"""

import functools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from crm_conformance.plugin.options import read_options
from crm_conformance.plugin.state import (
    PACING_DIR_KEY,
    STATE,
    RunState,
    fork_count,
    is_worker,
    shard_offset,
    shared_pacing_dir,
    state_of,
)

if TYPE_CHECKING:
    from crm_conformance.core.model.target import Target
    from crm_conformance.plugin.embedded import EmbeddedServer

EXIT_UNREACHABLE = 69
"""pytest's exit status when the probe finds the target unreachable or not answering like
the API: EX_UNAVAILABLE of sysexits.h, outside pytest's own 0-5, so the runner never
mistakes pytest's internal error (3) for it."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "req(*ids): the requirement ids of spec/requirements.yaml this test checks"
    )
    options = read_options(config)
    workerinput = getattr(config, "workerinput", None)
    state = RunState(
        options=options,
        worker=workerinput["workerid"] if workerinput else "main",
        worker_count=int(workerinput["workercount"]) if workerinput else 1,
        pacing_dir=workerinput.get(PACING_DIR_KEY) if workerinput else None,
    )
    if options.names_a_target:
        from crm_conformance._errors import TargetFileError
        from crm_conformance.core.model.target import load_target

        try:
            state.adopt(load_target(path=options.target_path, base_url=options.base_url))
        except TargetFileError as exc:
            raise pytest.UsageError(str(exc)) from None
    if not workerinput:
        for warning in options.waiver_warnings:
            sys.stderr.write(f"warning: {warning}\n")
    config.stash[STATE] = state


def pytest_sessionstart(session: pytest.Session) -> None:
    """Probe a given target once, so an unreachable one is one message (exit 3), not N errors."""
    config = session.config
    state = config.stash.get(STATE, None)
    if state is None or state.target is None or is_worker(config) or config.option.collectonly:
        return
    problem = probe(state.target)
    if problem is not None:
        pytest.exit(problem, returncode=EXIT_UNREACHABLE)
    start_pool(state, config)


EXIT_USAGE = 4
"""pytest's usage error status, which the runner reports as its own (exit 2)."""


def start_pool(state: RunState, config: pytest.Config) -> None:
    """The run's token pool, before any test or fork: the target file's further tokens
    and those minted now, revoked at unconfigure (after Ctrl-C too). Without a pool,
    nothing changes: every test sends tokens.full."""
    assert state.target is not None
    target = state.target
    count = state.options.token_pool if state.options.token_pool is not None else target.token_pool
    if not count and not target.pool:
        return
    from crm_conformance.adapter.token_pool import TokenPool, mint, revoke

    if not count:
        state.pool = TokenPool(tokens=target.pool)
    else:
        from crm_conformance.adapter.provisioning import AdapterClient

        if target.adapter_url is None:
            pytest.exit(
                f"a token pool of {count} is minted through the adapter: the target file "
                "names no adapter_url (or set token_pool = 0)",
                returncode=EXIT_USAGE,
            )
        from crm_conformance._errors import AdapterError

        assert state.wiring is not None
        adapter = AdapterClient(
            adapter_url=target.adapter_url, token=target.adapter_token, wiring=state.wiring
        )
        state.closers.append(adapter.close)
        try:
            offered = adapter.has("tokens")
            state.pool = mint(adapter, target.pool, count) if offered else None
        except AdapterError as exc:
            pytest.exit(f"the token pool could not be minted: {exc}", returncode=EXIT_UNREACHABLE)
        if state.pool is None:
            pytest.exit(
                f"a token pool of {count} is minted through the adapter's tokens feature, "
                "which the adapter does not list: give the tokens in [tokens.full] values_env",
                returncode=EXIT_USAGE,
            )
        state.closers.append(functools.partial(revoke, adapter, state.pool, _warn))
    state.pool_index = state.pool.index_for(shard_offset(config, 1))
    state.adopt(target)  # the redactor and the ledger know every pool token


def _warn(message: str) -> None:
    sys.stderr.write(message + "\n")


_QUOTED = 200
"""Characters of the target's text quoted in the probe's one-line message (`inert`)."""


def probe(target: "Target") -> str | None:
    """None when base_url answers with JSON; else the one message to print.

    A JSON body under the wrong Content-Type is reachable and non-conforming: the run goes
    on and the universal checks fail the core requirement (HDR-004). Only an answer that
    is not JSON at all (an HTML page, a proxy's error text) means base_url is not the API.
    """
    import httpx

    from crm_conformance._errors import ExchangeBoundExceeded
    from crm_conformance.core.hygiene.inert import inert
    from crm_conformance.core.transport.bounds import ExchangeBounds, get_bounded

    url = target.base_url + "/v1/me"
    token = target.tokens["full"]
    bounds = ExchangeBounds(target.timeout, target.max_response_bytes)
    try:
        response = get_bounded(url, bounds=bounds, headers={"Authorization": f"Bearer {token}"})
    except ExchangeBoundExceeded as exc:
        return f"target unreachable: {exc}"
    except httpx.TransportError as exc:
        return (
            f"target unreachable: GET {url} failed "
            f"({type(exc).__name__}: {inert(str(exc) or 'no detail', limit=_QUOTED)}). "
            "Check base_url (or --base-url) and that the server is running"
        )
    try:
        response.json()
    except ValueError:
        media_type = response.headers.get("Content-Type", "").split(";")[0].strip()
        quoted = f"'{inert(media_type, limit=_QUOTED)}'" if media_type else "'(none)'"
        return (
            f"target does not answer like the API: GET {url} -> {response.status_code} "
            f"with Content-Type {quoted}, not a JSON body. "
            "Is base_url the API root (paths start with /v1)?"
        )
    return None


def ensure_target(config: pytest.Config) -> "Target":
    """The run's target; with none given, the embedded reference server, started once."""
    state = state_of(config)
    if state.target is None:
        from crm_conformance._errors import TargetUnreachable

        try:
            target = start_reference(state)
        except Exception as exc:
            raise TargetUnreachable(
                "no --target or --base-url given, and the embedded reference server could not "
                f"start ({type(exc).__name__}: {exc})"
            ) from exc
        state.adopt(target, shared=False)  # this process's own server
    assert state.target is not None
    return state.target


def start_reference(state: RunState) -> "Target":
    """The embedded reference server's target, once it serves (stopped at unconfigure):
    the one started as collection began, else one started now.

    In a process of its own, one per pytest process, so xdist workers never queue behind
    one interpreter (`crm_conformance.plugin.embedded`).
    """
    server = state.booting if state.booting is not None else _spawn(state)
    return server.target()


def _spawn(state: RunState) -> "EmbeddedServer":
    from crm_conformance.plugin.embedded import EmbeddedServer

    server = EmbeddedServer.spawn()
    state.closers.append(server.stop)
    return server


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """With no target given, start the embedded server as collection begins, in a process
    that will run suite tests, so that it boots while pytest collects them (it waited
    0.5 s at the first test of a quick run, 1.2 s in each of two xdist workers)."""
    config = session.config
    state = config.stash.get(STATE, None)
    if state is None or state.target is not None or state.booting is not None:
        return
    controller = getattr(config.option, "dist", "no") != "no" and not is_worker(config)
    if controller or config.option.collectonly:
        return
    from crm_conformance.core.model.paths import in_suites

    if any(in_suites(Path(str(arg).split("::")[0])) for arg in config.args):
        children = fork_count(config)
        if children:  # each forked child tests a server of its own
            state.booting_all = [_spawn(state) for _ in range(children)]
        else:
            state.booting = _spawn(state)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: share one pacing directory with every worker (their tokens'
    allowances are the run's). Each worker starts its own embedded server if it needs one."""
    node.workerinput[PACING_DIR_KEY] = shared_pacing_dir(state_of(node.config))


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is not None:
        while state.closers:
            state.closers.pop()()


def jsonable(config: pytest.Config, value: Any) -> Any:
    """`value` as plain JSON data (so it crosses xdist and lands in any report), redacted,
    then each string inert (`crm_conformance.core.hygiene.inert`): observations and exchanges quote
    the target."""
    text = json.dumps(value, default=str)
    state = config.stash.get(STATE, None)
    if state is not None and state.wiring is not None:
        text = state.wiring.redactor.text(text)
    return _inert_strings(json.loads(text))


def _inert_strings(value: Any) -> Any:
    from crm_conformance.core.hygiene.inert import TEXT_LIMIT, inert

    if isinstance(value, str):
        return inert(value, limit=TEXT_LIMIT, lines=True)
    if isinstance(value, list):
        return [_inert_strings(item) for item in value]
    if isinstance(value, dict):
        return {_inert_strings(key): _inert_strings(item) for key, item in value.items()}
    return value
