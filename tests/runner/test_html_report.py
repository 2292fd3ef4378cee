"""`crm-conformance report` end to end: Allure 3 HTML opened in headless Chromium.

A faulty run (the fake suites fail PAG-001) is turned into the single-file report;
Chromium renders it from file:// and the test reads the rendered DOM: the suites'
classes, the tree whose class rows count each test once, the failed requirement with
its category, and the failing test's exchange with the token shown only as `$TOKEN` /
`[Filtered]`.
"""

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.headless import CHROMIUM, MISSING, chromium

from crm_conformance.cli import main
from crm_conformance.core.model import paths
from crm_conformance.run import html_report

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason=MISSING),
    pytest.mark.skipif(
        shutil.which("node") is None or not html_report.allure_binary().is_file(),
        reason="Node or the pinned Allure 3 missing: run bash scripts/setup.sh",
    ),
]


def rendered_dom(html: Path, fragment: str, profile: Path) -> str:
    return chromium("--dump-dom", f"{html.as_uri()}#{fragment}", profile=profile, budget_ms=8000)


def rendered_text(html: Path, fragment: str, profile: Path) -> str:
    dom = re.sub(
        r"<(script|style)\b.*?</\1>", "", rendered_dom(html, fragment, profile), flags=re.S
    )
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))


_ITEM = re.compile(r'class="styles_tree-status-bar-item__[^"]*"[^>]*>(\d+)</div>')


def tree_rows(dom: str) -> dict[str, int]:
    """Each row of the report's tree (title -> the tests it counts, every status summed)."""
    rows: dict[str, int] = {}
    for part in dom.split('data-testid="tree-section-title"')[1:]:
        title = re.match(r"[^>]*>([^<]+)</span>", part)
        assert title is not None
        bar = part.split("styles_tree-status-bar__", 1)[1].split("</div></div>", 1)[0]
        rows[title.group(1)] = sum(int(n) for n in _ITEM.findall(bar + "</div>"))
    return rows


TREE = """
import pytest


@pytest.mark.req("PAG-002", "DEAL-001", "HDR-001")
def test_spans_three_classes():
    pass


@pytest.mark.req("PAG-003", "ERR-001")
@pytest.mark.parametrize("n", [1, 2, 3])
def test_skipped_cases(n):
    pytest.skip("not applicable here")
"""
"""Tests a tree miscounts when labels multiply: several classes, skipped parametrized cases."""


def test_report_of_a_faulty_run_shows_suites_failure_and_redacted_exchange(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suites: Path, target_file: Path, token: str
) -> None:
    monkeypatch.setenv("CRM_ALLURE", str(html_report.allure_binary()))
    monkeypatch.setattr(paths, "SUITES_DIR", suites)
    (suites / "test_tree.py").write_text(TREE)
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
    for shown in ("core", "pagination", "tags", "test_last_page", "Failed 1"):
        assert shown in overview

    # Each test sits under one class: the class rows add up to the run's tests, every one
    # of them is in the report, and no two share a history id (none folded as a retry).
    tests = [json.loads(line) for line in (second / "outcomes.jsonl").read_text().splitlines()]
    assert len(tests) == 7
    rows = tree_rows(rendered_dom(single, "", tmp_path / "profile"))
    assert {row: n for row, n in rows.items() if row in ("core", "pagination", "tags")} == {
        "core": 1,
        "pagination": 5,
        "tags": 1,
    }
    assert f"Total {len(tests)} " in overview
    results = single.parent.parent / "awesome" / "data" / "test-results"
    reported = [json.loads(p.read_text()) for p in results.glob("*.json")]
    assert sorted(r["name"] for r in reported) == sorted(
        t["nodeid"].rpartition("::")[2] for t in tests
    )
    assert len({r["historyId"] for r in reported}) == len(tests)

    failed_id = next(
        p.stem
        for p in results.glob("*.json")
        if "test_last_page" in p.read_text() and '"failed"' in p.read_text()
    )
    failed = rendered_text(single, failed_id, tmp_path / "profile")
    assert "Product defects" in failed
    assert "PAG-001" in failed  # the requirement id, a tag of the test as well
    assert "Expected: links.next null on the last page" in failed
    assert "exchange 1: GET" in failed
    assert "Authorization: Bearer $TOKEN" in failed
    assert token not in failed
    attachments = list((results.parent / "attachments").glob("*"))
    assert any("Bearer [Filtered]" in p.read_text() for p in attachments)
    assert not any(token in p.read_text() for p in attachments)
