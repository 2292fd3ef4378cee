"""Sharding: `run --shard K/N` keeps a balanced, deterministic part of the tests, and
`report --merge` joins the parts into the report an unsharded run writes.

The runs are real (pytest in a subprocess) against the fake target and a small fake
suites folder of three modules; one slow test shards the real suites on a fixed seed.
"""

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from crm_conformance import UsageError
from crm_conformance.cli import main
from crm_conformance.core.model import paths
from crm_conformance.core.planning.partition import SHARD_FILE, Plan, Shard, by_module, module_of
from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE
from crm_conformance.reporting.requirements_page import PAGE_FILE, verdict_ids

REAL_SUITES = paths.SUITES_DIR

MODULES = {
    "test_one.py": """
        import pytest
        from crm_conformance.core.verdicts.failure import ConformanceFailure

        @pytest.mark.req("HDR-001")
        @pytest.mark.parametrize("n", range(4))
        def test_lists_answer(api, n):
            assert api.get("/v1/contacts").status_code == 200

        @pytest.mark.req("PAG-001")
        def test_last_page(api):
            response = api.get("/v1/contacts", params={"limit": 1})
            raise ConformanceFailure("PAG-001", expected="null", got="a cursor", response=response)
        """,
    "test_two.py": """
        import pytest

        @pytest.mark.req("HDR-003")
        @pytest.mark.parametrize("n", range(3))
        def test_request_ids(api, n):
            assert api.get("/v1/contacts").status_code == 200
        """,
    "test_three.py": """
        import pytest

        @pytest.mark.req("PAG-003")
        def test_limit(api):
            assert api.get("/v1/contacts", params={"limit": 2}).status_code == 200
        """,
}


@pytest.fixture(autouse=True)
def three_modules(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "checkout" / "fake-suites"
    folder.mkdir(parents=True)
    for name, text in MODULES.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.setattr(paths, "SUITES_DIR", folder)
    monkeypatch.chdir(tmp_path)
    return folder


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def run(target: Path, report: Path, *options: str) -> Result:
    return invoke("run", "--target", str(target), "--report-dir", str(report), *options)


def summary(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "summary.json").read_text())
    return data


def verdict(folder: Path) -> tuple[object, ...]:
    """What a run established, without its timestamps and shard notes."""
    data = summary(folder)
    # which checks a universal rule ran under depends on which worker ran which fuzz case:
    # the evidence lists may differ, the verdicts may not
    requirements = {
        req_id: {k: v for k, v in entry.items() if k not in ("checked", "checks")}
        for req_id, entry in data["requirements"].items()
    }
    return data["tests"], data["classes"], requirements, data["seed"]


# --- the partition ----------------------------------------------------------------------

IDS = [f"suites/test_{m}.py::test_{t}" for m in "abc" for t in range(1, 4)] + [
    "suites/test_d.py::test_alone"
]


def test_by_module_every_test_is_kept_once_and_the_same_each_time() -> None:
    for count in (1, 2, 3, 5):
        parts = by_module(IDS, count)
        assert sorted(n for part in parts for n in part) == sorted(IDS)
        assert parts == by_module(list(IDS), count)


def test_by_module_whole_modules_are_balanced_by_their_tests() -> None:
    parts = by_module(IDS, 2)
    modules = [{module_of(n) for n in part} for part in parts]
    assert not modules[0] & modules[1], "a module is never split"
    assert sorted(len(part) for part in parts) == [4, 6], "modules of 3, 3, 3 and 1 tests"


def _runs(plan: Plan, nodeids: list[str]) -> list[list[str]]:
    """What each shard runs of `nodeids`, among the modules it collects."""
    return [
        [n for n in nodeids if plan.collects(module_of(n), i) and plan.runs(n, i)]
        for i in range(plan.count)
    ]


def test_by_durations_modules_stay_whole_unless_heavier_than_a_share() -> None:
    durations = {n: 1.0 for n in IDS}
    for test in range(1, 4):
        durations[f"suites/test_a.py::test_{test}"] = 4.0  # 12 s of 19: more than a share
    plan = Plan.from_durations(durations, 2)
    parts = _runs(plan, IDS)
    assert sorted(n for part in parts for n in part) == sorted(IDS), "each test once"
    assert plan.modules["suites/test_a.py"] == {0, 1}, "the heavy module is split"
    for light in ("suites/test_b.py", "suites/test_c.py", "suites/test_d.py"):
        assert len(plan.modules[light]) == 1, f"{light} is kept whole"
    assert sorted(sum(durations[n] for n in part) for part in parts) == [9.0, 10.0]
    assert plan.sha256 == Plan.from_durations(dict(durations), 2).sha256


def test_a_test_or_module_the_earlier_run_lacked_runs_in_exactly_one_shard() -> None:
    durations = {n: 1.0 for n in IDS}
    plan = Plan.from_durations(durations, 3)
    new = ["suites/test_a.py::test_new", "suites/test_e.py::test_one", "suites/test_e.py::test_two"]
    parts = _runs(plan, IDS + new)
    assert sorted(n for part in parts for n in part) == sorted(IDS + new)
    owners = [i for i, part in enumerate(parts) if "suites/test_e.py::test_one" in part]
    assert [i for i, part in enumerate(parts) if "suites/test_e.py::test_two" in part] == owners
    assert [plan.collects("suites/test_e.py", i) for i in range(3)].count(True) == 1


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0", ""])
def test_a_bad_shard_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match=r"--shard=.*K/N"):
        Shard.parse(text)


# --- shards and their merge -------------------------------------------------------------


def test_two_shards_merge_into_the_verdict_of_one_run(tmp_path: Path, target_file: Path) -> None:
    whole = run(target_file, tmp_path / "whole", "--seed", "7")
    shards = [
        run(target_file, tmp_path / f"shard{k}", "--seed", "7", "--shard", f"{k}/2") for k in (1, 2)
    ]
    kept = [json.loads((tmp_path / f"shard{k}" / SHARD_FILE).read_text()) for k in (1, 2)]
    assert [record["balanced_by"] for record in kept] == ["modules", "modules"]
    assert sorted(len(record["selected"]) for record in kept) == [4, 5]
    assert [len(record["collected"]) for record in kept] == [9, 9]
    assert all("merge the folders of all its shards" in s.output for s in shards)
    merged = invoke(
        "report", "--merge", str(tmp_path / "shard1"), str(tmp_path / "shard2"),
        "--out", str(tmp_path / "merged"),
    )  # fmt: skip
    assert merged.exit_code == whole.exit_code == 1, merged.output
    assert "Tests: 9 (1 failed, 8 passed); seed 7" in merged.output
    assert merged.output.split("Report:")[0] == whole.output.split("Report:")[0]
    assert verdict(tmp_path / "merged") == verdict(tmp_path / "whole")
    junit = (tmp_path / "merged" / "junit.xml").read_text()
    assert 'tests="9" failures="1"' in junit
    assert "(shard 1/2)" in junit
    assert "(shard 2/2)" in junit
    results = list((tmp_path / "merged" / "allure-results").glob("*-result.json"))
    assert len(results) == 9
    assert len((tmp_path / "merged" / OUTCOMES_FILE).read_text().splitlines()) == 9
    for view in ("badge.json", PAGE_FILE):  # the views of the merged run are the whole's
        assert (tmp_path / "merged" / view).is_file()
    assert (tmp_path / "merged" / "badge.json").read_text() == (
        tmp_path / "whole" / "badge.json"
    ).read_text()
    assert list(verdict_ids((tmp_path / "merged" / PAGE_FILE).read_text())) == list(
        verdict_ids((tmp_path / "whole" / PAGE_FILE).read_text())
    )


def test_shards_balanced_by_an_earlier_runs_durations(tmp_path: Path, target_file: Path) -> None:
    run(target_file, tmp_path / "earlier")
    for k in (1, 2):
        result = run(
            target_file, tmp_path / f"s{k}", "--seed", "7", "--shard", f"{k}/2", "--shard-by",
            str(tmp_path / "earlier"),
        )  # fmt: skip
        assert result.exit_code in (0, 1), result.output
    kept = [json.loads((tmp_path / f"s{k}" / SHARD_FILE).read_text()) for k in (1, 2)]
    assert {record["balanced_by"] for record in kept} == {"durations of earlier"}
    assert sum(len(record["selected"]) for record in kept) == 9
    collected = [set(record["modules_collected"]) for record in kept]
    assert collected[0] != collected[1], "a shard collects only the modules it runs"
    merged = invoke(
        "report", "--merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out",
        str(tmp_path / "m"),
    )  # fmt: skip
    assert merged.exit_code == 1, merged.output
    assert verdict(tmp_path / "m")[:3] == verdict(tmp_path / "earlier")[:3]


def test_a_shard_without_a_seed_is_a_usage_error(tmp_path: Path, target_file: Path) -> None:
    """Shards drawing their own random seeds would fuzz different cases: not one run."""
    result = run(target_file, tmp_path / "s1", "--shard", "1/2")
    assert result.exit_code == 2, result.output
    assert "--shard 1/2 needs --seed N" in result.output
    assert not (tmp_path / "s1").exists()


def test_the_merge_refuses_folders_that_are_not_one_runs_shards(
    tmp_path: Path, target_file: Path
) -> None:
    run(target_file, tmp_path / "s1", "--seed", "7", "--shard", "1/2")
    run(target_file, tmp_path / "s2", "--seed", "8", "--shard", "2/2")
    run(target_file, tmp_path / "plain")
    cases = {
        "differ in seed": [tmp_path / "s1", tmp_path / "s2"],
        "missing [2]": [tmp_path / "s1"],
        "given twice [1]": [tmp_path / "s1", tmp_path / "s1"],
        "no shard.json": [tmp_path / "s1", tmp_path / "plain"],
    }
    for expected, folders in cases.items():
        result = invoke("report", "--merge", *map(str, folders), "--out", str(tmp_path / "m"))
        assert result.exit_code == 2, result.output
        assert expected in result.output
    assert not (tmp_path / "m" / "summary.json").exists()


def test_a_shard_that_ended_early_does_not_merge_as_conformant(
    tmp_path: Path, target_file: Path
) -> None:
    for k in (1, 2):
        run(
            target_file,
            tmp_path / f"s{k}",
            "--seed",
            "7",
            "--shard",
            f"{k}/2",
            "--",
            "-k",
            "not last_page",
        )
    outcomes = tmp_path / "s2" / OUTCOMES_FILE
    lines = outcomes.read_text().splitlines()
    outcomes.write_text("\n".join(lines[:-1]) + "\n")
    result = invoke(
        "report", "--merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out",
        str(tmp_path / "m"),
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "have no outcome (its run ended early)" in result.output
    assert summary(tmp_path / "m")["tests"] == {"passed": 7, "error": 1}


def test_a_certified_run_is_certified_once_merged_with_each_parts_checksums(
    tmp_path: Path, target_file: Path
) -> None:
    for k in (1, 2):
        run(target_file, tmp_path / f"s{k}", "--certify", "--seed", "7", "--shard", f"{k}/2")
        assert not (tmp_path / f"s{k}" / "certificate.json").exists()
    invoke(
        "report", "--merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out",
        str(tmp_path / "m"),
    )  # fmt: skip
    certificate = json.loads((tmp_path / "m" / "certificate.json").read_text())
    assert [part["shard"] for part in certificate["parts"]] == ["1/2", "2/2"]
    for part in certificate["parts"]:
        assert set(part["files_sha256"]) >= {"summary.json", OUTCOMES_FILE, SHARD_FILE}
    assert set(certificate["files_sha256"]) >= {"summary.json", "junit.xml", OUTCOMES_FILE}


@pytest.mark.slow
def test_the_real_suites_sharded_give_the_unsharded_verdict_on_the_same_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against the embedded reference server, fuzz tests included, seed 42; the shards
    balanced by the unsharded run's durations, so each collects only its modules."""
    monkeypatch.setattr(paths, "SUITES_DIR", REAL_SUITES)
    chosen = ("--seed", "42", "--", "-k", "fuzz or tags or pagination")
    whole = invoke("run", "--report-dir", str(tmp_path / "whole"), *chosen)
    for k in (1, 2):
        shard = ("--seed", "7", "--shard", f"{k}/2", "--shard-by", str(tmp_path / "whole"))
        invoke("run", "--report-dir", str(tmp_path / f"s{k}"), *shard, *chosen)
    merged = invoke(
        "report", "--merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out",
        str(tmp_path / "merged"),
    )  # fmt: skip
    assert merged.exit_code == whole.exit_code, merged.output + whole.output
    assert verdict(tmp_path / "merged") == verdict(tmp_path / "whole")


def test_the_ci_examples_run_shards_and_a_merge_job() -> None:
    import yaml

    examples = Path(__file__).resolve().parents[2] / "examples"
    github = yaml.safe_load((examples / "github-actions" / "conformance.yml").read_text())
    assert github["jobs"]["conformance"]["strategy"]["matrix"]["shard"] == [1, 2]
    assert github["jobs"]["merge"]["needs"] == "conformance"
    merge_steps = " ".join(str(step.get("run", "")) for step in github["jobs"]["merge"]["steps"])
    assert "crm-conformance report --merge" in merge_steps
    gitlab = yaml.safe_load((examples / "gitlab-ci" / ".gitlab-ci.yml").read_text())
    assert gitlab["conformance"]["parallel"] == 2
    assert any("--shard" in line for line in gitlab["conformance"]["script"])
    assert any("report --merge" in line for line in gitlab["merge"]["script"])
