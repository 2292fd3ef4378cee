"""The printed verdict's line for a failed requirement: short, and still naming its request."""

from crm_conformance.run.verdict import VERDICT_LINE_WIDTH, short_cause


def test_a_long_cause_is_cut_in_its_message_and_keeps_its_request() -> None:
    request = "(GET /v1/deals?sort=created_at&limit=200 -> 200)"
    words = "expected sort=created_at lists " + "['deal_0123456789abcdef'] " * 8 + request
    line = short_cause(words)
    assert len(line) == VERDICT_LINE_WIDTH
    assert line.startswith("expected sort=created_at lists ['deal_")
    assert line.endswith("... " + request)


def test_a_short_cause_is_whole_and_one_without_a_request_is_cut_at_the_width() -> None:
    assert short_cause("expected 200; got 500") == "expected 200; got 500"
    line = short_cause("x" * 300)
    assert line == "x" * (VERDICT_LINE_WIDTH - 3) + "..."
    huge = "expected a; got b (" + "GET /v1/" + "p" * 200 + " -> 200)"
    assert short_cause(huge) == huge[: VERDICT_LINE_WIDTH - 3] + "..."  # the request leaves no room
