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


def test_an_untestable_requirement_a_test_names_says_which_test_can_fail_it() -> None:
    """A test may name an untestable requirement only to fail it (an absence no test
    shows, a presence one can: the report never verifies it through a pass); the
    catalogue's reason says so by naming the test. Otherwise the reason is stale, or the
    test charges the wrong row."""
    naming: dict[str, set[str]] = {}
    for test in runner.list_tests(RunRequest(classes="all")):
        function = test["nodeid"].partition("::")[2].split("[", 1)[0]
        for req_id in test["requirements"]:
            naming.setdefault(req_id, set()).add(function)
    stale = [
        r.id
        for r in load_catalogue().requirements
        if r.untestable and not all(name in r.untestable for name in naming.get(r.id, ()))
    ]
    assert not stale, f"marked untestable, named by a suite test its reason does not name: {stale}"
