"""The GitHub Action: action.yml wires the inputs to scripts/action.py, the script builds
the `crm-conformance run` command, and its `run` step works (without a shard) end to end."""

import importlib.util
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from crm_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "action.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("action_script", SCRIPT)
    assert spec is not None and spec.loader is not None
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
    assert pip[0] == str(venv / "bin" / "python") and pip[-1] == "/action"


@pytest.mark.slow
def test_the_run_step_works_without_a_shard(tmp_path: Path) -> None:
    outputs = tmp_path / "github_output"
    environment = {
        **os.environ,
        "CRM_ACTION_VENV": sys.prefix,  # the suite is installed here already
        "GITHUB_OUTPUT": str(outputs),
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
