"""Faults of users and audiences: bugs whose first requirement is of the `directory` class (The
workspace's users and audiences)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "user_name_dropped",
        ("USR-003",),
        "the user list renders every member's name as null",
    ),
    Fault(
        "user_role_dropped",
        ("USR-003",),
        "the user list leaves out every member's role",
    ),
    Fault(
        "audience_status_null",
        ("AUD-003",),
        "the audience list renders every audience's status as null",
    ),
    Fault(
        "audiences_oldest_first",
        ("AUD-001",),
        "audiences are listed oldest first",
    ),
    Fault(
        "users_newest_first",
        ("USR-001",),
        "the user list shares the audience list's order, newest first, not the order they joined",
    ),
    Fault(
        "users_cursor_ignored",
        ("USR-002", "PAG-005"),
        "the user list ignores cursor: every page is the first",
    ),
    Fault(
        "audiences_limit_ignored",
        ("AUD-002", "PAG-003"),
        "the audience list ignores limit: every page has the default size",
    ),
    Fault(
        "activity_assignee_must_be_member",
        ("USR-004", "ACT-025"),
        "an activity's assignee_id must be a member: an admin the user list shows is refused",
    ),
    Fault(
        "users_listed_by_name",
        ("USR-001",),
        "GET /v1/users lists the members by name, not in the order they joined",
    ),
)
