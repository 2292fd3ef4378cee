"""No module reaches into another module's private names (STYLE.md, "No private reach").

A leading underscore means "this module's business": if another module needs it, it
becomes public, or the owner answers the question. Checked over the package, the suites
and the project's tests: `from m import _x`, `m._x` on one of our modules, and
`monkeypatch.setattr(m, "_x", ...)`. Outside the package, a private module
(`crm_conformance._errors`) is reached through the package's public surface instead.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "crm_conformance"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _sources() -> Iterator[Path]:
    for folder in ("src", "suites", "tests"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def _module_of(path: Path) -> str:
    """The dotted name of a package module, '' for suites and tests."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[1:]) if parts[0] == "src" else ""


def _bound_modules(tree: ast.AST) -> dict[str, str]:
    """Local names bound to one of our modules: `import a.b as m`, `from a import b`."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE) and alias.asname:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _reaches(source: str, here: str) -> Iterator[str]:
    """Each private reach in `source`, the text of module `here` ('' outside the package)."""
    tree = ast.parse(source)
    inside = bool(here)
    bound = _bound_modules(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
            module = node.module or ""
            if not inside and any(_private(part) for part in module.split(".")):
                yield f"line {node.lineno}: imports the private module {module}"
            for alias in node.names:
                if _private(alias.name) and module != here:
                    yield f"line {node.lineno}: imports {module}.{alias.name}"
        elif isinstance(node, ast.Import) and not inside:
            for alias in node.names:
                if alias.name.startswith(PACKAGE) and any(
                    _private(part) for part in alias.name.split(".")
                ):
                    yield f"line {node.lineno}: imports the private module {alias.name}"
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and _private(node.attr)
        ):
            yield f"line {node.lineno}: reaches {bound[node.value.id]}.{node.attr}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"setattr", "delattr"}
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in bound
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            yield f"line {node.lineno}: patches {bound[node.args[0].id]}.{node.args[1].value}"


def test_no_module_reaches_another_modules_private_names() -> None:
    found = [
        f"{path.relative_to(ROOT)} {reach}"
        for path in _sources()
        for reach in _reaches(path.read_text(encoding="utf-8"), _module_of(path))
    ]
    assert found == []


def test_the_check_sees_each_kind_of_reach() -> None:
    """The scan itself is tested: each form of reach in a suite-like file is found."""
    source = (
        "import crm_conformance.plugin.session as session\n"
        "from crm_conformance.fuzz import guard\n"
        "from crm_conformance._errors import UsageError\n"
        "from crm_conformance.core.verdicts.failure import _scrub\n"
        "guard._matching_labels(None)\n"
        "def test(monkeypatch):\n"
        "    monkeypatch.setattr(session, '_SHARED_TARGET', 'x')\n"
    )
    assert list(_reaches(source, "")) == [
        "line 3: imports the private module crm_conformance._errors",
        "line 4: imports crm_conformance.core.verdicts.failure._scrub",
        "line 5: reaches crm_conformance.fuzz.guard._matching_labels",
        "line 7: patches crm_conformance.plugin.session._SHARED_TARGET",
    ]
