"""Fixtures of the runner's tests: a tiny suites folder and a fake target serving it.

The fake suites use requirement ids of the core and pagination areas and talk to the
harness's fake target (tests/support/fake_target.py), so a run takes about a second.
"""

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fake_target import TOKEN, conformant, serve

SUITE = """
import pytest
from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.steps import expect_status


@pytest.mark.req("HDR-001")
def test_lists_answer(api, observe):
    response = api.get("/v1/contacts")
    observe("default page size", len(response.json()["data"]))
    expect_status(response, "HDR-001", 200)


@pytest.mark.req("PAG-001")
def test_last_page(api):
    response = api.get("/v1/contacts", params={"limit": 1})
    raise ConformanceFailure(
        "PAG-001", expected="links.next null on the last page", got="a cursor", response=response
    )


@pytest.mark.req("TAG-001")
def test_needs_adapter():
    pytest.skip("needs the provisioning adapter: add adapter_url to the target file")
"""


@pytest.fixture
def suites(tmp_path: Path) -> Path:
    """A suites folder with one passing, one failing and one not-applicable test.

    Not named `suites`: the harness checks ids against the catalogue only there, and
    these tests must not depend on which ids the catalogue holds.
    """
    folder = tmp_path / "checkout" / "fake-suites"
    folder.mkdir(parents=True)
    (folder / "test_fake.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    return folder


@pytest.fixture
def base_url() -> Iterator[str]:
    with serve(conformant) as url:
        yield url


@pytest.fixture
def target_file(tmp_path: Path, base_url: str) -> Path:
    """A target file with the token inline, as a vendor might (wrongly) keep it."""
    path = tmp_path / "target.toml"
    path.write_text(f'base_url = "{base_url}"\n[tokens.full]\nvalue = "{TOKEN}"\n')
    return path


@pytest.fixture
def token() -> str:
    return TOKEN
