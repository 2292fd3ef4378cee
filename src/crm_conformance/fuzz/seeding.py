"""What makes a fuzz run reproducible: its seed, the rounds an earlier run ran, the
fingerprint of what it sent, and a failing scenario reported as first seen.
"""

import functools
import hashlib
import json
import os
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE, read_records
from crm_conformance.fuzz import internals

if TYPE_CHECKING:
    from crm_conformance.core.transport.exchanges import Exchange


@functools.cache
def rounds_of_run(run_dir: str) -> Mapping[str, int]:
    """The rounds each deep fuzz test of the run in `run_dir` ran, by node id."""
    return {
        record.nodeid: record.rounds
        for record in read_records(Path(run_dir) / OUTCOMES_FILE)
        if record.rounds is not None
    }


def sent_digest(exchanges: Iterable["Exchange"]) -> str:
    """A fingerprint of the requests `exchanges` sent: method, path, query and body, not
    the host (a replay's embedded server has another port), so two runs that sent the
    same cases have the same one (recorded in the `fuzz` property)."""
    digest = hashlib.sha256()
    for exchange in exchanges:
        url = httpx.URL(exchange.url)
        sent = [exchange.method, url.raw_path.decode("ascii"), exchange.request_body or ""]
        digest.update(json.dumps(sent).encode("utf-8"))
    return digest.hexdigest()[:16]


def run_seed() -> int:
    """The seed of this run: `--hypothesis-seed` when given, else one shared by the xdist
    workers of the run, else a fresh one drawn once per process (printed by the plugin,
    so it can be given back; the suites load their schemas with it, the plugin records
    it).

    Schemathesis seeds each operation from its own config seed, which `--hypothesis-seed`
    alone does not reach (schemathesis-4x-cookbook §6.4), hence this bridge.
    """
    forced = internals.forced_seed()
    if forced is not None:
        return forced
    shared = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if shared:
        return int(shared[:8], 16)
    return _fresh_seed()


@functools.cache
def _fresh_seed() -> int:
    return secrets.randbelow(2**32)


def run_replay_safe(machine: Any, settings: Any) -> None:
    """Run the state machine `machine`; if Hypothesis's replay of a failing scenario
    diverges (a server that kept its state answers differently: `Flaky`), raise the
    failure the machine saw first (`machine.first_failure`) instead of that noise."""
    from hypothesis.errors import Flaky

    try:
        machine.run(settings=settings)
    except Flaky:
        if machine.first_failure is None:
            raise
        raise machine.first_failure from None
