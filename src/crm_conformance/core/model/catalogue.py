"""The requirements catalogue: `spec/requirements.yaml`, loaded, checked and typed.

Every assertion of the suite names a requirement id, and the report shows each id's
outcome, so the catalogue is the one place that says what the document requires. It is
data, and data drifts: this module refuses a catalogue that breaks its meta-schema
(`spec/requirements.schema.json`) or the rules a schema cannot say (ids unique, quotes
found verbatim in the document, sections naming the document's headings, classes
declared), with a `CatalogueError` naming the id and key at fault.

It also answers every lookup of a requirement (its class, section, title) for the rest
of the harness: the plugin, the failure printer and the reports ask `load_catalogue()`,
the one cache of the shipped file, and nothing else keeps a table of classes or areas.

Import-light on purpose: the plugin and the failure printer ask for it lazily, so YAML
and jsonschema load only when a catalogue is read. No pytest here.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, cast

from crm_conformance._errors import CatalogueError
from crm_conformance.core.model import paths

DOCUMENT = paths.SPEC_DIR / "api-reference.md"
"""The contract every quote is checked against."""

SCHEMA = paths.SPEC_DIR / "requirements.schema.json"
"""The meta-schema of the catalogue file."""

SECTION_SEPARATOR = " › "
"""Joins the document's headings into a requirement's `section`."""

Needs = Literal["api", "adapter", "opt-in"]


@dataclass(frozen=True)
class Requirement:
    """One testable statement of the document, quoted, with what a test of it needs."""

    id: str
    title: str
    section: str
    quote: str
    cls: str
    needs: Needs
    untestable: str | None = None
    limitation: str | None = None
    """What a test of this statement cannot tell apart (a fault left out for it)."""
    decision: str | None = None
    """How the suite reads a sentence other teams could read otherwise, and what it
    therefore accepts (each legal reading has a variant in `reference/variants.py`)."""

    @property
    def testable(self) -> bool:
        """False for the rare statement no black-box test can reach (`untestable` says why)."""
        return self.untestable is None


@dataclass(frozen=True)
class ConformanceClass:
    """A group of requirements a vendor claims as a whole (core is always claimed)."""

    name: str
    title: str
    description: str
    required: bool = False
    opt_in: bool = False


@dataclass(frozen=True)
class Catalogue:
    """The loaded catalogue: requirements in file order and the declared classes."""

    version: int
    document: str
    classes: Mapping[str, ConformanceClass]
    requirements: tuple[Requirement, ...]
    negative_demands: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    """Each place spec/openapi.yaml constrains in a request (`request_constraints`) and
    the requirements whose sentences demand that a server refuse a value breaking it."""

    @functools.cached_property
    def _by_id(self) -> Mapping[str, Requirement]:
        return MappingProxyType({r.id: r for r in self.requirements})

    def get(self, req_id: str) -> Requirement | None:
        """The requirement `req_id`, or None when the catalogue has no such id."""
        return self._by_id.get(req_id)

    def class_of(self, req_id: str) -> str | None:
        """The class of requirement `req_id`, or None when the catalogue has no such id."""
        requirement = self.get(req_id)
        return None if requirement is None else requirement.cls

    def classes_of(self, req_ids: Iterable[str]) -> list[str]:
        """The distinct classes of `req_ids`, in the order of the ids; unknown ids add none."""
        found = (self.class_of(req_id) for req_id in req_ids)
        return list(dict.fromkeys(cls for cls in found if cls is not None))

    def sections_of(self, req_ids: Iterable[str]) -> list[str]:
        """The distinct sections of `req_ids`, in the order of the ids; unknown ids add none."""
        found = (self.get(req_id) for req_id in req_ids)
        return list(dict.fromkeys(r.section for r in found if r is not None))

    @property
    def opt_in_classes(self) -> frozenset[str]:
        """Classes that run only when claimed (their tests spend something of the target's)."""
        return frozenset(name for name, cls in self.classes.items() if cls.opt_in)

    def by_class(self) -> dict[str, tuple[Requirement, ...]]:
        """Requirements per declared class, in declaration order; a class may have none."""
        grouped: dict[str, list[Requirement]] = {name: [] for name in self.classes}
        for requirement in self.requirements:
            grouped[requirement.cls].append(requirement)
        return {name: tuple(found) for name, found in grouped.items()}

    def __contains__(self, req_id: object) -> bool:
        return req_id in self._by_id

    def __iter__(self) -> Iterator[Requirement]:
        return iter(self.requirements)

    def __len__(self) -> int:
        return len(self.requirements)


def load_catalogue(
    path: Path | str = paths.REQUIREMENTS, *, document: Path | str = DOCUMENT
) -> Catalogue:
    """Load and check a catalogue; the shipped one is read once per process.

    The plugin consults the catalogue for every collected test, so the default file is
    cached (the harness's only copy); any other path (a test's broken copy, a vendor's
    draft) is read afresh.
    """
    path, document = Path(path), Path(document)
    if path == paths.REQUIREMENTS and document == DOCUMENT:
        return _shipped_catalogue()
    return _load(path, document)


@functools.cache
def _shipped_catalogue() -> Catalogue:
    return _load(paths.REQUIREMENTS, DOCUMENT)


def heading_paths(markdown: str) -> frozenset[str]:
    """Every section path of `markdown`: its `##` and deeper headings joined by " › ".

    The single `#` heading is the document's title, not a section, so paths start at
    `##` ("Endpoints › Idempotency"). Lines inside code fences are not headings.
    """
    found: set[str] = set()
    trail: list[tuple[int, str]] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or not line.startswith("##"):
            continue
        marks, _, title = line.partition(" ")
        if set(marks) != {"#"} or not title.strip():
            continue
        level = len(marks)
        trail = [(lvl, name) for lvl, name in trail if lvl < level]
        trail.append((level, title.strip()))
        found.add(SECTION_SEPARATOR.join(name for _, name in trail))
    return frozenset(found)


def _load(path: Path, document: Path) -> Catalogue:
    import yaml  # imported here: keeps `import crm_conformance.core.model.catalogue` light

    try:
        # libyaml's loader when present: ten times faster, and the plugin loads at collection.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CatalogueError(f"cannot read the catalogue {path}: {exc}") from exc
    try:
        text = document.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogueError(f"cannot read the document {document}: {exc}") from exc
    _check_schema(path, data)
    return _check_rules(path, cast(dict[str, Any], data), text, document.name)


def _check_schema(path: Path, data: Any) -> None:
    import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev extras

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        problems = [f"{_where(data, list(e.absolute_path))}: {e.message}" for e in errors]
        raise CatalogueError(_report(path, problems))


def _where(data: Any, location: list[Any]) -> str:
    """Name a schema error's place by requirement id and key, e.g. "AUTH-004 needs"."""
    if len(location) >= 2 and location[0] == "requirements" and isinstance(location[1], int):
        entry = data["requirements"][location[1]]
        req_id = entry.get("id") if isinstance(entry, dict) else None
        name = req_id if isinstance(req_id, str) else f"requirements[{location[1]}]"
        return " ".join([name, *(str(p) for p in location[2:])])
    return " ".join(str(p) for p in location) or "(top level)"


def _check_rules(path: Path, data: dict[str, Any], text: str, document: str) -> Catalogue:
    classes = {
        name: ConformanceClass(
            name=name,
            title=entry["title"],
            description=entry["description"],
            required=entry.get("required", False),
            opt_in=entry.get("opt_in", False),
        )
        for name, entry in data["classes"].items()
    }
    problems = [
        f"classes {name}: only core is required, and core must be"
        for name, cls in classes.items()
        if cls.required != (name == "core")
    ]
    if "core" not in classes:
        problems.append("classes core: the core class must be declared (required: true)")
    sections = heading_paths(text)
    seen: dict[str, int] = {}
    requirements = []
    for index, entry in enumerate(data["requirements"]):
        requirement = Requirement(
            id=entry["id"],
            title=entry["title"],
            section=entry["section"],
            quote=entry["quote"],
            cls=entry["class"],
            needs=entry["needs"],
            untestable=entry.get("untestable"),
            limitation=entry.get("limitation"),
            decision=entry.get("decision"),
        )
        rid = requirement.id
        if rid in seen:
            problems.append(f"{rid} id: duplicate (also requirement #{seen[rid] + 1})")
        seen.setdefault(rid, index)
        if requirement.quote not in text:
            problems.append(f"{rid} quote: not verbatim in {document}: {requirement.quote!r}")
        if requirement.section not in sections:
            problems.append(
                f"{rid} section: {requirement.section!r} is not a heading path of {document}"
            )
        declared = classes.get(requirement.cls)
        if declared is None:
            problems.append(f"{rid} class: {requirement.cls!r} is not declared under classes")
        elif requirement.needs == "opt-in" and not declared.opt_in:
            problems.append(f"{rid} needs: opt-in, but class {requirement.cls!r} is not opt_in")
        requirements.append(requirement)
    demands = {place: tuple(ids) for place, ids in data.get("negative_demands", {}).items()}
    problems += [
        f"negative_demands {place!r}: {rid} is not a requirement of this catalogue"
        for place, ids in demands.items()
        for rid in ids
        if rid not in seen
    ]
    if problems:
        raise CatalogueError(_report(path, problems))
    return Catalogue(
        version=data["version"],
        document=data["document"],
        classes=MappingProxyType(classes),
        requirements=tuple(requirements),
        negative_demands=MappingProxyType(demands),
    )


def _report(path: Path, problems: list[str]) -> str:
    shown = problems[:20]
    more = f"\n  ... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
    return f"{path.name} is not a valid catalogue:\n  " + "\n  ".join(shown) + more
