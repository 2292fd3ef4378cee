"""The files users copy (examples/, tox.ini) parse, and every command they run exists.

A `crm-conformance SUB --opt` line in a workflow must name a real subcommand and real
options of it, so an example cannot drift from the CLI unnoticed.
"""

import configparser
import re
import shlex
import tomllib
from pathlib import Path

import click
import pytest
import yaml

from crm_conformance.cli import main
from crm_conformance.core.model.target import load_target

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
WORKFLOWS = sorted(EXAMPLES.glob("**/*.yml"))
_COMMAND = re.compile(r"crm-conformance\s+([^;|&\n]+)")


def commands_in(text: str) -> list[list[str]]:
    """Each `crm-conformance ...` invocation as argv (continuations folded)."""
    folded = text.replace("\\\n", " ")
    found = []
    for match in _COMMAND.finditer(folded):
        words = shlex.split(match.group(1).split("}")[0].replace("${", ""), posix=True)
        found.append(words)
    return found


def _folded_scripts(node: object) -> list[str]:
    if isinstance(node, dict):
        return [s for value in node.values() for s in _folded_scripts(value)]
    if isinstance(node, list):
        return [s for value in node for s in _folded_scripts(value)]
    return [node] if isinstance(node, str) and "crm-conformance " in node else []


def assert_valid(argv: list[str]) -> None:
    name, *rest = argv
    assert name in main.commands, f"crm-conformance {name}: no such command"
    command = main.commands[name]
    options = {opt for param in command.params for opt in getattr(param, "opts", [])}
    for word in rest:
        if word.startswith("-") and word != "--":
            assert word in options, f"crm-conformance {name} {word}: no such option"
    assert isinstance(command, click.Command)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.relative_to(EXAMPLES).as_posix())
def test_workflow_parses_and_runs_real_commands(path: Path) -> None:
    data = yaml.safe_load(path.read_text())
    scripts = _folded_scripts(data)
    assert scripts, f"{path.name} runs no crm-conformance command"
    invocations = [argv for script in scripts for argv in commands_in(script)]
    assert any(argv[0] == "run" for argv in invocations)
    for argv in invocations:
        assert_valid(argv)


def test_there_are_github_gitlab_and_nightly_examples() -> None:
    names = {p.relative_to(EXAMPLES).as_posix() for p in WORKFLOWS}
    assert {"github-actions/conformance.yml", "github-actions/nightly.yml"} <= names
    assert "gitlab-ci/.gitlab-ci.yml" in names
    assert "report" in (EXAMPLES / "github-actions" / "nightly.yml").read_text()
    assert "--history" in (EXAMPLES / "github-actions" / "nightly.yml").read_text()
    assert (
        "report --diff reports/previous"
        in (EXAMPLES / "github-actions" / "nightly.yml").read_text()
    )


def test_the_gitlab_example_links_requirements_html_from_the_merge_request() -> None:
    """`expose_as` links the merge request to the one file the job's artifacts hold."""
    data = yaml.safe_load((EXAMPLES / "gitlab-ci" / ".gitlab-ci.yml").read_text())
    exposing = [job for job in data.values() if isinstance(job, dict) and "expose_as" in str(job)]
    (job,) = exposing
    assert job["artifacts"]["paths"] == ["reports/conformance/requirements.html"]
    assert job["needs"] == ["merge"]
    assert job["when"] == "always"
    assert data["merge"]["artifacts"]["paths"] == ["reports/conformance"]


def test_example_target_file_loads_with_tokens_from_the_environment() -> None:
    path = EXAMPLES / "target.toml"
    tomllib.loads(path.read_text())
    target = load_target(
        path=path,
        environ={
            "CRM_TOKEN_FULL": "sk_test_a.b",
            "CRM_TOKEN_OTHER": "sk_test_c.d",
            "CRM_ADAPTER_TOKEN": "adapter-secret",
        },
    )
    assert target.adapter_url is not None
    assert target.token("other_workspace") == "sk_test_c.d"
    assert target.adapter_token == "adapter-secret"


def test_example_waivers_load() -> None:
    from crm_conformance.core.verdicts.waivers import load_waivers

    assert load_waivers(EXAMPLES / "waivers.yaml")[0].id == "PAG-004"


def test_tox_environments_exist_and_call_real_commands() -> None:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini")
    envs = {s.removeprefix("testenv:") for s in parser.sections() if s.startswith("testenv:")}
    assert {"lint", "spec", "py", "conformance", "nightly"} <= envs
    for env in ("conformance", "nightly"):
        for argv in commands_in(parser[f"testenv:{env}"]["commands"]):
            assert_valid([w for w in argv if not w.startswith("{")])
