"""Every command through click's CliRunner, against the fake suites and fake targets.

The runs are real (pytest in a subprocess against a threaded fake server), so these
tests also show that exit codes, the verdict and the report folder agree.
"""

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result
from support.fake_target import TOKEN, conformant, rate_headers, serve

from crm_conformance.cli import main
from crm_conformance.core.model import paths


@pytest.fixture(autouse=True)
def fake_suites(monkeypatch: pytest.MonkeyPatch, suites: Path, tmp_path: Path) -> Path:
    """The fake suites stand in for suites/; default report folders land in tmp_path."""
    monkeypatch.setattr(paths, "SUITES_DIR", suites)
    monkeypatch.chdir(tmp_path)
    return suites


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_run_against_a_target_reports_the_failed_requirement(
    tmp_path: Path, target_file: Path
) -> None:
    report = tmp_path / "report"
    result = invoke("run", "--target", str(target_file), "--report-dir", str(report))
    assert result.exit_code == 1, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("crm-conformance: NOT CONFORMANT: 1 requirement failed; ")
    # the fake suite names one core id; the real catalogue's core has more to test
    assert "Classes passed in full: none" in result.output
    assert "PAG-001" in result.output
    assert "Not applicable to this target: 1 tests" in result.output
    summary = json.loads((report / "summary.json").read_text())
    assert summary["requirements"]["PAG-001"]["verdict"] == "failed"
    assert summary["requirements"]["TAG-001"]["verdict"] == "not_verified"
    assert summary["requirements"]["TAG-001"]["reason"].startswith(
        "needs the provisioning adapter: add adapter_url"
    )
    assert summary["classes"]["tags"]["verdict"] == "not_verified"
    assert summary["classes"]["core"]["verdict"] == "partially_verified"
    # HDR-001 by the test naming it; the universal checks its answers ran verified more
    assert summary["requirements"]["HDR-001"]["checks"]
    assert summary["classes"]["core"]["verified"] >= 1
    assert summary["observations"][0]["key"] == "default page size"
    assert summary["target"]["token_roles"] == ["full"]
    junit = (report / "junit.xml").read_text()
    assert 'name="requirement" value="PAG-001"' in junit
    markdown = (report / "summary.md").read_text()
    assert markdown.startswith(f"# {summary['headline']}\n")
    assert "core (partially verified (" in markdown


def test_run_writes_allure_labels_history_ids_and_a_redacted_exchange(
    tmp_path: Path, target_file: Path, token: str
) -> None:
    report = tmp_path / "report"
    invoke("run", "--target", str(target_file), "--report-dir", str(report))
    results = [json.loads(p.read_text()) for p in (report / "allure-results").glob("*-result.json")]
    failed = next(r for r in results if r["status"] == "failed")
    labels = {(lab["name"], lab["value"]) for lab in failed["labels"]}
    assert ("epic", "pagination") in labels
    assert ("tag", "PAG-001") in labels
    assert ("feature", "Resources and their fields › Conventions") in labels
    assert failed["historyId"] == failed["testCaseId"] == dict(labels)["crm_history_id"]
    attachment = report / "allure-results" / failed["attachments"][0]["source"]
    exchange = json.loads(attachment.read_text())
    assert exchange["request_headers"]["Authorization"] == "Bearer [Filtered]"
    assert token not in attachment.read_text()
    assert (report / "allure-results" / "environment.properties").is_file()
    assert (report / "allure-results" / "executor.json").is_file()


def test_no_file_a_run_writes_contains_a_token(
    tmp_path: Path, target_file: Path, token: str
) -> None:
    report = tmp_path / "report"
    result = invoke("run", "--target", str(target_file), "--report-dir", str(report), "-n", "2")
    assert result.exit_code == 1, result.output
    assert token not in result.output
    written = [p for p in report.rglob("*") if p.is_file()]
    assert len(written) > 8
    leaking = [str(p) for p in written if token.encode() in p.read_bytes()]
    assert leaking == []
    selector = token.split(".")[0]
    assert [str(p) for p in written if selector.encode() in p.read_bytes()] == []


def test_list_sends_no_request() -> None:
    result = invoke("run", "--list")
    assert result.exit_code == 0, result.output
    assert "test_last_page  [PAG-001]  (pagination)" in result.output
    assert len(result.output.splitlines()) == 3


def test_waivers_are_strict_and_expired_ones_ignored(tmp_path: Path, target_file: Path) -> None:
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("- {id: PAG-001, reason: known bug, link: https://x.invalid/1}\n")
    report = tmp_path / "report"
    result = invoke(
        "run", "--target", str(target_file), "--waivers", str(waivers), "--report-dir", str(report)
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((report / "summary.json").read_text())
    assert summary["requirements"]["PAG-001"]["verdict"] == "expected_failure"
    waivers.write_text("- {id: PAG-001, reason: old, expires: 2020-01-01}\n")
    result = invoke("run", "--target", str(target_file), "--waivers", str(waivers))
    assert result.exit_code == 1


def test_a_waived_test_that_passes_is_reported(tmp_path: Path, target_file: Path) -> None:
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("- {id: HDR-001, reason: thought broken}\n")
    report = tmp_path / "report"
    result = invoke(
        "run", "--target", str(target_file), "--waivers", str(waivers), "--report-dir", str(report)
    )
    assert result.exit_code == 1
    summary = json.loads((report / "summary.json").read_text())
    assert summary["requirements"]["HDR-001"]["verdict"] == "failed"


def test_rerun_failed_runs_only_the_failures(tmp_path: Path, target_file: Path) -> None:
    first = tmp_path / "first"
    invoke("run", "--target", str(target_file), "--report-dir", str(first))
    second = tmp_path / "second"
    result = invoke(
        "run",
        "--target",
        str(target_file),
        "--rerun-failed",
        str(first),
        "--report-dir",
        str(second),
    )
    assert result.exit_code == 1
    assert json.loads((second / "summary.json").read_text())["tests"] == {"failed": 1}


def test_certify_refuses_filters_and_writes_a_certificate(
    tmp_path: Path, target_file: Path
) -> None:
    result = invoke("run", "--certify", "--classes", "tags")
    assert result.exit_code == 2
    assert "Try 'crm-conformance run --help'" in result.output
    report = tmp_path / "report"
    result = invoke("run", "--certify", "--target", str(target_file), "--report-dir", str(report))
    assert result.exit_code == 1
    assert "% of testable requirements verified" in result.output.splitlines()[0]
    certificate = json.loads((report / "certificate.json").read_text())
    assert certificate["classes_passed"] == []
    tags = certificate["classes_not_passed"]["tags"]
    assert tags["verdict"] == "not_verified"
    assert any(lack.startswith("1 not verified: needs the provisioning") for lack in tags["lacks"])
    assert set(certificate["files_sha256"]) >= {"summary.json", "summary.md", "junit.xml"}
    assert len(certificate["spec_sha256"]) == 64


def test_usage_and_unreachable_exit_codes(tmp_path: Path, target_file: Path) -> None:
    result = invoke("run", "--target", str(tmp_path / "missing.toml"))
    assert result.exit_code == 2
    assert "no such file" in result.output
    result = invoke(
        "run",
        "--target",
        str(target_file),
        "--base-url",
        "http://127.0.0.1:9",
        "--report-dir",
        str(tmp_path / "r"),
    )
    assert result.exit_code == 3, result.output
    assert "GET http://127.0.0.1:9/v1/contacts failed" in result.output
    assert not (tmp_path / "r").exists()  # checked before any folder or test


def test_smoke(target_file: Path, tmp_path: Path) -> None:
    result = invoke("smoke", "--target", str(target_file))
    assert result.exit_code == 0, result.output
    assert "ok  tokens.full is accepted" in result.output
    bad = tmp_path / "bad.toml"
    bad.write_text(target_file.read_text().replace("sk_test_fake", "sk_test_wrong"))
    result = invoke("smoke", "--target", str(bad))
    assert result.exit_code == 2
    assert "tokens.full is not accepted" in result.output
    assert "sk_test_wrong" not in result.output
    result = invoke("smoke", "--target", str(target_file), "--base-url", "http://127.0.0.1:9")
    assert result.exit_code == 3


@pytest.fixture
def sweepable() -> Iterator[str]:
    deleted: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE":
            record_id = request.url.path.rsplit("/", 1)[1]
            deleted.append(record_id)
            status = 204 if record_id == "con_1" else 405
            return httpx.Response(status, headers=rate_headers())
        if request.url.path == "/v1/contacts":
            data = [
                {"id": "con_1", "name": "cc-run1-main-alice-1"},
                {"id": "con_2", "external_id": "cc-run1-gw0-x-2"},
                {"id": "con_3", "name": "Somebody else"},
            ]
            body = {
                "data": data,
                "meta": {"has_more": False, "limit": 200},
                "links": {"next": None},
            }
            return httpx.Response(200, json=body, headers=rate_headers())
        return conformant(request)

    with serve(handler) as url:
        yield url


def test_sweep_deletes_by_prefix_and_lists_the_rest(
    tmp_path: Path, target_file: Path, sweepable: str
) -> None:
    result = invoke(
        "sweep", "--target", str(target_file), "--base-url", sweepable, "--prefix", "cc-run1-"
    )
    assert result.exit_code == 1, result.output
    assert "1 deleted (1 contacts)" in result.output
    assert "con_2  contacts: API DELETE -> 405" in result.output
    assert "con_3" not in result.output
    assert "  tags: GET /v1/tags -> 404" in result.output


def test_report_without_a_run_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("report", str(tmp_path))
    assert result.exit_code == 2
    assert "Try 'crm-conformance report --help'" in result.output


def test_an_internal_error_of_pytest_points_to_the_log_and_is_not_unreachable(
    tmp_path: Path, target_file: Path, fake_suites: Path
) -> None:
    (fake_suites / "conftest.py").write_text(
        "def pytest_sessionstart(session):\n    raise RuntimeError('the harness broke')\n"
    )
    report = tmp_path / "report"
    result = invoke("run", "--target", str(target_file), "--report-dir", str(report))
    assert result.exit_code == 4, result.output
    assert result.output.startswith("crm-conformance: INTERNAL ERROR\n")
    assert f"details in {report / 'pytest.log'}" in result.output
    assert "UNREACHABLE" not in result.output


TEXT_PLAIN_SUITE = """
import pytest
from crm_conformance.steps import expect_status

@pytest.mark.req("PAG-001")
def test_lists(api):
    expect_status(api.get("/v1/contacts"), "PAG-001", 200)
"""


def test_json_labelled_text_plain_exits_1_with_the_core_requirement_failed(
    tmp_path: Path, fake_suites: Path
) -> None:
    for old in fake_suites.glob("test_*.py"):
        old.unlink()
    (fake_suites / "test_lists.py").write_text(TEXT_PLAIN_SUITE)

    def text_plain(request: httpx.Request) -> httpx.Response:
        answer = conformant(request)
        headers = {**answer.headers, "Content-Type": "text/plain"}
        return httpx.Response(answer.status_code, content=answer.content, headers=headers)

    with serve(text_plain) as url:
        target = tmp_path / "t.toml"
        target.write_text(f'base_url = "{url}"\n[tokens.full]\nvalue = "{TOKEN}"\n')
        report = tmp_path / "report"
        result = invoke("run", "--target", str(target), "--report-dir", str(report))
    assert result.exit_code == 1, result.output
    assert "  HDR-004  " in result.output
    summary = json.loads((report / "summary.json").read_text())
    assert summary["requirements"]["HDR-004"]["verdict"] == "failed"
    assert summary["requirements"]["HDR-004"]["class"] == "core"


SEEDED_SUITE = """
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

@pytest.mark.req("HDR-001")
@settings(
    max_examples=5, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers())
def test_generated(observe, value):
    observe("case", value)
"""


def test_the_summary_names_the_seed_and_a_rerun_with_it_gives_the_same_cases(
    tmp_path: Path, target_file: Path, fake_suites: Path
) -> None:
    for old in fake_suites.glob("test_*.py"):
        old.unlink()
    (fake_suites / "test_seeded.py").write_text(SEEDED_SUITE)

    def cases(report: Path) -> list[object]:
        summary = json.loads((report / "summary.json").read_text())
        return [obs["value"] for obs in summary["observations"] if obs["key"] == "case"]

    first = tmp_path / "first"
    result = invoke("run", "--target", str(target_file), "--report-dir", str(first))
    seed = json.loads((first / "summary.json").read_text())["seed"]
    assert isinstance(seed, int)
    assert f"seed {seed} (replay: crm-conformance run --seed {seed})" in result.output
    assert f"seed {seed}" in (first / "summary.md").read_text()
    again = tmp_path / "again"
    invoke("run", "--target", str(target_file), "--seed", str(seed), "--report-dir", str(again))
    assert cases(again) == cases(first)
    assert len(cases(first)) >= 2


def test_stderr_off_a_terminal_has_plain_progress_lines_no_longer_than_600(
    tmp_path: Path, target_file: Path, fake_suites: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    many = "import pytest\n" + "".join(
        f"\n@pytest.mark.req('HDR-001')\ndef test_{n}():\n    pass\n" for n in range(25)
    )
    (fake_suites / "test_many.py").write_text(many)
    invoke("run", "--target", str(target_file), "--report-dir", str(tmp_path / "report"))
    stderr = capfd.readouterr().err  # the pytest child writes to this process's stderr
    assert "\r" not in stderr
    assert max(len(line) for line in stderr.splitlines()) <= 600
    shown = [int(line.split("/")[0]) for line in stderr.splitlines() if line.endswith(" failing")]
    # A line at every tenth of the 28 tests (and maybe one per 30 s besides).
    assert {3, 6, 9, 12, 14, 17, 20, 23, 26, 28} <= set(shown), stderr


def test_an_error_line_on_stderr_off_a_terminal_is_cut_at_600_characters(tmp_path: Path) -> None:
    """A target file's unknown key is quoted in the error; a long one stays one short line."""
    target = tmp_path / "target.toml"
    target.write_text('base_url = "http://127.0.0.1:9"\n' + "k" * 900 + " = 1\n")
    result = invoke("run", "--target", str(target))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0].startswith("Error: target file ")
    assert lines[0].endswith("kkk...")
    assert max(len(line) for line in lines) == 600


def test_the_readme_documents_every_exit_code_of_run() -> None:
    from crm_conformance.run import verdict

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Exit codes", 1)[1].split("\n\n", 3)[2]
    documented = {int(row.split("|")[1]) for row in table.splitlines()[2:]}
    codes = {value for name, value in vars(verdict).items() if name.startswith("EXIT_")}
    assert documented == codes
