"""The run's state in one process, and the target's lifecycle.

One `RunState` per process (the xdist controller and each worker): the options, the
target and the client machinery every test shares (redactor, exchange log, request
budget, circuit breaker). A given target is probed once before any test, so an
unreachable one is one message, not N errors. With no target given, each process
that tests starts its own embedded reference server, in a child process
(`crm_conformance.embedded`), and stops it at the end.
"""

import functools
import itertools
import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from crm_conformance.plugin.options import Options, read_options

if TYPE_CHECKING:
    from crm_conformance.client import ApiClient, CircuitBreaker, ExchangeLog, RequestBudget
    from crm_conformance.embedded import EmbeddedServer
    from crm_conformance.ledger import Ledger
    from crm_conformance.pacing import Pacer
    from crm_conformance.redaction import Redactor
    from crm_conformance.target import Target
    from crm_conformance.token_pool import TokenPool

BREAKER_THRESHOLD = 8
"""Consecutive 5xx or connection errors after which a run stops."""

EXIT_UNREACHABLE = 69
"""pytest's exit status when the probe finds the target unreachable or not answering like
the API: EX_UNAVAILABLE of sysexits.h, outside pytest's own 0-5, so the runner never
mistakes pytest's internal error (3) for it."""

_PACING_DIR = "crm_pacing_dir"
"""Key of the run's pacing directory (`pacing.FileLedger`) in each worker's workerinput."""


@dataclass
class RunState:
    """Everything a conformance run shares in one process (one per xdist worker)."""

    options: Options
    worker: str
    worker_count: int
    target: "Target | None" = None
    redactor: "Redactor | None" = None
    log: "ExchangeLog | None" = None
    budget: "RequestBudget | None" = None
    breaker: "CircuitBreaker | None" = None
    pacer: "Pacer | None" = None
    ledger: "Ledger | None" = None
    """Where the clients note each record they create (`created.jsonl` beside the outcomes
    file): only for a given target, written by every process of the run."""
    pacing_dir: str | None = None
    """The directory xdist workers share their tokens' allowances in (`pacing.FileLedger`)."""
    pending_observations: list[tuple[str, Any]] = field(default_factory=list)
    counter: Iterator[int] = field(default_factory=itertools.count)
    closers: list[Callable[[], None]] = field(default_factory=list)
    testing: "pytest.Item | None" = None
    """The test running now: the adapter features it requires are noted on it."""
    booting: "EmbeddedServer | None" = None
    """The embedded server started as collection began (`pytest_collection`), if it was."""
    booting_all: "list[EmbeddedServer]" = field(default_factory=list)
    """With `--crm-forks N`, the N servers started as collection began, one per child."""
    pool: "TokenPool | None" = None
    """The run's pool of full-scope tokens (`token_pool`), when it has one."""
    clients: "dict[str, ApiClient]" = field(default_factory=dict, repr=False)
    """The session's API clients by token (`api`, `configured_api`)."""
    pool_index: int = 0
    """Which of the pool's tokens this process's `api` sends (`TokenPool.index_for`)."""

    @property
    def api_token(self) -> str:
        """The token of the `api` fixture: this process's pool token, else tokens.full."""
        assert self.target is not None
        return self.pool.tokens[self.pool_index] if self.pool else self.target.tokens["full"]

    def token_labels(self) -> dict[str, str]:
        """The name of each token a report may speak of, by its pacing key (never its value)."""
        from crm_conformance.pacing import token_key
        from crm_conformance.token_pool import CONFIGURED, label

        assert self.target is not None
        names = {token_key(f"Bearer {self.target.tokens['full']}"): CONFIGURED}
        for index, token in enumerate(self.pool.tokens if self.pool else ()):
            names[token_key(f"Bearer {token}")] = label(index)
        return names

    @property
    def run_prefix(self) -> str:
        """`cc-<run id>-<worker>-`: names every record this worker creates."""
        return f"cc-{self.options.run_id}-{self.worker}-"

    def adopt(self, target: "Target", *, shared: bool = True) -> None:
        """Make `target` the run's, with a fresh exchange log, budget share, breaker and
        pacer. A `shared` target (the one given to the run, which every worker tests)
        has its tokens' allowances kept in the run's pacing directory with the other
        workers'; a worker's own embedded server answers it alone, so it paces alone, in
        memory (a file lock per request cost a worker up to 1.6 s of a quick run)."""
        from crm_conformance.client import CircuitBreaker, ExchangeLog, RequestBudget
        from crm_conformance.ledger import LEDGER_FILE, Ledger
        from crm_conformance.pacing import FileLedger, Pacer
        from crm_conformance.redaction import Redactor

        self.target = target
        directory = self.pacing_dir if shared else None
        self.pacer = Pacer(FileLedger(Path(directory)) if directory else None)
        self.redactor = Redactor((*target.secrets, *(self.pool.tokens if self.pool else ())))
        self.log = ExchangeLog()
        share = -(-self.options.request_budget // self.worker_count)  # ceiling division
        self.budget = RequestBudget(share)
        self.breaker = CircuitBreaker(BREAKER_THRESHOLD)
        # An embedded server's records go with it: only a given target's are kept, and
        # only where the run has a report folder (beside its outcomes file).
        outcomes = self.options.outcomes
        if shared and outcomes is not None:
            self.ledger = Ledger(outcomes.parent / LEDGER_FILE, tokens=target.tokens)


STATE = pytest.StashKey[RunState]()


def state_of(config: pytest.Config) -> RunState:
    """The run state of `config`'s process (set in pytest_configure)."""
    return config.stash[STATE]


def is_worker(config: pytest.Config) -> bool:
    """Whether `config` is an xdist worker's (reports are gathered by the controller)."""
    return hasattr(config, "workerinput")


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
        pacing_dir=workerinput.get(_PACING_DIR) if workerinput else None,
    )
    if options.names_a_target:
        from crm_conformance._errors import TargetFileError
        from crm_conformance.target import load_target

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
    from crm_conformance.token_pool import TokenPool, mint, revoke

    if not count:
        state.pool = TokenPool(tokens=target.pool)
    else:
        from crm_conformance.adapter_client import AdapterClient

        if target.adapter_url is None:
            pytest.exit(
                f"a token pool of {count} is minted through the adapter: the target file "
                "names no adapter_url (or set token_pool = 0)",
                returncode=EXIT_USAGE,
            )
        from crm_conformance._errors import AdapterError

        adapter = AdapterClient(
            adapter_url=target.adapter_url,
            redactor=state.redactor,
            timeout=target.timeout,
            max_response_bytes=target.max_response_bytes,
            token=target.adapter_token,
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
    state.pool_index = state.pool.index_for(_shard_offset(config, 1))
    state.adopt(target)  # the redactor and the ledger know every pool token


def _warn(message: str) -> None:
    sys.stderr.write(message + "\n")


def _shard_offset(config: pytest.Config, processes: int) -> int:
    """The first pool index of this run's processes: a shard K of N, each running
    `processes` processes, starts after the earlier shards' (each shard its own tokens)."""
    from crm_conformance.sharding import Shard

    raw = config.getoption("crm_shard", None)
    return (Shard.parse(raw).index - 1) * processes if raw else 0


def use_pool_token(config: pytest.Config, worker: int, processes: int) -> None:
    """A forked worker's own token of the pool, paced apart from the others'."""
    state = state_of(config)
    if state.pool is not None:
        state.pool_index = state.pool.index_for(_shard_offset(config, processes) + worker)


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
    from crm_conformance.bounds import ExchangeBounds, get_bounded
    from crm_conformance.inert import inert

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
    one interpreter (`crm_conformance.embedded`).
    """
    server = state.booting if state.booting is not None else _spawn(state)
    return server.target()


def _spawn(state: RunState) -> "EmbeddedServer":
    from crm_conformance.embedded import EmbeddedServer

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
    from crm_conformance.paths import in_suites
    from crm_conformance.plugin.forks import forks

    if any(in_suites(Path(str(arg).split("::")[0])) for arg in config.args):
        children = forks(config)
        if children:  # each forked child tests a server of its own
            state.booting_all = [_spawn(state) for _ in range(children)]
        else:
            state.booting = _spawn(state)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: share one pacing directory with every worker (their tokens'
    allowances are the run's). Each worker starts its own embedded server if it needs one."""
    node.workerinput[_PACING_DIR] = shared_pacing_dir(state_of(node.config))


def shared_pacing_dir(state: RunState) -> str:
    """The run's pacing directory, made on first use and removed at unconfigure: one per
    run, where the processes testing one target share its tokens' allowances (xdist's
    workers, or the forked ones of `plugin.forks`) and the second workspace's lock."""
    if state.pacing_dir is None:
        state.pacing_dir = tempfile.mkdtemp(prefix="crm-conformance-pacing-")
        state.closers.append(functools.partial(shutil.rmtree, state.pacing_dir, True))
    return state.pacing_dir


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is not None:
        while state.closers:
            state.closers.pop()()


def jsonable(config: pytest.Config, value: Any) -> Any:
    """`value` as plain JSON data (so it crosses xdist and lands in any report), redacted,
    then each string inert (`crm_conformance.inert`): observations and exchanges quote
    the target."""
    text = json.dumps(value, default=str)
    state = config.stash.get(STATE, None)
    if state is not None and state.redactor is not None:
        text = state.redactor.text(text)
    return _inert_strings(json.loads(text))


def _inert_strings(value: Any) -> Any:
    from crm_conformance.inert import TEXT_LIMIT, inert

    if isinstance(value, str):
        return inert(value, limit=TEXT_LIMIT, lines=True)
    if isinstance(value, list):
        return [_inert_strings(item) for item in value]
    if isinstance(value, dict):
        return {_inert_strings(key): _inert_strings(item) for key, item in value.items()}
    return value
