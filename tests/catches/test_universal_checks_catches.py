"""The universal checks every suite applies catch a fault no suite test names.

A test that calls `run_checks` fails on any response breaking a universal rule, and the
failure lands on that rule's requirement (the plugin adds the id to the test's), so the
fault counts as killed where it lives.
"""

from crm_conformance.reference.faults import FAULTS
from crm_conformance.selftest.suite_run import run_suite


def test_a_contact_list_missing_an_always_present_field_is_caught() -> None:
    run = run_suite(
        ["test_contacts.py"], faults={"lists_omit_default_visibility"}, first_failure=True
    )
    assert run.kills(FAULTS["lists_omit_default_visibility"].reqs), run.output[-3000:]
