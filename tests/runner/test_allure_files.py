"""A run's Allure results leave out the fixture containers that show nothing."""

import allure_pytest.plugin
from allure_commons import model2

from crm_conformance.reporting.allure_files import (
    QuietFileLogger,
    shows_something,
    use_quiet_logger,
)


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


def test_allure_pytest_still_builds_its_logger_by_the_name_the_run_replaces() -> None:
    """Fails on an allure-pytest upgrade that no longer looks `AllureFileLogger` up in
    its plugin module when it configures: the run would then write every container."""
    assert "AllureFileLogger" in allure_pytest.plugin.pytest_configure.__code__.co_names
    original = allure_pytest.plugin.AllureFileLogger
    try:
        use_quiet_logger()
        assert allure_pytest.plugin.AllureFileLogger is QuietFileLogger
    finally:
        allure_pytest.plugin.AllureFileLogger = original
