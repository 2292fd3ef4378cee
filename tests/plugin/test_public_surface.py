"""The package's public surface: one sorted `__all__`, every name real, the suites inside it.

Like httpx's `tests/test_exported_members.py`: a vendor writing tests beside ours imports
`from crm_conformance import ...` and nothing deeper, so what is exported is a promise,
kept here. `py.typed` ships, so a vendor's type checker sees our types.
"""

import ast
import importlib
import types
from pathlib import Path

import pytest

import crm_conformance
import crm_conformance.steps
from crm_conformance import adapter_kit
from crm_conformance.adapter.provisioning import AdapterClient

ROOT = Path(__file__).resolve().parents[2]
INIT = Path(crm_conformance.__file__)
SURFACES = [crm_conformance, crm_conformance.steps]
"""The vendor's surface and the suite author's."""


def test_the_vendors_surface_has_at_most_thirty_names() -> None:
    assert len(crm_conformance.__all__) <= 30


@pytest.mark.parametrize("package", SURFACES, ids=lambda p: p.__name__)
def test_all_is_sorted_and_unique(package: types.ModuleType) -> None:
    assert package.__all__ == sorted(set(package.__all__))


@pytest.mark.parametrize("package", SURFACES, ids=lambda p: p.__name__)
def test_every_exported_name_is_the_object_of_the_module_that_defines_it(
    package: types.ModuleType,
) -> None:
    for name in package.__all__:
        value = getattr(package, name)
        assert not isinstance(value, types.ModuleType), f"{name}: a whole module is exported"
        home = str(getattr(value, "__module__", None) or "")
        if name != "__version__" and home.startswith("crm_conformance."):
            assert getattr(importlib.import_module(home), name, value) is value, name


def test_the_two_surfaces_share_no_name() -> None:
    assert set(crm_conformance.__all__) & set(crm_conformance.steps.__all__) == set()


@pytest.mark.parametrize("package", SURFACES, ids=lambda p: p.__name__)
def test_type_checkers_see_every_exported_name_re_exported(package: types.ModuleType) -> None:
    """Each name is imported under TYPE_CHECKING as `N as N`, which strict type checkers
    read as a re-export (the `__all__` they would read is derived at runtime)."""
    tree = ast.parse(Path(str(package.__file__)).read_text(encoding="utf-8"))
    re_exported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name
    }
    assert set(package.__all__) - re_exported == {"__version__"} & set(package.__all__)


def test_one_issued_token_and_one_workspace() -> None:
    """The adapter client hands back the kit's types: a vendor's adapter and our client
    speak of one `IssuedToken` and one `Workspace`."""
    assert crm_conformance.IssuedToken is adapter_kit.IssuedToken
    assert crm_conformance.Workspace is adapter_kit.Workspace
    assert crm_conformance.Fixtures is adapter_kit.Fixtures
    hints = AdapterClient.create_token.__annotations__
    assert hints["return"] is adapter_kit.IssuedToken
    assert hints["workspace"] is adapter_kit.Workspace


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(crm_conformance, "NoSuchThing")


def test_the_package_is_marked_typed() -> None:
    assert (INIT.parent / "py.typed").is_file()


SUITE_MODULES = {
    "crm_conformance.core.model": {"conventions", "document"},
    "crm_conformance.steps": {
        "id_inputs",
        "listings",
        "methods",
        "operations",
        "reads",
        "tokens",
    },
    "crm_conformance.fuzz": {"budget", "checking", "exchange", "guard", "loader", "seeding"},
}
"""Modules a suite reads by name (`document.page_limit()`, `conventions.Lookup`): the
document's constants, the target's conventions, one call of each operation, every id
input of every operation, the lists, the methods each path takes, the reads that can find
a record, the fuzz layer."""


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
