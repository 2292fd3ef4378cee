"""The package's public surface: one sorted `__all__`, every name real, the suites inside it.

Like httpx's `tests/test_exported_members.py`: a vendor writing tests beside ours imports
`from crm_conformance import ...` and nothing deeper, so what is exported is a promise,
kept here. `py.typed` ships, so a vendor's type checker sees our types.
"""

import ast
import importlib
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


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(crm_conformance, "NoSuchThing")


def test_the_package_is_marked_typed() -> None:
    assert (INIT.parent / "py.typed").is_file()


def test_suites_import_only_from_the_public_surface() -> None:
    found = []
    for path in sorted((ROOT / "suites").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deep = [a.name for a in node.names if a.name.startswith("crm_conformance.")]
                found += [f"{path.name}:{node.lineno} import {name}" for name in deep]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "crm_conformance"
            ):
                if node.module != "crm_conformance":
                    found.append(f"{path.name}:{node.lineno} from {node.module}")
                unknown = [a.name for a in node.names if a.name not in crm_conformance.__all__]
                found += [f"{path.name}:{node.lineno} {name} not exported" for name in unknown]
    assert found == []
