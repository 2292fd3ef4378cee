"""The order tests run in under xdist: a test that waits goes first.

A test that sleeps out a rate-limit window (`@pytest.mark.waits`) holds its worker
without using a CPU. xdist's worksteal hands each worker a contiguous block of the
collection; at the front of it, the waiting test sleeps while the other workers work,
and its worker takes a share of the rest after. Left where the modules put it, it slept
alone at the end of the run (issue 14: 5 s of a quick run's 23). Every worker sorts its
collection the same way (xdist runs only identical ones); without xdist nothing moves.
"""

import pytest

from crm_conformance.plugin.session import is_worker


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "waits: the test sleeps out a wait (a rate-limit window); first under xdist"
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if is_worker(config):
        items.sort(key=lambda item: item.get_closest_marker("waits") is None)  # stable
