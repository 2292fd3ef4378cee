"""Faults of activities: bugs whose first requirement is of the `activities` class (Activity
records and activity creation on a contact, organization or deal)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "activity_assignee_unchecked",
        ("ACT-014",),
        "an activity takes any usr_ id as assignee_id, a user of the workspace or not",
    ),
    Fault(
        "resume_conversation_creatable",
        ("ACT-008",),
        "POST /v1/activities accepts type resume_conversation (the response enum is used)",
    ),
    Fault(
        "activity_title_limit_off_by_one",
        ("ACT-024",),
        "an activity title of 501 characters is accepted (the limit is checked with > 501)",
    ),
    Fault(
        "activity_on_deal_refused",
        ("ACT-001", "ACT-012"),
        "an activity on a deal answers 404 record_not_found (only contacts and organizations "
        "are looked up)",
    ),
    Fault(
        "activity_due_at_must_be_future",
        ("ACT-002", "ACT-011"),
        "an activity with a due_at in the past is refused",
    ),
    Fault(
        "activity_record_id_optional",
        ("ACT-003",),
        "an activity without record_id is created on no record instead of refused",
    ),
    Fault(
        "activity_empty_title_accepted",
        ("ACT-004",),
        "an activity title of 0 characters is accepted",
    ),
    Fault(
        "activity_description_default_null",
        ("ACT-005",),
        "an activity created without description renders it null, not the empty string",
    ),
    Fault(
        "activity_follow_up_type_refused",
        ("ACT-006",),
        "activity create refuses the type follow_up (an older list of body types)",
    ),
    Fault(
        "activity_default_type_todo",
        ("ACT-007",),
        "an activity created without type gets 'todo', not a value of the enum",
    ),
    Fault(
        "activity_create_takes_any_status",
        ("ACT-009",),
        "activity create takes every response status (canceled, conflict, suggested) in the body",
    ),
    Fault(
        "activity_default_status_pending",
        ("ACT-010",),
        "an activity created without status gets 'pending', not a value of the enum",
    ),
    Fault(
        "activity_record_kind_by_prefix",
        ("ACT-012",),
        "activity create checks only the shape of record_id and looks its kind up by prefix: "
        "another prefix answers 500",
    ),
    Fault(
        "activity_record_not_found_names_kind",
        ("ACT-013",),
        "an unknown record_id answers record_not_found with param contact_id, organization_id "
        "or deal_id, not record_id",
    ),
    Fault(
        "activity_created_by_api_string",
        ("ACT-015", "IDN-021"),
        "an activity created by an integration renders created_by as the string 'api', not null",
    ),
    Fault(
        "activity_id_task_prefix",
        ("ACT-018", "IDN-001", "IDN-015"),
        "the activity create answer renders the id with a task_ prefix, not act_",
    ),
    Fault(
        "activity_object_task",
        ("ACT-019",),
        "the activity create answer renders object as 'task', not 'activity'",
    ),
    Fault(
        "activity_timestamps_epoch",
        ("ACT-020", "IDN-003"),
        "the activity create answer renders updated_at in Unix seconds (an integer)",
    ),
    Fault(
        "activity_description_dropped",
        ("ACT-025",),
        "activity create ignores the description sent",
    ),
    Fault(
        "resume_activity_editable",
        ("ACT-022", "ACT-023"),
        "the AI agent's resume plan is checked only when the update names a status: its "
        "title, description, due_at, type and assignee can be changed",
    ),
    Fault(
        "resume_activity_not_completable",
        ("ACT-022",),
        "the AI agent's resume plan is read-only: completing and canceling it are refused "
        "with 422 agent_activity_read_only too",
    ),
    Fault(
        "activity_title_unbounded_on_update",
        ("ACT-004",),
        "an activity update takes a title of any length (the 500 bound is checked on create only)",
    ),
    Fault(
        "resume_plan_edited_with_a_move",
        ("ACT-022",),
        "an update completing or canceling the AI agent's resume plan also applies the other "
        "changes it carries: only the move was checked",
    ),
    Fault(
        "resume_plan_reopenable",
        ("ACT-023",),
        "the AI agent's resume plan can be set back to open after it was completed",
    ),
    Fault(
        "activity_update_due_at_rolls_over",
        ("IDN-022",),
        "an activity's update reads due_at with a lenient parser: 30 February is 2 March "
        "(the create refuses it)",
    ),
    Fault(
        "activity_on_deleted_record_taken",
        ("ACT-013",),
        "an activity is created on a deleted record: its id is checked against every id "
        "ever issued, not the records that exist",
    ),
    Fault(
        "activity_record_id_only_looked_up",
        ("ACT-012",),
        "an activity's record_id is not checked against its pattern, only looked up: a "
        "user's id or any text answers 404 record_not_found, not 422 validation_failed",
    ),
    Fault(
        "activity_record_id_any_case",
        ("ACT-012",),
        "an activity's record_id is looked up whatever its case: a contact's id in capitals "
        "is taken (ids are lowercase hex)",
    ),
    Fault(
        "resume_plan_cancel_refused",
        ("ACT-022",),
        "the cancel operation refuses the AI agent's resume plan as read-only, though the "
        "plan 'can be read and canceled'",
    ),
    Fault(
        "activity_update_takes_resume_type",
        ("ACT-008",),
        "an activity update may set type resume_conversation, which 'can be read and "
        "canceled, never created' (only the create refuses it)",
    ),
    Fault(
        "activity_cancel_keeps_updated_at",
        ("SYNC-005",),
        "the activity cancel writes the status without stamping updated_at, so a sync by "
        "updated_since never sees the cancel",
    ),
    Fault(
        "workspace_token_activity_credits_a_teammate",
        ("ACT-016",),
        "an activity created with a workspace token reads created_by the workspace's first "
        "teammate, not null (an integration created it)",
    ),
    Fault(
        "activity_update_drops_assignee",
        ("ACT-014",),
        "the activity update checks assignee_id and then leaves it out of the columns it "
        "writes: the activity keeps its first assignee (the create takes it)",
    ),
    Fault(
        "activity_update_takes_null_due_at",
        ("ACT-011",),
        "the activity update writes due_at as sent, null too (the create requires it): the "
        "activity then reads due_at null",
    ),
    Fault(
        "activity_update_takes_response_statuses",
        ("ACT-009",),
        "the activity update checks status against the response's enum: conflict and "
        "suggested are written",
    ),
    Fault(
        "activity_title_trimmed_on_create_only",
        ("ACT-004",),
        "an activity's title is trimmed of outer spaces on create, and stored as sent by update",
    ),
    Fault(
        "activity_update_takes_null_description",
        ("ACT-005",),
        "an activity update with description null stores it: the activity reads "
        "description null, not a string",
    ),
    Fault(
        "activity_list_type_as_label",
        ("ACT-007", "SYNC-005"),
        "the activity list renders each row's type as its display label (Task, Follow up), "
        "so a row is not its retrieve; create, retrieve and update render the enum",
    ),
)
