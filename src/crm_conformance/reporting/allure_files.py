"""Allure's result files as a run writes them: without fixture containers that show
nothing, and with the target's text inert (`make_inert`).

Why: allure-pytest writes a container file for every function-scoped fixture of every
test (`unique`, `convention`, `factory`, each parametrize argument...), 3.7 files per
test beside its result: 2,700 in a quick run, each created and renamed by the worker
running the test, about as much time as a matrix point's requests. A container whose
fixtures passed with no step, attachment or parameter shows a reader nothing that the
test's result does not, so it is not written; one with a failed or broken fixture, a
step, an attachment or a parameter is written as before.

How: `use_quiet_logger()`, called by the runner's plugin before allure-pytest
configures, makes allure-pytest build `QuietFileLogger` where it builds its
`AllureFileLogger` (a name of its plugin module; `tests/runner/test_allure_files.py`
fails on an upgrade that drops it).

The listener, too: allure-pytest adds each test to the container of every fixture it
uses after a look through that container's list of children, so a session fixture's
container costs a look through every test before: 1.1 s of a quick run's CPU in one
process, growing with the square of the tests. `QuickListener` keeps each container's
children in a set beside the list; the files are the same.
"""

from collections.abc import Callable
from typing import Any

import allure_pytest.plugin
from allure_commons import hookimpl
from allure_commons.logger import AllureFileLogger
from allure_commons.model2 import TestResultContainer
from allure_pytest.listener import AllureListener, _test_fixtures

from crm_conformance.reporting.allure_labels import stabilise_history


def shows_something(container: Any) -> bool:
    """Whether a reader learns anything from `container`'s fixtures."""
    return any(
        fixture.status not in (None, "passed")
        or fixture.steps
        or fixture.attachments
        or fixture.parameters
        for fixture in (*container.befores, *container.afters)
    )


def _shapes_only(text: str) -> str:
    from crm_conformance.core.hygiene.redaction import Redactor

    return Redactor().text(text)


def make_inert(result: Any, redact: Callable[[str], str] = _shapes_only) -> None:
    """`result`'s messages and traces (its own, its steps' and fixtures'), redacted, then
    inert.

    allure-pytest writes the exception's own text (`exconly()`), not the harness's
    report: an exception quoting a token would carry it (`redact`: the run's redactor,
    which knows every token of the run, a token pool's included), and one quoting the
    target its escapes and its length, into the report a reader opens
    (`crm_conformance.core.hygiene.inert`).
    """
    from crm_conformance.core.hygiene.inert import inert_lines

    for part in (result, *getattr(result, "befores", ()), *getattr(result, "afters", ())):
        details = getattr(part, "statusDetails", None)
        if details is not None:
            details.message = details.message and inert_lines(redact(details.message))
            details.trace = details.trace and inert_lines(redact(details.trace))
        for step in getattr(part, "steps", ()):
            make_inert(step, redact)


class QuietFileLogger(AllureFileLogger):
    """Allure's file logger, less the containers that show nothing, the target's text
    inert, every token redacted, each test's history id its own (`stabilise_history`)."""

    redact: Callable[[str], str] = staticmethod(_shapes_only)
    """The run's redaction (`use_quiet_logger`)."""

    @hookimpl
    def report_result(self, result: Any) -> None:
        stabilise_history(result)
        make_inert(result, self.redact)
        super().report_result(result)  # type: ignore[no-untyped-call]  # allure-pytest is untyped

    @hookimpl
    def report_container(self, container: Any) -> None:
        if shows_something(container):
            make_inert(container, self.redact)
            super().report_container(container)  # type: ignore[no-untyped-call]  # as above


class QuickListener(AllureListener):  # type: ignore[misc]  # allure-pytest is untyped
    """allure-pytest's listener, which looks a test up among a container's children in a
    set instead of the container's list."""

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self._children: dict[str, set[str]] = {}

    def _update_fixtures_children(self, item: Any) -> None:
        # `AllureListener._update_fixtures_children`, with the membership test in a set.
        uuid = self._cache.get(item.nodeid)
        for fixturedef in _test_fixtures(item):
            group_uuid = self._cache.get(fixturedef)
            if not group_uuid:
                group_uuid = self._cache.push(fixturedef)
                self.allure_logger.start_group(group_uuid, TestResultContainer(uuid=group_uuid))
            children = self._children.setdefault(group_uuid, set())
            if uuid not in children:
                children.add(uuid)
                self.allure_logger.update_group(group_uuid, children=uuid)


def use_quiet_logger(redact: Callable[[str], str] = _shapes_only) -> None:
    """Have allure-pytest write through `QuietFileLogger` and listen through
    `QuickListener` (call before it configures), redacting with `redact`."""
    QuietFileLogger.redact = staticmethod(redact)
    allure_pytest.plugin.AllureFileLogger = QuietFileLogger
    allure_pytest.plugin.AllureListener = QuickListener
