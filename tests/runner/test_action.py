"""The GitHub Action: action.yml wires the inputs to scripts/action.py, the script builds
the `crm-conformance run` command, and its `run` step works (without a shard) end to end
and writes the verdict to the job summary (a fake GITHUB_STEP_SUMMARY file)."""

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from crm_conformance.cli import main
from crm_conformance.reporting import step_summary
from crm_conformance.run import runner
from crm_conformance.run.request import RunRequest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "action.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("action_script", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


action = load_script()
VENV = Path("/venv")
REPORT = Path("/work/crm-conformance-report")


def steps() -> dict[str, dict[str, object]]:
    data = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert data["runs"]["using"] == "composite"
    return {
        step.get("id") or step.get("name") or step["uses"]: step for step in data["runs"]["steps"]
    }


def test_the_action_passes_every_input_to_the_script_and_uploads_the_report() -> None:
    data = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert {"target", "classes", "profile", "shard"} <= set(data["inputs"])
    found = steps()
    assert str(found["Install the suite"]["run"]).endswith('scripts/action.py" install')
    run = found["run"]
    assert str(run["run"]).endswith('scripts/action.py" run')
    names = {field.name for field in fields(action.Inputs)}
    assert run["env"] == {f"INPUT_{name.upper()}": f"${{{{ inputs.{name} }}}}" for name in names}
    upload = next(step for step in found.values() if "upload-artifact" in str(step.get("uses")))
    assert str(upload["if"]).startswith("always()")
    assert upload["with"] == {
        "name": "${{ steps.run.outputs.artifact-name }}",
        "path": "${{ steps.run.outputs.report-dir }}",
    }


def test_without_a_shard_the_command_is_a_real_run_of_what_was_given() -> None:
    inputs = action.Inputs(target="t.toml", classes="deals,tags", profile="full", workers="2")
    command = action.run_command(inputs, VENV, REPORT)
    assert command[:2] == [str(VENV / "bin" / "crm-conformance"), "run"]
    assert "--shard" not in command
    run = main.commands["run"]
    context = run.make_context("run", command[2:])  # click parses it as the CLI would
    assert context.params["target"] == Path("t.toml")
    assert context.params["classes"] == "deals,tags"
    assert context.params["profile"] == "full"
    assert context.params["workers"] == 2
    assert context.params["report_dir"] == REPORT


def test_a_shard_is_passed_through_and_names_its_own_artifact() -> None:
    whole = action.Inputs(target="t.toml")
    shard = action.Inputs(target="t.toml", shard="2/4", seed="42")
    plain = action.run_command(whole, VENV, REPORT)
    sharded = action.run_command(shard, VENV, REPORT)
    assert sharded == [*plain[:-2], "--shard", "2/4", "--seed", "42", *plain[-2:]]
    assert whole.artifact_name == "crm-conformance-report"
    assert shard.artifact_name == "crm-conformance-report-shard-2-of-4"


def test_a_shard_without_a_seed_takes_the_workflow_runs_id() -> None:
    """The shards of one run must draw the same cases: every job of a matrix sees one
    GITHUB_RUN_ID. A seed given wins; without a shard none is invented."""
    environ = {"INPUT_SHARD": "1/2", "INPUT_SEED": "", "GITHUB_RUN_ID": "9876543210"}
    assert action.Inputs.from_environment(environ).seed == "9876543210"
    assert action.Inputs.from_environment({**environ, "INPUT_SEED": "7"}).seed == "7"
    assert action.Inputs.from_environment({"GITHUB_RUN_ID": "98"}).seed == ""


def test_inputs_not_given_leave_the_suite_its_defaults() -> None:
    inputs = action.Inputs.from_environment({"INPUT_TARGET": " ", "INPUT_PROFILE": "deep"})
    assert action.run_command(inputs, VENV, REPORT)[2:] == [
        "--profile",
        "deep",
        "--report-dir",
        str(REPORT),
    ]


def test_install_makes_a_venv_then_installs_the_action_checkout() -> None:
    venv = action.venv_of({"RUNNER_TEMP": "/runner/tmp"})
    assert venv == Path("/runner/tmp/crm-conformance-venv")
    make, pip = action.install_commands(Path("/action"), venv)
    assert make[1:] == ["-m", "venv", str(venv)]
    assert pip[0] == str(venv / "bin" / "python")
    assert pip[-1] == "/action"


@pytest.mark.slow
def test_the_run_step_works_without_a_shard(tmp_path: Path) -> None:
    outputs = tmp_path / "github_output"
    environment = {
        **os.environ,
        "CRM_ACTION_VENV": sys.prefix,  # the suite is installed here already
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"),
        "GITHUB_WORKSPACE": str(tmp_path),
        "INPUT_TARGET": "",  # the embedded reference server
        "INPUT_CLASSES": "tags",
        "INPUT_PROFILE": "quick",
        "INPUT_SHARD": "",
        "INPUT_WORKERS": "0",
    }
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "run"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    written = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert written["exit-code"] == "0"
    assert written["artifact-name"] == "crm-conformance-report"
    assert (Path(written["report-dir"]) / "summary.json").is_file()
    assert (tmp_path / "step_summary.md").read_text().startswith("## crm-conformance: ")


def summary_environ(tmp_path: Path, **more: str) -> dict[str, str]:
    """The runner's environment for the run step: a fake GITHUB_STEP_SUMMARY file."""
    return {
        **os.environ,
        "CRM_ACTION_VENV": sys.prefix,  # the suite is installed here already
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "vendor/server",
        "GITHUB_RUN_ID": "77",
        **more,
    }


def run_fake(suites: Path, target_file: Path, report_dir: Path) -> int:
    request = RunRequest(target=target_file, suites_dir=suites, report_dir=report_dir)
    return runner.run(request).exit_code


def test_a_failing_run_writes_its_verdict_classes_failures_and_reports_to_the_job_summary(
    tmp_path: Path, suites: Path, target_file: Path
) -> None:
    report = tmp_path / "report"
    code = run_fake(suites, target_file, report)
    assert code == 1
    environ = summary_environ(tmp_path)
    (tmp_path / "step_summary.md").write_text("an earlier step's summary\n")
    action.write_step_summary(environ, action.Inputs(), report, code)
    text = (tmp_path / "step_summary.md").read_text()
    assert text.startswith("an earlier step's summary\n## crm-conformance: NOT CONFORMANT")
    assert "| Class | Verdict | Verified |" in text
    assert re.search(r"\n\| pagination \| ❌ failed \| \d+ of \d+ \|\n", text), text
    assert re.search(r"\n\| core \| partially verified \\\(\d+ of \d+\\\) \| \d+ of \d+ \|\n", text)
    (row,) = [line for line in text.splitlines() if line.startswith("| PAG\\-001 |")]
    assert row.endswith("| fake\\-suites\\/test\\_fake\\.py\\:\\:test\\_last\\_page |"), row
    assert "requirements.html" in text
    assert "(https://github.example/vendor/server/actions/runs/77#artifacts)" in text


PASSING_SUITE = """
import pytest


@pytest.mark.req("HDR-001")
def test_lists_answer(api):
    assert api.get("/v1/contacts").status_code == 200
"""


def test_a_passing_run_writes_its_verdict_and_no_failed_requirements(
    tmp_path: Path, suites: Path, target_file: Path
) -> None:
    (suites / "test_fake.py").write_text(PASSING_SUITE)
    report = tmp_path / "report"
    code = run_fake(suites, target_file, report)
    assert code == 0
    action.write_step_summary(summary_environ(tmp_path), action.Inputs(), report, code)
    text = (tmp_path / "step_summary.md").read_text()
    assert text.startswith("## crm-conformance: NOTHING FAILED")
    assert "Failed requirements" not in text
    assert "| core |" in text


def test_a_run_without_a_summary_says_its_exit_code_and_leaves_no_job_summary_off_a_runner(
    tmp_path: Path,
) -> None:
    environ = summary_environ(tmp_path)
    action.write_step_summary(environ, action.Inputs(shard="1/2"), tmp_path / "none", 3)
    text = (tmp_path / "step_summary.md").read_text()
    assert text.startswith("## crm-conformance: TARGET UNREACHABLE \\(exit 3\\)")
    assert "crm\\-conformance\\-report\\-shard\\-1\\-of\\-2" in text
    del environ["GITHUB_STEP_SUMMARY"]
    action.write_step_summary(environ, action.Inputs(), tmp_path / "none", 3)  # no file


HOSTILE = "x | y <img src=x onerror=alert(1)> `code` [link](http://evil.example) **b**\n# h"


def hostile_summary() -> dict[str, object]:
    return {
        "headline": "NOT CONFORMANT: 1 requirement failed; <b>x</b>",
        "tests": {"failed": 1},
        "claimed": ["core"],
        "classes": {"core": {"verdict": "failed", "verified": 0, "testable": 1, "lacks": []}},
        "requirements": {
            "HDR-001": {
                "verdict": "failed",
                "title": "Title | with a pipe",
                "causes": [
                    f"suites/t.py::test_x: HDR-001 got {HOSTILE} sk_live_ab.cd SecretValue12345"
                ],
                "reason": "",
            }
        },
    }


def test_target_text_in_the_job_summary_is_inert_and_redacted(tmp_path: Path) -> None:
    text = step_summary.render(
        hostile_summary(),
        exit_code=1,
        report_dir=tmp_path,
        artifact="crm-conformance-report",
        environ={"CRM_TOKEN_FULL": "SecretValue12345"},
    )
    (row,) = [line for line in text.splitlines() if line.startswith("| HDR\\-001 |")]
    assert len(re.findall(r"(?<!\\)\|", row)) == 5  # four cells: no pipe of the target's
    for raw in ("<img", "<b>", "`code`", "](http", "**b**", "sk_live_ab", "SecretValue12345"):
        assert raw not in text, raw
    assert "&lt;img src\\=x onerror\\=alert\\(1\\)&gt;" in row
    assert "\\[Filtered\\]" in row
    assert not any(line.startswith("# h") for line in text.splitlines())
