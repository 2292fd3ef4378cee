"""Allure labels: one place per test in the report's tree, and a history id of its own.

The HTML report's tree groups by epic and feature, and Allure counts a test once per
combination of the labels it carries, so each test gets one epic (the class of its
first requirement id) and one feature (that id's section): a row's number is then a
number of tests. All its ids become tags, searchable in the report.

allure-pytest derives `historyId` from the module path and the pytest parameters, so
renaming a suite file would cut every nightly trend, and schemathesis's fuzz tests,
which have no pytest parameters, would share one id (skipped ones too: Allure then
shows them as retries of one test). We label each result with an id built from its
requirement ids and its name with the parameter id, and after the run
`stabilise_history` rewrites `historyId`/`testCaseId` from that label.
"""

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HISTORY_LABEL = "crm_history_id"


@dataclass(frozen=True)
class Labels:
    """Allure labels of one test: its class (epic), section (feature), tags, history id."""

    epic: str
    feature: str
    tags: list[str]
    history_id: str


def labels_for(nodeid: str, req_ids: list[str]) -> Labels:
    """Labels from the catalogue: the class and section of the first id, every id a tag."""
    from crm_conformance.core.model.catalogue import load_catalogue

    first = load_catalogue().get(req_ids[0])
    epic = first.cls if first is not None else "unknown class"
    feature = first.section if first is not None else "unknown section"
    test_name = nodeid.rpartition("::")[2]
    digest = hashlib.sha256(("|".join(sorted(req_ids)) + "|" + test_name).encode()).hexdigest()
    return Labels(epic=epic, feature=feature, tags=list(req_ids), history_id=digest[:32])


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
