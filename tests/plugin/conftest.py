"""Fixtures of the harness's own tests that run the plugin by pytester."""

from collections.abc import Iterator

import pytest
from support.fake_target import TOKEN, serve


@pytest.fixture
def base_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A conformant fake target on 127.0.0.1, with the run's token in the environment."""
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    monkeypatch.delenv("CRM_TOKEN_OTHER", raising=False)
    with serve() as url:
        yield url
