"""`crm-conformance sweep`: delete what earlier runs left on a shared target.

Every record a run creates carries the run prefix (`cc-<run id>-<worker>-`) in a name
or external id. The public API shows no delete operations, so records are deleted
through the provisioning adapter (`DELETE /v1/records/{id}`) when the target has
one, else by trying `DELETE /v1/<resource>/{id}`; whatever cannot be deleted is
listed, never silently left. Listing is bounded (`MAX_PAGES` per resource).
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from crm_conformance._errors import TargetUnreachable
from crm_conformance.target import load_target

RESOURCES = ("contacts", "deals", "activities", "tags")
MAX_PAGES = 50


@dataclass
class SweepResult:
    """What the sweep found, deleted, and could not delete (with why)."""

    prefix: str
    deleted: list[str] = field(default_factory=list)
    remaining: list[tuple[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "prefix": self.prefix,
            "deleted": self.deleted,
            "remaining": [{"id": i, "why": why} for i, why in self.remaining],
        }

    def describe(self) -> str:
        lines = [f"sweep {self.prefix}*: {len(self.deleted)} deleted"]
        if self.remaining:
            lines.append(f"could not delete {len(self.remaining)}:")
            lines += [f"  {record_id}  {why}" for record_id, why in self.remaining]
        return "\n".join(lines)


def _matches(record: dict[str, Any], prefix: str) -> bool:
    return any(isinstance(v, str) and v.startswith(prefix) for v in record.values())


def _listed(client: httpx.Client, resource: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": 200}
    for _ in range(MAX_PAGES):
        response = client.get(f"/v1/{resource}", params=params)
        if response.status_code != 200:
            return found
        body = response.json()
        found += [r for r in body.get("data", []) if isinstance(r, dict)]
        cursor = (body.get("links") or {}).get("next")
        if not cursor:
            break
        params = {"limit": 200, "cursor": cursor}
    return found


def sweep(*, target_path: Path, base_url: str | None = None, prefix: str = "cc-") -> SweepResult:
    target = load_target(path=target_path, base_url=base_url)
    result = SweepResult(prefix=prefix)
    headers = {"Authorization": f"Bearer {target.tokens['full']}"}
    with (
        httpx.Client(base_url=target.base_url, headers=headers, timeout=target.timeout) as api,
        httpx.Client(base_url=target.adapter_url or "", timeout=target.timeout) as adapter,
    ):
        try:
            found = [
                (resource, record)
                for resource in RESOURCES
                for record in _listed(api, resource)
                if _matches(record, prefix)
            ]
        except httpx.TransportError as exc:
            raise TargetUnreachable(f"{target.base_url}: {type(exc).__name__}") from None
        for resource, record in found:
            record_id = str(record.get("id"))
            if target.adapter_url is not None:
                response = adapter.delete(f"/v1/records/{record_id}")
                via = "adapter"
            else:
                response = api.delete(f"/v1/{resource}/{record_id}")
                via = "API"
            if response.status_code < 300:
                result.deleted.append(record_id)
            else:
                result.remaining.append((record_id, f"{via} DELETE -> {response.status_code}"))
    return result
