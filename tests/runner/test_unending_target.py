"""A target whose answer never ends stops `smoke` and `run` with one line, exit 3, before
any test (the target file's `timeout` bounds the whole exchange:
`crm_conformance.core.transport.bounds`)."""

from pathlib import Path

import pytest
from click.testing import CliRunner
from support.fake_target import TOKEN
from support.unending_target import Kind, serve_unending

from crm_conformance.cli import main

SAID = {"trickle": "did not end within 0.5 s", "endless": "exceeded 1024 bytes"}


def target_file(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(
        f'base_url = "{url}"\ntimeout = 0.5\nmax_response_bytes = 1024\n'
        f'[tokens.full]\nvalue = "{TOKEN}"\n'
    )
    return path


@pytest.mark.parametrize("command", ["smoke", "run"])
@pytest.mark.parametrize("kind", ["trickle", "endless"])
def test_an_answer_that_never_ends_is_one_line_and_exit_3(
    command: str, kind: Kind, tmp_path: Path
) -> None:
    report = tmp_path / "report"
    extra = ["--report-dir", str(report)] if command == "run" else []
    with serve_unending(kind) as url:
        result = CliRunner().invoke(
            main, [command, "--target", str(target_file(tmp_path, url)), *extra]
        )
    assert result.exit_code == 3, result.output
    hint = (
        "(the target file's timeout covers the whole exchange, body included)"
        if kind == "trickle"
        else "(raise max_response_bytes in the target file if the target means it)"
    )
    # One message, and the command's usual help hint.
    assert result.output.splitlines() == [
        f"Error: the answer to GET /v1/contacts {SAID[kind]} {hint}",
        f"Try 'crm-conformance {command} --help'.",
    ]
    assert not report.exists()
