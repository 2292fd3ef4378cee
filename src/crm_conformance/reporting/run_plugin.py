"""The runner's pytest plugin: the progress line, the test listing and Allure labels.

Loaded by `crm-conformance run` with `-p crm_conformance.reporting.run_plugin`, beside
the harness plugin, so plain `pytest suites` stays as the harness defines it. The
progress line follows the harness's outcome stream (`pytest_crm_outcome`); workers
label Allure results and attach a failing test's exchanges (redacted by the harness).
"""

import functools
import json
import sys
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, TextIO

import pytest

from crm_conformance.core.verdicts.outcomes import (
    PROP_CLASS,
    PROP_REQUIREMENT,
    Outcome,
    OutcomeRecord,
)
from crm_conformance.plugin.reports import exchanges_of, redacted
from crm_conformance.reporting.allure_labels import HISTORY_LABEL

_PROGRESS = pytest.StashKey["Progress"]()
_FAILING = frozenset({Outcome.FAILED, Outcome.ERROR, Outcome.BLOCKED, Outcome.SUITE_ERROR})


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crm-conformance-run", "options set by crm-conformance run")
    group.addoption("--crm-list", metavar="FILE", help="write the collected tests (JSON) here")
    group.addoption("--crm-progress", action="store_true", help="print a progress line to stderr")


class Progress:
    """How far the run is: tests done of the total, and how many are failing.

    On a terminal, one line updated in place. Anywhere else (a CI log), a plain line at
    every tenth of the run and at least every `INTERVAL` seconds, so a log stays
    readable: a carriage return there would pile every update onto one line.
    """

    INTERVAL = 30.0

    def __init__(
        self,
        *,
        enabled: bool,
        stream: TextIO,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.enabled = enabled
        self.stream = stream
        self.clock = clock
        self.interactive = enabled and stream.isatty()
        self.total = 0
        self.done = 0
        self.failures = 0
        self._shown_at = clock()
        self._shown_tenth = 0

    def count(self, record: OutcomeRecord) -> None:
        self.done += 1
        if record.outcome in _FAILING:
            self.failures += 1
        if not self.enabled:
            return
        line = f"{self.done}/{self.total or '?'} tests, {self.failures} failing"
        if self.interactive:
            self.stream.write(f"\r{line}   ")
        elif self._due():
            self.stream.write(line + "\n")
        self.stream.flush()

    def _due(self) -> bool:
        """Whether a plain line is due: a new tenth of the run, the last test, or 30 s."""
        tenth = 10 * self.done // self.total if self.total else 0
        now = self.clock()
        if (
            tenth > self._shown_tenth
            or self.done == self.total
            or now - self._shown_at >= (self.INTERVAL)
        ):
            self._shown_tenth, self._shown_at = tenth, now
            return True
        return False

    def finish(self) -> None:
        """End the updating line, so what follows starts on a line of its own."""
        if self.interactive and self.done:
            self.stream.write("\n")
            self.stream.flush()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("allure_report_dir", None):
        from crm_conformance.reporting.allure_files import use_quiet_logger

        # Before allure-pytest's own pytest_configure builds its logger.
        use_quiet_logger(functools.partial(redacted, config))
    is_worker = hasattr(config, "workerinput")
    enabled = bool(config.getoption("crm_progress")) and not is_worker
    config.stash[_PROGRESS] = Progress(enabled=enabled, stream=sys.stderr)


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
    if progress is not None:
        progress.finish()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Label each test for Allure at collection, so skipped tests carry labels too."""
    if not config.getoption("allure_report_dir", None):
        return
    import allure as allure_module

    allure: Any = allure_module  # allure-pytest ships no type hints

    from crm_conformance.reporting.allure_labels import labels_for

    for item in items:
        ids = [str(a) for marker in item.iter_markers("req") for a in marker.args]
        if not ids:
            continue
        labels = labels_for(item.nodeid, ids)
        item.add_marker(allure.epic(labels.epic))
        item.add_marker(allure.feature(labels.feature))
        item.add_marker(allure.tag(*labels.tags))
        item.add_marker(allure.label(HISTORY_LABEL, labels.history_id))


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
