"""`report --diff OLD_RUN NEW_RUN`: two run folders of the tags suite against the reference
server, clean and with a fault, give exactly the requirements the fault fails."""

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from crm_conformance.cli import main
from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE, read_records
from crm_conformance.reporting.summary import RunInfo, build_summary, write_summary
from crm_conformance.selftest.suite_run import run_suite

FAULT = "tag_conflict_without_id"  # breaks TAG-004 (reference/faults/)


def run_folder(folder: Path, faults: set[str]) -> Path:
    """A report folder as `run` writes it: the records of a real run, their summary."""
    folder.mkdir()
    stream = folder / OUTCOMES_FILE
    run_suite(["test_tags.py"], faults=faults, extra_args=[f"--crm-outcomes={stream}"])
    info = RunInfo("test", None, {"base_url": "reference"}, 1, "quick", "t0", "t1")
    write_summary(folder, build_summary(list(read_records(stream)), info, load_catalogue()))
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("runs")
    yield run_folder(root / "clean", set()), run_folder(root / "faulty", {FAULT})
    shutil.rmtree(root, ignore_errors=True)


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, ["report", *map(str, args)], catch_exceptions=False)


def failed_in(folder: Path) -> set[str]:
    summary = json.loads((folder / "summary.json").read_text())
    return {i for i, e in summary["requirements"].items() if e["verdict"] == "failed"}


def test_a_fault_is_listed_as_exactly_the_requirements_it_fails_and_exits_1(
    runs: tuple[Path, Path],
) -> None:
    clean, faulty = runs
    broken = failed_in(faulty)
    assert "TAG-004" in broken
    assert not failed_in(clean)
    result = invoke("--diff", clean, faulty)
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if "→" in line]
    regressions = {line.split()[1] for line in lines if line.startswith("!")}
    assert regressions == broken
    assert all("passed → failed" in line for line in lines if line.startswith("!"))
    # A requirement the fault did not break is listed only when its test stopped at the
    # failure, so nothing verified it this time: not a regression, but a change.
    others = [line for line in lines if not line.startswith("!")]
    assert all("passed → not verified" in line for line in others), others
    tag = result.output.splitlines().index(
        next(line for line in result.output.splitlines() if " TAG-004 " in line)
    )
    assert "TAG-004" in result.output.splitlines()[tag + 1]  # its cause, indented below


def test_the_fix_is_listed_too_and_exits_0(runs: tuple[Path, Path]) -> None:
    clean, faulty = runs
    result = invoke("--diff", faulty, clean)
    assert result.exit_code == 0, result.output
    assert " TAG-004  failed → passed" in result.output
    same = invoke("--diff", clean, clean)
    assert same.exit_code == 0
    assert "No requirement changed its verdict." in same.output


def test_a_missing_or_broken_run_folder_is_one_line_and_exit_2(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    clean, _ = runs
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "summary.json").write_text("{not json")
    for other, said in (
        (tmp_path / "nowhere", "no such report folder"),
        (tmp_path, "no summary.json"),
        (broken, "not a run summary"),
    ):
        result = CliRunner().invoke(main, ["report", "--diff", str(clean), str(other)])
        assert result.exit_code == 2, result.output
        assert said in result.output
        assert "Traceback" not in result.output
    result = CliRunner().invoke(main, ["report", "--diff", str(clean)])
    assert result.exit_code == 2
    assert "two report folders" in result.output


def test_a_cause_quoting_the_target_stays_on_its_line(runs: tuple[Path, Path]) -> None:
    clean, faulty = runs
    summary = json.loads((faulty / "summary.json").read_text())
    summary["requirements"]["TAG-004"]["causes"] = ["t: TAG-004 got\n\x1b[2Jfake line"]
    (faulty / "summary.json").write_text(json.dumps(summary))
    result = invoke("--diff", clean, faulty)
    assert "\x1b" not in result.output
    assert "\\x1b[2Jfake line" in result.output
