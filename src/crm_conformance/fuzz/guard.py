"""The write guard: on someone else's server the run must neither send undeclared methods
nor write to records it did not create (`sends_to`, `stateful_schema`).
"""

from collections.abc import Mapping
from typing import Any


def is_embedded(target: Any) -> bool:
    """Whether `target` is the embedded reference server this process started."""
    return str(target.sources.get("base_url", "")).startswith("embedded reference server")


MATCHES_EXISTING: Mapping[str, frozenset[str]] = {
    "upsertContact": frozenset({"phone", "external_id", "email"}),
}
"""Writes that act on whichever existing record matches a body field (operation id →
those fields): upsert "creates or updates in one call", so a generated phone could
update a contact someone else owns."""


def sends_to(case: Any, *, embedded: bool) -> bool:
    """Whether `case` may be sent: outside the embedded server, only declared methods, and
    no write that could change a record the run did not create.

    The coverage phase sends undeclared methods (DELETE, PUT) to every path; on someone
    else's server a DELETE that happens to work destroys data the run did not create.
    Generated record ids (128 random bits) name no existing record; a matching field
    value in an upsert body may.
    """
    if embedded:
        return True
    if str(case.method).upper() != str(case.operation.method).upper():
        return False
    matching = MATCHES_EXISTING.get(case.operation.definition.raw.get("operationId", ""))
    return not (matching and isinstance(case.body, dict) and matching & set(case.body))


def stateful_schema(schema: Any, *, embedded: bool) -> Any:
    """`schema` for the stateful phase: outside the embedded server, links the document
    gives only (inferred ones could carry an id read from someone else's record into a
    write) and none of the writes of MATCHES_EXISTING."""
    if embedded:
        return schema
    schema.config.phases.stateful.inference.algorithms = []
    return schema.exclude(func=lambda ctx: ctx.operation.label in _matching_labels(schema))


def _matching_labels(schema: Any) -> set[str]:
    return {
        operation.label
        for operation in (result.ok() for result in schema.get_all_operations())
        if operation.definition.raw.get("operationId") in MATCHES_EXISTING
    }
