"""The runner's pytest plugin: the progress line, the test listing and Allure labels.

Loaded by `crm-conformance run` with `-p crm_conformance.reporting.run_plugin`, beside
the harness plugin, so plain `pytest suites` stays as the harness defines it. The
progress line follows the harness's outcome stream (`pytest_crm_outcome`); workers
label Allure results and attach a failing test's exchanges (redacted by the harness).
"""

import json
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from crm_conformance.outcomes import PROP_CLASS, PROP_REQUIREMENT, Outcome, OutcomeRecord
from crm_conformance.plugin.reports import exchanges_of
from crm_conformance.reporting.allure_labels import HISTORY_LABEL

_PROGRESS = pytest.StashKey["Progress"]()
_FAILING = frozenset({Outcome.FAILED, Outcome.ERROR, Outcome.BLOCKED})


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crm-conformance-run", "options set by crm-conformance run")
    group.addoption("--crm-list", metavar="FILE", help="write the collected tests (JSON) here")
    group.addoption("--crm-progress", action="store_true", help="print a progress line to stderr")


class Progress:
    """How far the run is: tests done of the total, and how many are failing."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.total = 0
        self.done = 0
        self.failures = 0

    def count(self, record: OutcomeRecord) -> None:
        self.done += 1
        if record.outcome in _FAILING:
            self.failures += 1
        if self.enabled:
            sys.stderr.write(f"\r{self.done}/{self.total} tests, {self.failures} failing   ")
            sys.stderr.flush()


def pytest_configure(config: pytest.Config) -> None:
    is_worker = hasattr(config, "workerinput")
    config.stash[_PROGRESS] = Progress(bool(config.getoption("crm_progress")) and not is_worker)


@pytest.hookimpl(optionalhook=True)
def pytest_crm_outcome(config: pytest.Config, record: OutcomeRecord) -> None:
    config.stash[_PROGRESS].count(record)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    progress = node.config.stash[_PROGRESS]
    progress.total = max(progress.total, len(ids))


def pytest_collection_finish(session: pytest.Session) -> None:
    session.config.stash[_PROGRESS].total = len(session.items)
    listing = session.config.getoption("crm_list")
    if listing and not hasattr(session.config, "workerinput"):
        tests = [
            {
                "nodeid": item.nodeid,
                "requirements": [str(v) for k, v in item.user_properties if k == PROP_REQUIREMENT],
                "classes": [str(v) for k, v in item.user_properties if k == PROP_CLASS],
            }
            for item in session.items
        ]
        Path(listing).write_text(json.dumps(tests, indent=2), encoding="utf-8")


def pytest_sessionfinish(session: pytest.Session) -> None:
    progress = session.config.stash.get(_PROGRESS, None)
    if progress is not None and progress.enabled and progress.done:
        sys.stderr.write("\n")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Label the Allure result: class as epic, section as feature, ids as stories."""
    if item.config.getoption("allure_report_dir", None):
        _label_allure(item)
    return (yield)


def _item_ids(item: pytest.Item) -> list[str]:
    return [str(a) for marker in item.iter_markers("req") for a in marker.args]


def _label_allure(item: pytest.Item) -> None:
    import allure as allure_module

    allure: Any = allure_module  # allure-pytest ships no type hints

    from crm_conformance.reporting.allure_labels import labels_for

    ids = _item_ids(item)
    if not ids:
        return
    labels = labels_for(item.nodeid, ids)
    for epic in labels.epics:
        allure.dynamic.epic(epic)
    for feature in labels.features:
        allure.dynamic.feature(feature)
    for story in ids:
        allure.dynamic.story(story)
    allure.dynamic.label(HISTORY_LABEL, labels.history_id)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Attach a failing test's exchanges (redacted by the harness) to its Allure result."""
    report = yield
    if call.when == "call" and report.failed and item.config.getoption("allure_report_dir", None):
        _attach_exchanges(item)
    return report


def _attach_exchanges(item: pytest.Item) -> None:
    import allure

    for number, exchange in enumerate(exchanges_of(item), 1):
        name = f"exchange {number}: {exchange['method']} {exchange['url']} -> {exchange['status']}"
        body = json.dumps(exchange, indent=2)
        allure.attach(body, name=name, attachment_type=allure.attachment_type.JSON)
