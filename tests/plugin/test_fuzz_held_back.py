"""The fuzz suite on someone else's server: an operation whose every generated case the
guard (`guard.sends_to`) held back checked nothing, so it is not applicable, never
passed. The real suite module runs by pytester against a tiny fake target."""

import shutil

# Imported here so pytester's in-process runs do not re-import them (see test_plugin.py).
import httpcore  # noqa: F401  # kept imported across in-process runs (above)
import pytest
import yaml  # noqa: F401  # kept imported across in-process runs (above)

from crm_conformance.core.model.paths import SUITES_DIR
from crm_conformance.core.verdicts.outcomes import Outcome, read_records
from crm_conformance.plugin import fuzz as plugin_fuzz

pytest_plugins = ["pytester"]

HOLD_EVERYTHING_BACK = """
import pytest

from crm_conformance.fuzz import guard

@pytest.fixture(autouse=True)
def _hold_back(monkeypatch):
    monkeypatch.setattr(guard, "sends_to", lambda case, *, embedded: False)
"""


def test_an_operation_whose_every_case_was_held_back_is_not_applicable(
    pytester: pytest.Pytester, base_url: str
) -> None:
    (pytester.path / "suites").mkdir()
    shutil.copy(SUITES_DIR / "test_fuzz.py", pytester.path / "suites" / "test_fuzz.py")
    (pytester.path / "suites" / "conftest.py").write_text(HOLD_EVERYTHING_BACK)
    result = pytester.runpytest(
        "suites",
        "-p",
        "no:cacheprovider",
        "-rA",
        "--base-url",
        base_url,
        "-k",
        "users",
        "--crm-outcomes",
        "out.jsonl",
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("skipped", 0) >= 1, result.stdout.str()
    assert "passed" not in outcomes, result.stdout.str()
    result.stdout.fnmatch_lines(["*was held back on this target*nothing was sent*"])
    records = read_records(pytester.path / "out.jsonl")
    assert records
    assert all(r.outcome is Outcome.NOT_APPLICABLE for r in records)
    assert all("guard.sends_to" in r.cause for r in records)


def test_a_held_back_test_keeps_its_hypothesis_identity_and_runs_when_a_case_was_sent() -> None:
    ran: list[dict[str, str]] = []

    def built(**fixtures: str) -> None:
        ran.append(fixtures)

    built.is_hypothesis_test = True  # type: ignore[attr-defined]  # hypothesis's own attribute
    sent = [0]
    wrapped = plugin_fuzz.skipped_unless_sent(built, sent=lambda: sent[0], label="GET /v1/users")
    assert wrapped.is_hypothesis_test  # type: ignore[attr-defined]  # hypothesis's own attribute
    with pytest.raises(pytest.skip.Exception, match="GET /v1/users was held back"):
        wrapped(api="client")
    sent[0] = 3
    wrapped(api="client")  # a case reached the target: its verdict stands
    assert ran == [{"api": "client"}] * 2
