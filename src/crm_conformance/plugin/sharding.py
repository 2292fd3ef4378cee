"""`--shard K/N`: keep this shard's part of the collected tests (`crm_conformance.sharding`).

The partition is taken last, after `-k`, `-m` and `--classes` chose the tests, so every
shard parts the same list. Under xdist each worker collects and parts it alike.
"""

from pathlib import Path

import pytest

from crm_conformance._errors import UsageError
from crm_conformance.sharding import Shard, ShardRecord, digest, durations_of, partition

_SHARD = pytest.StashKey[Shard]()
_DURATIONS = pytest.StashKey[dict[str, float]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crm-conformance")
    group.addoption(
        "--shard",
        dest="crm_shard",
        metavar="K/N",
        help="run only the K-th of N balanced parts of the tests (one per machine of a CI "
        "matrix); merge the report folders with `crm-conformance report --merge`",
    )
    group.addoption(
        "--shard-by",
        dest="crm_shard_by",
        metavar="RUN_DIR",
        help="balance the shards by the test durations of this earlier run's report folder "
        "(default: whole modules, by their number of tests)",
    )
    group.addoption(
        "--crm-shard-record",
        dest="crm_shard_record",
        metavar="FILE",
        help="write what this shard kept (JSON) here",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Check the options eagerly, so a typo is one usage error before any test."""
    raw, by = config.getoption("crm_shard"), config.getoption("crm_shard_by")
    try:
        if raw is not None:
            config.stash[_SHARD] = Shard.parse(raw)
        if by is not None:
            if raw is None:
                raise UsageError(f"--shard-by={by}: give --shard K/N too")
            config.stash[_DURATIONS] = durations_of(Path(by))
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shard = config.stash.get(_SHARD, None)
    if shard is None:
        return
    durations = config.stash.get(_DURATIONS, None)
    nodeids = [item.nodeid for item in items]
    kept = set(partition(nodeids, shard.count, durations)[shard.index - 1])
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in kept])
    items[:] = [item for item in items if item.nodeid in kept]
    record = config.getoption("crm_shard_record")
    if record:
        by = config.getoption("crm_shard_by")
        ShardRecord(
            shard=str(shard),
            balanced_by=f"durations of {Path(by).name}" if by else "modules",
            collected=len(nodeids),
            collected_sha256=digest(nodeids),
            selected=[item.nodeid for item in items],
        ).write(Path(record))
