"""`crm-conformance sweep`: delete what earlier runs left on a shared target.

Every record a run creates carries the run prefix (`cc-<run id>-<worker>-`, and
`cc-check-<id>-` for adapter-check) in a name or external id. Each resource a run makes
records of is listed, and every match deleted: through the provisioning adapter
(`DELETE /v1/records/{id}`: contacts, organizations, deals, activities, tags, campaigns
and users) when the target has one, else by trying the API's
`DELETE /v1/<resource>/{id}`. Whatever cannot be deleted is listed with why, and makes
the exit code 1; so does a list that cannot be read, since its records might remain.
Listing is bounded (`MAX_PAGES` per resource)."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from crm_conformance._errors import TargetUnreachable
from crm_conformance.core.model.target import load_target
from crm_conformance.core.transport.client import connect
from crm_conformance.core.transport.wiring import Wiring
from crm_conformance.steps.pages import walk

RESOURCES = ("contacts", "organizations", "deals", "activities", "tags", "campaigns", "users")
"""The lists a run leaves prefixed records in, read and swept in this order."""
ADAPTER_DELETES = frozenset(RESOURCES)
"""Resources `DELETE /v1/records/{id}` of the adapter deletes (spec/adapter.yaml; campaigns
and users where it offers those features too)."""
MAX_PAGES = 50


@dataclass
class SweepResult:
    """What the sweep found, deleted, and could not delete or search (with why)."""

    prefix: str
    deleted: dict[str, list[str]] = field(default_factory=dict)
    remaining: list[tuple[str, str, str]] = field(default_factory=list)
    """(resource, id, why)."""
    unsearched: list[tuple[str, str]] = field(default_factory=list)
    """(resource, why): a list that could not be read."""

    @property
    def exit_code(self) -> int:
        """0 when everything found was deleted, 1 when something remains or went unread."""
        return 1 if self.remaining or self.unsearched else 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "prefix": self.prefix,
            "deleted": self.deleted,
            "remaining": [{"resource": r, "id": i, "why": why} for r, i, why in self.remaining],
            "unsearched": [{"resource": r, "why": why} for r, why in self.unsearched],
        }

    def describe(self) -> str:
        count = sum(len(ids) for ids in self.deleted.values())
        kinds = ", ".join(f"{len(ids)} {name}" for name, ids in self.deleted.items() if ids)
        lines = [f"sweep {self.prefix}*: {count} deleted" + (f" ({kinds})" if kinds else "")]
        if self.remaining:
            lines.append(f"could not delete {len(self.remaining)}:")
            lines += [f"  {rid}  {resource}: {why}" for resource, rid, why in self.remaining]
        if self.unsearched:
            lines.append(f"could not search {len(self.unsearched)} lists (records may remain):")
            lines += [f"  {resource}: {why}" for resource, why in self.unsearched]
        return "\n".join(lines)


def _matches(record: dict[str, Any], prefix: str) -> bool:
    return any(isinstance(v, str) and v.startswith(prefix) for v in record.values())


def sweep(*, target_path: Path, base_url: str | None = None, prefix: str = "cc-") -> SweepResult:
    target = load_target(path=target_path, base_url=base_url)
    result = SweepResult(prefix=prefix)
    wiring = Wiring.for_target(target)
    api = connect(wiring, target.base_url, target.tokens["full"])
    adapter = None
    if target.adapter_url is not None:
        adapter = connect(wiring, target.adapter_url, target.adapter_token)
    try:
        for resource in RESOURCES:
            found = walk(api, f"/v1/{resource}", max_pages=MAX_PAGES)
            if found.refused is not None:
                result.unsearched.append((resource, f"GET /v1/{resource} -> {found.refused}"))
            deleted = result.deleted.setdefault(resource, [])
            for record in found.records:
                if not _matches(record, prefix):
                    continue
                record_id = str(record.get("id"))
                if adapter is not None and resource in ADAPTER_DELETES:
                    response, via = adapter.delete(f"/v1/records/{record_id}"), "adapter"
                else:
                    response, via = api.delete(f"/v1/{resource}/{record_id}"), "API"
                # The adapter's 404 is "no such record": gone already (a cascade).
                if response.is_success or (via == "adapter" and response.status_code == 404):
                    deleted.append(record_id)
                else:
                    why = f"{via} DELETE -> {response.status_code}"
                    result.remaining.append((resource, record_id, why))
    except httpx.TransportError as exc:
        raise TargetUnreachable(f"{target.base_url}: {type(exc).__name__}") from None
    finally:
        api.close()
        if adapter is not None:
            adapter.close()
    return result
