"""The requirement ids a suite test's own `expect_*` calls name, read from its source.

A test's `@pytest.mark.req` is what the report charges and the catalogue counts; an id
asserted in the body but missing from the marker would be judged without being claimed.
Collection reads the ids literally written in the test function's `expect_*` calls (its
own body, nested functions included; not helpers it calls, not ids held in variables)
and fails the module when one is not in the marker.
"""

import ast
import inspect
import re
from collections.abc import Callable
from functools import cache
from typing import Any

_ID = re.compile(r"^[A-Z]+-[0-9]{3}$")


@cache
def _module_functions(filename: str) -> dict[int, ast.AST]:
    """Each function of the module in `filename`, by the line its code starts on (its first
    decorator's, else its `def`'s): the module is parsed once for all its tests, where
    `inspect.getsource` tokenized the file again for each (1.6 s of a quick run)."""
    try:
        with open(filename, encoding="utf-8") as source:
            module = ast.parse(source.read())
    except (OSError, SyntaxError, ValueError):  # no readable source: nothing to read
        return {}
    return {
        min([node.lineno, *(d.lineno for d in node.decorator_list)]): node
        for node in ast.walk(module)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _tree(function: Callable[..., Any]) -> ast.AST | None:
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    return _module_functions(code.co_filename).get(code.co_firstlineno)


def _called(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def asserted_ids(function: Callable[..., Any]) -> list[tuple[str, str, int]]:
    """(id, called name, line in its file) for each literal requirement id an
    `expect_*` call in `function` names, in source order."""
    tree = _tree(inspect.unwrap(function))
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node).startswith("expect_"):
            values = [*node.args, *(keyword.value for keyword in node.keywords)]
            for value in values:
                if (
                    isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                    and _ID.match(value.value)
                ):
                    found.append((value.value, _called(node), node.lineno))
    return sorted(found, key=lambda row: row[2])


def unclaimed(function: Callable[..., Any], claimed: list[str]) -> list[str]:
    """One line per id an `expect_*` call of `function` names that `claimed` does not."""
    return [
        f"{name}(..., {req_id!r}, ...) asserts {req_id}, which its @pytest.mark.req does not name"
        for req_id, name, _ in asserted_ids(function)
        if req_id not in claimed
    ]
