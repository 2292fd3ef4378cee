"""Activities: tasks, calls, emails, meetings and follow-ups on a contact, organization
or deal, planned or logged after the fact.

Create takes `due_at`, `record_id`, `title` (required) and `assignee_id`,
`description`, `status`, `type`; the defaults the document leaves open are type
`task` and status `open`. `resume_conversation` activities are the AI agent's plans:
readable, and only completed or canceled (422 `agent_activity_read_only` otherwise);
they are made by the agent (here, the adapter), never through this API.
"""

import json
from dataclasses import replace
from datetime import datetime
from typing import Any

from crm_conformance.reference import owners
from crm_conformance.reference.api_errors import ApiError, not_found
from crm_conformance.reference.identifiers import kind_of
from crm_conformance.reference.listing import ListSpec, parse_since
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

BODY_TYPES = ("task", "call", "email", "meeting", "follow_up")
TYPES = (*BODY_TYPES, "resume_conversation")
BODY_STATUSES = ("open", "completed")
UPDATE_STATUSES = ("open", "completed", "canceled")
STATUSES = ("open", "completed", "canceled", "conflict", "suggested")
RECORD_KINDS = ("contact", "organization", "deal")
AGENT_TYPE = "resume_conversation"
MAX_TITLE = 500
MAX_DESCRIPTION = 10_000
FIELDS = (
    "title", "description", "type", "status", "due_at", "record_id", "assignee",
    "assignee_id", "created_by", "status_reason", "created_at", "updated_at",
)  # fmt: skip

routes = RouteTable()

SPEC = ListSpec(
    name="activities",
    fields=frozenset(FIELDS),
    sort_keys={
        "created_at": lambda r: r["created_at"],
        "updated_at": lambda r: r["updated_at"],
        "due_at": lambda r: r["due_at"],
    },
)


def render(tx: Transaction, workspace: str, record: Record) -> dict[str, Any]:
    return {
        "id": record["id"],
        "object": "activity",
        "title": record["title"],
        "description": record.get("description", ""),
        "type": record["type"],
        "status": record["status"],
        "due_at": record["due_at"],
        "record_id": record["record_id"],
        "assignee_id": record.get("assignee_id"),
        "assignee": owners.render_owner(tx, workspace, record.get("assignee_id")),
        "created_by": owners.render_owner(tx, workspace, record.get("created_by")),
        "status_reason": record.get("status_reason"),
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def linked_record(call: Call, tx: Transaction, record_id: str) -> str:
    """The kind of the visible contact, organization or deal `record_id`; 404
    record_not_found (param record_id) when it is missing or invisible."""
    kind = kind_of(record_id, RECORD_KINDS)
    record = tx.get(call.workspace, kind, record_id) if kind else None
    hidden = record is not None and not call.sees(record)
    if hidden and call.settings.has_fault("invisible_body_id_forbidden"):
        raise ApiError(403, "forbidden", "This token may not use this record.")
    if hidden and kind != "contact" and call.settings.has_fault("activity_sees_any_company"):
        hidden = False  # the visibility join was written for contacts only
    if kind is None or record is None or hidden:
        raise ApiError(
            404,
            "record_not_found",
            "No contact, organization or deal with this id.",
            param="record_id",
            # the activity module's own error helper types a body's problem as the request's
            error_type="invalid_request_error"
            if call.settings.has_fault("activity_record_not_found_typed_as_request")
            else None,
        )
    return kind


@routes.post(
    "/v1/activities",
    scopes=("activities:write",),
    entity="activities",
    variant_scopes=(("activity_create_guarded_by_contacts_write", ("contacts:write",)),),
)
def create_activity(call: Call) -> Reply:
    fields = BodyFields(
        call.json(),
        allowed=("due_at", "record_id", "title", "assignee_id", "description", "status", "type"),
    )
    off_by_one = call.settings.has_fault("activity_title_limit_off_by_one")
    limit = MAX_TITLE + 1 if off_by_one else MAX_TITLE
    shortest = 0 if call.settings.has_fault("activity_empty_title_accepted") else 1
    title = fields.string("title", required=True, min_length=shortest, max_length=limit)
    if title and call.settings.has_fault("activity_title_trimmed_on_create_only"):
        title = title.strip()
    due_at = fields.instant("due_at", required=True)
    if due_at and due_at < call.now() and call.settings.has_fault("activity_due_at_must_be_future"):
        fields.problem("due_at", "must be in the future", "past")
    optional = call.settings.has_fault("activity_record_id_optional")
    if call.settings.has_fault("activity_record_kind_by_prefix"):
        record_id = fields.string("record_id", required=True, pattern=r"[a-z]+_[0-9a-f]{32}")
    elif call.settings.has_fault("activity_record_id_only_looked_up"):
        record_id = fields.string("record_id", required=True)
    elif call.settings.has_fault("activity_record_id_any_case"):
        record_id = fields.string("record_id", required=True, pattern=r"[a-z]+_[0-9a-fA-F]{32}")
    else:
        record_id = fields.identifier("record_id", RECORD_KINDS, required=not optional)
    description = fields.string("description", nullable=False, max_length=MAX_DESCRIPTION)
    if call.settings.has_fault("activity_description_dropped"):
        description = None
    statuses = STATUSES if call.settings.has_fault("activity_create_takes_any_status") else None
    status = fields.string("status", nullable=False, choices=statuses or BODY_STATUSES)
    creatable: tuple[str, ...] = (
        TYPES if call.settings.has_fault("resume_conversation_creatable") else BODY_TYPES
    )
    if call.settings.has_fault("activity_follow_up_type_refused"):
        creatable = tuple(t for t in creatable if t != "follow_up")
    kind = fields.string("type", nullable=False, choices=creatable)
    with call.transaction() as tx:
        if call.settings.has_fault("activity_assignee_unchecked"):
            assignee_id = fields.identifier("assignee_id", "user")
        else:
            assignee_id = owners.user_field(tx, call.workspace, fields, "assignee_id")
        if assignee_id and call.settings.has_fault("activity_assignee_must_be_member"):
            assignee = tx.get(call.workspace, "user", assignee_id)
            if assignee and assignee.get("role") != "member":
                fields.problem("assignee_id", "only members can be assigned activities")
        if fields.problems and call.settings.has_fault("activity_validation_detail_null"):
            raise ApiError(422, "validation_failed", "The activity is invalid.")  # no detail
        fields.check()
        record_kind = _linked_on_create(call, tx, record_id)
        null_default = call.settings.has_fault("activity_description_default_null")
        record = tx.insert(
            call.workspace,
            "activity",
            {
                "title": title,
                "description": description or (None if null_default else ""),
                "type": kind or _default_type(call),
                "status": status or _default_status(call, due_at),
                "due_at": due_at,
                "record_id": record_id,
                "record_kind": record_kind,
                "assignee_id": assignee_id,
                "created_by": call.user_id or _integration_creator(call, tx),
                "status_reason": None,
            },
        )
        return call.created(_created_rendering(call, render(tx, call.workspace, record)))


_KIND_BY_PREFIX = {"con": "contact", "org": "organization", "deal": "deal"}
"""The fault `activity_record_kind_by_prefix`: the record kind looked up by prefix."""


def _integration_creator(call: Call, tx: Transaction) -> str | None:
    """None: a workspace token has no user behind it (the fault: the first teammate)."""
    if not call.settings.has_fault("workspace_token_activity_credits_a_teammate"):
        return None
    users = sorted(tx.all(call.workspace, "user"), key=lambda u: u["created_at"])
    return str(users[0]["id"]) if users else None


def _linked_on_create(call: Call, tx: Transaction, record_id: str | None) -> str | None:
    """The kind of the record an activity is created on (none under the fault
    `activity_record_id_optional`)."""
    if record_id is None:
        return None
    if call.settings.has_fault("activity_record_id_any_case"):
        record_id = record_id.lower()  # a case-blind lookup, after a pattern of any case
    kind = kind_of(record_id, RECORD_KINDS)
    if call.settings.has_fault("activity_record_kind_by_prefix"):
        kind = _KIND_BY_PREFIX[record_id.partition("_")[0]]  # KeyError on another prefix
    if kind == "deal" and call.settings.has_fault("activity_on_deal_refused"):
        raise ApiError(404, "record_not_found", "No contact or organization.", param="record_id")
    missing = kind is not None and tx.get(call.workspace, kind, record_id) is None
    if missing and call.settings.has_fault("activity_record_not_found_names_kind"):
        raise ApiError(404, "record_not_found", f"No such {kind}.", param=f"{kind}_id")
    ever = call.settings.has_fault("activity_on_deleted_record_taken")
    if missing and kind and ever and tx.was_deleted(call.workspace, record_id):
        return kind  # the id was checked against every id ever issued
    return linked_record(call, tx, record_id)


def _created_rendering(call: Call, rendered: dict[str, Any]) -> dict[str, Any]:
    """The create answer: the faults of its serializer, each where one field is rendered."""
    if call.settings.has_fault("activity_created_by_api_string") and not rendered["created_by"]:
        rendered["created_by"] = "api"
    if call.settings.has_fault("activity_id_task_prefix"):
        rendered["id"] = "task_" + rendered["id"].partition("_")[2]
    if call.settings.has_fault("activity_object_task"):
        rendered["object"] = "task"
    if call.settings.has_fault("activity_timestamps_epoch"):
        stamp = datetime.fromisoformat(rendered["updated_at"])
        rendered["updated_at"] = int(stamp.timestamp())
    return rendered


def _default_type(call: Call) -> str:
    """`task`, or under `activity_defaults_follow_up` a `follow_up`."""
    if call.settings.has_fault("activity_default_type_todo"):
        return "todo"
    return "follow_up" if call.settings.has_variant("activity_defaults_follow_up") else "task"


def _default_status(call: Call, due_at: str | None) -> str:
    """`open`, or under `activity_defaults_follow_up` `completed` for a past `due_at` (an
    activity logged after it happened)."""
    logged = due_at is not None and due_at < call.now()
    if call.settings.has_fault("activity_default_status_pending"):
        return "pending"
    return (
        "completed"
        if logged and call.settings.has_variant("activity_defaults_follow_up")
        else "open"
    )


def _visible(call: Call, tx: Transaction, activity_id: str) -> Record:
    record = tx.get(call.workspace, "activity", activity_id)
    if record is None:
        raise not_found("activity")
    kind = record.get("record_kind")
    parent = tx.get(call.workspace, kind, record["record_id"]) if kind else None
    if parent is not None and not call.sees(parent):
        raise not_found("activity")
    return record


def _listed(call: Call, rendered: dict[str, Any]) -> dict[str, Any]:
    """An activity as the list shows it: as every read does, but under its fault the
    list's rows carry the type's display label ("Task"), which no other read shows."""
    if call.settings.has_fault("activity_list_type_as_label"):
        rendered["type"] = str(rendered["type"]).replace("_", " ").capitalize()
    return rendered


@routes.get("/v1/activities", scopes=("activities:read",), replaced_by=("no_unshown_lists",))
def list_activities(call: Call) -> Reply:
    filters = ("record_id", "status", "type", "assignee_id")
    params = call.list_params(SPEC, filters=(*filters, "updated_since"))
    chosen = {name: call.query.getlist(name) for name in filters if call.query.getlist(name)}
    since = parse_since("updated_since", call.single("updated_since"))
    with call.transaction() as tx:
        hidden = _hidden_records(call, tx)
        rows = [
            row
            for row in tx.all(call.workspace, "activity")
            if row["record_id"] not in hidden
            and all(row.get(name) in values for name, values in chosen.items())
            and (since is None or row["updated_at"] >= since)
        ]
        try:
            return call.list_reply(
                SPEC,
                rows,
                params,
                {"filters": chosen, "updated_since": since},
                lambda r: _listed(call, render(tx, call.workspace, r)),
            )
        except ApiError as refused:
            if refused.code == "invalid_cursor" and call.settings.has_fault(
                "activities_list_cursor_unchecked"
            ):
                raise ValueError("cursor decoding failed") from refused  # answered as 500
            raise


def _hidden_records(call: Call, tx: Transaction) -> set[str]:
    """Ids of records the token may not see (their activities are hidden too)."""
    if call.user_id is None:
        return set()
    return {
        record["id"]
        for kind in RECORD_KINDS
        for record in tx.all(call.workspace, kind)
        if not call.sees(record)
    }


@routes.get("/v1/activities/{activity_id}", scopes=("activities:read",))
def get_activity(call: Call) -> Reply:
    activity_id = call.path_id("activity_id", "activity")
    _, fields = call.retrieve_params(SPEC)
    if call.settings.has_fault("activity_retrieve_ignores_fields"):
        fields = None  # validated, then the whole activity rendered
    with call.transaction() as tx:
        record = _visible(call, tx, activity_id)
        return Reply(200, call.narrow(render(tx, call.workspace, record), fields))


@routes.patch("/v1/activities/{activity_id}", scopes=("activities:write",), entity="activities")
def update_activity(call: Call) -> Reply:
    """Change an activity; the agent's resume plan only moves to completed or canceled."""
    activity_id = call.path_id("activity_id", "activity")
    fields = BodyFields(
        call.json(),
        allowed=(
            "title",
            "description",
            "status",
            "type",
            "due_at",
            "assignee_id",
            "status_reason",
        ),
    )
    with call.transaction() as tx:
        current = _visible(call, tx, activity_id)
        if current["type"] == AGENT_TYPE:
            _check_agent_change(call, fields)
        changes: dict[str, Any] = {}
        if fields.has("title"):
            unbounded = call.settings.has_fault("activity_title_unbounded_on_update")
            changes["title"] = fields.string(
                "title", required=True, min_length=1, max_length=None if unbounded else MAX_TITLE
            )
        if fields.has("description"):
            loose = call.settings.has_fault("activity_update_takes_null_description")
            changes["description"] = fields.string(
                "description", nullable=loose, max_length=MAX_DESCRIPTION
            ) or (None if loose else "")
        if fields.has("status"):
            every = call.settings.has_fault("activity_update_takes_response_statuses")
            statuses = STATUSES if every else UPDATE_STATUSES  # the response's enum, not the body's
            changes["status"] = fields.string("status", required=True, choices=statuses)
        if fields.has("type"):
            agent = call.settings.has_fault("activity_update_takes_resume_type")
            types = (*BODY_TYPES, AGENT_TYPE) if agent else BODY_TYPES
            changes["type"] = fields.string("type", required=True, choices=types)
        if fields.has("due_at"):
            lenient = call.settings.has_fault("activity_update_due_at_rolls_over")
            nullable = call.settings.has_fault("activity_update_takes_null_due_at")
            changes["due_at"] = fields.instant("due_at", required=not nullable, lenient=lenient)
        if fields.has("assignee_id"):
            changes["assignee_id"] = owners.user_field(tx, call.workspace, fields, "assignee_id")
            if call.settings.has_fault("activity_update_drops_assignee"):
                del changes["assignee_id"]  # checked, then left out of the update's columns
        if fields.has("status_reason"):
            changes["status_reason"] = fields.string("status_reason", max_length=MAX_DESCRIPTION)
        fields.check()
        touch = not call.settings.has_fault("activity_update_keeps_updated_at")
        if current["type"] == AGENT_TYPE and call.settings.has_fault("agent_plan_unstamped"):
            touch = False  # the agent's plan is written by the agent's own path, unstamped
        record = tx.update(call.workspace, "activity", {**current, **changes}, touch=touch)
        return Reply(200, render(tx, call.workspace, record))


def _check_agent_change(call: Call, fields: BodyFields) -> None:
    """Only a move to completed or canceled (the faults: any change without a status
    passes; or nothing passes, completing neither)."""
    status = fields.body.get("status")
    others = set(fields.body) - {"status", "status_reason"}
    if call.settings.has_fault("resume_activity_editable") and "status" not in fields.body:
        return
    if call.settings.has_fault("resume_activity_not_completable"):
        others = set(fields.body)
    if call.settings.has_fault("resume_plan_edited_with_a_move") and status in (
        "completed",
        "canceled",
    ):
        return  # the move is checked, what comes with it is not
    allowed: tuple[str, ...] = ("completed", "canceled")
    if call.settings.has_fault("resume_plan_reopenable"):
        allowed = (*allowed, "open")  # a plan completed by mistake could be taken back
    if others or status not in allowed:
        raise ApiError(
            422,
            "agent_activity_read_only",
            "The AI agent's resume plan can only be completed or canceled.",
            param=sorted(others)[0] if others else "status",
        )


@routes.delete("/v1/activities/{activity_id}", scopes=("activities:write",), entity="activities")
def delete_activity(call: Call) -> Reply:
    activity_id = call.path_id("activity_id", "activity")
    with call.transaction() as tx:
        current = _visible(call, tx, activity_id)
        if current["type"] == AGENT_TYPE:
            raise ApiError(
                422,
                "agent_activity_read_only",
                "The AI agent's resume plan can only be completed or canceled, not deleted.",
            )
        tx.delete(call.workspace, "activity", activity_id)
    return Reply(204)


@routes.post(
    "/v1/activities/{activity_id}/complete",
    scopes=("activities:write",),
    entity="activities",
    variant="activity_complete_action",
)
def complete_activity(call: Call) -> Reply:
    """The `activity_complete_action` variant: completing is an action of its own (the
    transitions of an activity are not shown); it takes no body."""
    BodyFields(call.json(), allowed=()).check()
    return update_activity(replace(call, raw_body=b'{"status": "completed"}'))


@routes.post(
    "/v1/activities/{activity_id}/cancel",
    scopes=("activities:write",),
    entity="activities",
    replaced_by=("cancel_by_update_only",),
)
def cancel_activity(call: Call) -> Reply:
    """Canceling, this server's own operation (`[conventions.activities]`; the transitions
    of an activity are not shown): any activity, the AI agent's resume plan included ("it
    can be read and canceled"); the body may give a `status_reason`."""
    fields = BodyFields(call.json() or {}, allowed=("status_reason",))
    reason = fields.string("status_reason", max_length=MAX_DESCRIPTION)
    fields.check()
    if call.settings.has_fault("resume_plan_cancel_refused"):
        with call.transaction() as tx:
            if _visible(call, tx, call.path_id("activity_id", "activity"))["type"] == AGENT_TYPE:
                raise ApiError(
                    422, "agent_activity_read_only", "The AI agent's resume plan is read-only."
                )
    change = {"status": "canceled", **({"status_reason": reason} if reason else {})}
    if call.settings.has_fault("activity_cancel_keeps_updated_at"):
        with call.transaction() as tx:  # the cancel writes the status alone, unstamped
            record = _visible(call, tx, call.path_id("activity_id", "activity"))
            record = tx.update(call.workspace, "activity", {**record, **change}, touch=False)
            return Reply(200, render(tx, call.workspace, record))
    return update_activity(replace(call, raw_body=json.dumps(change).encode()))
