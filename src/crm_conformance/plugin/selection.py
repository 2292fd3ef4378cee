"""Which tests run, and what each one claims to check.

A suite test names its requirement ids (`@pytest.mark.req`), every one in the catalogue
and every one its own `expect_*` calls assert (`asserted.py`), or its module fails
collection. Collected, each test carries its ids and their classes
in `user_properties` (they travel across xdist workers to the outcome stream). `--classes`
deselects tests of unclaimed classes, an opt-in class runs against a given target only
when claimed, and a waived requirement's tests become strict expected failures.
"""

import re
from collections.abc import Generator
from typing import TYPE_CHECKING

import pytest

from crm_conformance._errors import CatalogueError
from crm_conformance.core.model.paths import in_suites
from crm_conformance.core.verdicts.outcomes import PROP_CLASS, PROP_REQUIREMENT
from crm_conformance.plugin.asserted import unclaimed
from crm_conformance.plugin.options import Options
from crm_conformance.plugin.state import is_worker, state_of

if TYPE_CHECKING:
    from crm_conformance.core.model.catalogue import Catalogue

_ID = re.compile(r"^[A-Z]+-[0-9]{3}$")


def req_ids(item: pytest.Item) -> list[str]:
    """The requirement ids `item`'s markers name, in order, each once."""
    ids: list[str] = []
    for marker in item.iter_markers("req"):
        for req_id in marker.args:
            if req_id not in ids:
                ids.append(req_id)
    return ids


def _catalogue() -> "Catalogue":
    from crm_conformance.core.model.catalogue import load_catalogue

    return load_catalogue()


def _marker_problems(item: pytest.Item, catalogue: "Catalogue") -> list[str]:
    ids = req_ids(item)
    if not ids:
        return [f"{item.nodeid}: no @pytest.mark.req(...) naming the requirement ids it checks"]
    problems = []
    for req_id in ids:
        if not isinstance(req_id, str) or not _ID.match(req_id):
            problems.append(f"{item.nodeid}: requirement id {req_id!r} is not of the form AREA-NNN")
        elif req_id not in catalogue:
            problems.append(f"{item.nodeid}: requirement id {req_id!r} is not in the catalogue")
    return problems


def _unclaimed_asserts(functions: list[pytest.Function]) -> list[str]:
    """Ids a test function's `expect_*` calls assert that none of its items claims.

    A parametrized test's cases may claim different ids (a branch asserts one only for
    the cases that reach it), and the source cannot tell which case reaches which call,
    so the ids of all its cases together are what the function claims.
    """
    claimed: dict[str, list[str]] = {}
    first: dict[str, pytest.Function] = {}
    for node in functions:
        claimed.setdefault(node.originalname, []).extend(req_ids(node))
        first.setdefault(node.originalname, node)
    return [
        f"{node.nodeid.split('[')[0]}: {line}"
        for name, node in first.items()
        for line in unclaimed(node.function, claimed[name])
    ]


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A suite test without a known requirement id fails collection (with xdist too)."""
    report = yield
    if (
        report.passed
        and isinstance(collector, pytest.Module | pytest.Class)
        and in_suites(collector.path)
    ):
        functions = [node for node in report.result if isinstance(node, pytest.Function)]
        if functions:
            try:
                catalogue = _catalogue()
            except CatalogueError as exc:
                report.outcome = "failed"
                report.longrepr = f"the requirements catalogue cannot be loaded: {exc}"
                return report
            problems = [p for node in functions for p in _marker_problems(node, catalogue)]
            problems += _unclaimed_asserts(functions)
            if problems:
                report.outcome = "failed"
                report.longrepr = "\n".join(problems)
                report.result = []
    return report


def _unclaimed_opt_in(options: Options, catalogue: "Catalogue") -> frozenset[str]:
    """Opt-in classes this run does not claim: none against the embedded reference server
    (its allowance is nobody else's), else those `--classes` does not name."""
    if not options.names_a_target:
        return frozenset()
    return catalogue.opt_in_classes - (options.classes or frozenset())


def _opt_in_skip(classes: list[str], unclaimed: frozenset[str]) -> str | None:
    """Why a test of an unclaimed opt-in class does not run, or None when it runs.

    A test is skipped (not applicable, with the option that would run it) only when the
    opt-in rule is what it is about: every class it names beyond core is unclaimed
    opt-in. An opt-in id never keeps a test of other classes from running; such a test
    runs without crediting that id (`pytest_collection_modifyitems`).
    """
    own = set(classes) - {"core"}
    if not own or not own <= unclaimed:
        return None
    return (
        f"opt-in class {sorted(own)[0]} is not claimed: add it to --classes "
        f"(e.g. --classes all) to run it against this target"
    )


def _waive(item: pytest.Item, ids: list[str], options: Options) -> None:
    """A test naming a waived requirement becomes a strict expected failure."""
    waiver = next((options.waived[i] for i in ids if i in options.waived), None)
    if waiver is not None:
        item.add_marker(pytest.mark.xfail(reason=waiver.describe(), strict=True))


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Record ids and classes in user_properties; apply --classes, opt-in and waivers."""
    options = state_of(config).options
    selected: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    considered = 0
    for item in items:
        ids = req_ids(item)
        if not ids:
            selected.append(item)
            continue
        try:
            catalogue = _catalogue()
        except CatalogueError as exc:
            raise pytest.UsageError(str(exc)) from None
        classes = catalogue.classes_of(ids)
        unclaimed = _unclaimed_opt_in(options, catalogue)
        skip = _opt_in_skip(classes, unclaimed)
        if skip is None:
            # A running test claims none of an unclaimed opt-in class's ids.
            ids = [i for i in ids if catalogue.class_of(i) not in unclaimed]
            classes = [cls for cls in classes if cls not in unclaimed]
        item.user_properties.extend((PROP_REQUIREMENT, req_id) for req_id in ids)
        item.user_properties.extend((PROP_CLASS, cls) for cls in classes)
        considered += 1
        # A test runs when every class it exercises beyond core is claimed.
        own = set(classes) - {"core"}
        if options.classes is None or own <= options.classes:
            selected.append(item)
            if skip is not None:
                item.add_marker(pytest.mark.skip(reason=skip))
            _waive(item, ids, options)
        else:
            deselected.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
    if options.classes is not None and considered and len(deselected) == considered:
        if is_worker(config):
            return  # the controller reports "no tests ran"; workers must not crash
        raise pytest.UsageError(
            f"--classes {','.join(sorted(options.classes))} selects none of the "
            f"{considered} conformance tests collected"
        )
