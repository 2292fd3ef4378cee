"""Faults of idempotency: bugs whose first requirement is of the `idempotency` class
(Idempotency-Key on writes: replays, reuse and in-flight conflicts)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "idempotency_key_length_unchecked",
        ("IDEM-002",),
        "an Idempotency-Key longer than 255 characters is accepted",
    ),
    Fault(
        "replay_returns_200",
        ("IDEM-003",),
        "an idempotent replay of a create answers 200 instead of the original status",
    ),
    Fault(
        "refusal_replayed_as_success",
        ("IDEM-003",),
        "a keyed write's refusal is kept, and a repeat replays its body under 200 (the "
        "replay path was written for successes)",
    ),
    Fault(
        "idempotency_key_ignored_across_bodies",
        ("IDEM-005",),
        "a repeated Idempotency-Key with a different body replays the first answer",
    ),
    Fault(
        "assign_key_ignores_body",
        ("IDEM-005",),
        "an assignment's Idempotency-Key is matched on its path alone: the key reused to "
        "assign another teammate replays the first assignment",
    ),
    Fault(
        "replay_missing_header",
        ("IDEM-004",),
        "an idempotent replay is sent without the Idempotent-Replay: true header",
    ),
    Fault(
        "idempotency_cross_workspace",
        ("IDEM-003", "TEN-001"),
        "idempotency keys are stored globally, so another workspace's key replays here",
    ),
    Fault(
        "idempotency_key_must_be_uuid",
        ("IDEM-001", "IDEM-002"),
        "an Idempotency-Key that is not a UUID is refused with 400",
    ),
    Fault(
        "in_flight_answers_conflict",
        ("IDEM-006",),
        "a duplicate of a request still processing answers 409 conflict, not "
        "idempotency_key_in_flight",
    ),
    Fault(
        "close_ignores_idempotency_key",
        ("IDEM-003", "IDEM-008"),
        "closing is left out of the idempotency layer: a repeat answers 409 conversation_closed",
    ),
    Fault(
        "pause_ignores_idempotency_key",
        ("IDEM-003", "IDEM-009"),
        "pausing is left out of the idempotency layer: a repeat answers 409 campaign_not_running",
    ),
    Fault(
        "update_ignores_idempotency_key",
        ("IDEM-003", "IDEM-004"),
        "the updates (PATCH and PUT) ignore Idempotency-Key: only POST was wired to the "
        "idempotency layer",
    ),
    Fault(
        "delete_ignores_idempotency_key",
        ("IDEM-003", "IDEM-004"),
        "the deletes ignore Idempotency-Key (only writes with a body were wired to the "
        "idempotency layer), so a repeat answers 404 for the record already deleted",
    ),
    Fault(
        "upsert_ignores_idempotency_key",
        ("IDEM-003", "IDEM-004", "IDEM-005"),
        "the upsert ignores Idempotency-Key: a repeat upserts again, a reused key with "
        "another body is not refused",
    ),
    Fault(
        "reverse_ignores_idempotency_key",
        ("IDEM-003", "IDEM-004"),
        "reversing a success event is left out of the idempotency layer: a repeat with the "
        "same key answers 409 already_reversed instead of the stored answer",
    ),
    Fault(
        "tag_replay_follows_the_tag",
        ("IDEM-003",),
        "the idempotency store keeps the tag, not the answer: a repeat of a tag's create "
        "after a rename replays the tag as it is now",
    ),
    Fault(
        "idempotency_print_ignores_path",
        ("IDEM-003",),
        "a request's fingerprint takes the route's template, not its path: a key reused "
        "with the same body on another record's path replays the first record's answer",
    ),
)
