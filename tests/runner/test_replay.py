"""The replay line replays: the printed command names the profile, the classes and, for a
deep run, the rounds each fuzz test ran (`--fuzz-rounds RUN_DIR`), so it sends the same
fuzz requests as the run it replays."""

import ast
import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from crm_conformance.cli import main
from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE, read_records
from crm_conformance.reporting.replay import replay_command

EVERY = ("core", "tags", "deals", "rate-limits")
DEFAULT = ("core", "tags", "deals")  # a given target: every class but the opt-in ones


def summary(profile: str, claimed: tuple[str, ...] = DEFAULT, seed: int | None = 7) -> Any:
    return {
        "seed": seed,
        "seeds": [],
        "profile": profile,
        "claimed": list(claimed),
        "classes": {cls: {} for cls in EVERY},
    }


def replay(given: Any) -> str | None:
    return replay_command(given, report_dir=Path("reports/a b"), default_claim=DEFAULT)


def test_the_replay_names_the_profile_the_classes_and_a_deep_runs_folder() -> None:
    assert replay(summary("quick")) == "crm-conformance run --seed 7"
    assert replay(summary("full")) == "crm-conformance run --seed 7 --profile full"
    assert replay(summary("deep")) == (
        "crm-conformance run --seed 7 --profile deep --fuzz-rounds 'reports/a b'"
    )
    assert replay(summary("quick", EVERY)) == "crm-conformance run --seed 7 --classes all"
    assert (
        replay(summary("quick", ("core", "tags"))) == "crm-conformance run --seed 7 --classes tags"
    )
    assert replay(summary("quick", ("core",))) == "crm-conformance run --seed 7 --classes core"
    assert replay(summary("quick", seed=None)) is None


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, ["run", *map(str, args)], catch_exceptions=False)


def test_fuzz_rounds_is_the_deep_profiles_and_needs_a_run_folder(tmp_path: Path) -> None:
    (tmp_path / OUTCOMES_FILE).write_text("")
    for args, said in (
        (("--fuzz-rounds", tmp_path), "add --profile deep"),
        (("--profile", "deep", "--fuzz-rounds", tmp_path, "--fuzz-minutes", "1"), "not allowed"),
        (("--profile", "deep", "--fuzz-rounds", tmp_path / "none"), "no outcomes.jsonl there"),
    ):
        result = invoke(*args, "--report-dir", tmp_path / "report")
        assert result.exit_code == 2, result.output
        assert said in result.output


SELECTED = ("--", "-k", "test_operation and users")  # one fuzz operation: GET /v1/users


def fuzz_properties(report: Path) -> list[dict[str, Any]]:
    """The `fuzz` property of each test in the run's junit.xml: rounds, requests, digest."""
    return [
        ast.literal_eval(p.get("value") or "{}")
        for p in ET.parse(report / "junit.xml").getroot().iter("property")
        if p.get("name") == "fuzz"
    ]


@pytest.mark.slow
def test_a_deep_runs_printed_replay_sends_the_same_fuzz_requests(tmp_path: Path) -> None:
    first = tmp_path / "first"
    ran = invoke("--profile", "deep", "--fuzz-minutes", "0.15", "--report-dir", first, *SELECTED)
    assert ran.exit_code == 0, ran.output
    (command,) = re.findall(r"\(replay: (.*)\)$", ran.output, re.MULTILINE)
    words = shlex.split(command)
    assert words[:2] == ["crm-conformance", "run"]
    assert ["--profile", "deep", "--fuzz-rounds", str(first)] == words[4:8], words
    again = tmp_path / "again"
    replayed = invoke(*words[2:], "--report-dir", again, *SELECTED)
    assert replayed.exit_code == 0, replayed.output
    (original,) = fuzz_properties(first)  # 9 s of fuzzing: two rounds or more, usually
    assert original["rounds"] >= 1
    assert original["requests"] > 100
    assert fuzz_properties(again) == [original]  # rounds, requests and their fingerprint
    (record,) = [r for r in read_records(first / OUTCOMES_FILE) if r.rounds is not None]
    assert record.rounds == original["rounds"]
