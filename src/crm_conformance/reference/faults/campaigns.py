"""Faults of campaigns: bugs whose first requirement is of the `campaigns` class (Campaign
records, pausing and resuming, and campaign stats)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "campaign_resume_missing",
        ("CAMP-007", "CAMP-009"),
        "the campaign resume operation the target file names is not served (404)",
    ),
    Fault(
        "pause_paused_campaign_ok",
        ("CAMP-006", "CAMP-007"),
        "pausing a paused campaign answers 200 instead of 409 campaign_not_running",
    ),
    Fault(
        "resume_running_campaign_ok",
        ("CAMP-009",),
        "resuming a running campaign answers 200 instead of 409 campaign_not_paused",
    ),
    Fault(
        "reply_rate_as_percentage",
        ("STAT-017",),
        "reply_rate is a percentage (25.0) instead of a fraction (0.25)",
    ),
    Fault(
        "automated_replies_counted",
        ("STAT-010", "STAT-011"),
        "automated replies count as replied; replied_automated stays 0",
    ),
    Fault(
        "window_end_inclusive",
        ("STAT-006",),
        "an event at exactly window_end is counted (the end is treated as inclusive)",
    ),
    Fault(
        "not_contacted_omits_zero_reasons",
        ("STAT-015",),
        "not_contacted lists only reasons with a count above zero",
    ),
    Fault(
        "enrolled_windowed",
        ("STAT-013",),
        "enrolled counts only participants added inside the window",
    ),
    Fault(
        "window_start_exclusive",
        ("STAT-004",),
        "an event at exactly window_start is not counted (the start is treated as exclusive)",
    ),
    Fault(
        "naive_window_start_as_utc",
        ("STAT-005",),
        "a window_start without a timezone offset is read as UTC instead of refused",
    ),
    Fault(
        "rates_zero_when_nobody_contacted",
        ("STAT-018", "STAT-019"),
        "reply_rate and conversion_rate are 0 instead of null when nobody was contacted",
    ),
    Fault(
        "replied_counts_replies_in_window",
        ("STAT-010", "STAT-020"),
        "replied counts every reply in the window, also of participants contacted before it",
    ),
    Fault(
        "pause_answer_without_updated_at",
        ("CAMP-001",),
        "the pause answer leaves out the campaign's updated_at",
    ),
    Fault(
        "paused_rendered_as_stopped",
        ("CAMP-002",),
        "the pause answer renders the paused status with the legacy name stopped",
    ),
    Fault(
        "pause_not_stored",
        ("CAMP-004",),
        "pause answers the paused campaign but never stores it: the campaign stays running",
    ),
    Fault(
        "pause_answers_status_only",
        ("CAMP-008",),
        "pause answers {status} only, not the Campaign",
    ),
    Fault(
        "pause_unknown_campaign_conflict",
        ("CAMP-016",),
        "pausing an unknown campaign answers 409 campaign_not_running, not 404",
    ),
    Fault(
        "stats_object_named_stats",
        ("STAT-001", "IDN-002"),
        "campaign stats carry object stats, not campaign_stats",
    ),
    Fault(
        "stats_campaign_id_dropped",
        ("STAT-002",),
        "campaign stats render campaign_id as null",
    ),
    Fault(
        "stats_window_as_dates",
        ("STAT-003", "IDN-003"),
        "campaign stats render window_start and window_end as dates (YYYY-MM-DD)",
    ),
    Fault(
        "default_window_four_weeks",
        ("STAT-007", "STAT-023"),
        "without window_start the stats window is the 4 weeks (28 days) ending now",
    ),
    Fault(
        "pause_keeps_updated_at",
        ("CAMP-001",),
        "pausing writes the campaign's status alone: its updated_at keeps the last change "
        "before the pause",
    ),
    Fault(
        "window_order_checked_with_an_end",
        ("STAT-008",),
        "a window_start after now with no window_end (which defaults to now) is served as "
        "an empty window: the order is checked only when both ends are sent",
    ),
    Fault(
        "empty_window_allowed",
        ("STAT-008",),
        "an empty window (window_start equal to window_end) answers 200 with zero counts",
    ),
    Fault(
        "contacted_counts_failed_sends",
        ("STAT-009",),
        "contacted also counts the participants whose message failed (not contacted) in the window",
    ),
    Fault(
        "converted_counts_conversions_in_window",
        ("STAT-012",),
        "converted counts every contact won in the window, also those messaged before it",
    ),
    Fault(
        "not_contacted_as_mapping",
        ("STAT-014",),
        "not_contacted is rendered as an object {reason: count}, not a list of items",
    ),
    Fault(
        "not_contacted_ignores_window",
        ("STAT-016",),
        "not_contacted counts every participant not contacted, whenever its status changed",
    ),
    Fault(
        "counts_as_floats",
        ("STAT-021",),
        "the stats counts are rendered as floats (3.0), as the aggregate query returns them",
    ),
    Fault(
        "converted_counts_participants",
        ("STAT-012",),
        "converted counts participants, not distinct contacts: a contact in the campaign "
        "twice, won after each message, converts twice",
    ),
    Fault(
        "stats_of_missing_campaign_empty",
        ("ERR-012",),
        "the stats of a campaign id no campaign has answer 200 with zero counts (the "
        "analytics store answers for any id)",
    ),
    Fault(
        "campaign_retrieve_paused_as_running",
        ("CAMP-004",),
        "a paused campaign reads running at its retrieve (the scheduler's view), though the "
        "pause answered paused",
    ),
    Fault(
        "campaign_list_drops_instructions",
        ("CAMP-001",),
        "the campaign list's rows leave out `instructions`, which the retrieve shows (the "
        "list selects fewer columns)",
    ),
    Fault(
        "window_start_offset_dropped",
        ("STAT-005",),
        "the stats window_start's offset is dropped: its local time is read as UTC, so a "
        "start written +05:30 begins five and a half hours late",
    ),
)
