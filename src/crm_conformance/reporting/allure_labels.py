"""Allure labels and a history id that survives renamed files.

allure-pytest derives `historyId` from the test's module path, so renaming a suite
file would cut every nightly trend. We label each result with an id built from its
requirement ids and test function name, and after the run `stabilise_history`
rewrites `historyId`/`testCaseId` from that label.
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HISTORY_LABEL = "crm_history_id"


@dataclass(frozen=True)
class Labels:
    """Behaviour labels of one test: classes (epics), sections (features), history id."""

    epics: list[str]
    features: list[str]
    history_id: str


def labels_for(nodeid: str, req_ids: list[str]) -> Labels:
    """Labels from the catalogue (class, section) with the id areas as fallback."""
    from crm_conformance import plugin

    catalogue = plugin._catalogue_or_none()
    epics = list(dict.fromkeys(plugin._class_of(catalogue, i) for i in req_ids))
    features: list[str] = []
    for req_id in req_ids:
        section = getattr(plugin._requirement(catalogue, req_id), "section", None)
        if isinstance(section, str) and section not in features:
            features.append(section)
    test_name = nodeid.rpartition("::")[2]
    digest = hashlib.sha256(("|".join(sorted(req_ids)) + "|" + test_name).encode()).hexdigest()
    return Labels(epics=epics, features=features or epics, history_id=digest[:32])


def stabilise_history(results_dir: Path) -> int:
    """Set historyId and testCaseId of every result from its label; returns how many."""
    changed = 0
    for path in results_dir.glob("*-result.json"):
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        stable = next(
            (lab["value"] for lab in data.get("labels", []) if lab.get("name") == HISTORY_LABEL),
            None,
        )
        if stable is None:
            continue
        data["historyId"] = stable
        data["testCaseId"] = stable
        path.write_text(json.dumps(data), encoding="utf-8")
        changed += 1
    return changed
