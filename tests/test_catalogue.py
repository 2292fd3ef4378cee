"""Keep spec/requirements.yaml honest: schema-valid, quoted verbatim, sectioned, well worded.

The catalogue is the traceability spine (every test names its ids, the report shows each
id's outcome), so a misquote or a stray section makes the report lie. These checks read the
document itself, and the broken-catalogue tests show the loader's rules bite.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev extras
import pytest
import yaml

from crm_conformance import CatalogueError
from crm_conformance.core.model import paths
from crm_conformance.core.model.catalogue import (
    DOCUMENT,
    SCHEMA,
    Catalogue,
    heading_paths,
    load_catalogue,
)
from crm_conformance.core.verdicts import checks

ID = re.compile(r"^([A-Z]{2,5})-([0-9]{3})$")
# Titles are behaviour in the present tense, third person: "Replays ...", "Answers ...".
# A first word that does not end in "s" must be listed here to be allowed.
TITLE_VERBS_WITHOUT_S: frozenset[str] = frozenset()


@cache
def _raw_json() -> str:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return json.dumps(yaml.load(paths.REQUIREMENTS.read_text(encoding="utf-8"), Loader=loader))


def _raw() -> dict[str, Any]:
    """A fresh copy of the catalogue file's data, free to damage."""
    loaded: dict[str, Any] = json.loads(_raw_json())
    return loaded


ARCHITECTURE = Path(__file__).resolve().parent.parent / "ARCHITECTURE.md"


def _architecture(paragraph: str) -> set[str]:
    """The backticked names of ARCHITECTURE.md's paragraph starting with `paragraph`."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index(paragraph)
    return set(re.findall(r"`([^`]+)`", text[start : text.index("\n\n", start)]))


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


@pytest.fixture(scope="module")
def document() -> str:
    return DOCUMENT.read_text(encoding="utf-8")


# --- the shipped catalogue -----------------------------------------------------------


def test_the_meta_schema_is_a_valid_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_the_catalogue_validates_against_the_meta_schema() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(_raw())]
    assert errors == []


def test_the_loader_reads_the_shipped_catalogue_once(catalogue: Catalogue) -> None:
    assert load_catalogue() is catalogue  # the plugin asks per test; one read per process
    assert catalogue.document == "api-reference.md"
    assert catalogue.version == 1
    assert len(catalogue) == len(_raw()["requirements"])


def test_ids_are_unique_and_of_a_known_area(catalogue: Catalogue) -> None:
    ids = [r.id for r in catalogue]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    malformed = [i for i in ids if not ID.match(i)]
    assert malformed == []
    unknown_areas = sorted({i.split("-")[0] for i in ids} - _architecture("Id areas"))
    assert unknown_areas == [], "areas must be those of ARCHITECTURE.md"


def test_every_quote_is_verbatim_in_the_document(catalogue: Catalogue, document: str) -> None:
    missing = [(r.id, r.quote) for r in catalogue if r.quote not in document]
    assert missing == []
    multiline = [r.id for r in catalogue if "\n" in r.quote]
    assert multiline == []


def _document_sections(text: str) -> set[str]:
    """Heading paths read independently of the loader: a second reading of the markdown."""
    found: set[str] = set()
    stack: list[str] = []
    for line in text.splitlines():
        match = re.match(r"^(#{2,6}) (.+)$", line)
        if match:
            depth = len(match.group(1)) - 2
            stack = [*stack[:depth], match.group(2).strip()]
            found.add(" › ".join(stack))
    return found


def test_every_section_names_real_headings_of_the_document(
    catalogue: Catalogue, document: str
) -> None:
    sections = _document_sections(document)
    assert "Endpoints › Idempotency" in sections  # the parser itself reads nested headings
    assert [(r.id, r.section) for r in catalogue if r.section not in sections] == []


def test_the_loader_and_the_test_read_the_same_headings(document: str) -> None:
    assert heading_paths(document) == _document_sections(document)


def test_heading_paths_nest_and_skip_the_title_and_code_fences() -> None:
    text = "# Title\n\n## A\n### B\n```\n## Not a heading\n```\n## C\n### D\n"
    assert heading_paths(text) == {"A", "A › B", "C", "C › D"}


def test_titles_state_behaviour_in_the_present_tense(catalogue: Catalogue) -> None:
    problems = []
    for r in catalogue:
        first = r.title.split()[0]
        if r.title.endswith((".", " ")) or r.title != r.title.strip():
            problems.append(f"{r.id}: ends with a period or space: {r.title!r}")
        if not first[0].isupper():
            problems.append(f"{r.id}: does not start with a capital: {r.title!r}")
        if not first.endswith("s") and first not in TITLE_VERBS_WITHOUT_S:
            problems.append(f"{r.id}: does not start with a verb like 'Answers': {r.title!r}")
        if re.search(r"\b(should|must|shall)\b", r.title, re.IGNORECASE):
            problems.append(f"{r.id}: states an obligation, not behaviour: {r.title!r}")
    assert problems == []


def test_classes_are_those_of_the_architecture(catalogue: Catalogue) -> None:
    assert set(catalogue.classes) == _architecture("Classes:")
    assert [n for n, c in catalogue.classes.items() if c.required] == ["core"]
    assert [n for n, c in catalogue.classes.items() if c.opt_in] == ["rate-limits"]
    assert {r.cls for r in catalogue} <= set(catalogue.classes)


def test_opt_in_needs_belong_to_the_opt_in_class(catalogue: Catalogue) -> None:
    assert {r.cls for r in catalogue if r.needs == "opt-in"} == {"rate-limits"}


def test_untestable_entries_carry_a_reason(catalogue: Catalogue) -> None:
    untestable = [r for r in catalogue if not r.testable]
    assert untestable, "the document has statements no black-box test can reach"
    assert [r.id for r in untestable if r.untestable is None or len(r.untestable.split()) < 4] == []


def test_every_registered_check_names_catalogued_ids(catalogue: Catalogue) -> None:
    named = {req_id for check in checks.registered() for req_id in check.requirements}
    assert named, "the checks registry is empty"
    assert sorted(named - {r.id for r in catalogue}) == []


def test_by_class_groups_each_requirement_once_under_its_class(catalogue: Catalogue) -> None:
    """Every declared class is a key, in declaration order; each requirement sits under its
    own class, once; and every class holds a testable requirement."""
    grouped = catalogue.by_class()
    assert list(grouped) == list(catalogue.classes)
    assert Counter(r.id for found in grouped.values() for r in found) == Counter(
        r.id for r in catalogue
    )
    assert all(r.cls == name for name, found in grouped.items() for r in found)
    assert [name for name, found in grouped.items() if not any(r.testable for r in found)] == []


def test_get_answers_none_for_an_unknown_id(catalogue: Catalogue) -> None:
    requirement = catalogue.get("PAG-004")
    assert requirement is not None
    assert requirement.cls == "pagination"
    assert "PAG-004" in catalogue
    assert catalogue.get("PAG-999") is None
    assert "PAG-999" not in catalogue


# --- the rules bite ------------------------------------------------------------------


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "requirements.yaml"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")  # JSON is YAML
    return path


def _broken(tmp_path: Path, index: int, **changes: Any) -> Path:
    data = _raw()
    entry = data["requirements"][index]
    for key, value in changes.items():
        if value is None:
            entry.pop(key, None)
        else:
            entry[key] = value
    return _write(tmp_path, data)


def test_an_unchanged_copy_loads(tmp_path: Path) -> None:
    copy = load_catalogue(_write(tmp_path, _raw()))
    assert copy is not load_catalogue()
    assert len(copy) == len(load_catalogue())


def test_a_duplicate_id_is_refused(tmp_path: Path) -> None:
    data = _raw()
    first, second = data["requirements"][0], data["requirements"][1]
    second["id"] = first["id"]
    with pytest.raises(CatalogueError, match=rf"{first['id']} id: duplicate"):
        load_catalogue(_write(tmp_path, data))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"quote": "Every response carries a pony"}, "quote: not verbatim"),
        ({"quote": "line one\nline two"}, "quote"),
        ({"section": "Endpoints › Ponies"}, "section: 'Endpoints › Ponies' is not a heading"),
        ({"section": "Idempotency"}, "section: 'Idempotency' is not a heading"),
        ({"class": "widgets"}, "class"),
        ({"needs": "luck"}, "needs"),
        ({"id": "PAG-4"}, "PAG-4 id: 'PAG-4' does not match"),
        ({"untestable": ""}, "untestable"),
        ({"quote": None}, "'quote' is a required property"),
        ({"owner": "someone"}, "'owner' was unexpected"),
        ({"needs": "opt-in"}, "needs: opt-in, but class"),
    ],
)
def test_a_broken_requirement_is_refused_naming_its_id_and_key(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    req_id = _raw()["requirements"][3]["id"]
    with pytest.raises(CatalogueError, match=message) as caught:
        load_catalogue(_broken(tmp_path, 3, **changes))
    assert (changes.get("id") or req_id) in str(caught.value)


def test_an_undeclared_class_is_refused(tmp_path: Path) -> None:
    data = _raw()
    used = next(r for r in data["requirements"] if r["class"] == "tenancy")
    del data["classes"]["tenancy"]
    with pytest.raises(CatalogueError, match=rf"{used['id']} class: 'tenancy' is not declared"):
        load_catalogue(_write(tmp_path, data))


def test_only_core_may_be_required(tmp_path: Path) -> None:
    data = _raw()
    data["classes"]["tags"]["required"] = True
    with pytest.raises(CatalogueError, match="classes tags: only core is required"):
        load_catalogue(_write(tmp_path, data))


def test_an_unreadable_file_is_a_catalogue_error(tmp_path: Path) -> None:
    path = tmp_path / "requirements.yaml"
    path.write_text("requirements: [unclosed\n", encoding="utf-8")
    with pytest.raises(CatalogueError, match="cannot read the catalogue"):
        load_catalogue(path)
    with pytest.raises(CatalogueError, match="cannot read the catalogue"):
        load_catalogue(tmp_path / "absent.yaml")


def test_quotes_are_checked_against_the_document_given(tmp_path: Path) -> None:
    other = tmp_path / "api-reference.md"
    other.write_text(DOCUMENT.read_text(encoding="utf-8").replace("Prefix, underscore", "P"))
    with pytest.raises(CatalogueError, match="IDN-001 quote: not verbatim"):
        load_catalogue(paths.REQUIREMENTS, document=other)
