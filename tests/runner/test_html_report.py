"""`crm-conformance report` end to end: Allure 3 HTML opened in headless Chromium.

A faulty run (the fake suites fail PAG-001) is turned into the single-file report;
Chromium renders it from file:// and the test reads the rendered DOM: the suites'
classes, the failed requirement with its category, and the failing test's exchange
with the token shown only as `$TOKEN` / `[Filtered]`.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from crm_conformance import html_report, paths
from crm_conformance.cli import main

CHROMIUM = shutil.which("chromium")

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium not installed (apt-get install chromium)"
    ),
    pytest.mark.skipif(
        shutil.which("node") is None or not html_report.allure_binary().is_file(),
        reason="Node or the pinned Allure 3 missing: run bash scripts/setup.sh",
    ),
]


def rendered_text(html: Path, fragment: str, profile: Path) -> str:
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=8000",
            "--dump-dom",
            f"{html.as_uri()}#{fragment}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    dom = re.sub(r"<(script|style)\b.*?</\1>", "", done.stdout, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))


def test_report_of_a_faulty_run_shows_suites_failure_and_redacted_exchange(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suites: Path, target_file: Path, token: str
) -> None:
    monkeypatch.setenv("CRM_ALLURE", str(html_report.allure_binary()))
    monkeypatch.setattr(paths, "SUITES_DIR", suites)
    first, second = tmp_path / "night1", tmp_path / "night2"
    runner = CliRunner()
    for run_dir in (first, second):
        runner.invoke(main, ["run", "--target", str(target_file), "--report-dir", str(run_dir)])
    result = runner.invoke(main, ["report", str(first)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["report", str(second), "--history", str(first)])
    assert result.exit_code == 0, result.output
    assert len((second / "history.jsonl").read_text().splitlines()) == 2

    single = second / "allure-report" / "single" / "index.html"
    html = single.read_text()
    assert "googletagmanager" not in html
    assert token not in html

    overview = rendered_text(single, "", tmp_path / "profile")
    for shown in ("core", "pagination", "tags", "PAG-001", "test_last_page", "Failed 1"):
        assert shown in overview

    results = single.parent.parent / "awesome" / "data" / "test-results"
    failed_id = next(
        p.stem
        for p in results.glob("*.json")
        if "test_last_page" in p.read_text() and '"failed"' in p.read_text()
    )
    failed = rendered_text(single, failed_id, tmp_path / "profile")
    assert "Product defects" in failed
    assert "Expected: links.next null on the last page" in failed
    assert "exchange 1: GET" in failed
    assert "Authorization: Bearer $TOKEN" in failed
    assert token not in failed
    attachments = list((results.parent / "attachments").glob("*"))
    assert any("Bearer [Filtered]" in p.read_text() for p in attachments)
    assert not any(token in p.read_text() for p in attachments)
