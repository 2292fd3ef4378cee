"""The run state of one pytest process: what the plugin's modules share, in one place.

One `RunState` per process (the xdist controller, each xdist worker, each forked child):
the options, the target and the client machinery every test shares (its `Wiring`:
redactor, exchange log, request budget, circuit breaker, pacer, ledger). The plugin's hook modules
(`session`, `selection`, `fixtures`, `reports`, `stream`, `ordering`, `forks`) import it
and nothing of each other's state, so no import cycle runs between them. No hooks here.
"""

import functools
import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from crm_conformance.plugin.options import Options

if TYPE_CHECKING:
    from crm_conformance.adapter.token_pool import TokenPool
    from crm_conformance.core.model.target import Target
    from crm_conformance.core.transport.client import ApiClient
    from crm_conformance.core.transport.wiring import Wiring
    from crm_conformance.plugin.embedded import EmbeddedServer

BREAKER_THRESHOLD = 8
"""Consecutive 5xx or connection errors after which a run stops."""

PACING_DIR_KEY = "crm_pacing_dir"
"""Key of the run's pacing directory (`pacing.FileLedger`) in each worker's workerinput."""


@dataclass
class RunState:
    """Everything a conformance run shares in one process (one per xdist worker)."""

    options: Options
    worker: str
    worker_count: int
    target: "Target | None" = None
    wiring: "Wiring | None" = None
    """What every client of the process shares (`adopt`): the redactor, the exchange log,
    the budget share, the breaker, the pacer and the ledger (where the clients note each
    record they create, `created.jsonl` beside the outcomes file: only for a given
    target, written by every process of the run)."""
    pacing_dir: str | None = None
    """The directory xdist workers share their tokens' allowances in (`pacing.FileLedger`)."""
    pending_observations: list[tuple[str, Any]] = field(default_factory=list)
    counter: Iterator[int] = field(default_factory=itertools.count)
    closers: list[Callable[[], None]] = field(default_factory=list)
    testing: "pytest.Item | None" = None
    """The test running now: the adapter features it requires are noted on it."""
    setting_up: list[str] = field(default_factory=list)
    """The fixtures being set up now, innermost last."""
    fixture_features: dict[str, set[str]] = field(default_factory=dict)
    """The adapter features each fixture required when it was set up: a module- or
    session-scoped fixture is set up once, yet every test using it needs them."""
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
        from crm_conformance.adapter.token_pool import CONFIGURED, label
        from crm_conformance.core.transport.pacing import token_key

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
        memory (a file lock per request cost a worker up to 1.6 s of a quick run). The
        answers of a shared target are the run's too (`answers.share`): one X-Request-ID
        on two answers fails whichever workers received them."""
        from crm_conformance.core.hygiene.redaction import Redactor
        from crm_conformance.core.transport import answers
        from crm_conformance.core.transport.ledger import LEDGER_FILE, Ledger
        from crm_conformance.core.transport.pacing import FileLedger, Pacer
        from crm_conformance.core.transport.wiring import CircuitBreaker, RequestBudget, Wiring

        self.target = target
        directory = self.pacing_dir if shared else None
        if directory:
            answers.share(directory, self.worker)
        share = -(-self.options.request_budget // self.worker_count)  # ceiling division
        # An embedded server's records go with it: only a given target's are kept, and
        # only where the run has a report folder (beside its outcomes file).
        outcomes = self.options.outcomes
        self.wiring = Wiring.for_target(
            target,
            redactor=Redactor((*target.secrets, *(self.pool.tokens if self.pool else ()))),
            budget=RequestBudget(share),
            breaker=CircuitBreaker(BREAKER_THRESHOLD),
            pacer=Pacer(FileLedger(Path(directory)) if directory else None),
            ledger=(
                Ledger(outcomes.parent / LEDGER_FILE, tokens=target.tokens)
                if shared and outcomes is not None
                else None
            ),
        )


STATE = pytest.StashKey[RunState]()


def state_of(config: pytest.Config) -> RunState:
    """The run state of `config`'s process (set in pytest_configure)."""
    return config.stash[STATE]


def is_worker(config: pytest.Config) -> bool:
    """Whether `config` is an xdist worker's (reports are gathered by the controller)."""
    return hasattr(config, "workerinput")


def shared_pacing_dir(state: RunState) -> str:
    """The run's pacing directory, made on first use and removed at unconfigure: one per
    run, where the processes testing one target share its tokens' allowances (xdist's
    workers, or the forked ones of `plugin.forks`) and the second workspace's lock."""
    if state.pacing_dir is None:
        state.pacing_dir = tempfile.mkdtemp(prefix="crm-conformance-pacing-")
        state.closers.append(functools.partial(shutil.rmtree, state.pacing_dir, True))
    return state.pacing_dir


def fork_count(config: pytest.Config) -> int:
    """The children this process will fork to run its tests (`--crm-forks N`); 0: none."""
    count = int(config.getoption("crm_forks", 0) or 0)
    if count < 1 or is_worker(config) or config.option.collectonly or not hasattr(os, "fork"):
        return 0
    return count


def shard_offset(config: pytest.Config, processes: int) -> int:
    """The first pool index of this run's processes: a shard K of N, each running
    `processes` processes, starts after the earlier shards' (each shard its own tokens)."""
    from crm_conformance.core.planning.partition import Shard

    raw = config.getoption("crm_shard", None)
    return (Shard.parse(raw).index - 1) * processes if raw else 0


def use_pool_token(config: pytest.Config, worker: int, processes: int) -> None:
    """A forked worker's own token of the pool, paced apart from the others'."""
    state = state_of(config)
    if state.pool is not None:
        state.pool_index = state.pool.index_for(shard_offset(config, processes) + worker)
