"""`crm-conformance sweep --run RUN_DIR`: delete exactly the records a run's ledger names.

The ledger (`ledger`, `created.jsonl` in the report folder) lists every record the run
created; each is deleted through the adapter's `DELETE /v1/records/{id}`, whatever lists
the server offers (the prefix sweep must list each resource, and the document does not
show most of those lists). A 404 is "already gone" (a cascade, an earlier sweep).
What was deleted or found gone is appended to `swept.jsonl` beside the ledger, so a
second sweep skips it: a no-op once everything went. Exit 0 when nothing of the ledger
remains, 1 when a record could not be deleted.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crm_conformance._errors import AdapterError, TargetFileError, TargetUnreachable
from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.core.hygiene.redaction import Redactor
from crm_conformance.core.model.target import load_target
from crm_conformance.core.transport.ledger import LEDGER_FILE, Entry, append, read

SWEPT_FILE = "swept.jsonl"
"""Ids an earlier `sweep --run` deleted or found gone, one JSON line each."""

_PLURAL = {"activity": "activities"}


@dataclass
class LedgerSweep:
    """What `sweep --run` deleted, found gone, skipped as swept before, and could not delete."""

    run_dir: Path
    listed: int = 0
    deleted: list[Entry] = field(default_factory=list)
    gone: list[Entry] = field(default_factory=list)
    swept_before: int = 0
    remaining: list[tuple[Entry, str]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when nothing of the ledger remains, 1 otherwise."""
        return 1 if self.remaining else 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": str(self.run_dir),
            "listed": self.listed,
            "deleted": [entry.id for entry in self.deleted],
            "already_gone": [entry.id for entry in self.gone],
            "swept_before": self.swept_before,
            "remaining": [{"id": e.id, "kind": e.kind, "why": why} for e, why in self.remaining],
        }

    def describe(self) -> str:
        counts: dict[str, int] = {}
        for entry in self.deleted:
            counts[entry.kind] = counts.get(entry.kind, 0) + 1
        kinds = ", ".join(f"{n} {_PLURAL.get(k, k + 's')}" for k, n in counts.items())
        lines = [
            f"sweep --run {self.run_dir}: {self.listed} records in {LEDGER_FILE}, "
            f"{len(self.deleted)} deleted"
            + (f" ({kinds})" if kinds else "")
            + f", {len(self.gone)} already gone, {self.swept_before} swept before"
        ]
        if self.remaining:
            lines.append(f"could not delete {len(self.remaining)}:")
            lines += [f"  {entry.id}  {entry.kind}: {why}" for entry, why in self.remaining]
        return "\n".join(lines)


def adapter_url_of_run(run_dir: Path) -> str | None:
    """The adapter URL the run's summary names (`summary.json`, `target.adapter_url`)."""
    try:
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    url = summary.get("target", {}).get("adapter_url") if isinstance(summary, dict) else None
    return url if isinstance(url, str) and url else None


def sweep_run(
    *, run_dir: Path, target_path: Path | None = None, base_url: str | None = None
) -> LedgerSweep:
    """Delete the records of `run_dir`'s ledger through the target's adapter."""
    ledger = run_dir / LEDGER_FILE
    if not run_dir.is_dir():
        raise TargetFileError(f"--run={run_dir}: no such folder")
    if not ledger.is_file():
        raise TargetFileError(
            f"--run={run_dir}: no {LEDGER_FILE} there (a report folder of a run against a "
            "given target lists what it created there; use --prefix for older runs)"
        )
    secret: str | None = None
    if target_path is not None:
        target = load_target(path=target_path, base_url=base_url)
        adapter_url, timeout, redactor = (
            target.adapter_url,
            target.timeout,
            Redactor(target.secrets),
        )
        secret = target.adapter_token
    else:
        adapter_url, timeout, redactor = adapter_url_of_run(run_dir), 10.0, Redactor()
    if adapter_url is None:
        raise TargetFileError(
            "sweep --run deletes through the adapter's DELETE /v1/records/{id}: give "
            "--target FILE with adapter_url"
        )
    result = LedgerSweep(run_dir=run_dir)
    swept = run_dir / SWEPT_FILE
    done = {entry.id for entry in read(swept)}
    adapter = AdapterClient(
        adapter_url=adapter_url, token=secret, redactor=redactor, timeout=timeout, budget=None
    )
    try:
        for entry in read(ledger):
            result.listed += 1
            if entry.id in done:
                result.swept_before += 1
                continue
            try:
                adapter.delete_record(entry.id)
                result.deleted.append(entry)
            except AdapterError as exc:
                if exc.status == 404:
                    result.gone.append(entry)
                elif exc.status is None and not result.deleted and not result.gone:
                    raise TargetUnreachable(f"adapter at {adapter_url}: {exc}") from None
                else:
                    result.remaining.append((entry, str(exc)))
                    continue
            append(swept, entry)
    finally:
        adapter.close()
    return result
