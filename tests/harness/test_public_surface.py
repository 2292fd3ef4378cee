"""The package's public surface: one sorted `__all__`, every name real, the suites inside it.

Like httpx's `tests/test_exported_members.py`: a vendor writing tests beside ours imports
`from crm_conformance import ...` and nothing deeper, so what is exported is a promise,
kept here. `py.typed` ships, so a vendor's type checker sees our types.
"""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import crm_conformance

ROOT = Path(__file__).resolve().parents[2]
INIT = Path(crm_conformance.__file__)


def test_all_is_sorted_and_unique() -> None:
    assert crm_conformance.__all__ == sorted(set(crm_conformance.__all__))


def test_every_exported_name_is_the_object_of_the_module_that_defines_it() -> None:
    for name in crm_conformance.__all__:
        try:
            value = getattr(crm_conformance, name)
        except AttributeError:
            value = importlib.import_module(f"crm_conformance.{name}")  # a public submodule
        home = str(getattr(value, "__module__", None) or getattr(value, "__name__", ""))
        if name != "__version__" and home.startswith("crm_conformance."):
            assert getattr(importlib.import_module(home), name, value) is value, name


def test_type_checkers_see_every_exported_name() -> None:
    """Each name is imported in the module itself, eagerly or under TYPE_CHECKING."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("crm_conformance")
        for alias in node.names
    }
    assert set(crm_conformance.__all__) - imported == {"__version__"}


def test_importing_the_package_loads_no_http_client_or_catalogue() -> None:
    code = (
        "import sys, crm_conformance\n"
        "print([m for m in ('httpx', 'yaml', 'crm_conformance.core.catalogue')"
        " if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(crm_conformance, "NoSuchThing")


def test_the_package_is_marked_typed() -> None:
    assert (INIT.parent / "py.typed").is_file()


SUITE_MODULES = {
    "crm_conformance.core": {"conventions", "document"},
    "crm_conformance.steps": {"operations"},
    "crm_conformance.fuzz": {"layer"},
}
"""Modules a suite reads by name (`document.page_limit()`, `conventions.Lookup`): the
document's constants, the target's conventions, one call of each operation, the fuzz layer."""


def _exported(module: str) -> set[str]:
    names: set[str] = set(SUITE_MODULES.get(module, ()))
    if module in ("crm_conformance", "crm_conformance.steps"):
        names |= set(getattr(importlib.import_module(module), "__all__", ()))
    return names


def test_suites_import_only_from_the_public_surface() -> None:
    """Suites import the names of `crm_conformance` and `crm_conformance.steps`, and the
    modules of SUITE_MODULES; nothing deeper, so the harness can move freely below."""
    found = []
    for path in sorted((ROOT / "suites").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deep = [a.name for a in node.names if a.name.startswith("crm_conformance.")]
                found += [f"{path.name}:{node.lineno} import {name}" for name in deep]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "crm_conformance"
            ):
                allowed = _exported(node.module or "")
                unknown = [a.name for a in node.names if a.name not in allowed]
                found += [f"{path.name}:{node.lineno} {node.module}.{n}" for n in unknown]
    assert found == []
