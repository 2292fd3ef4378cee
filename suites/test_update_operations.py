"""Rules the document states about changes, through update (and create) operations it
names but does not show ("Update, delete and retrieve operations of other resources: not
shown"; "Contact create and update bodies: not shown").

The target file names each update (`[conventions.updates]`: `<resource>_method`,
`_path` with the record's id, `_body` with `{changes}` standing for the changed
fields) and the creates of contacts and organizations (`[conventions.creates]`, with
`{fields}`), where a deal, an organization and an activity are read back
(`[conventions.retrieve]`), and a success event's own path
(`success_events.retrieve_path`); a test without its keys skips, naming them. The changes
sent are documented fields with documented values; an update the document allows that
the target refuses as invalid skips (its body is not shown), never passes. Records are
made through the adapter where the document shows no create body, or where a state
(the AI agent's resume plan, a deal that entered its stage an hour ago) is out of a
client's reach.
"""

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import conventions
from crm_conformance.steps import (
    RecordFactory,
    Updates,
    create_fields,
    expect_error,
    expect_field,
    expect_status,
    expect_true,
    instant,
    operations,
    phone_number,
    stamp,
)

AN_HOUR_AGO = timedelta(hours=1)


# --- external_id: "unique per workspace and resource" --------------------------------

EXTERNAL_ID_REQS = {
    "contact": ("CON-047",),
    "organization": ("CON-047",),
    "deal": ("DEAL-011", "DEAL-033"),
}


@pytest.mark.parametrize(
    "resource",
    [pytest.param(r, id=r, marks=pytest.mark.req(*reqs)) for r, reqs in EXTERNAL_ID_REQS.items()],
)
def test_an_update_to_another_records_external_id_answers_external_id_taken(
    updates: Updates, factory: RecordFactory, resource: str
) -> None:
    """ "unique per workspace and resource" and 409 `external_id_taken` "another record
    of the resource has this `external_id`" hold for a change as for a create."""
    req_id = EXTERNAL_ID_REQS[resource][0]
    taken = factory.unique("ext")
    updates.made(resource, external_id=taken)
    other = updates.made(resource)
    response = updates.send(resource, other["id"], {"external_id": taken})
    expect_error(response, req_id, status=409, code="external_id_taken")


@pytest.mark.req("CON-047")
@pytest.mark.parametrize("resource", conventions.CREATED)
def test_a_create_with_another_records_external_id_answers_external_id_taken(
    updates: Updates, factory: RecordFactory, resource: str
) -> None:
    """The same rule at the target's create (`[conventions.creates]`): a record the
    create made with an `external_id`, then a new one given that `external_id`."""
    taken = factory.unique("ext")
    updates.created(
        resource, {**create_fields(resource, factory.unique), "external_id": taken}, "CON-047"
    )
    again = {**create_fields(resource, factory.unique), "external_id": taken}
    expect_error(updates.create(resource, again), "CON-047", status=409, code="external_id_taken")


HOLDERS = ("contact", "organization", "deal")
"""The kinds with an `external_id`, each "unique per workspace and resource"."""
WRITERS = {"contact": "CON-047", "organization": "CON-047", "deal": "DEAL-033", "upsert": "CON-047"}
"""Each write giving a new record an `external_id` (the target's creates, the deal create
the document shows, the upsert of a contact), and the rule a cross-kind refusal breaks."""


def _write_with(
    writer: str, external_id: str, api: ApiClient, maker: operations.Maker, updates: Updates
) -> httpx.Response:
    """A new record of `writer`'s kind given `external_id`."""
    if writer == "deal":
        return api.post("/v1/deals", json={**maker.deal_body(), "external_id": external_id})
    if writer == "upsert":
        body = conventions.body(
            maker.convention,
            "upsert.body",
            external_id=external_id,
            phone=phone_number(),
            first_name=maker.unique("upsert"),
        )
        return api.post("/v1/contacts/upsert", json=body)
    return updates.create(writer, {**maker.create_fields(writer), "external_id": external_id})


@pytest.mark.parametrize(
    ("held", "writer"),
    [
        pytest.param(held, writer, marks=pytest.mark.req(req_id), id=f"{held}-{writer}")
        for held in HOLDERS
        for writer, req_id in WRITERS.items()
        if writer != held and not (held == "contact" and writer == "upsert")
    ],
)
def test_an_external_id_another_kind_has_is_free(
    api: ApiClient,
    maker: operations.Maker,
    updates: Updates,
    factory: RecordFactory,
    held: str,
    writer: str,
) -> None:
    """Unique "per workspace and resource", and `external_id_taken` is "another record of
    the resource": a value a record of one kind has is free for a record of another,
    through each write that gives one (a contact's value for an organization, an
    organization's for a contact or a deal, ...; a table shared by two kinds refuses).
    The deal create's answer, a Deal, keeps it."""
    taken = factory.unique("ext")
    updates.made(held, external_id=taken)
    response = _write_with(writer, taken, api, maker, updates)
    req_id = WRITERS[writer]
    if writer in conventions.CREATED:
        fresh = {**maker.create_fields(writer), "external_id": factory.unique("ext")}
        updates.applied(response, req_id, lambda: updates.create(writer, fresh))
    written = expect_status(response, req_id, *range(200, 300))
    if writer == "deal":  # "Response: Deal"; the other answers are not shown
        expect_field(response, req_id, written, "external_id", expected=taken)


@pytest.mark.req("CON-046")
@pytest.mark.parametrize("resource", ["contact", "organization", "deal"])
def test_an_external_id_set_to_null_is_cleared(
    updates: Updates, factory: RecordFactory, resource: str
) -> None:
    """ "null clears it": read back, the record has no external_id (null or left out)."""
    record = updates.made(resource, external_id=factory.unique("ext"))
    updates.applied(
        updates.send(resource, record["id"], {"external_id": None}),
        "CON-046",
        updates.control(resource, record["id"]),
    )
    now = updates.read(resource, record["id"], "CON-046")
    expect_true(
        None,
        "CON-046",
        now.get("external_id") is None,
        expected="external_id null or left out after an update setting it to null",
        got=f"external_id = {now.get('external_id')!r}",
    )


# --- stage_changed_at: "when the deal last moved between stages" ----------------------


@pytest.fixture
def staged_deal(factory: RecordFactory, updates: Updates) -> tuple[dict[str, Any], str]:
    """A deal that entered the first stage of a pipeline with two an hour ago (made by
    the adapter with that `created_at`: spec/adapter.yaml), and the pipeline's second
    stage. A stamp an hour old tells a move's stamp apart at any clock precision."""
    pipelines = [p for p in factory.adapter.fixtures().pipelines if len(p.stages) >= 2]
    if not pipelines:
        pytest.skip("the adapter's GET /v1/fixtures lists no pipeline with two stages")
    pipeline = pipelines[0]
    deal = updates.made(
        "deal",
        created_at=stamp(datetime.now(UTC) - AN_HOUR_AGO),
        contact_id=factory.contact()["id"],
        title=factory.unique("deal"),
        pipeline_id=pipeline.id,
        stage_id=pipeline.stages[0].id,
    )
    return deal, pipeline.stages[1].id


def stage_stamp(record: Mapping[str, Any]) -> datetime | None:
    """`stage_changed_at` as an instant (None when absent or not a date-time)."""
    try:
        return instant(record["stage_changed_at"]) if record.get("stage_changed_at") else None
    except ValueError:
        return None


@pytest.mark.req("DEAL-023")
@pytest.mark.parametrize("move", ["a later stage", "another pipeline's stage"])
def test_moving_a_deal_to_another_stage_updates_stage_changed_at(
    factory: RecordFactory,
    updates: Updates,
    staged_deal: tuple[dict[str, Any], str],
    move: str,
) -> None:
    """ "when the deal last moved between stages": to the next stage of its pipeline, or
    to a stage of another pipeline (both ids sent); a target refusing the move across
    pipelines makes that point not applicable."""
    deal, stage_id = staged_deal
    before = stage_stamp(deal)
    changes = {"pipeline_id": deal["pipeline_id"], "stage_id": stage_id}
    if move == "another pipeline's stage":
        others = [
            p
            for p in factory.adapter.fixtures().pipelines
            if p.id != deal["pipeline_id"] and p.stages
        ]
        if not others:
            pytest.skip("the adapter's GET /v1/fixtures lists one pipeline with stages")
        changes = {"pipeline_id": others[0].id, "stage_id": others[0].stages[0].id}
    response = updates.send("deal", deal["id"], changes)
    if move == "another pipeline's stage" and 400 <= response.status_code < 500:
        pytest.skip(f"the target refused the move across pipelines ({response.status_code})")
    updates.applied(response, "DEAL-023", updates.control("deal", deal["id"]))
    moved = updates.read("deal", deal["id"], "DEAL-023")
    after = stage_stamp(moved)
    expect_true(
        None,
        "DEAL-023",
        after is not None and (before is None or after > before),
        expected=f"stage_changed_at later than {deal.get('stage_changed_at')!r} after the move",
        got=f"stage_id = {moved.get('stage_id')!r}, "
        f"stage_changed_at = {moved.get('stage_changed_at')!r}",
    )


@pytest.mark.req("DEAL-036")
@pytest.mark.parametrize("change", ["title", "the stage it is in"])
def test_a_change_that_moves_no_stage_keeps_stage_changed_at(
    factory: RecordFactory,
    updates: Updates,
    staged_deal: tuple[dict[str, Any], str],
    change: str,
) -> None:
    """ "when the deal last moved between stages": a new title, or an update naming the
    pipeline and stage the deal is already in, moves it between no stages."""
    deal, _ = staged_deal
    changes = (
        {"title": factory.unique("renamed")}
        if change == "title"
        else {"pipeline_id": deal["pipeline_id"], "stage_id": deal["stage_id"]}
    )
    updates.applied(
        updates.send("deal", deal["id"], changes), "DEAL-036", updates.control("deal", deal["id"])
    )
    now = updates.read("deal", deal["id"], "DEAL-036")
    expect_true(
        None,
        "DEAL-036",
        stage_stamp(now) == stage_stamp(deal),
        expected=f"stage_changed_at still {deal.get('stage_changed_at')!r} after an update "
        f"of {change}",
        got=f"stage_changed_at = {now.get('stage_changed_at')!r}",
    )


# --- the AI agent's resume plan: "can only be completed or canceled" ------------------


@pytest.fixture
def resume_plan(factory: RecordFactory, updates: Updates) -> dict[str, Any]:
    """An open `resume_conversation` activity of the AI agent, due tomorrow on a new
    contact (the adapter makes it: "it can be read and canceled, never created")."""
    return updates.made(
        "activity",
        type="resume_conversation",
        title=factory.unique("resume"),
        due_at=stamp(datetime.now(UTC) + timedelta(days=1)),
        record_id=factory.contact()["id"],
    )


def other_value(factory: RecordFactory, plan: Mapping[str, Any], field: str) -> Any:
    """A documented value of `field` other than the plan's."""
    if field == "title":
        return factory.unique("edited")
    if field == "description":
        return "Edited by the conformance suite"
    if field == "type":
        return "task"
    if field == "due_at":
        return stamp(instant(plan["due_at"]) + timedelta(days=1))
    users = [u for u in factory.adapter.fixtures().users if u != plan.get("assignee_id")]
    if not users:
        pytest.skip("the adapter's GET /v1/fixtures lists no user to assign the plan to")
    return users[0]


def same(field: str, left: Any, right: Any) -> bool:
    """Whether two values of `field` are equal (date-times as instants)."""
    if field == "due_at" and isinstance(left, str) and isinstance(right, str):
        return instant(left) == instant(right)
    return bool(left == right)


def expect_plan_field_kept(
    updates: Updates,
    plan: Mapping[str, Any],
    field: str,
    response: httpx.Response,
    after: str,
) -> None:
    """The plan, read again, still holds its `field` as made (ACT-022)."""
    now = updates.read("activity", plan["id"], "ACT-022")
    expect_true(
        response,
        "ACT-022",
        same(field, now.get(field), plan.get(field)),
        expected=f"{field} still {plan.get(field)!r} after {after}",
        got=f"{field} = {now.get(field)!r} ({response.status_code})",
    )


PLAN_FIELDS = ("title", "description", "type", "due_at", "assignee_id")
"""The fields of an activity an update may change (`other_value` makes another value)."""


@pytest.mark.req("ACT-023", "ACT-022")
@pytest.mark.parametrize("field", PLAN_FIELDS)
def test_changing_the_resume_plan_is_refused_and_leaves_it(
    factory: RecordFactory,
    updates: Updates,
    resume_plan: dict[str, Any],
    field: str,
) -> None:
    """Any change but completing or canceling answers 422 `agent_activity_read_only`,
    and the plan reads as before."""
    changes = {field: other_value(factory, resume_plan, field)}
    response = updates.send("activity", resume_plan["id"], changes)
    expect_error(response, "ACT-023", status=422, code="agent_activity_read_only")
    expect_plan_field_kept(updates, resume_plan, field, response, "a refused change")


@pytest.mark.req("ACT-022")
@pytest.mark.parametrize("field", PLAN_FIELDS)
def test_completing_the_resume_plan_changes_nothing_else(
    factory: RecordFactory,
    updates: Updates,
    resume_plan: dict[str, Any],
    field: str,
    observe: Callable[[str, Any], None],
) -> None:
    """The plan "can only be completed or canceled": an update completing it that also
    changes another field does not change that field, whether the target refuses the
    whole update or completes the plan and leaves the rest (its answer is observed,
    not judged)."""
    changes = {"status": "completed", field: other_value(factory, resume_plan, field)}
    response = updates.send("activity", resume_plan["id"], changes)
    observe(f"completing the plan with a change of {field}", response.status_code)
    expect_plan_field_kept(
        updates, resume_plan, field, response, "completing the plan with a change of it"
    )


@pytest.mark.req("ACT-022")
@pytest.mark.parametrize("status", ["completed", "canceled"])
def test_the_resume_plan_can_be_completed_or_canceled(
    factory: RecordFactory,
    updates: Updates,
    resume_plan: dict[str, Any],
    status: str,
) -> None:
    """Completing and canceling are the changes the plan allows: the change succeeds
    and the plan reads `status`. `completed` is a body status of the document, sent by
    the update; `canceled` is not, and how an activity is canceled is not shown: the
    cancel the target file names (`[conventions.activities]`) must take the plan, and
    where it names none, any refusal of a cancel sent as an update skips (a server may
    cancel through an operation of its own)."""
    named = status == "canceled" and updates.names_cancel()

    def change(activity_id: str) -> httpx.Response:
        if named:
            return updates.cancel(activity_id)
        return updates.send("activity", activity_id, {"status": status})

    response = change(resume_plan["id"])
    if status == "canceled" and not named and 400 <= response.status_code < 500:
        pytest.skip(
            f"the update refused status canceled ({response.status_code}): canceling is "
            "not shown, the target file names no cancel ([conventions.activities]), and "
            "this target may cancel through another operation"
        )
    # the control: the same change of an activity of a type the caller creates
    updates.applied(response, "ACT-022", lambda: change(factory.activity()["id"]))
    now = updates.read("activity", resume_plan["id"], "ACT-022")
    expect_field(
        response, "ACT-022", now, "status", expected=status, why=f"after the plan was {status}"
    )


@pytest.mark.req("ACT-023", "ACT-022")
def test_a_completed_resume_plan_cannot_be_reopened(
    factory: RecordFactory, updates: Updates, resume_plan: dict[str, Any]
) -> None:
    """Completing is allowed; opening it again is neither completing nor canceling."""
    plan_id = str(resume_plan["id"])
    updates.applied(
        updates.send("activity", plan_id, {"status": "completed"}),
        "ACT-022",
        lambda: updates.send("activity", factory.activity()["id"], {"status": "completed"}),
    )
    response = updates.send("activity", plan_id, {"status": "open"})
    expect_error(response, "ACT-023", status=422, code="agent_activity_read_only")
    now = updates.read("activity", plan_id, "ACT-022")
    expect_field(
        response,
        "ACT-022",
        now,
        "status",
        expected="completed",
        why="kept after a refused reopening",
    )


# --- success events: "append-only: ... a reversal, never an edit" ---------------------

VALUE = 100
"""A value an event of a type that requires one carries (its type is not shown)."""


@pytest.fixture
def event_code(factory: RecordFactory) -> str:
    """The code of a new success event type that requires a value (the adapter defines it)."""
    factory.adapter.require("success_event_types")
    code = re.sub(r"[^a-z0-9_]", "_", f"sev_{factory.unique('edit')}".lower())[:64]
    factory.adapter.create_success_event_type(code=code, value="required")
    return code


def event_path(api: ApiClient, convention: conventions.Lookup, updates: Updates, code: str) -> str:
    """The own path of a new event of `code`; skips where the target refuses the create
    body as invalid or the event has no id (its fields are not shown)."""
    body = conventions.body(convention, "success_events.create_body", code=code, value=VALUE)
    response = api.post(conventions.path(convention, "success_events.create_path"), json=body)
    updates.applied(response, "SEV-002")
    event_id = response.json().get("id") if response.content else None
    if not isinstance(event_id, str):
        pytest.skip("the recorded success event carries no string `id` (its fields are not shown)")
    return conventions.path(convention, "success_events.retrieve_path", event_id=event_id)


@pytest.mark.req("SEV-002")
@pytest.mark.parametrize("method", ["PATCH", "PUT", "DELETE"])
def test_an_edit_at_a_success_events_own_path_changes_nothing(
    api: ApiClient,
    convention: conventions.Lookup,
    updates: Updates,
    event_code: str,
    method: str,
) -> None:
    """No edit operation is shown, so any answer to the edit passes (a refusal most
    likely); the event read back at its own path must be what it was. "Append-only": a
    DELETE there (a generic router's) must not remove it either."""
    path = event_path(api, convention, updates, event_code)
    event = expect_status(api.get(path), "SEV-002", 200)
    body = conventions.body(
        convention, "success_events.create_body", code=event_code, value=VALUE + 1
    )
    edit = api.request(method, path, json=None if method == "DELETE" else body)
    now = expect_status(api.get(path), "SEV-002", 200)
    expect_true(
        edit,
        "SEV-002",
        now == event,
        expected=f"the event unchanged after {method} {path}: {event!r}",
        got=f"{now!r}",
    )


RECORDED = ("code", "value")
"""What an event records, where its answer shows it (its fields are not shown): a
reversal may mark the event reversed, but never edit what it recorded."""


@pytest.mark.req("SEV-002")
def test_a_reversal_leaves_the_original_event_as_recorded(
    api: ApiClient, convention: conventions.Lookup, updates: Updates, event_code: str
) -> None:
    """ "a refund is recorded as a reversal, never an edit": once reversed, the original
    event read at its own path still shows the code and value it was recorded with."""
    path = event_path(api, convention, updates, event_code)
    event = expect_status(api.get(path), "SEV-002", 200)
    event_id = str(event.get("id") or path.rstrip("/").rsplit("/", 1)[-1])
    reverse = conventions.path(convention, "success_events.reverse_path", event_id=event_id)
    reversal = api.post(reverse, json={})
    updates.applied(reversal, "SEV-002")
    now = expect_status(api.get(path), "SEV-002", 200)
    edited = {key: now.get(key) for key in RECORDED if key in event and now.get(key) != event[key]}
    expect_true(
        reversal,
        "SEV-002",
        not edited,
        expected=f"the reversed event still as recorded: { ({k: event.get(k) for k in RECORDED}) }",
        got=f"{edited}",
    )
