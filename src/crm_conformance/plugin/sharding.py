"""`--shard K/N`: keep this shard's part of the tests (`crm_conformance.core.planning.partition`).

Balanced by an earlier run's durations (`--shard-by`), a shard does not even collect
the modules it does not run. Its part is taken last, after `-k`, `-m` and `--classes`
chose the tests. Under xdist each worker collects and parts alike.
"""

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from crm_conformance._errors import UsageError
from crm_conformance.core.planning.partition import (
    BY_MODULE,
    Plan,
    Shard,
    ShardRecord,
    by_module,
    durations_of,
    module_of,
)


@dataclass
class Sharding:
    """This process's shard, its plan (when balanced by durations) and what it saw."""

    shard: Shard
    plan: Plan | None
    balanced_by: str
    seen: set[str] = field(default_factory=set)
    collected: set[str] = field(default_factory=set)


_SHARDING = pytest.StashKey[Sharding]()


def pytest_configure(config: pytest.Config) -> None:
    """Check the options eagerly, so a typo is one usage error before any test."""
    raw, by = config.getoption("crm_shard"), config.getoption("crm_shard_by")
    try:
        if by is not None and raw is None:
            raise UsageError(f"--shard-by={by}: give --shard K/N too")
        if raw is None:
            return
        shard = Shard.parse(raw)
        durations = durations_of(Path(by)) if by is not None else {}
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    plan = Plan.from_durations(durations, shard.count) if durations else None
    balanced_by = f"durations of {Path(by).name}" if plan is not None else BY_MODULE
    config.stash[_SHARDING] = Sharding(shard, plan, balanced_by)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip a test module this shard runs no test of (a plan by durations only)."""
    sharding = config.stash.get(_SHARDING, None)
    patterns = config.getini("python_files")
    if sharding is None or not any(fnmatch.fnmatch(collection_path.name, p) for p in patterns):
        return None
    module = _module(collection_path, config)
    sharding.seen.add(module)
    if sharding.plan is not None and not sharding.plan.collects(module, sharding.shard.index - 1):
        return True
    sharding.collected.add(module)
    return None


def _module(path: Path, config: pytest.Config) -> str:
    """The module as node ids name it (relative to the rootdir)."""
    try:
        return path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return path.as_posix()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    sharding = config.stash.get(_SHARDING, None)
    if sharding is None:
        return
    nodeids = [item.nodeid for item in items]
    index = sharding.shard.index - 1
    if sharding.plan is not None:
        kept = {n for n in nodeids if sharding.plan.runs(n, index)}
    else:
        kept = set(by_module(nodeids, sharding.shard.count)[index])
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in kept])
    items[:] = [item for item in items if item.nodeid in kept]
    record = config.getoption("crm_shard_record")
    if record:
        collected = sharding.collected | {module_of(n) for n in nodeids}
        ShardRecord(
            shard=str(sharding.shard),
            balanced_by=sharding.balanced_by,
            plan_sha256=sharding.plan.sha256 if sharding.plan is not None else "",
            modules_seen=sorted(sharding.seen | collected),
            modules_collected=sorted(collected),
            collected=nodeids,
            selected=[item.nodeid for item in items],
        ).write(Path(record))
