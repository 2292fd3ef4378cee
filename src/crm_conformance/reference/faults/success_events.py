"""Faults of success events: bugs whose first requirement is of the `success-events` class
(Success event types and the append-only event rules)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "success_event_reverse_missing",
        ("SEV-003", "SEV-004"),
        "the success-event reversal the target file names is not served (404)",
    ),
    Fault(
        "reversal_reversible",
        ("SEV-004",),
        "a reversal can itself be reversed instead of answering 409 not_a_record",
    ),
    Fault(
        "double_reversal_allowed",
        ("SEV-003",),
        "an event can be reversed twice instead of answering 409 already_reversed",
    ),
    Fault(
        "value_basis_unchecked",
        ("SEV-005", "SEV-007"),
        "an event's value is not checked against its type's basis (required or forbidden)",
    ),
    Fault(
        "zero_value_read_as_none",
        ("SEV-005",),
        "an event's value is tested for truth: a zero is taken for no value, recorded "
        "where the type forbids one and refused where it requires one",
    ),
    Fault(
        "unknown_event_code_accepted",
        ("SEV-006",),
        "an event with a code no event type has is recorded instead of 422 unknown_event_code",
    ),
    Fault(
        "success_event_types_missing",
        ("SEV-001",),
        "GET /v1/success-event-types is not served (404)",
    ),
    Fault(
        "success_event_editable",
        ("SEV-002",),
        "PATCH /v1/success-events/{event_id} changes an event's code and value in place",
    ),
    Fault(
        "success_event_deletable",
        ("SEV-002",),
        "DELETE at an event's own path removes it (a generic router's delete), though "
        "events are append-only",
    ),
    Fault(
        "reversal_zeroes_the_original",
        ("SEV-002",),
        "reversing an event also sets the original's value to 0: an edit, not append-only",
    ),
)
