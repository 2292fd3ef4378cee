"""A package's exports from one list: the imports under its `if TYPE_CHECKING:` block.

Why: `crm_conformance` is imported by every pytest session of the environment (the
plugin lives in it), so its names load on first use (PEP 562), yet a type checker must
see each one imported. Writing the imports once, for the type checker, and reading them
here for the runtime, leaves nothing to keep in step: each `from M import N as N` in the
block (the redundant alias marks a re-export) is in `__all__` and loaded from M when
first asked for.
"""

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def exported(init_file: str) -> dict[str, tuple[str, str]]:
    """Exported name -> (module, name there), from the `if TYPE_CHECKING:` block of the
    package whose `__init__.py` is `init_file`."""
    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    homes: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    for alias in statement.names:
                        homes[alias.asname or alias.name] = (statement.module, alias.name)
    return homes


def lazy_exports(package: str, init_file: str) -> tuple[list[str], Callable[[str], Any]]:
    """`__all__` (sorted) and the module `__getattr__` of `package`, from its one list."""
    homes = exported(init_file)

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home[0]), home[1])
        setattr(sys.modules[package], name, value)
        return value

    return sorted(homes), __getattr__
