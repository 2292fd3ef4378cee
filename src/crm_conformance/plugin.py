"""The pytest plugin: options, markers, fixtures and outcomes of a conformance run.

Import-light on purpose: pytest loads it for every session (entry point
`pytest11`), so heavy modules load inside hooks and fixtures only.
"""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "req(*ids): the requirement ids of spec/requirements.yaml this test checks"
    )
