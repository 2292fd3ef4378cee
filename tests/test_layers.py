"""The import arrows of ARCHITECTURE.md's picture, held: no module imports a layer above
its own, and no import cycle runs between modules.

Every import counts, wherever it is written: at the top, inside a function (a lazy
import is still an arrow) and under `TYPE_CHECKING` (the checked code relies on it).
The ranks are `LAYERS`, the one table of the layers; ARCHITECTURE.md points here.
"""

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "crm_conformance"
SOURCE = ROOT / "src" / PACKAGE

LAYERS: Mapping[str, int] = {
    "_errors": 0,  # the exception tree: imports nothing of ours
    "core": 1,  # the library: no pytest
    "adapter_kit": 2,  # the vendors' adapter kit: only core.model.paths (NARROW)
    "adapter": 3,  # the harness's side of the adapter: its client, the feature map
    "reference": 3,  # the reference server: only the adapter kit (NARROW)
    "steps": 4,  # what a suite test calls
    "fuzz": 4,  # the fuzz layer
    "plugin": 5,  # the pytest plugin
    "reporting": 6,  # what reads the outcome stream
    "run": 7,  # the run command and its siblings
    "adapter_check": 8,  # the adapter-check command
    "selftest": 8,  # the kill matrix
    "cli": 9,  # the command line
    "": 9,  # the package root, crm_conformance/__init__.py: the public surface
}
"""Top-level package or module of crm_conformance -> its rank. A module may import its
own package's modules and those of a lower rank; two layers of one rank, none of the other."""

NARROW: Mapping[str, tuple[str, ...]] = {
    "adapter_kit": ("core.model.paths",),
    "reference": ("adapter_kit",),
}
"""Layers that may import only these of ours (and themselves): the kit ships to vendors,
and the reference server is built on the kit alone, as a vendor's would be."""


def module_name(path: Path) -> str:
    """`core.transport.client` for src/crm_conformance/core/transport/client.py, `core` for
    its __init__."""
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def imports(source: str, here: str, known: set[str]) -> Iterator[tuple[int, str]]:
    """(line, module) for each of our modules that `source`, module `here`, imports: a
    name imported from a package is that submodule when there is one, else the package."""
    is_package = here in ("",) or f"{here}.__init__" in known
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(f"{PACKAGE}."):
                    yield node.lineno, alias.name.removeprefix(PACKAGE).lstrip(".")
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolved against `here`
                base = here.split(".") if here else []
                base = base if is_package else base[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            elif node.module == PACKAGE or (node.module or "").startswith(f"{PACKAGE}."):
                target = (node.module or "").removeprefix(PACKAGE).lstrip(".")
            else:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}" if target else alias.name
                yield node.lineno, sub if sub in known else target


def layer_of(module: str) -> str:
    return module.split(".")[0]


def graph() -> dict[str, list[tuple[int, str]]]:
    found = modules()
    known = set(found)
    packages = {m for m, p in found.items() if p.name == "__init__.py"}
    known |= {f"{m}.__init__" for m in packages}
    return {
        module: [(line, t) for line, t in imports(path.read_text(), module, known) if t != module]
        for module, path in found.items()
    }


def upward(edges: Mapping[str, list[tuple[int, str]]]) -> list[str]:
    """Each import of a layer above the importer's, or of one a NARROW layer may not use."""
    found = []
    for module, targets in edges.items():
        here = layer_of(module)
        for line, target in targets:
            there = layer_of(target)
            if there == here:
                continue
            where = f"{module or PACKAGE}:{line} imports {target or PACKAGE}"
            if here in NARROW and not any(
                target == allowed or target.startswith(f"{allowed}.") for allowed in NARROW[here]
            ):
                found.append(f"{where}: {here} imports only {', '.join(NARROW[here])}")
            elif LAYERS[there] >= LAYERS[here]:
                found.append(f"{where} (rank {LAYERS[there]} >= {LAYERS[here]})")
    return found


def cycles(edges: Mapping[str, list[tuple[int, str]]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for _, target in edges.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_layer_of_the_package_has_a_rank() -> None:
    assert {layer_of(m) for m in modules()} == set(LAYERS)


def test_the_top_level_keeps_only_the_root_and_the_errors() -> None:
    assert sorted(p.name for p in SOURCE.glob("*.py")) == ["__init__.py", "_errors.py"]


def test_every_package_names_its_layer_in_a_docstring() -> None:
    for init in sorted(SOURCE.glob("*/__init__.py")):
        docstring = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert docstring.splitlines()[0].startswith("Layer "), init


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert upward(graph()) == []


def test_no_import_cycle_runs_between_modules() -> None:
    assert cycles(graph()) == []


def test_the_checks_see_an_upward_import_and_a_cycle() -> None:
    """The checks themselves are tested: a function-local upward import, a TYPE_CHECKING
    one, a reach out of a narrow layer and a two-module cycle are each found."""
    known = {"core.client", "run.runner", "steps.expect", "core", "core.__init__"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from crm_conformance.steps.expect import expect_status\n"
        "def f():\n"
        "    from crm_conformance.run import runner\n"
    )
    edges = {"core.client": list(imports(source, "core.client", known))}
    assert upward(edges) == [
        "core.client:3 imports steps.expect (rank 4 >= 1)",
        "core.client:5 imports run.runner (rank 7 >= 1)",
    ]
    assert upward({"reference.app": [(1, "core.client")]}) == [
        "reference.app:1 imports core.client: reference imports only adapter_kit"
    ]
    loop = {"core.a": [(1, "core.b")], "core.b": [(2, "core.a")], "core.c": [(3, "core.a")]}
    assert cycles(loop) == [["core.a", "core.b"]]
