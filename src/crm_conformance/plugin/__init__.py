"""Layer 5, the pytest plugin of the harness (entry point `pytest11`): a module per concern.

Import-light on purpose: pytest loads it for every session of the environment, so
httpx, the catalogue and the reference server load inside hooks and fixtures only, and
nothing happens unless a run asks for it (a target option, a suite test, a fixture).
ARCHITECTURE.md, "What the plugin gives a suite", is the contract.
"""

pytest_plugins = [
    "crm_conformance.plugin.options",  # the command-line options, validated
    "crm_conformance.plugin.session",  # the run state and the target's lifecycle
    "crm_conformance.plugin.selection",  # markers, classes, opt-in, waivers
    "crm_conformance.plugin.fixtures",  # what a suite test is given
    "crm_conformance.plugin.reports",  # classification and redaction of each test's reports
    "crm_conformance.plugin.stream",  # the outcome records (outcomes.jsonl)
    "crm_conformance.plugin.sharding",  # --shard K/N: this machine's part of the tests
    "crm_conformance.plugin.ordering",  # under xdist, tests that wait go first
    "crm_conformance.plugin.forks",  # --crm-forks N: the tests in N forks after collection
]
