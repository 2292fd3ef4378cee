"""A run's Allure results leave out the fixture containers that show nothing."""

import json
from pathlib import Path

import allure_pytest.plugin
import pytest
from allure_commons import model2

from crm_conformance.reporting.allure_files import (
    QuickListener,
    QuietFileLogger,
    shows_something,
    use_quiet_logger,
)
from crm_conformance.reporting.allure_labels import HISTORY_LABEL

pytest_plugins = ["pytester"]


def test_only_a_fixture_with_something_to_show_keeps_its_container() -> None:
    quiet = model2.TestResultContainer(
        befores=[model2.TestBeforeResult(name="unique", status="passed")],
        afters=[model2.TestAfterResult(name="unique::<lambda>")],
    )
    assert not shows_something(quiet)
    assert shows_something(
        model2.TestResultContainer(befores=[model2.TestBeforeResult(status="broken")])
    )
    attached = model2.TestBeforeResult(
        status="passed", attachments=[model2.Attachment(name="exchange")]
    )
    assert shows_something(model2.TestResultContainer(befores=[attached]))


@pytest.mark.parametrize(
    ("name", "ours"), [("AllureFileLogger", QuietFileLogger), ("AllureListener", QuickListener)]
)
def test_allure_pytest_still_builds_by_the_names_the_run_replaces(name: str, ours: type) -> None:
    """Fails on an allure-pytest upgrade that no longer looks these names up in its plugin
    module when it configures: the run would then write every container (the logger), or
    look through every container's children again (the listener: slower, same files)."""
    assert name in allure_pytest.plugin.pytest_configure.__code__.co_names
    listener, logger = allure_pytest.plugin.AllureListener, allure_pytest.plugin.AllureFileLogger
    try:
        use_quiet_logger()
        assert getattr(allure_pytest.plugin, name) is ours
    finally:
        allure_pytest.plugin.AllureListener = listener
        allure_pytest.plugin.AllureFileLogger = logger


INNER_TESTS = """
import pytest

@pytest.fixture(scope="session")
def shared():
    return 1

@pytest.fixture
def own(shared):
    return shared

@pytest.mark.parametrize("n", range(4))
def test_uses_both(own, n):
    assert own == 1

def test_uses_shared(shared):
    assert shared
"""


def _containers(pytester: pytest.Pytester, quick: bool) -> list[tuple[str, int]]:
    """(fixture name, number of children) of each container file an inner run writes."""
    if quick:
        pytester.makeconftest(
            "import allure_pytest.plugin\n"
            "from crm_conformance.reporting.allure_files import QuickListener\n"
            "allure_pytest.plugin.AllureListener = QuickListener\n"
        )
    pytester.makepyfile(test_inner=INNER_TESTS)
    results = pytester.path / ("quick" if quick else "plain")
    outcome = pytester.runpytest_subprocess(f"--alluredir={results}", "-p", "no:cacheprovider")
    outcome.assert_outcomes(passed=5)
    found = []
    for path in results.glob("*-container.json"):
        container = json.loads(path.read_text(encoding="utf-8"))
        names = ",".join(sorted(before["name"] for before in container.get("befores", [])))
        found.append((names, len(container.get("children", []))))
    return sorted(found)


def test_the_quick_listener_writes_the_containers_allure_pytest_writes(
    pytester: pytest.Pytester,
) -> None:
    plain = _containers(pytester, quick=False)
    assert ("shared", 5) in plain  # the session fixture's container holds every test
    assert plain == _containers(pytester, quick=True)


def test_a_result_is_written_with_the_history_id_of_its_label(tmp_path: Path) -> None:
    """allure-pytest's own ids move when a suite file is renamed; the label's does not."""
    logger = QuietFileLogger(tmp_path)  # type: ignore[no-untyped-call]  # allure is untyped
    labelled = model2.TestResult(
        uuid="a", historyId="moves", testCaseId="moves", labels=[model2.Label(HISTORY_LABEL, "k")]
    )
    plain = model2.TestResult(uuid="b", historyId="own", testCaseId="own")
    logger.report_result(labelled)
    logger.report_result(plain)
    written = {
        data["uuid"]: (data["historyId"], data["testCaseId"])
        for data in (json.loads(p.read_text()) for p in tmp_path.glob("*-result.json"))
    }
    assert written == {"a": ("k", "k"), "b": ("own", "own")}
