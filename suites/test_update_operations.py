"""Rules the document states about changes, through update operations it names but does
not show ("Update, delete and retrieve operations of other resources: not shown").

The target file names each update (`[conventions.updates]`: `<resource>_method`,
`_path` with the record's id, `_body` with `{changes}` standing for the changed
fields), where a deal, an organization and an activity are read back
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
from crm_conformance.core import conventions
from crm_conformance.steps import (
    RecordFactory,
    error_of,
    expect_error,
    expect_status,
    expect_true,
    instant,
    stamp,
)

CONTACT_PATH = "/v1/contacts/{contact_id}"
"""The one retrieve the document shows ("GET /v1/contacts/{contact_id} retrieves one
contact"); the others are the target file's `retrieve.<resource>_path`."""

AN_HOUR_AGO = timedelta(hours=1)


def send_update(
    api: ApiClient,
    convention: conventions.Lookup,
    resource: str,
    record_id: str,
    changes: Mapping[str, Any],
) -> httpx.Response:
    """The target's update of `resource` `record_id` with `changes`."""
    operation = conventions.update(convention, resource, record_id, changes)
    return api.request(operation.method, operation.path, json=operation.body)


CONTROL_FIELD = {
    "contact": "first_name",
    "organization": "name",
    "deal": "title",
}
"""A plain text field of each resource's table: the change a control update makes."""


def applied(
    response: httpx.Response, req_id: str, control: Callable[[], httpx.Response] | None = None
) -> None:
    """An update the document allows succeeded (any 2xx: its answer is not shown).

    The update body is not shown, so a refusal as `validation_failed` may be the target
    wanting another body, or the rule being broken. `control` tells them apart: another
    update of the same shape (`control_update`). When the target accepts it, the body is
    right and the refusal is charged to `req_id`; when it refuses it too, or no control
    exists, the point is not applicable, with the reason."""
    if response.status_code in (400, 422) and error_of(response).get("code") == (
        "validation_failed"
    ):
        sent = f"{response.request.method} {response.request.url.path}"
        if control is not None:
            answer = control()
            expect_true(
                response,
                req_id,
                not answer.is_success,
                expected=f"{sent} to apply {response.request.content!r}, as the target "
                f"applied a change of another field through the same update "
                f"({answer.request.content!r} answered {answer.status_code})",
                got=f"{response.status_code} {response.text[:200]}",
            )
        pytest.skip(
            f"{sent} refused {response.request.content!r} as validation_failed"
            + (", and a control update of another field too" if control else "")
            + ": the update body is not shown, and the target wants another"
        )
    expect_status(response, req_id, *range(200, 300))


def control_update(
    api: ApiClient,
    convention: conventions.Lookup,
    factory: RecordFactory,
    resource: str,
    record_id: str,
) -> Callable[[], httpx.Response]:
    """An update of `record_id` the document certainly allows, a new value of its plain
    text field (`CONTROL_FIELD`); sent only when a control is needed."""
    fields = {CONTROL_FIELD[resource]: factory.unique("control")}
    return lambda: send_update(api, convention, resource, record_id, fields)


def retrieved(
    api: ApiClient, convention: conventions.Lookup, resource: str, record_id: str, req_id: str
) -> dict[str, Any]:
    """The record as the target reads it now: a 200 with a JSON object."""
    ids = {f"{resource}_id": record_id}
    if resource == "contact":
        path = conventions.fill_path(CONTACT_PATH, "contact retrieve", **ids)
    else:
        path = conventions.path(convention, f"retrieve.{resource}_path", **ids)
    response = api.get(path)
    body = expect_status(response, req_id, 200)
    expect_true(
        response,
        req_id,
        isinstance(body, dict) and body.get("id") == record_id,
        expected=f"the {resource} {record_id} read back",
        got=response.text[:300],
    )
    assert isinstance(body, dict)
    return body


def through_adapter(
    factory: RecordFactory, kind: str, *, created_at: str | None = None, **fields: Any
) -> dict[str, Any]:
    """A record the adapter makes (kept in `factory.created` for the report and sweep)."""
    made = factory.adapter.create_record(kind=kind, fields=fields, created_at=created_at)
    factory.created.append((kind, str(made.get("id"))))
    return made


def made(factory: RecordFactory, resource: str, **fields: Any) -> dict[str, Any]:
    """A contact, organization or deal with `fields`, through the adapter (a deal on a
    new contact, in the adapter's first stage)."""
    if resource == "deal":
        contact_id = factory.contact()["id"]
        return through_adapter(
            factory, "deal", contact_id=contact_id, title=factory.unique("deal"), **fields
        )
    make: Callable[..., dict[str, Any]] = getattr(factory, resource)
    return make(**fields)


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
    api: ApiClient, factory: RecordFactory, convention: conventions.Lookup, resource: str
) -> None:
    """ "unique per workspace and resource" and 409 `external_id_taken` "another record
    of the resource has this `external_id`" hold for a change as for a create."""
    req_id = EXTERNAL_ID_REQS[resource][0]
    taken = factory.unique("ext")
    made(factory, resource, external_id=taken)
    other = made(factory, resource)
    response = send_update(api, convention, resource, other["id"], {"external_id": taken})
    expect_error(response, req_id, status=409, code="external_id_taken")


@pytest.mark.req("CON-046")
@pytest.mark.parametrize("resource", ["contact", "organization", "deal"])
def test_an_external_id_set_to_null_is_cleared(
    api: ApiClient, factory: RecordFactory, convention: conventions.Lookup, resource: str
) -> None:
    """ "null clears it": read back, the record has no external_id (null or left out)."""
    record = made(factory, resource, external_id=factory.unique("ext"))
    applied(
        send_update(api, convention, resource, record["id"], {"external_id": None}),
        "CON-046",
        control_update(api, convention, factory, resource, record["id"]),
    )
    now = retrieved(api, convention, resource, record["id"], "CON-046")
    expect_true(
        None,
        "CON-046",
        now.get("external_id") is None,
        expected="external_id null or left out after an update setting it to null",
        got=f"external_id = {now.get('external_id')!r}",
    )


# --- stage_changed_at: "when the deal last moved between stages" ----------------------


@pytest.fixture
def staged_deal(factory: RecordFactory) -> tuple[dict[str, Any], str]:
    """A deal that entered the first stage of a pipeline with two an hour ago (made by
    the adapter with that `created_at`: spec/adapter.yaml), and the pipeline's second
    stage. A stamp an hour old tells a move's stamp apart at any clock precision."""
    pipelines = [p for p in factory.adapter.fixtures().pipelines if len(p.stages) >= 2]
    if not pipelines:
        pytest.skip("the adapter's GET /v1/fixtures lists no pipeline with two stages")
    pipeline = pipelines[0]
    deal = through_adapter(
        factory,
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
def test_moving_a_deal_to_another_stage_updates_stage_changed_at(
    api: ApiClient,
    factory: RecordFactory,
    convention: conventions.Lookup,
    staged_deal: tuple[dict[str, Any], str],
) -> None:
    deal, stage_id = staged_deal
    before = stage_stamp(deal)
    changes = {"pipeline_id": deal["pipeline_id"], "stage_id": stage_id}
    applied(
        send_update(api, convention, "deal", deal["id"], changes),
        "DEAL-023",
        control_update(api, convention, factory, "deal", deal["id"]),
    )
    moved = retrieved(api, convention, "deal", deal["id"], "DEAL-023")
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
def test_a_change_that_moves_no_stage_keeps_stage_changed_at(
    api: ApiClient,
    factory: RecordFactory,
    convention: conventions.Lookup,
    staged_deal: tuple[dict[str, Any], str],
) -> None:
    deal, _ = staged_deal
    changes = {"title": factory.unique("renamed")}
    applied(send_update(api, convention, "deal", deal["id"], changes), "DEAL-036")
    now = retrieved(api, convention, "deal", deal["id"], "DEAL-036")
    expect_true(
        None,
        "DEAL-036",
        stage_stamp(now) == stage_stamp(deal),
        expected=f"stage_changed_at still {deal.get('stage_changed_at')!r} after a title change",
        got=f"stage_changed_at = {now.get('stage_changed_at')!r}",
    )


# --- the AI agent's resume plan: "can only be completed or canceled" ------------------


@pytest.fixture
def resume_plan(factory: RecordFactory) -> dict[str, Any]:
    """An open `resume_conversation` activity of the AI agent, due tomorrow on a new
    contact (the adapter makes it: "it can be read and canceled, never created")."""
    return through_adapter(
        factory,
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


@pytest.mark.req("ACT-023", "ACT-022")
@pytest.mark.parametrize("field", ["title", "description", "type", "due_at", "assignee_id"])
def test_changing_the_resume_plan_is_refused_and_leaves_it(
    api: ApiClient,
    factory: RecordFactory,
    convention: conventions.Lookup,
    resume_plan: dict[str, Any],
    field: str,
) -> None:
    """Any change but completing or canceling answers 422 `agent_activity_read_only`,
    and the plan reads as before."""
    changes = {field: other_value(factory, resume_plan, field)}
    response = send_update(api, convention, "activity", resume_plan["id"], changes)
    expect_error(response, "ACT-023", status=422, code="agent_activity_read_only")
    now = retrieved(api, convention, "activity", resume_plan["id"], "ACT-022")
    expect_true(
        response,
        "ACT-022",
        same(field, now.get(field), resume_plan.get(field)),
        expected=f"{field} still {resume_plan.get(field)!r} after a refused change",
        got=f"{field} = {now.get(field)!r}",
    )


@pytest.mark.req("ACT-022")
@pytest.mark.parametrize("status", ["completed", "canceled"])
def test_the_resume_plan_can_be_completed_or_canceled(
    api: ApiClient,
    factory: RecordFactory,
    convention: conventions.Lookup,
    resume_plan: dict[str, Any],
    status: str,
) -> None:
    """Completing and canceling are the changes the plan allows: the update succeeds
    and the plan reads `status`. `completed` is a body status of the document; `canceled`
    is not, and how an activity is canceled is not shown, so any refusal of a cancel sent
    as an update skips (a server may cancel through an operation of its own)."""
    response = send_update(api, convention, "activity", resume_plan["id"], {"status": status})
    if status == "canceled" and 400 <= response.status_code < 500:
        pytest.skip(
            f"the update refused status canceled ({response.status_code}): canceling is "
            "not shown, and this target may cancel through another operation"
        )
    # the control: the same change of an activity of a type the caller creates
    applied(
        response,
        "ACT-022",
        lambda: send_update(
            api, convention, "activity", factory.activity()["id"], {"status": status}
        ),
    )
    now = retrieved(api, convention, "activity", resume_plan["id"], "ACT-022")
    expect_true(
        response,
        "ACT-022",
        now.get("status") == status,
        expected=f"status {status!r} after the plan was {status}",
        got=f"status = {now.get('status')!r}",
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


def event_path(api: ApiClient, convention: conventions.Lookup, code: str) -> str:
    """The own path of a new event of `code`; skips where the target refuses the create
    body as invalid or the event has no id (its fields are not shown)."""
    body = conventions.body(convention, "success_events.create_body", code=code, value=VALUE)
    response = api.post(conventions.path(convention, "success_events.create_path"), json=body)
    applied(response, "SEV-002")
    event_id = response.json().get("id") if response.content else None
    if not isinstance(event_id, str):
        pytest.skip("the recorded success event carries no string `id` (its fields are not shown)")
    return conventions.path(convention, "success_events.retrieve_path", event_id=event_id)


@pytest.mark.req("SEV-002")
@pytest.mark.parametrize("method", ["PATCH", "PUT"])
def test_an_edit_at_a_success_events_own_path_changes_nothing(
    api: ApiClient, convention: conventions.Lookup, event_code: str, method: str
) -> None:
    """No edit operation is shown, so any answer to the edit passes (a refusal most
    likely); the event read back at its own path must be what it was."""
    path = event_path(api, convention, event_code)
    event = expect_status(api.get(path), "SEV-002", 200)
    body = conventions.body(
        convention, "success_events.create_body", code=event_code, value=VALUE + 1
    )
    edit = api.request(method, path, json=body)
    now = expect_status(api.get(path), "SEV-002", 200)
    expect_true(
        edit,
        "SEV-002",
        now == event,
        expected=f"the event unchanged after {method} {path}: {event!r}",
        got=f"{now!r}",
    )
