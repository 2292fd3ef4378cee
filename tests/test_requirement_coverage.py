"""Every requirement a test could verify is named by some suite test: otherwise its
class can never pass in full, even against the reference server."""

from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.run import runner
from crm_conformance.run.request import RunRequest


def _named() -> set[str]:
    return {
        req_id
        for test in runner.list_tests(RunRequest(classes="all"))
        for req_id in test["requirements"]
    }


def test_every_testable_requirement_is_named_by_a_suite_test() -> None:
    named = _named()
    unnamed = [
        r.id for r in load_catalogue().requirements if not r.untestable and r.id not in named
    ]
    assert not unnamed, (
        f"testable, named by no suite test (name it, or say why untestable): {unnamed}"
    )


def test_no_requirement_marked_untestable_is_named_by_a_suite_test() -> None:
    """An untestable requirement a test names reads as verified in the report while the
    catalogue says it cannot be: the reason is stale, or the test charges the wrong row."""
    named = _named()
    stale = [r.id for r in load_catalogue().requirements if r.untestable and r.id in named]
    assert not stale, f"marked untestable, yet named by a suite test: {stale}"
