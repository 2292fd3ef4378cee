"""Issue 12's verdicts with the real suites, through `crm-conformance run`, against a
reference server served on loopback and described by a target file, as a vendor's
deployment is: what a run claims never exceeds what ran.

Each test is one run of the real suites (the longest, every suite without an adapter,
takes about 20 s of one core).
"""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from crm_conformance.cli import main
from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE
from crm_conformance.reference import ServerSettings, running_server
from crm_conformance.reference.server import ServedTarget
from crm_conformance.run.request import RunRequest
from crm_conformance.run.runner import list_tests

NO_ADAPTER = "needs the provisioning adapter"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def summary_of(report: Path) -> dict[str, Any]:
    return dict(json.loads((report / "summary.json").read_text(encoding="utf-8")))


def records_of(report: Path) -> list[dict[str, Any]]:
    lines = (report / OUTCOMES_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def served() -> Iterator[ServedTarget]:
    with running_server() as served:
        yield served


def served_run(
    tmp_path: Path,
    *pytest_args: str,
    faults: frozenset[str] = frozenset(),
    dropping: str = "",
) -> tuple[Result, Path]:
    """`crm-conformance run` on a fresh reference with `faults`, its target file less the
    line `dropping`, the real suites selected by `pytest_args`: its result and report."""
    report = tmp_path / "report"
    with running_server(ServerSettings(faults=faults)) as served:
        text = served.target_file_text()
        assert dropping in text
        target = tmp_path / "target.toml"
        target.write_text(text.replace(dropping, "") if dropping else text, encoding="utf-8")
        args = ("--", *pytest_args) if pytest_args else ()
        result = invoke("run", "--target", str(target), "--report-dir", str(report), *args)
    return result, report


def without_adapter(served: ServedTarget, path: Path) -> Path:
    """The served target's file with `adapter_url` removed: a vendor without an adapter."""
    assert served.adapter_url is not None
    text = served.target_file_text().replace(f'adapter_url = "{served.adapter_url}"\n', "")
    path.write_text(text, encoding="utf-8")
    return path


def test_a_certified_run_without_an_adapter_claims_only_what_passed_and_says_how_much(
    tmp_path: Path, served: ServedTarget
) -> None:
    target = without_adapter(served, tmp_path / "target.toml")
    report = tmp_path / "report"
    result = invoke("run", "--certify", "--target", str(target), "--report-dir", str(report))
    assert result.exit_code == 0, result.output  # nothing failed: the CI-gate meaning
    verified = summary_of(report)["verified"]
    done, testable = verified["requirements"], verified["testable"]
    assert 0 < done < testable
    assert result.output.splitlines()[0] == (
        f"crm-conformance: NOTHING FAILED: {100 * done // testable} % of testable "
        f"requirements verified ({done} of {testable})"
    )
    certificate = json.loads((report / "certificate.json").read_text(encoding="utf-8"))
    classes = summary_of(report)["classes"]
    for cls in certificate["classes_passed"]:
        assert classes[cls]["verified"] == classes[cls]["testable"], cls
    for cls in ("campaigns", "conversations", "deals", "core"):
        lacks = certificate["classes_not_passed"][cls]["lacks"]
        assert any(NO_ADAPTER in lack for lack in lacks), (cls, lacks)
    assert f"Classes passed in full: {', '.join(certificate['classes_passed']) or 'none'}" in (
        result.output
    )


def test_a_served_target_with_its_adapter_runs_every_fuzz_test_by_default(
    tmp_path: Path, served: ServedTarget
) -> None:
    """Default classes: no fuzz test is left out as not applicable (it once was, for the
    opt-in HDR-002 it named)."""
    target = served.write_target_file(tmp_path / "target.toml")
    report = tmp_path / "report"
    result = invoke("run", "--target", str(target), "--report-dir", str(report), "--", "-k", "fuzz")
    assert result.exit_code == 0, result.output
    fuzz = [r for r in records_of(report) if r["nodeid"].startswith("suites/test_fuzz.py::")]
    listed = [
        t for t in list_tests(RunRequest()) if t["nodeid"].startswith("suites/test_fuzz.py::")
    ]
    assert len(fuzz) == len(listed) >= 22
    assert {r["outcome"] for r in fuzz} == {"passed"}, [r["cause"] for r in fuzz]


def test_a_run_of_one_class_is_not_passed_in_full_while_core_is_not(
    tmp_path: Path, served: ServedTarget
) -> None:
    """`--classes tags` runs only the core tests that need no other class."""
    target = served.write_target_file(tmp_path / "target.toml")
    report = tmp_path / "report"
    result = invoke(
        "run", "--target", str(target), "--classes", "tags", "--report-dir", str(report)
    )
    assert result.exit_code == 0, result.output
    classes = summary_of(report)["classes"]
    assert classes["tags"]["verified"] == classes["tags"]["testable"]
    assert classes["core"]["verdict"] == "partially_verified"
    assert "Classes passed in full: none\n" in result.output
    assert "Own requirements passed, but core not in full: tags\n" in result.output


def test_a_test_that_fails_only_on_another_requirements_rule_does_not_fail_the_first(
    tmp_path: Path,
) -> None:
    """The replay test names IDEM-001, IDEM-003 and IDEM-004; a server that leaves out
    the replay header breaks IDEM-004 only."""
    result, report = served_run(
        tmp_path,
        "-k",
        "test_idempotency.py and replays_the_original",
        faults=frozenset({"replay_missing_header"}),
    )
    assert result.exit_code == 1, result.output
    failed = [r for r in records_of(report) if r["outcome"] == "failed"]
    assert failed
    assert all("IDEM-001" in r["requirements"] for r in failed)
    # IDEM-004, and the close's own replay header (its point checks its section first)
    charged = {req for r in failed for req in r["failed_requirements"]}
    assert charged == {"IDEM-004", "IDEM-008"}
    requirements = summary_of(report)["requirements"]
    assert requirements["IDEM-004"]["verdict"] == "failed"
    assert requirements["IDEM-001"]["verdict"] != "failed"
    assert "  IDEM-004  " in result.output
    assert "  IDEM-001  " not in result.output


def test_every_marker_id_is_checked_in_a_reference_run_and_every_pass_names_its_checks(
    tmp_path: Path, served: ServedTarget
) -> None:
    """A marker names what a test may check; a reference run must check every id some
    marker names (else the marker claims a rule no test verifies), and every requirement
    that reads passed lists a check that passed it (test, checks)."""
    target = served.write_target_file(tmp_path / "target.toml")
    report = tmp_path / "report"
    result = invoke(
        "run", "--target", str(target), "--classes", "all", "-n", "2",
        "--report-dir", str(report),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    records = records_of(report)
    named = {req for r in records for req in r["requirements"]}
    checked = {req for r in records for req in r["checked"]}
    assert not named - checked, f"named by a marker, checked by no test: {sorted(named - checked)}"
    requirements = summary_of(report)["requirements"]
    unearned = [i for i, e in requirements.items() if e["verdict"] == "passed" and not e["checks"]]
    assert not unearned, f"passed without a check that passed them: {unearned}"
    assert not [r for r in records if r["outcome"] == "suite_error"]


def test_a_target_without_the_score_filter_leaves_con_028_not_verified(tmp_path: Path) -> None:
    """The filter matrix's score point cannot run without its query name; its sibling
    points passing gives CON-028 nothing."""
    result, report = served_run(
        tmp_path, "-k", "test_contact_filters.py", dropping='score = "score"\n'
    )
    assert result.exit_code == 0, result.output
    requirements = summary_of(report)["requirements"]
    assert requirements["CON-028"]["verdict"] == "not_verified"
    assert requirements["CON-027"]["verdict"] == "passed"


def test_a_server_accepting_a_token_with_a_character_appended_fails_auth_008(
    tmp_path: Path,
) -> None:
    """The token as issued is accepted (AUTH-001); the same token with a character more
    must not be: AUTH-008 fails, never passes on the test of the token as issued."""
    result, report = served_run(
        tmp_path,
        "-k",
        "test_authentication.py and token",
        faults=frozenset({"token_trailing_characters_ignored"}),
    )
    assert result.exit_code == 1, result.output
    requirements = summary_of(report)["requirements"]
    assert requirements["AUTH-008"]["verdict"] == "failed"
    assert requirements["AUTH-001"]["verdict"] == "passed"
