"""A target's text reaches no output raw: the plugin against a fake answering with
ANSI escapes, a carriage return, a bidi override and a 1 MB message (DESIGN.md, "On a
real network": what a target sends is text, never control)."""

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Imported here, not first inside a pytester run (see test_plugin.py).
import httpcore  # noqa: F401  # kept imported across in-process runs (above)
import httpx
import pytest
import yaml  # noqa: F401  # kept imported across in-process runs (above)
from click.testing import CliRunner
from support.fake_target import TOKEN, error_body, rate_headers, serve

from crm_conformance.cli import main
from crm_conformance.core.hygiene.inert import LINE_LIMIT, TEXT_LIMIT
from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.verdicts.outcomes import read_records
from crm_conformance.reporting.summary import RunInfo, build_summary, render_markdown

pytest_plugins = ["pytester"]

EVIL = "\x1b[31mRED\x1b[0m\rfake line\u202eevil" + "M" * 1_000_000
EVIL_HEADER = b"\x1b[31mRED\x1b[0m\x9b31m"  # h11 refuses a CR in a header; C1 passes
RAW = ("\x1b", "\r", "\u202e", "\x9b")


def hostile(request: httpx.Request) -> httpx.Response:
    """Every request answered by an error envelope whose message is `EVIL`."""
    request_id = "req_0123456789abcdef0123456789abcdef"
    body = error_body("invalid_request_error", "\x1b[2Jcleared", request_id=request_id)
    body["error"]["message"] = EVIL
    headers = [(k.encode(), v.encode()) for k, v in rate_headers(request_id).items()]
    headers.append((b"X-Evil", EVIL_HEADER))
    return httpx.Response(400, json=body, headers=headers, request=request)


@pytest.fixture
def hostile_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    monkeypatch.delenv("CRM_TOKEN_OTHER", raising=False)
    with serve(hostile) as url:
        yield url


SUITE = """
import pytest
from crm_conformance._errors import SetupFailed
from crm_conformance.core.verdicts.failure import ConformanceFailure

def message(api):
    return api.get("/v1/contacts").json()["error"]["message"]

@pytest.mark.req("PAG-001")
def test_a_conformance_failure_quotes_it(api):
    response = api.get("/v1/contacts")
    raise ConformanceFailure("PAG-001", expected="200", got=response.json()["error"]["message"],
                             exchange=api.log.exchanges[-1])

@pytest.mark.req("PAG-002")
def test_an_exception_quotes_it(api):
    raise RuntimeError(message(api))

@pytest.mark.req("PAG-003")
def test_a_skip_quotes_it(api):
    pytest.skip(message(api))

@pytest.mark.req("PAG-005")
def test_a_setup_problem_quotes_it(api):
    raise SetupFailed("the target refused: " + message(api))

@pytest.mark.req("HDR-001")
def test_an_observation_quotes_it(api, observe):
    response = api.get("/v1/contacts")
    observe("header", response.headers["x-evil"])
    observe("message", response.json()["error"]["message"])
    print(response.json()["error"]["message"])  # captured output, shown by -rA
"""


def strings(value: Any) -> Iterator[str]:
    """Every string in parsed JSON data, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)


def assert_inert(where: str, text: str, bound: int) -> None:
    raw = [char for char in RAW if char in text]
    assert not raw, f"{where} holds raw {raw!r}"
    longest = max((len(run) for run in re.findall("M+", text)), default=0)
    assert longest <= bound, f"{where} holds {longest} characters of the 1 MB message"


def test_no_output_holds_the_targets_controls_or_its_whole_message(
    pytester: pytest.Pytester, hostile_url: str
) -> None:
    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "test_hostile.py").write_text(SUITE)
    result = pytester.runpytest(
        "suites",
        "-p",
        "no:cacheprovider",
        "-p",
        "crm_conformance.reporting.run_plugin",
        "-rA",
        "--base-url",
        hostile_url,
        "--junitxml=junit.xml",
        "--alluredir=allure",
        "--crm-outcomes=outcomes.jsonl",
    )
    result.assert_outcomes(failed=1, errors=2, skipped=1, passed=1)  # the exception: a suite error
    stdout = result.stdout.str()
    assert "\\x1b[31mRED\\x1b[0m\\rfake line\\u202eevil" in stdout  # shown, escaped
    assert "more characters]" in stdout  # and cut, saying so
    assert_inert("stdout", stdout, TEXT_LIMIT)
    assert_inert("stderr", result.stderr.str(), TEXT_LIMIT)
    assert_inert("junit.xml", (pytester.path / "junit.xml").read_text(), TEXT_LIMIT)
    outcomes = pytester.path / "outcomes.jsonl"
    for line in outcomes.read_text().splitlines():
        for text in strings(json.loads(line)):
            assert_inert("outcomes.jsonl", text, TEXT_LIMIT)
    records = list(read_records(outcomes))
    assert all(len(record.cause) <= LINE_LIMIT for record in records)
    info = RunInfo("0", None, {"base_url": hostile_url}, None, "quick", "s", "f")
    summary = build_summary(records, info, load_catalogue())
    for text in strings(summary):
        assert_inert("summary.json", text, TEXT_LIMIT)
    assert_inert("summary.md", render_markdown(summary), LINE_LIMIT)
    allure = sorted((pytester.path / "allure").iterdir())
    assert any(path.name.endswith("-attachment.json") for path in allure)
    for path in allure:
        data = json.loads(path.read_text()) if path.suffix == ".json" else path.read_text()
        for text in strings(data):
            assert_inert(f"allure {path.name}", text, TEXT_LIMIT)


def test_a_one_line_error_shows_the_targets_text_escaped(tmp_path: Path) -> None:
    """smoke's "token not accepted" quotes the target's error code."""

    def refuses(request: httpx.Request) -> httpx.Response:
        body = error_body("authentication_error", EVIL, request_id="req_1")
        return httpx.Response(401, json=body, request=request)

    target = tmp_path / "target.toml"
    with serve(refuses) as url:
        target.write_text(f'base_url = "{url}"\n[tokens.full]\nvalue = "{TOKEN}"\n')
        result = CliRunner().invoke(main, ["smoke", "--target", str(target)])
    assert result.exit_code == 2
    assert "tokens.full is not accepted" in result.output
    assert "\\x1b[31mRED" in result.output
    assert_inert("smoke's error", result.output, TEXT_LIMIT)


def test_the_probes_one_line_error_quotes_the_target_inert_and_short(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "target does not answer like the API": the Content-Type is the target's text."""
    media = b"text/html\x1b[31m\x9b" + b"M" * 5000

    def html(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"<html>", headers=[(b"Content-Type", media)])

    (pytester.path / "suites").mkdir()
    (pytester.path / "suites" / "test_x.py").write_text(
        '@__import__("pytest").mark.req("PAG-001")\ndef test_pages(api):\n    pass\n'
    )
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    with serve(html) as url:
        result = pytester.runpytest("suites", "-p", "no:cacheprovider", "--base-url", url)
    output = result.stdout.str() + result.stderr.str()
    assert "target does not answer like the API" in output
    assert "Content-Type 'text/html\\x1b[31m\\x9bMMM" in output
    assert "Is base_url the API root" in output  # the hint after the quote stays
    assert_inert("the probe's message", output, 200)
