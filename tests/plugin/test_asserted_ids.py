"""A suite test's `expect_*` calls may assert only ids its `req` marker names
(plugin/asserted.py), or its module fails collection naming the test and the id."""

# PyYAML's C loader keeps the classes of its first import, and pytester drops modules
# first imported inside an in-process run (as tests/plugin/test_plugin.py explains).
import pytest
import yaml  # noqa: F401  # kept imported across in-process runs (above)

from crm_conformance.plugin.asserted import asserted_ids, unclaimed

pytest_plugins = ["pytester"]


def _sample(response: object, api: object) -> None:
    expect_value(response, "STAT-009", "contacted", got=0, expected=0)  # type: ignore[name-defined]  # noqa: F821
    req_id = "ERR-004"  # an id in a variable is not read
    expect_true(response, req_id, True, expected="x", got="y")  # type: ignore[name-defined]  # noqa: F821

    def nested() -> None:
        api.expect_error(response, "QRY-003", status=400)  # type: ignore[attr-defined]  # a misuse this test provokes

    other(response, "CONV-015")  # type: ignore[name-defined]  # noqa: F821  # not an expect_ step
    nested()


def test_the_literal_ids_of_expect_calls_are_read_nested_ones_too() -> None:
    assert [(i, name) for i, name, _ in asserted_ids(_sample)] == [
        ("STAT-009", "expect_value"),
        ("QRY-003", "expect_error"),
    ]
    assert unclaimed(_sample, ["STAT-009", "QRY-003"]) == []
    (line,) = unclaimed(_sample, ["QRY-003"])
    assert "STAT-009" in line
    assert "expect_value" in line


MISMATCH = """
import pytest
from crm_conformance.steps.expect import expect_value

@pytest.mark.req("STAT-018")
def test_rates(api=None):
    expect_value(None, "STAT-009", "contacted", got=0, expected=0)

@pytest.mark.req("STAT-009")
def test_counts():
    expect_value(None, "STAT-009", "contacted", got=0, expected=0)
"""

BRANCHED = """
import pytest
from crm_conformance.steps.expect import expect_error

@pytest.mark.parametrize(
    "sort",
    [
        pytest.param(None, marks=pytest.mark.req("QRY-002")),
        pytest.param("name", marks=pytest.mark.req("QRY-002", "QRY-003")),
    ],
)
def test_walk(sort):
    if sort is not None:
        expect_error(None, "QRY-003", status=400)
"""


def _suite(pytester: pytest.Pytester, source: str) -> pytest.RunResult:
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "test_area.py").write_text(source)
    return pytester.runpytest("suites", "-p", "no:cacheprovider", "--collect-only", "-q")


def test_an_asserted_id_missing_from_the_marker_fails_collection(
    pytester: pytest.Pytester,
) -> None:
    result = _suite(pytester, MISMATCH)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*test_area.py::test_rates: expect_value(..., 'STAT-009', ...) asserts STAT-009*"]
    )
    assert "test_counts:" not in result.stdout.str()


def test_a_parametrized_test_claims_the_ids_of_all_its_cases(pytester: pytest.Pytester) -> None:
    result = _suite(pytester, BRANCHED)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
