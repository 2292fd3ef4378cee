"""Allure labels: one place per test in the report's tree, and a history id of its own.

The HTML report's tree groups by epic and feature, and Allure counts a test once per
combination of the labels it carries, so each test gets one epic (the class of its
first requirement id) and one feature (that id's section): a row's number is then a
number of tests. All its ids become tags, searchable in the report.

allure-pytest derives `historyId` from the module path and the pytest parameters, so
renaming a suite file would cut every nightly trend, and schemathesis's fuzz tests,
which have no pytest parameters, would share one id (skipped ones too: Allure then
shows them as retries of one test). We label each result with an id built from its
requirement ids and its name with the parameter id, and `stabilise_history` sets
`historyId`/`testCaseId` from that label as each result is written
(`allure_files.QuietFileLogger`), in the worker that ran the test: rewriting every file
after the run cost the run's wall time a second, one process reading and writing 2,870
files while both cores idled.
"""

import hashlib
from dataclasses import dataclass
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


def stabilise_history(result: Any) -> None:
    """Set an Allure test result's `historyId` and `testCaseId` from its history label
    (left as allure-pytest made them on a result without one)."""
    stable = next((label.value for label in result.labels if label.name == HISTORY_LABEL), None)
    if stable is not None:
        result.historyId = stable
        result.testCaseId = stable
