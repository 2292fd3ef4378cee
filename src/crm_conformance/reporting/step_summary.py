"""The verdict as a CI job summary: Markdown for GitHub's `$GITHUB_STEP_SUMMARY`.

    python -m crm_conformance.reporting.step_summary REPORT_DIR --exit-code N --artifact NAME

prints the summary the Action (`scripts/action.py`) appends to the job's page: the
verdict's first line, the class table, the failed requirements with their cause, and
where the reports are (the uploaded artifact, `requirements.html` in it). It is built
from the run's `summary.json` (the verdict `reporting.summary` computed from the outcome
records), never from the terminal's text.

GitHub renders the summary as Markdown with HTML: a target's message shown raw could
close a table cell (`|`), open a tag (`<img src=...>`), a code span or a link, or break
the line. Every text of the run passes through `markdown_text`: redacted (a token-shaped
value or a secret of the job's environment is `[Filtered]`), inert (control characters
escaped, one line), cut, HTML-escaped, and every Markdown punctuation backslash-escaped.
"""

import argparse
import html
import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from crm_conformance.core.hygiene.inert import inert
from crm_conformance.core.hygiene.redaction import Redactor
from crm_conformance.core.verdicts.outcomes import ClassVerdict, Verdict
from crm_conformance.reporting.summary import class_label

FAILED_SHOWN = 50
"""Failed requirements listed; the rest are counted and left to summary.md."""
CELL_WIDTH = 300
"""Characters kept of one cell's text, before escaping."""

# Every ASCII punctuation character but `&` and `;`, which only the HTML escaping before
# it writes (`&lt;`): backslash-escaped, none can start emphasis, a link, a code span, a
# heading, an autolink (`https\://`) or end a table cell.
_MARKDOWN_PUNCTUATION = re.compile(r"([!\"#$%'()*+,\-./:<=>?@\[\\\]^_`{|}~])")
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD", re.IGNORECASE)

_FIRST_LINE = {
    2: "USAGE ERROR (exit 2): the options or the target file; the job's log says which",
    3: "TARGET UNREACHABLE (exit 3): the job's log says why",
    4: "INTERNAL ERROR (exit 4): pytest.log in the report folder says where",
    130: "INTERRUPTED (exit 130)",
}
"""The first line when the exit code says more than the summary's headline (`run`'s)."""


def redactor_of(environ: Mapping[str, str]) -> Redactor:
    """A redactor of token-shaped text and of the job's secrets: the values of its
    variables named like one (`CRM_TOKEN_FULL`, `ADAPTER_SECRET`), which the run had."""
    return Redactor(value for name, value in environ.items() if _SECRET_NAME.search(name))


def markdown_text(text: str, redactor: Redactor, width: int = CELL_WIDTH) -> str:
    """`text` shown as text in a Markdown table cell or line, never as Markdown or HTML."""
    shown = inert(redactor.text(" ".join(text.split())))
    if len(shown) > width:
        shown = shown[: width - 3] + "..."
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(shown, quote=False))


def _first_line(summary: dict[str, Any] | None, exit_code: int) -> str:
    if exit_code in _FIRST_LINE:
        return _FIRST_LINE[exit_code]
    if summary is None:
        return f"NO VERDICT (exit {exit_code}): the run wrote no summary.json"
    return str(summary.get("headline", ""))


def _class_table(summary: dict[str, Any], redactor: Redactor) -> list[str]:
    claimed = set(summary.get("claimed", []))
    lines = ["| Class | Verdict | Verified |", "|---|---|---|"]
    for cls, entry in summary["classes"].items():
        label = class_label(entry) if cls in claimed else "not claimed"
        mark = "❌ " if entry["verdict"] == ClassVerdict.FAILED else ""
        lines.append(
            f"| {markdown_text(cls, redactor)} | {mark}{markdown_text(label, redactor)} "
            f"| {entry['verified']} of {entry['testable']} |"
        )
    return lines


def _failed_table(summary: dict[str, Any], redactor: Redactor) -> list[str]:
    failed = [
        (req_id, entry)
        for req_id, entry in summary["requirements"].items()
        if entry["verdict"] == Verdict.FAILED
    ]
    if not failed:
        return []
    lines = [
        f"### Failed requirements ({len(failed)})",
        "",
        "| Requirement | Title | Cause | Test |",
        "|---|---|---|---|",
    ]
    for req_id, entry in failed[:FAILED_SHOWN]:
        said = entry["causes"][0] if entry["causes"] else f": {entry['reason']}"
        test, _, cause = str(said).partition(": ")
        lines.append(
            f"| {markdown_text(req_id, redactor)} | {markdown_text(entry['title'], redactor)} "
            f"| {markdown_text(cause, redactor)} | {markdown_text(test, redactor)} |"
        )
    if len(failed) > FAILED_SHOWN:
        lines.append(f"\n{len(failed) - FAILED_SHOWN} more in summary.md.")
    return ["", *lines]


def _artifact(artifact: str, environ: Mapping[str, str]) -> str:
    """The artifact's name, linked to the workflow run's artifacts when on a runner."""
    name = markdown_text(artifact, Redactor())
    server, repository, run_id = (
        environ.get(key, "") for key in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
    )
    if server and repository and run_id:
        return f"[{name}]({server}/{repository}/actions/runs/{run_id}#artifacts)"
    return name


def _where(report_dir: Path, artifact: str, environ: Mapping[str, str]) -> list[str]:
    """Where the reports are: the artifact the Action uploads, and the files in it."""
    folder = markdown_text(str(report_dir), Redactor(), width=500)
    return [
        "",
        "### Reports",
        "",
        f"The report folder is the artifact {_artifact(artifact, environ)} (on the runner: "
        f"{folder}). In it, `requirements.html` is the API document coloured by verdict "
        "(`requirements.html#ID` for one requirement), `summary.md` every requirement with "
        "its cause or what would verify it, and `allure-results/` the tests' exchanges "
        "(`crm-conformance report` builds their HTML report).",
    ]


def render(
    summary: dict[str, Any] | None,
    *,
    exit_code: int,
    report_dir: Path,
    artifact: str,
    environ: Mapping[str, str],
) -> str:
    """The job summary of one run: `summary` is its summary.json (None: none written)."""
    redactor = redactor_of(environ)
    lines = [f"## crm-conformance: {markdown_text(_first_line(summary, exit_code), redactor)}"]
    if summary is not None:
        tests = summary.get("tests", {})
        counts = ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in sorted(tests.items()))
        lines += ["", f"Tests: {sum(tests.values())} ({counts or 'none'}).", ""]
        lines += _class_table(summary, redactor)
        lines += _failed_table(summary, redactor)
    lines += _where(report_dir, artifact, environ)
    return "\n".join(lines) + "\n"


def read_summary(report_dir: Path) -> dict[str, Any] | None:
    """The run's summary.json, or None when the run wrote none (a usage error)."""
    try:
        summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return summary if isinstance(summary, dict) and "classes" in summary else None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m crm_conformance.reporting.step_summary")
    parser.add_argument("report_dir", type=Path)
    parser.add_argument("--exit-code", type=int, required=True, help="the run's exit code")
    parser.add_argument("--artifact", default="crm-conformance-report", help="its artifact")
    args = parser.parse_args(argv)
    text = render(
        read_summary(args.report_dir),
        exit_code=args.exit_code,
        report_dir=args.report_dir,
        artifact=args.artifact,
        environ=os.environ,
    )
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
