"""Campaigns: reading them, pausing and resuming them, and their stats over a window.

The document gives pause (running → paused, 409 `campaign_not_running` otherwise) and
the refusal of resume (409 `campaign_not_paused` unless paused); resume answers the
Campaign, like pause. Stats are computed by `stats` from the participants stored with
the campaign (kind `participant`, one per contact, made by the adapter).

Choices where the document is silent: an OAuth token's person must be a workspace
admin to resume a campaign, since resuming sends messages (403
`campaign_dispatch_denied`); pausing sends nothing and is open to any person. A
`window_end` needs a timezone offset too (see `stats.parse_window`).
"""

import re
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from crm_conformance.reference import stats
from crm_conformance.reference.api_errors import ApiError, bad_query, not_found
from crm_conformance.reference.clock import now, parse_instant, stamp
from crm_conformance.reference.listing import ListSpec
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

STATUSES = ("draft", "scheduled", "running", "paused", "completed")
FIELDS = ("name", "instructions", "status", "created_at", "updated_at")
WRITE = ("campaigns:write",)

routes = RouteTable()

SPEC = ListSpec(
    name="campaigns",
    fields=frozenset(FIELDS),
    sort_keys={
        "created_at": lambda r: r["created_at"],
        "updated_at": lambda r: r["updated_at"],
        "name": lambda r: r.get("name"),
    },
)


def render(record: Record) -> dict[str, Any]:
    return {
        "id": record["id"],
        "object": "campaign",
        "name": record.get("name"),
        "instructions": record.get("instructions"),
        "status": record["status"],
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
    }


def _campaign(call: Call, tx: Transaction) -> Record:
    campaign_id = call.path_id("campaign_id", "campaign")
    record = tx.get(call.workspace, "campaign", campaign_id)
    if record is None:
        raise not_found("campaign")
    return record


@routes.get("/v1/campaigns", scopes=("campaigns:read",), replaced_by=("no_unshown_lists",))
def list_campaigns(call: Call) -> Reply:
    params = call.list_params(SPEC, filters=("status",))
    statuses = call.query.getlist("status")
    with call.transaction() as tx:
        rows = [
            row
            for row in tx.all(call.workspace, "campaign")
            if not statuses or row["status"] in statuses
        ]
    return call.list_reply(
        SPEC, rows, params, {"status": sorted(statuses)}, lambda r: _listed(call, r)
    )


def _listed(call: Call, record: Record) -> dict[str, Any]:
    """A campaign as its list renders it; under its fault, the list selects fewer
    columns and leaves out `instructions`."""
    rendered = render(record)
    if call.settings.has_fault("campaign_list_drops_instructions"):
        rendered.pop("instructions", None)
    return rendered


@routes.get(
    "/v1/campaigns/{campaign_id}",
    scopes=("campaigns:read",),
    variant_scopes=(("campaign_retrieve_unscoped", ()),),
)
def get_campaign(call: Call) -> Reply:
    _, fields = call.retrieve_params(SPEC)
    with call.transaction() as tx:
        record = _campaign(call, tx)
    rendered = render(record)
    if rendered["status"] == "paused" and call.settings.has_fault(
        "campaign_retrieve_paused_as_running"
    ):
        rendered["status"] = "running"  # the scheduler's view: paused campaigns still "run"
    return Reply(200, call.narrow(rendered, fields))


@routes.post(
    "/v1/campaigns/{campaign_id}/pause",
    scopes=WRITE,
    entity="campaigns",
    variant_scopes=(("campaign_pause_needs_messages_write", (*WRITE, "messages:write")),),
)
def pause_campaign(call: Call) -> Reply:
    """Running → paused: no further messages; conversations already started carry on."""
    BodyFields(call.json(), allowed=()).check()
    fault = call.settings.has_fault
    with call.transaction() as tx:
        campaign_id = call.path_id("campaign_id", "campaign")
        if fault("pause_unknown_campaign_conflict") and not tx.get(
            call.workspace, "campaign", campaign_id
        ):
            raise ApiError(409, "campaign_not_running", "Only running campaigns pause.")
        record = _campaign(call, tx)
        repeat = record["status"] == "paused" and fault("pause_paused_campaign_ok")
        if record["status"] != "running" and not repeat:
            raise ApiError(409, "campaign_not_running", "Only running campaigns pause.")
        paused = {**record, "status": "paused"}
        if fault("pause_not_stored"):
            record = {**paused, "updated_at": stamp(now())}
        else:
            touch = not fault("pause_keeps_updated_at")
            record = tx.update(call.workspace, "campaign", paused, touch=touch)
    body = render(record)
    if fault("pause_answer_without_updated_at"):
        del body["updated_at"]
    if fault("paused_rendered_as_stopped"):
        body["status"] = "stopped"
    if fault("pause_answers_status_only"):
        body = {"status": body["status"]}
    return Reply(202 if call.settings.has_variant("pause_answers_202") else 200, body)


@routes.post(
    "/v1/campaigns/{campaign_id}/resume",
    scopes=WRITE,
    entity="campaigns",
    replaced_by=("campaign_resume_missing", "campaign_start"),
)
@routes.post(
    "/v1/campaigns/{campaign_id}/start", scopes=WRITE, entity="campaigns", variant="campaign_start"
)
def resume_campaign(call: Call) -> Reply:
    """Paused → running. Body: none (or `{}`) for both moves."""
    BodyFields(call.json(), allowed=()).check()
    with call.transaction() as tx:
        record = _campaign(call, tx)
        if call.user_id is not None:
            person = tx.get(call.workspace, "user", call.user_id)
            if person is None or person.get("role") != "admin":
                raise ApiError(
                    403,
                    "campaign_dispatch_denied",
                    "Only workspace admins may resume (send) campaigns.",
                )
        repeat = record["status"] == "running" and call.settings.has_fault(
            "resume_running_campaign_ok"
        )
        if record["status"] != "paused" and not repeat:
            raise ApiError(409, "campaign_not_paused", "Only paused campaigns resume.")
        resumed = "scheduled" if call.settings.has_variant("resume_schedules") else "running"
        record = tx.update(call.workspace, "campaign", {**record, "status": resumed})
    return Reply(200, render(record))


@routes.get(
    "/v1/campaigns/{campaign_id}/stats",
    scopes=("campaigns:read",),
    variant_scopes=(("campaign_stats_need_analytics_read", ("analytics:read",)),),
)
def campaign_stats(call: Call) -> Reply:
    """Counts over `[window_start, window_end)`; the default is the 30 days ending now."""
    call.allow_query(("window_start", "window_end"))
    start = call.single("window_start")
    if start and call.settings.has_fault("naive_window_start_as_utc"):
        naive = parse_instant(start) is None and parse_instant(start, require_offset=False)
        start = start + "+00:00" if naive else start
    if start and call.settings.has_fault("window_start_offset_dropped"):
        start = re.sub(r"(Z|[+-]\d\d:?\d\d)$", "+00:00", start)  # local time read as UTC
    end = call.single("window_end")
    if end and parse_instant(end) is None and call.settings.has_fault("window_end_unvalidated"):
        end = None  # an unreadable end falls back to the default, now
    try:
        window = stats.parse_window(start, end, now=now())
    except stats.WindowError as refused:
        bound = parse_instant(start) if start and end else None
        empty = bound is not None and end is not None and bound == parse_instant(end)
        reversed_to_now = end is None and start and parse_instant(start) is not None
        if empty and bound is not None and call.settings.has_fault("empty_window_allowed"):
            window = stats.Window(bound, bound)
        elif reversed_to_now and call.settings.has_fault("window_order_checked_with_an_end"):
            window = stats.Window(now(), now())  # the order was checked only when both came
        elif refused.code == "invalid_window":
            raise ApiError(400, refused.code, refused.message, param=refused.param) from None
        else:
            raise bad_query(refused.param or "window", refused.message, "datetime") from None
    if not start and call.settings.has_fault("default_window_four_weeks"):
        window = replace(window, start=window.end - timedelta(weeks=4))
    with call.transaction() as tx:
        if call.settings.has_fault("campaign_stats_any_workspace"):
            # the analytics store is keyed by the campaign id alone
            campaign_id = call.path_id("campaign_id", "campaign")
            place = next((w for w in tx.workspaces() if tx.get(w, "campaign", campaign_id)), None)
            if place is None:
                raise not_found("campaign")
            rows = tx.find(place, "participant", campaign_id=campaign_id)
        elif call.settings.has_fault("stats_of_missing_campaign_empty"):
            # the analytics store answers for any id: no rows is zero counts
            campaign_id = call.path_id("campaign_id", "campaign")
            rows = tx.find(call.workspace, "participant", campaign_id=campaign_id)
        else:
            campaign_id = _campaign(call, tx)["id"]
            rows = tx.find(call.workspace, "participant", campaign_id=campaign_id)
    return Reply(200, _stats_body(call, campaign_id, [participant(r) for r in rows], window))


def participant(row: Record) -> stats.Participant:
    """The stats view of a stored participant."""

    def instant(name: str) -> datetime | None:
        value = row.get(name)
        return datetime.fromisoformat(value) if value else None

    enrolled_at = instant("enrolled_at")
    assert enrolled_at is not None
    return stats.Participant(
        contact_id=row.get("contact_id"),
        enrolled_at=enrolled_at,
        contacted_at=instant("contacted_at"),
        replied_at=instant("replied_at"),
        reply_automated=bool(row.get("reply_automated")),
        converted_at=instant("converted_at"),
        not_contacted_reason=row.get("not_contacted_reason"),
        status_changed_at=instant("status_changed_at"),
    )


def _stats_body(
    call: Call, campaign_id: str, participants: list[stats.Participant], window: stats.Window
) -> dict[str, Any]:
    """The Campaign stats body (with the stats faults, when on, at this one place)."""
    fault = call.settings.has_fault
    if fault("automated_replies_counted"):
        participants = [replace(p, reply_automated=False) for p in participants]
    counted = window
    if fault("window_end_inclusive"):
        counted = replace(window, end=window.end + timedelta(microseconds=1))
    if fault("window_start_exclusive"):
        counted = replace(counted, start=window.start + timedelta(microseconds=1))
    by_contact = not call.settings.has_fault("converted_counts_participants")
    computed = stats.compute(participants, counted, by_contact=by_contact)
    body = replace(computed, window=window).render(campaign_id, stamp)
    if fault("stats_object_named_stats"):
        body["object"] = "stats"
    if fault("stats_campaign_id_dropped"):
        body["campaign_id"] = None
    if fault("stats_window_as_dates"):
        body["window_start"] = window.start.date().isoformat()
        body["window_end"] = window.end.date().isoformat()
    if fault("contacted_counts_failed_sends"):
        body["contacted"] += sum(
            1 for p in participants if p.not_contacted_reason and window.holds(p.last_status_change)
        )
    if fault("converted_counts_conversions_in_window"):
        body["converted"] = len(
            {p.contact_id for p in participants if window.holds(p.converted_at)}
        )
    if fault("not_contacted_ignores_window"):
        every = Counter(p.not_contacted_reason for p in participants if p.not_contacted_reason)
        body["not_contacted"] = [
            {"reason": reason, "count": every[reason]} for reason in stats.NOT_CONTACTED_REASONS
        ]
    if fault("enrolled_windowed"):
        body["enrolled"] = sum(1 for p in participants if window.holds(p.enrolled_at))
    if fault("reply_rate_as_percentage") and body["reply_rate"] is not None:
        body["reply_rate"] *= 100
    if fault("rates_zero_when_nobody_contacted") and body["contacted"] == 0:
        body["reply_rate"] = body["conversion_rate"] = 0.0
    if fault("replied_counts_replies_in_window"):
        body["replied"] = sum(
            1 for p in participants if window.holds(p.replied_at) and not p.reply_automated
        )
    if fault("not_contacted_omits_zero_reasons"):
        body["not_contacted"] = [item for item in body["not_contacted"] if item["count"]]
    if call.settings.has_variant("more_not_contacted_reasons"):
        counts = dict(item.values() for item in body["not_contacted"])
        order = ("opted_out", "blocked_by_recipient", *counts, "meta_account")
        body["not_contacted"] = [
            {"reason": reason, "count": counts.get(reason, 0)} for reason in dict.fromkeys(order)
        ]
    if call.settings.has_variant("rates_rounded"):
        for rate in ("reply_rate", "conversion_rate"):
            if body[rate] is not None:
                body[rate] = round(body[rate], 4)
    if fault("not_contacted_as_mapping"):
        body["not_contacted"] = {item["reason"]: item["count"] for item in body["not_contacted"]}
    if fault("counts_as_floats"):
        for count in ("contacted", "replied", "replied_automated", "converted", "enrolled"):
            body[count] = float(body[count])
    return body
