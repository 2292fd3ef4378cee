"""One test at a time in a part of the target that the run's processes share.

The policy tests (SCOPE-025, SCOPE-027) mirror an entity of the second workspace
(`PUT /v1/policy/{entity}` through the adapter), so every write of it there answers 403
until they restore it. In one process nothing else runs meanwhile. When several
processes test one target (the forked workers of `run -n N`, or xdist's), a test of
another process writing in that workspace would be refused, and one policy test
restoring an entity would end another's mirroring early: false failures against a
conforming server. So each test that uses the second workspace holds its lock for as
long as it runs (the `other_api` fixture takes it): an exclusive `flock` on a file in
the run's shared directory, which the processes of a run testing one target have (the
pacing directory), and which the kernel releases if a process dies.

Processes with an embedded server each (`run -n N` with no target) share nothing, and
take no lock. Runs that do not share a directory, such as two shards of one run on
different machines pointed at one server, are not held apart: each shard should test a
target of its own.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def held(directory: str | None, name: str) -> Iterator[None]:
    """Hold the lock `name` of the run's shared `directory` (None: no other process
    tests this target, so nothing to hold)."""
    if directory is None:
        yield
        return
    import fcntl  # POSIX only; a shared directory exists only where processes share a target

    with (Path(directory) / f"{name}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
