"""The fault catalogue: named, realistic bugs the reference server can be started with.

Each fault breaks exactly the requirements it lists, so the suite's kill rate can be
measured: the suite must fail against every fault and name those ids. A fault is off
unless named (`ServerSettings(faults={...})`, `crm-conformance serve --fault NAME`), and
the code checks `settings.has_fault(name)` at the one place the bug lives.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Fault:
    """A named bug: the requirement ids it violates and what it does."""

    name: str
    reqs: tuple[str, ...]
    summary: str


_FAULTS = (
    Fault(
        "missing_request_id_on_errors",
        ("ERR-005",),
        "error bodies carry request_id null although X-Request-ID is sent",
    ),
    Fault(
        "error_type_wrong",
        ("ERR-004",),
        "404 answers carry type invalid_request_error instead of not_found_error",
    ),
    Fault(
        "cursor_repeats_row_on_insert",
        ("PAG-009",),
        "cursors hold an offset, so a row inserted ahead of the cursor repeats a row",
    ),
    Fault(
        "has_more_wrong_on_last_page",
        ("PAG-004",),
        "has_more is true (with a next cursor) whenever a page is full, even the last",
    ),
    Fault(
        "scope_check_resource_only",
        ("SCOPE-004", "SCOPE-021"),
        "the scope check looks only at the resource, so a read scope allows writes",
    ),
    Fault(
        "replay_returns_200",
        ("IDEM-003",),
        "an idempotent replay of a create answers 200 instead of the original status",
    ),
)

FAULTS: dict[str, Fault] = {fault.name: fault for fault in _FAULTS}
