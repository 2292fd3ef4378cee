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
    """Labels from the catalogue: the classes and sections of `req_ids`."""
    from crm_conformance.catalogue import load_catalogue

    catalogue = load_catalogue()
    epics = catalogue.classes_of(req_ids)
    features = catalogue.sections_of(req_ids)
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
