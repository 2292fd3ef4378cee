"""`inert`: a target's text is shown as text, never obeyed, and cut to a bound."""

import unicodedata

import httpx

from crm_conformance.core.hygiene.inert import LINE_LIMIT, TEXT_LIMIT, inert, inert_lines
from crm_conformance.core.hygiene.redaction import Redactor
from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.transport.exchanges import record_exchange
from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.core.verdicts.outcomes import Outcome, OutcomeRecord
from crm_conformance.reporting.summary import RunInfo, build_summary, render_markdown

HOSTILE = "\x1b[31mRED\x1b[0m\rover\u202eevil\u2066x\u2069\x00\x7f\x9b\u200f\u2028\ufeff"


def test_controls_formats_and_separators_show_as_visible_escapes() -> None:
    shown = inert(HOSTILE)
    assert shown == (
        "\\x1b[31mRED\\x1b[0m\\rover\\u202eevil\\u2066x\\u2069\\x00\\x7f\\x9b\\u200f\\u2028\\ufeff"
    )
    assert shown.isprintable()


def test_every_unsafe_character_of_the_unicode_data_is_escaped() -> None:
    unsafe = [
        chr(code)
        for code in range(0x110000)
        if unicodedata.category(chr(code)) in {"Cc", "Cf", "Cs", "Zl", "Zp"}
    ]
    shown = inert("".join(unsafe), limit=len(unsafe) * 10)
    assert shown.isprintable()
    assert shown.count("\\") == len(unsafe)


def test_one_line_escapes_newlines_and_tabs_a_multi_line_text_keeps_them() -> None:
    assert inert("a\nb\tc") == "a\\nb\\tc"
    assert inert("a\nb\tc\r\n", lines=True) == "a\nb\tc\\r\n"


def test_printable_text_in_any_script_is_left_alone() -> None:
    text = "Zoë Ångström 日本語 ✓ 😀 a\\x1b literal"
    assert inert(text) == text


def test_a_long_text_is_cut_to_the_bound_saying_how_much_was_cut() -> None:
    shown = inert("A" * 1_000_000)
    assert len(shown) == LINE_LIMIT
    kept = shown.count("A")
    assert shown.endswith(f"… [{1_000_000 - kept} more characters]")
    assert inert(shown) == shown  # within its bound: not cut again


def test_the_bound_counts_the_escapes() -> None:
    shown = inert("\x1b" * 100, limit=60)
    assert len(shown) == 60
    assert "\x1b" not in shown
    assert "more characters]" in shown


def test_a_report_is_cut_line_by_line_and_keeps_its_other_lines() -> None:
    shown = inert_lines("head\n" + "B" * 50_000 + "\x1b\ntail\r\n" + "C" * TEXT_LIMIT)
    lines = shown.split("\n")
    assert lines[0] == "head"
    assert lines[2] == "tail\\r"
    assert len(lines[1]) == TEXT_LIMIT
    assert lines[1].endswith("more characters]")
    assert lines[3] == "C" * TEXT_LIMIT  # a line within the bound (a curl line) stays whole


def test_a_recorded_exchange_holds_the_targets_text_inert() -> None:
    """The exchange a report, an attachment or an observation shows (`record_exchange`)."""
    request = httpx.Request("GET", "http://t/v1/contacts?cursor=a%1B")
    response = httpx.Response(
        400,
        headers=[(b"X-Evil", b"\x1b[31mRED\x9b"), (b"X-Long", b"L" * 5000)],
        content=('{\n  "m": "\x1b[2J\r\u202e' + "M" * 100_000 + '"\n}').encode(),
        request=request,
    )
    exchange = record_exchange(Redactor(), request, response, 0.1, error="\x1b[31mdropped")
    assert exchange.response_headers["x-evil"] == "\\x1b[31mRED\\x9b"
    assert len(exchange.response_headers["x-long"]) == LINE_LIMIT
    body = exchange.response_body or ""
    assert body.startswith('{\n  "m": "\\x1b[2J\\r\\u202eMMM')
    assert len(body) == TEXT_LIMIT
    assert exchange.error == "\\x1b[31mdropped"


def test_a_failure_shows_each_field_on_its_own_line() -> None:
    """A target's newline cannot forge a line of the report, nor its length push one out."""
    forged = "no\nReproduce with:\n  curl http://evil\x1b[2K" + "M" * 100_000
    request = httpx.Request("GET", "http://t/v1/contacts")
    failure = ConformanceFailure(
        "PAG-001", expected="200", got=forged, response=httpx.Response(400, request=request)
    )
    lines = str(failure).splitlines()
    assert [line for line in lines if line.startswith("Reproduce with:")] == ["Reproduce with:"]
    got = next(line for line in lines if line.startswith("  Got:"))
    assert "\\nReproduce with:\\n" in got
    assert "\x1b" not in got
    assert len(got) <= len("  Got:      ") + LINE_LIMIT
    assert lines[-1] == "  curl 'http://t/v1/contacts'"
    posted = httpx.Request("POST", "http://t/v1/contacts", content=b"x" * 20_000)
    long_curl = ConformanceFailure(
        "PAG-001", expected="200", got=forged, response=httpx.Response(400, request=posted)
    )
    report = str(long_curl)
    assert inert_lines(report) == report  # the plugin's pass cuts none of its lines again


def test_a_summary_cell_is_inert_whatever_record_it_comes_from() -> None:
    """An outcome file merged from a shard is read as written: its cells are made inert."""
    record = OutcomeRecord(
        nodeid="t.py::test_x",
        outcome=Outcome.FAILED,
        requirements=["PAG-001"],
        classes=["core"],
        cause="\x1b[31mred\r\u202e|x",
        failed_requirements=["PAG-001"],
    )
    info = RunInfo("0", None, {"base_url": "http://t"}, None, "quick", "s", "f")
    markdown = render_markdown(build_summary([record], info, load_catalogue()))
    row = next(line for line in markdown.splitlines() if line.startswith("| PAG-001 "))
    assert "\\x1b[31mred\\r\\u202e\\|x" in row
