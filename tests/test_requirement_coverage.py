"""Every requirement a test could verify is named by some suite test: otherwise its
class can never pass in full, even against the reference server."""

from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.run import runner
from crm_conformance.run.request import RunRequest


def test_every_testable_requirement_is_named_by_a_suite_test() -> None:
    named = {
        req_id
        for test in runner.list_tests(RunRequest(classes="all"))
        for req_id in test["requirements"]
    }
    unnamed = [
        r.id for r in load_catalogue().requirements if not r.untestable and r.id not in named
    ]
    assert not unnamed, (
        f"testable, named by no suite test (name it, or say why untestable): {unnamed}"
    )
