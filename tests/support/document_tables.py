"""Read the facts the spec tests need straight out of spec/api-reference.md.

The spec checks must compare spec/openapi.yaml with the document itself, not with a second
hand-typed copy of its lists: a re-typed list drifts the moment the document changes. This
module parses the document's markdown (headings, tables, backticked tokens) into plain data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = REPO_ROOT / "spec" / "api-reference.md"

_HEADING = re.compile(r"^(#{2,4})\s+(.*)$")
_TOKEN = re.compile(r"`([^`]+)`")
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9_]*$")
_PARENTHESES = re.compile(r"\([^)]*\)")


@dataclass
class Section:
    """One heading of the document with its body text and the tables directly under it."""

    title: str
    text: str
    tables: list[list[list[str]]] = field(default_factory=list)


def tokens(text: str) -> list[str]:
    """Backticked tokens of ``text`` that look like identifiers (codes, enum values)."""
    return [t for t in _TOKEN.findall(text) if _IDENTIFIER.match(t)]


def sections(text: str) -> list[Section]:
    """Split the document at every ##, ### and #### heading; tables keep their header row."""
    found: list[Section] = []
    current = Section(title="", text="")
    table: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= {"-", ":"} for c in cells):
                table.append(cells)
            continue
        if table:
            current.tables.append(table)
            table = []
        heading = _HEADING.match(line)
        if heading:
            found.append(current)
            current = Section(title=heading.group(2).strip(), text="")
        else:
            current.text += line + "\n"
    found.append(current)
    return found


def load_sections() -> list[Section]:
    """Sections of the checked-in document."""
    return sections(DOCUMENT.read_text(encoding="utf-8"))


def error_codes(parsed: list[Section]) -> dict[str, set[str]]:
    """Codes named under each status heading of Errors, keyed by the heading's numbers.

    A status with a table names its codes in the first column; a status without one (401, 405,
    "429 and 500") names them in its first paragraph, which is all that is read so the later
    note on field-level codes (`missing`) is not mistaken for a code.
    """
    codes: dict[str, set[str]] = {}
    for section in parsed:
        if not re.fullmatch(r"\d{3}( and \d{3})*", section.title):
            continue
        if section.tables:
            named = {t for row in section.tables[0][1:] for t in tokens(row[0])}
        else:
            named = set(tokens(section.text.strip().split("\n\n")[0]))
        codes[section.title] = named
    return codes


def identifier_prefixes(parsed: list[Section]) -> dict[str, str]:
    """The identifier-prefix table: record kind -> prefix (with its underscore)."""
    for section in parsed:
        for table in section.tables:
            if table[0] == ["Kind", "Prefix"]:
                return {row[0]: _TOKEN.findall(row[1])[0] for row in table[1:]}
    raise LookupError("identifier prefix table not found in the document")


def enum_values(parsed: list[Section]) -> dict[str, set[str]]:
    """Enumerated values of field tables and of "States:" sentences, keyed by where they are.

    A row counts as an enum when its type column says "enum" (or its rule says "Enumerated").
    Values come from the type column when it lists them, else from the notes; parenthesised
    asides are dropped first, since they mention other fields (`due_at`) rather than values.
    """
    values: dict[str, set[str]] = {}
    for section in parsed:
        for table in section.tables:
            for row in table[1:]:
                if len(row) < 2:
                    continue
                rest = " | ".join(row[1:])
                if not (row[1].startswith("enum") or "Enumerated" in rest):
                    continue
                source = row[1] if tokens(row[1]) else " ".join(row[2:]) or row[1]
                named = tokens(_PARENTHESES.sub("", source))
                if "Enumerated" in rest:
                    named = tokens(_PARENTHESES.sub("", rest))
                if named:
                    values[f"{section.title}: {row[0]}"] = set(named)
        for line in section.text.splitlines():
            if line.startswith("States:"):
                first_sentence = _PARENTHESES.sub("", line).split(". ")[0]
                values[f"{section.title}: states"] = set(tokens(first_sentence))
    return values


def limit_numbers(parsed: list[Section]) -> dict[str, set[int]]:
    """Numbers in the value column of the Limits table, keyed by the limit's name."""
    for section in parsed:
        if section.title != "Limits":
            continue
        for table in section.tables:
            if table[0] == ["Limit", "Value"]:
                return {row[0]: {int(n) for n in re.findall(r"\d+", row[1])} for row in table[1:]}
    raise LookupError("Limits table not found in the document")


def operation_codes(parsed: list[Section], known_codes: set[str]) -> dict[str, set[str]]:
    """Error codes the Endpoints part names for each operation, keyed "METHOD /path".

    An operation's text starts at its bold "**METHOD /path**" paragraph and runs to the next
    one or the end of its section (the close operation names its errors after its table). Only
    tokens that are documented error codes count, so field and expand names are ignored.
    """
    found: dict[str, set[str]] = {}
    in_endpoints = False
    for section in parsed:
        if section.title in {"Endpoints", "Authentication"}:
            in_endpoints = section.title == "Endpoints"
        if not in_endpoints:
            continue
        current: str | None = None
        for paragraph in section.text.split("\n\n"):
            bold = re.match(r"\*\*((?:GET|POST) /v1/[^*]+)\*\*", paragraph.strip())
            if bold:
                current = bold.group(1)
                found.setdefault(current, set())
            if current is not None:
                found[current].update(t for t in tokens(paragraph) if t in known_codes)
    return found
