"""Inert text: what a target sends is shown, never obeyed, and never floods.

DESIGN.md, "On a real network": what a target sends is text, never control. A server
under test (or a proxy before it) chooses its error messages, bodies and header values;
printed raw, an ANSI escape recolours or rewrites a CI log, a carriage return overwrites
the line before it, a bidi override (U+202E) reorders what a reader sees, and one 1 MB
message buries the verdict. `inert` shows every such character as a visible escape
(`\\x1b`, `\\r`, `\\u202e`) and cuts the text to a bound, saying how much was cut.

A leaf module (it imports nothing of ours), separate from `redaction`: redaction decides
which values must not be seen at all, this decides how the rest is shown. Callers
redact first and make inert second, so a cut never leaves half a secret readable; an
escape cannot split a secret, since tokens hold no control characters.
"""

import re
import unicodedata

LINE_LIMIT = 1000
"""Characters kept of one line of target text (a cause, a header value, a Got field)."""
TEXT_LIMIT = 8000
"""Characters kept of a multi-line text (a body, a failure's whole report)."""

# Candidates only: printable ASCII never needs a look, so a body is scanned in C and
# `_escape` decides, for the few characters left, by the running Python's Unicode data.
_CANDIDATE = re.compile(r"[^\x20-\x7e]")
_CANDIDATE_KEEPING_LINES = re.compile(r"[^\x20-\x7e\n\t]")
# Controls (Cc: C0, DEL, C1), formats (Cf: bidi embeddings and overrides, isolates,
# zero-width and directional marks, the BOM, tag characters), line and paragraph
# separators (terminals and editors break lines on them) and lone surrogates.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if unicodedata.category(char) not in _UNSAFE_CATEGORIES:
        return char
    code = ord(char)
    if char in _SHORT:
        return _SHORT[char]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def inert(text: str, *, limit: int = LINE_LIMIT, lines: bool = False) -> str:
    """`text` with every control, format and separator character escaped, cut to `limit`.

    One line unless `lines`: a newline is escaped too, so a cause or a header value
    stays on its line. With `lines`, newlines and tabs stay (an attachment's body, a
    failure's report). The result holds at most `limit` characters, the last of them a
    marker saying how many were cut; escaping first, so the count is of what would show.
    Idempotent: escapes are printable, and a text within its bound is not cut again.
    """
    if text.isprintable():  # most text: nothing to escape, found in C at once
        if len(text) <= limit:
            return text
        shown = text
    else:
        pattern = _CANDIDATE_KEEPING_LINES if lines else _CANDIDATE
        shown = pattern.sub(_escape, text)
    if len(shown) <= limit:
        return shown
    cut = len(shown) - limit
    while True:  # the marker's own length depends on the count it states
        marker = f"… [{cut} more characters]"
        keep = max(limit - len(marker), 0)
        if len(shown) - keep == cut:
            return shown[:keep] + marker
        cut = len(shown) - keep


REPORT_LIMIT = 64000
"""Characters kept of a whole test report (a traceback with its captured output)."""


def inert_lines(text: str, *, line_limit: int = TEXT_LIMIT, limit: int = REPORT_LIMIT) -> str:
    """A multi-line report made inert line by line: each line `inert` and cut to
    `line_limit`, the whole cut to `limit`.

    For a traceback or captured output that may quote the target somewhere: a 1 MB
    message on one line is cut there, and the lines around it stay whole. A line as
    long as a body (a failure's curl line) is not cut again.
    """
    shown = "\n".join(inert(line, limit=line_limit) for line in text.split("\n"))
    return inert(shown, limit=limit, lines=True)
