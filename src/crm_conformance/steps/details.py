"""Reading `error.detail`: "validation items `{field: dotted path, message, code}`".

Each item names the invalid field by its dotted path (`filter.join`,
`custom_fields.budget`); a prefix before it (`body.filter.join`) is read as naming it
too, as for `param`.
"""

from collections.abc import Mapping
from typing import Any


def detail_fields(error: Mapping[str, Any]) -> list[Any]:
    """The `field` of every item of `error.detail` (an absent or null detail: none)."""
    detail = error.get("detail")
    items = detail if isinstance(detail, list) else []
    return [item.get("field") for item in items if isinstance(item, Mapping)]


def names_path(field: object, path: str) -> bool:
    """Whether a detail item's `field` names `path` as a dotted path."""
    return field == path or (isinstance(field, str) and field.endswith(f".{path}"))
