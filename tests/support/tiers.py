"""Which tier a project test belongs to, read from its code rather than declared by hand.

A test is `integration` when it, a module-level helper it calls or a fixture it uses
starts a server, a subprocess or a pytest child: its code names one of `STARTERS`.
Every other test is `unit`. Reading the code keeps the tiers true as tests are added,
without a marker line in each file; a test may still carry an explicit `unit` or
`integration` marker, which wins.
"""

import ast
import inspect
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pytest

# Names whose use starts a process or a listening server: the pytest child of
# `suite_run.run_suite`, pytester's nested pytest, the CLI (whose `run` spawns pytest),
# the harness's other pytest children (`list_tests`, `learn`, `PytestChild`), a
# subprocess or a signal to one, and the fake, embedded or reference servers (with every
# name that begins `serve`).
STARTERS = frozenset(
    {
        "run_suite",
        "pytester",
        "testdir",
        "runpytest",
        "runpytest_subprocess",
        "CliRunner",
        "subprocess",
        "Popen",
        "uvicorn",
        "run_pytest",
        "list_tests",
        "learn",
        "by_feature",
        "PytestChild",
        "run_interruptible",
        "EmbeddedServer",
        "running_server",
        "killpg",
        "chromium",
    }
)


def _starts(name: str) -> bool:
    """Whether a name is a starter: one of `STARTERS`, or a `serve…` server helper."""
    return name in STARTERS or name.startswith("serve")


def _names(node: ast.AST) -> set[str]:
    """Every name and attribute a piece of code mentions (its arguments included)."""
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.arg):
            found.add(sub.arg)
    return found


@cache
def starting_names(path: Path) -> frozenset[str]:
    """Names of the module's top-level functions and classes that start something,
    directly or through another of its top-level definitions, plus `STARTERS`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    uses = {
        node.name: _names(node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    starting = set(STARTERS)
    grew = True
    while grew:
        grew = False
        for name, used in uses.items():
            if name not in starting and any(_starts(u) or u in starting for u in used):
                starting.add(name)
                grew = True
    return frozenset(starting)


@cache
def _definition(path: Path, qualname: str) -> ast.AST | None:
    tree: ast.AST = ast.parse(path.read_text(encoding="utf-8"))
    for part in qualname.split("."):
        body = getattr(tree, "body", [])
        found = [n for n in body if getattr(n, "name", None) == part]
        if not found:
            return None
        tree = found[0]
    return tree


def starts_something(path: Path, qualname: str) -> bool:
    """Whether the function `qualname` of the module at `path` starts something."""
    node = _definition(path, qualname)
    if node is None:
        return False
    starting = starting_names(path)
    return any(_starts(name) or name in starting for name in _names(node))


def tier(definitions: Iterable[tuple[Path, str]], fixtures: Iterable[str]) -> str:
    """The tier of a test whose function and fixtures are `definitions` (module path,
    qualified name) and which requests the fixture names `fixtures`."""
    if any(_starts(name) for name in fixtures):
        return "integration"
    if any(starts_something(path, name) for path, name in definitions):
        return "integration"
    return "unit"


def _definitions(item: pytest.Function) -> list[tuple[Path, str]]:
    """The test function and every fixture function it uses, as (module path, qualname)."""
    found = [(Path(inspect.getfile(item.function)), item.function.__qualname__)]
    for defs in item._fixtureinfo.name2fixturedefs.values():
        for fixturedef in defs:
            func = inspect.unwrap(fixturedef.func)
            try:
                found.append((Path(inspect.getfile(func)), func.__qualname__))
            except TypeError:  # a built-in fixture
                continue
    return [(path, name) for path, name in found if path.suffix == ".py" and path.is_file()]


def mark_tiers(items: list[pytest.Item]) -> None:
    """Mark each item `unit` or `integration` unless it carries one of them already."""
    for item in items:
        if item.get_closest_marker("unit") or item.get_closest_marker("integration"):
            continue
        if isinstance(item, pytest.Function):
            item.add_marker(tier(_definitions(item), item.fixturenames))
        else:
            item.add_marker("integration")
