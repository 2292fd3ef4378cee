"""`requirements.html`: the API document itself, each requirement's clause coloured by
its verdict.

A vendor certifies requirements, and a reader's questions start at a sentence of the
document ("is this verified on my server? by which test? what did it answer?"), so the
page is the whole of `spec/api-reference.md` with every quoted clause highlighted, and
the verdict, tests, cause and curl line one click away. One self-contained file: inline
CSS and script, no network, so it opens from a CI artifact or a mail attachment.

How the clauses are found: each quote is a verbatim substring of the document (the
catalogue checks it), so its offsets are known in the Markdown source. Before rendering,
each boundary is marked by one private-use character (which Markdown leaves as text);
after rendering, every text run between two marks is wrapped in a span naming the ids
whose clauses cover it. Only text is wrapped, so overlapping or identical clauses never
nest tags wrongly: the worst verdict colours a run, and it lists every id.

What the target sent (causes, the failure's report) reaches the page only as data read
by the script with `textContent`: already redacted and inert in the outcome records,
made inert again here, and escaped in the embedded JSON.
"""

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from crm_conformance.core.hygiene.inert import inert, inert_lines
from crm_conformance.core.model.catalogue import DOCUMENT, Catalogue, Requirement
from crm_conformance.core.verdicts.outcomes import Outcome, OutcomeRecord, Verdict, cause_for
from crm_conformance.reporting.summary import class_label

PAGE_FILE = "requirements.html"
"""The page's file name in a report folder."""

WORST_FIRST = (
    Verdict.FAILED,
    Verdict.EXPECTED_FAILURE,
    Verdict.ERROR,
    Verdict.BLOCKED,
    Verdict.NOT_VERIFIED,
    Verdict.PASSED,
    Verdict.UNTESTABLE,
)
"""Which verdict colours a run of text several clauses cover: the worst one."""

SHOWN_AS = {
    Verdict.PASSED: ("passed", "passed"),
    Verdict.FAILED: ("failed", "failed"),
    Verdict.EXPECTED_FAILURE: ("waived", "waived (an expected failure)"),
    Verdict.ERROR: ("not-verified", "not verified (its tests could not run)"),
    Verdict.BLOCKED: ("not-verified", "not verified (the target refused the test's data)"),
    Verdict.NOT_VERIFIED: ("not-verified", "not verified"),
    Verdict.UNTESTABLE: ("untestable", "untestable"),
}
"""Each verdict's colour class and words: the legend's five colours."""

_MARK_BASE = 0xE000
"""The first private-use character marking a clause boundary."""
_MARK_COUNT = 6400
"""The BMP's private-use characters: boundaries for 3,200 requirements."""

_TESTS_SHOWN = 10
"""Tests listed per requirement (a fuzz requirement may have dozens)."""

_REPORTS_SHOWN = 3
"""Failure reports shown per requirement: its first failures say what broke."""

_REPORT_LIMIT = 4000
"""Characters of one failure report on the page (a curl line carries a whole body)."""

_REPORTS_BUDGET = 800_000
"""Characters of failure reports on the whole page, which stays under 2 MB however much
failed; the rest are in `pytest.log` and the Allure report."""


@dataclass(frozen=True)
class _Boundary:
    offset: int
    opens: bool
    req_id: str


def clause_span(document: str, requirement: Requirement) -> tuple[int, int] | None:
    """Where `requirement`'s quote stands in the document, table pipes trimmed.

    A quote found more than once is taken after its section's last heading; the span
    drops leading and trailing `|` and blanks, so a clause across table cells never
    cuts a row's own pipe off.
    """
    quote = requirement.quote
    start = document.find(quote)
    if start < 0:
        return None
    if document.find(quote, start + 1) >= 0:
        heading = requirement.section.rpartition(" › ")[2]
        found = re.search(rf"^#+ {re.escape(heading)}$", document, flags=re.M)
        if found is not None:
            after = document.find(quote, found.end())
            start = after if after >= 0 else start
    end = start + len(quote)
    while start < end and document[start] in "| ":
        start += 1
    while end > start and document[end - 1] in "| ":
        end -= 1
    return (start, end) if start < end else None


def _marked(document: str, requirements: Iterable[Requirement]) -> tuple[str, list[_Boundary]]:
    """The document with one private-use character at each clause boundary."""
    boundaries: list[_Boundary] = []
    for requirement in requirements:
        span = clause_span(document, requirement)
        if span is not None:
            boundaries += [
                _Boundary(span[0], True, requirement.id),
                _Boundary(span[1], False, requirement.id),
            ]
    if len(boundaries) > _MARK_COUNT:
        raise ValueError(f"{len(boundaries) // 2} clauses: more than the page can mark")
    # At one offset, closes go before opens, so touching clauses do not overlap.
    boundaries.sort(key=lambda b: (b.offset, b.opens))
    pieces: list[str] = []
    last = 0
    for index, boundary in enumerate(boundaries):
        pieces += [document[last : boundary.offset], chr(_MARK_BASE + index)]
        last = boundary.offset
    pieces.append(document[last:])
    return "".join(pieces), boundaries


def _is_mark(char: str) -> bool:
    return _MARK_BASE <= ord(char) < _MARK_BASE + _MARK_COUNT


def highlighted_html(
    document: str, requirements: Iterable[Requirement], verdicts: dict[str, str]
) -> str:
    """The document rendered to HTML, each clause's text wrapped in spans by verdict."""
    from markdown_it import MarkdownIt

    if any(_is_mark(char) for char in document):
        raise ValueError("the document holds a private-use character the page marks with")
    marked, boundaries = _marked(document, requirements)
    rendered = MarkdownIt("commonmark", {"html": False}).enable("table").render(marked)
    out: list[str] = []
    active: list[str] = []
    for part in re.split(r"(<[^>]*>)", rendered):
        if part.startswith("<"):  # a mark in a link's address: that clause goes unmarked
            out.append("".join(c for c in part if not _is_mark(c)))
            continue
        run: list[str] = []
        for char in part:
            if not _is_mark(char):
                run.append(char)
                continue
            out.append(_wrapped("".join(run), active, verdicts))
            run = []
            boundary = boundaries[ord(char) - _MARK_BASE]
            if boundary.opens:
                active.append(boundary.req_id)
                out.append(f'<span class="anchor" id="{boundary.req_id}"></span>')
            elif boundary.req_id in active:
                active.remove(boundary.req_id)
        out.append(_wrapped("".join(run), active, verdicts))
    return "".join(out)


def _wrapped(text: str, active: list[str], verdicts: dict[str, str]) -> str:
    """A text run in a span coloured by the worst verdict of the clauses covering it."""
    if not text or not active:
        return text
    ids = sorted(set(active))
    worst = min(
        (Verdict(verdicts.get(i, Verdict.NOT_VERIFIED)) for i in ids), key=WORST_FIRST.index
    )
    return (
        f'<span class="q v-{SHOWN_AS[worst][0]}" data-ids="{" ".join(ids)}" '
        f'title="{escape(", ".join(ids))}: {escape(SHOWN_AS[worst][1])}">{text}</span>'
    )


def _tests_of(records: Iterable[OutcomeRecord]) -> dict[str, list[dict[str, str]]]:
    """Per requirement: the tests asserting it, failures first, each with its outcome and,
    unless it passed, its failure's report or its cause (the lines charged to it)."""
    tests: dict[str, list[dict[str, str]]] = {}
    for record in records:
        for req_id in record.requirements:
            entry = {"test": record.nodeid, "outcome": str(record.outcome)}
            if record.outcome == Outcome.FAILED and req_id not in record.charged:
                entry["outcome"] = "stopped"
                entry["cause"] = f"stopped at a failure of {', '.join(sorted(record.charged))}"
            elif record.details and record.outcome == Outcome.FAILED:
                entry["details"] = record.details  # its cause's lines too
            elif record.outcome != Outcome.PASSED:
                entry["cause"] = inert_lines(cause_for(record.cause, req_id))
            tests.setdefault(req_id, []).append(entry)
    rank = {str(Outcome.FAILED): 0, str(Outcome.PASSED): 2}  # what else ran between
    return {
        req_id: sorted(own, key=lambda test: rank.get(test["outcome"], 1))
        for req_id, own in tests.items()
    }


def _shown(tests: list[dict[str, str]], budget: list[int]) -> list[dict[str, str]]:
    """The tests a requirement lists: the first few, the first reports cut to a bound,
    within what the page has left for reports (`budget`, spent here)."""
    shown = []
    for index, test in enumerate(tests[:_TESTS_SHOWN]):
        test = dict(test)
        details = test.pop("details", "")
        if details and index < _REPORTS_SHOWN and budget[0] > 0:
            test["details"] = inert_lines(details, limit=_REPORT_LIMIT)
            budget[0] -= len(test["details"])
        elif details:
            test["cause"] = inert(details.splitlines()[0])
        shown.append(test)
    return shown


def page_data(
    summary: dict[str, Any], records: Iterable[OutcomeRecord]
) -> dict[str, dict[str, Any]]:
    """What the script shows for each requirement: its verdict, tests, cause, reason."""
    tests = _tests_of(records)
    budget = [_REPORTS_BUDGET]
    data: dict[str, dict[str, Any]] = {}
    for req_id, entry in summary["requirements"].items():
        colour, words = SHOWN_AS[Verdict(entry["verdict"])]
        own = tests.get(req_id, [])
        data[req_id] = {
            "title": entry["title"],
            "class": entry["class"],
            "verdict": colour,
            "words": words,
            "reason": inert(entry["reason"]),
            "tests": _shown(own, budget),
            "more": max(0, len(own) - _TESTS_SHOWN),
            "checks": [inert(line) for line in entry.get("checks", [])],
            "not_run": [inert(line) for line in entry.get("not_run", [])],
        }
    return data


def _class_bars(summary: dict[str, Any]) -> str:
    """One bar per class: verified, failed, not verified, of its testable requirements."""
    rows = []
    for cls, entry in summary["classes"].items():
        verdicts = [r["verdict"] for r in summary["requirements"].values() if r["class"] == cls]
        failed = verdicts.count(Verdict.FAILED)
        waived = verdicts.count(Verdict.EXPECTED_FAILURE)
        testable = entry["testable"]
        rest = max(0, testable - entry["verified"] - failed - waived)
        parts = [
            ("passed", entry["verified"], "verified"),
            ("failed", failed, "failed"),
            ("waived", waived, "waived"),
            ("not-verified", rest, "not verified"),
        ]
        segments = "".join(
            f'<span class="seg v-{colour}" style="flex-grow:{n}" title="{n} {words}"></span>'
            for colour, n, words in parts
            if n
        )
        claimed = "" if cls in summary["claimed"] else " (not claimed)"
        rows.append(
            f'<div class="bar" data-class="{escape(cls)}" title="{escape(class_label(entry))}">'
            f'<span class="cls">{escape(cls)}{claimed}</span><span class="track">{segments}'
            f'</span><span class="counts">{entry["verified"]} of {testable} verified'
            f"{f', {failed} failed' if failed else ''}</span></div>"
        )
    return "\n".join(rows)


_LEGEND = (
    ("passed", "passed"),
    ("failed", "failed"),
    ("not-verified", "not verified"),
    ("untestable", "untestable"),
    ("waived", "waived"),
)


def _legend() -> str:
    return " ".join(f'<span class="q v-{colour}">{words}</span>' for colour, words in _LEGEND)


def _json_for_script(data: Any) -> str:
    """JSON safe inside a <script> element: no `<`, `>` or `&` that could end it."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(
    summary: dict[str, Any], records: Iterable[OutcomeRecord], catalogue: Catalogue
) -> str:
    """The whole page: header, class bars, legend, filter, the coloured document."""
    verdicts = {req_id: entry["verdict"] for req_id, entry in summary["requirements"].items()}
    body = highlighted_html(DOCUMENT.read_text(encoding="utf-8"), catalogue, verdicts)
    target = str(summary.get("target", {}).get("base_url", "?"))
    about = (
        f"{target}, crm-conformance {summary['suite']['version']}, profile "
        f"{summary['profile']}, {summary['started']} to {summary['finished']}"
    )
    return _TEMPLATE.format(
        headline=escape(inert(summary["headline"])),
        about=escape(inert(about)),
        bars=_class_bars(summary),
        legend=_legend(),
        document=body,
        data=_json_for_script(page_data(summary, records)),
        style=_STYLE,
        script=_SCRIPT,
    )


def write_requirements_page(
    run_dir: Path,
    summary: dict[str, Any],
    records: Iterable[OutcomeRecord],
    catalogue: Catalogue,
) -> Path:
    path = run_dir / PAGE_FILE
    path.write_text(render_page(summary, records, catalogue), encoding="utf-8")
    return path


def verdict_ids(html: str) -> Iterator[tuple[str, str]]:
    """(colour, ids) of each highlighted run of a page: what a test reads back."""
    for found in re.finditer(r'<span class="q v-([a-z-]+)" data-ids="([^"]*)"', html):
        yield found.group(1), found.group(2)


_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fff;height:100vh;
display:flex;flex-direction:column;overflow:hidden}
header{flex:none;background:#f7f7f7;border-bottom:1px solid #ccc;padding:6px 16px}
header h1{font-size:17px;margin:0 0 2px}
.about{color:#555;font-size:13px}
.bars{display:grid;grid-template-columns:repeat(auto-fill,minmax(36em,1fr));gap:1px 24px;
margin:6px 0;max-height:30vh;overflow:auto}
.bar{display:grid;grid-template-columns:10em 1fr 17em;gap:8px;align-items:center;font-size:12px}
.track{display:flex;height:10px;background:#eee;border-radius:3px;overflow:hidden}
.seg{display:block;min-width:2px}
.seg.v-passed{background:#2e7d32}.seg.v-failed{background:#c62828}
.seg.v-waived{background:#7b1fa2}.seg.v-not-verified{background:#f9a825}
.tools{font-size:13px;display:flex;gap:16px;flex-wrap:wrap;align-items:center}
main{flex:1;display:flex;min-height:0}
article{flex:1;overflow:auto;padding:0 16px 40vh}
aside{width:32em;overflow:auto;border-left:1px solid #ccc;padding:8px 12px;font-size:13px;
background:#fcfcfc}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 6px}
code{background:#f1f1f1;padding:0 2px}
pre.report{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:6px}
.q{cursor:pointer;border-radius:2px}
.q.v-passed{background:#c8e6c9}.q.v-failed{background:#ffcdd2;outline:1px solid #c62828}
.q.v-not-verified{background:#fff3c4}.q.v-untestable{background:#e0e0e0}
.q.v-waived{background:#e1bee7}
.anchor{scroll-margin-top:30vh}
.anchor:target+.q,.q.picked{box-shadow:0 0 0 2px #1565c0}
.hidden{display:none}
body.only-failed .q:not(.v-failed),body.only-unverified .q:not(.v-not-verified){
background:none;outline:none}
aside h2{font-size:15px;margin:8px 0 2px}
aside .verdict{font-weight:bold}
aside li{margin:2px 0}
aside code{word-break:break-all}
aside .verdict.v-failed{color:#c62828}
"""

_SCRIPT = """
const DATA = JSON.parse(document.getElementById('verdicts').textContent);
const panel = document.getElementById('details');
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}
function describe(id) {
  const r = DATA[id];
  const box = el('section');
  box.dataset.id = id;
  const h = el('h2');
  const a = el('a', id);
  a.href = '#' + id;
  h.append(a, ' ' + (r ? r.title : ''));
  box.append(h);
  if (!r) return box;
  box.append(el('div', r.words, 'verdict v-' + r.verdict), el('div', 'class ' + r['class']));
  if (r.reason && r.verdict !== 'failed') {
    const lead = r.verdict === 'not-verified' ? 'To verify it: ' : '';
    box.append(el('p', lead + r.reason, 'reason'));
  }
  const list = el('ul');
  for (const t of r.tests) {
    const li = el('li');
    li.append(el('b', t.outcome), ' ', el('code', t.test));
    if (t.cause) li.append(el('div', t.cause, 'cause'));
    if (t.details) li.append(el('pre', t.details, 'report'));
    list.append(li);
  }
  if (!r.tests.length) list.append(el('li', 'no test of this run ran it'));
  if (r.more) list.append(el('li', '... and ' + r.more + ' more tests'));
  box.append(list);
  for (const [lead, lines] of [['Checked by (test: checks that passed it)', r.checks || []],
                               ['Could not check it', r.not_run || []]]) {
    if (!lines.length) continue;
    const more = el('ul', undefined, 'checks');
    for (const line of lines) more.append(el('li', line));
    box.append(el('p', lead + ':', 'lead'), more);
  }
  return box;
}
function show(ids) {
  panel.replaceChildren(...ids.map(describe));
  document.querySelectorAll('.q.picked').forEach(n => n.classList.remove('picked'));
  document.querySelectorAll('article .q').forEach(n => {
    if (n.dataset.ids.split(' ').some(i => ids.includes(i))) n.classList.add('picked');
  });
}
document.querySelector('article').addEventListener('click', e => {
  const q = e.target.closest('.q');
  if (q) show(q.dataset.ids.split(' '));
});
function fromHash() {
  const id = decodeURIComponent(location.hash.slice(1));
  if (DATA[id]) show([id]);
}
window.addEventListener('hashchange', fromHash);
const WANTED = {failed: ['failed'], unverified: ['not-verified']};
function filter(mode) {
  document.body.classList.toggle('only-failed', mode === 'failed');
  document.body.classList.toggle('only-unverified', mode === 'unverified');
  const wanted = WANTED[mode];
  document.querySelectorAll('article p, article li, article tr, article pre').forEach(n => {
    const hit = !wanted || [...n.querySelectorAll('.q')].some(
      q => wanted.some(w => q.classList.contains('v-' + w)));
    n.classList.toggle('hidden', !hit && !n.querySelector('th'));
  });
  if (wanted) {
    const ids = Object.keys(DATA).filter(i => wanted.includes(DATA[i].verdict));
    const words = mode === 'failed' ? 'failed' : 'not verified';
    panel.replaceChildren(el('h2', ids.length + ' requirements ' + words), ...ids.map(describe));
  }
}
document.querySelectorAll('input[name=filter]').forEach(
  r => r.addEventListener('change', () => filter(r.value)));
fromHash();
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Requirements: {headline}</title>
<style>{style}</style></head>
<body>
<header>
<h1>{headline}</h1>
<div class="about">{about}</div>
<div class="bars">{bars}</div>
<div class="tools"><span class="legend">Legend: {legend}</span>
<span>Show: <label><input type="radio" name="filter" value="all" checked> everything</label>
<label><input type="radio" name="filter" value="failed"> only failures</label>
<label><input type="radio" name="filter" value="unverified"> only what is not verified</label>
</span></div>
</header>
<main>
<article>{document}</article>
<aside id="details"><p>Click a highlighted clause for its verdict, the tests that assert it
and, for a failure, its cause and curl line. Link to a requirement with #ID.</p></aside>
</main>
<script type="application/json" id="verdicts">{data}</script>
<script>{script}</script>
</body></html>
"""
