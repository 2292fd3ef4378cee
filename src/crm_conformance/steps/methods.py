"""The methods a path takes: those the description shows there and those the target file
names there. Any other is a method "not supported on the path" (405 `api_error`).

A path is matched against every template that could route it, the id placeholders
standing for any segment: `/v1/contacts/search` is also `/v1/contacts/{contact_id}` to
a router, so the methods of both count as taken there.
"""

import re
from collections.abc import Iterator, Mapping

from crm_conformance.core.model import document

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
"""The methods tried, DELETE last: a target that serves a DELETE nobody named removes
the record, and the methods after it would meet a missing record."""

_FIXED = {
    "deletes.": "DELETE",
    "retrieve.": "GET",
    "lists.": "GET",
    "creates.": "POST",
    "conversation_moves.": "POST",
    "campaigns.resume_path": "POST",
    "success_events.create_path": "POST",
    "success_events.reverse_path": "POST",
    "success_events.retrieve_path": "GET",
    "notes.create_path": "POST",
    "notes.delete_path": "DELETE",
    "notes.retrieve_path": "GET",
    "notes.list_path": "GET",
}
"""The method of each path convention whose method is fixed (by prefix or whole key)."""

_NAMED_METHOD = {
    "notes.update_path": "notes.update_method",
    "activities.cancel_path": "activities.cancel_method",
}
"""Path conventions whose method is a convention of its own (besides `updates.*`)."""


def _method_of(key: str, named: Mapping[str, str]) -> str | None:
    if key.startswith("updates.") and key.endswith("_path"):
        return named.get(key.removesuffix("_path") + "_method")
    if key in _NAMED_METHOD:
        return named.get(_NAMED_METHOD[key])
    for prefix, method in _FIXED.items():
        if key == prefix or (prefix.endswith(".") and key.startswith(prefix)):
            return method
    return None


def _routes(named: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(method, path template) of each operation the description shows or the target
    file names."""
    for operation in document.operations():
        yield operation.method, operation.path
    for key, template in named.items():
        method = _method_of(key, named) if key.endswith("_path") else None
        if method and isinstance(template, str):
            yield method.upper(), template.split("?")[0]


def _matches(template: str, path: str) -> bool:
    pattern = "".join(
        "[^/]+" if part.startswith("{") else re.escape(part)
        for part in re.split(r"(\{[^}]+\})", template)
    )
    return re.fullmatch(pattern, path) is not None


def taken(path: str, named: Mapping[str, str]) -> set[str]:
    """The methods some operation takes on `path` (a concrete path)."""
    return {method for method, template in _routes(named) if _matches(template, path)}


def not_taken(path: str, named: Mapping[str, str]) -> list[str]:
    """The methods of `METHODS` no operation takes on `path`, in `METHODS`' order."""
    served = taken(path, named)
    return [method for method in METHODS if method not in served]
