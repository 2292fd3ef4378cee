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
import textwrap
from collections.abc import Callable
from functools import cache
from typing import Any

_ID = re.compile(r"^[A-Z]+-[0-9]{3}$")


@cache
def _tree(function: Callable[..., Any]) -> ast.AST | None:
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):  # no source: nothing to read
        return None
    return ast.parse(textwrap.dedent(source))


def _called(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def asserted_ids(function: Callable[..., Any]) -> list[tuple[str, str, int]]:
    """(id, called name, line in the function) for each literal requirement id an
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
