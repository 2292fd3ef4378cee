"""Activities: "Resources and their fields › Activity" and "Endpoints › Activities".

`POST /v1/activities` plans an activity on a contact, organization or deal, or logs
one that already happened (`status: completed` with a past `due_at`). The body takes
`due_at`, `record_id`, `title` (required) and `assignee_id`, `description`, `status`,
`type` (optional); `title` is 1 to 500 characters, `type` is one of the five body
values (`resume_conversation` is read and canceled, never created), `status` is `open`
or `completed`, `record_id` is a `con_`, `org_` or `deal_` id. Errors: 404
`record_not_found` (`param` names the field), 422 `validation_failed`. The defaults of
status and type are "not shown" and are only observed.
"""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import document
from crm_conformance.steps import (
    RecordFactory,
    Updates,
    absent_id,
    expect_enum,
    expect_error,
    expect_error_among,
    expect_field,
    expect_identifier,
    expect_owner,
    expect_status,
    expect_success,
    expect_timestamp,
    expect_true,
    expect_value,
    stamp,
)

ACTIVITIES = "/v1/activities"
BODY_TYPES = document.enum("ActivityCreateRequest", "type")
TYPES = document.enum("Activity", "type")
BODY_STATUSES = document.enum("ActivityCreateRequest", "status")
STATUSES = document.enum("Activity", "status")
MAX_TITLE = document.length_range("ActivityCreateRequest", "title")[1]


def _stamp(delta: timedelta) -> str:
    return stamp(datetime.now(UTC) + delta)


@pytest.fixture
def body(factory: RecordFactory, unique: Callable[[str], str]) -> dict[str, Any]:
    """A valid create body: due in a day, on a new contact."""
    return {
        "title": unique("activity"),
        "due_at": _stamp(timedelta(days=1)),
        "record_id": factory.contact()["id"],
    }


def _record_of_kind(factory: RecordFactory, kind: str) -> str:
    made = {"contact": factory.contact, "organization": factory.organization, "deal": factory.deal}
    return str(made[kind]()["id"])


@pytest.mark.req("ACT-001", "ACT-018", "ACT-019", "ACT-020", "ACT-007", "ACT-010", "IDN-015")
@pytest.mark.parametrize("kind", ["contact", "organization", "deal"])
def test_an_activity_is_planned_on_each_record_kind(
    api: ApiClient,
    factory: RecordFactory,
    body: dict[str, Any],
    observe: Callable[[str, Any], None],
    kind: str,
) -> None:
    body["record_id"] = _record_of_kind(factory, kind)
    response = api.post(ACTIVITIES, json=body)
    activity = expect_success(response, "ACT-001")
    observe("activity create status", response.status_code)
    observe("activity default type", activity.get("type"))
    observe("activity default status", activity.get("status"))
    expect_field(response, "ACT-019", activity, "object", expected="activity")
    expect_identifier(response, "ACT-018", activity, "id", "act_")
    expect_identifier(response, "IDN-015", activity, "id", "act_")
    expect_field(response, "ACT-001", activity, "record_id", expected=body["record_id"])
    expect_field(response, "ACT-001", activity, "title", expected=body["title"])
    expect_enum(response, "ACT-007", activity, "type", TYPES)
    expect_enum(response, "ACT-010", activity, "status", STATUSES)
    for field in ("created_at", "updated_at"):
        expect_timestamp(response, "ACT-020", activity, field)


@pytest.mark.req("ACT-002", "ACT-011")
def test_a_completed_activity_with_a_past_due_at_is_logged(
    api: ApiClient, body: dict[str, Any]
) -> None:
    body.update(status="completed", due_at=_stamp(-timedelta(days=3)))
    response = api.post(ACTIVITIES, json=body)
    activity = expect_success(response, "ACT-002")
    expect_field(response, "ACT-002", activity, "status", expected="completed")


@pytest.mark.req("ACT-011")
def test_an_open_activity_may_be_due_in_the_past(api: ApiClient, body: dict[str, Any]) -> None:
    body["due_at"] = _stamp(-timedelta(hours=2))
    expect_success(api.post(ACTIVITIES, json=body), "ACT-011")


@pytest.mark.req("ACT-003", "ACT-011", "ACT-004")
@pytest.mark.parametrize("missing", ["due_at", "record_id", "title"])
def test_a_body_without_a_required_field_is_refused(
    api: ApiClient, body: dict[str, Any], missing: str
) -> None:
    del body[missing]
    req_id = {"due_at": "ACT-011", "title": "ACT-004"}.get(missing, "ACT-003")
    expect_error(api.post(ACTIVITIES, json=body), req_id, status=422, code="validation_failed")


@pytest.mark.req("ACT-004")
@pytest.mark.parametrize("length", [1, MAX_TITLE])
def test_a_title_of_1_to_500_characters_is_accepted(
    api: ApiClient, body: dict[str, Any], length: int
) -> None:
    if length > 1:  # keep the run prefix where it fits
        body["title"] += "t" * (length - len(body["title"]))
    else:
        body["title"] = "t"
    response = api.post(ACTIVITIES, json=body)
    shown = expect_success(response, "ACT-004")
    expect_field(response, "ACT-004", shown, "title", expected=body["title"])


@pytest.mark.req("ACT-004", "ACT-024")
@pytest.mark.parametrize("length", [0, MAX_TITLE + 1], ids=["empty", "one too many characters"])
def test_a_title_outside_1_to_500_characters_is_refused(
    api: ApiClient, body: dict[str, Any], length: int
) -> None:
    body["title"] = "t" * length
    req_id = "ACT-024" if length else "ACT-004"
    expect_error(api.post(ACTIVITIES, json=body), req_id, status=422, code="validation_failed")


@pytest.mark.req("ACT-005")
def test_description_defaults_to_the_empty_string(api: ApiClient, body: dict[str, Any]) -> None:
    response = api.post(ACTIVITIES, json=body)
    activity = expect_success(response, "ACT-005")
    expect_field(response, "ACT-005", activity, "description", expected="")


@pytest.mark.req("ACT-006", "ACT-025")
@pytest.mark.parametrize("kind", BODY_TYPES)
def test_each_body_type_is_accepted(api: ApiClient, body: dict[str, Any], kind: str) -> None:
    response = api.post(ACTIVITIES, json={**body, "type": kind})
    shown = expect_success(response, "ACT-006")
    expect_field(response, "ACT-006", shown, "type", expected=kind)


@pytest.mark.req("ACT-008")
def test_a_resume_conversation_activity_cannot_be_created(
    api: ApiClient, body: dict[str, Any], observe: Callable[[str, Any], None]
) -> None:
    """The document gives the status (body values exclude it: 422), not the code."""
    response = api.post(ACTIVITIES, json={**body, "type": "resume_conversation"})
    error = expect_status(response, "ACT-008", 422)
    observe("resume_conversation create code", (error or {}).get("error", {}).get("code"))


@pytest.mark.req("ACT-009", "ACT-025")
@pytest.mark.parametrize("status", BODY_STATUSES)
def test_each_body_status_is_accepted(api: ApiClient, body: dict[str, Any], status: str) -> None:
    response = api.post(ACTIVITIES, json={**body, "status": status})
    got = expect_success(response, "ACT-009").get("status")
    expect_value(response, "ACT-009", "status", got=got, expected=status)


@pytest.mark.req("ACT-009")
@pytest.mark.parametrize("status", [*(s for s in STATUSES if s not in BODY_STATUSES), "done"])
def test_a_status_other_than_open_or_completed_is_refused(
    api: ApiClient, body: dict[str, Any], status: str
) -> None:
    response = api.post(ACTIVITIES, json={**body, "status": status})
    expect_error(response, "ACT-009", status=422, code="validation_failed")


@pytest.mark.req("ACT-006")
def test_an_unknown_type_is_refused(api: ApiClient, body: dict[str, Any]) -> None:
    response = api.post(ACTIVITIES, json={**body, "type": "lunch"})
    expect_error(response, "ACT-006", status=422, code="validation_failed")


DELETED = {
    "con": RecordFactory.contact,
    "org": RecordFactory.organization,
    "deal": RecordFactory.deal,
}
"""How a record of each kind `record_id` names is made, to be deleted."""


@pytest.mark.req("ACT-013")
@pytest.mark.parametrize("prefix", ["con", "org", "deal"])
@pytest.mark.parametrize("gone", ["never made", "deleted"])
def test_an_unknown_record_answers_record_not_found_naming_record_id(
    api: ApiClient, factory: RecordFactory, body: dict[str, Any], prefix: str, gone: str
) -> None:
    """ "id in the body missing": an id no record ever had, and a deleted record's."""
    if gone == "deleted":
        record_id = DELETED[prefix](factory)["id"]
        factory.adapter.delete_record(record_id)
    else:
        record_id = absent_id(prefix)
    body["record_id"] = record_id
    response = api.post(ACTIVITIES, json=body)
    expect_error(response, "ACT-013", status=404, code="record_not_found", param="record_id")


def _capitals(record_id: str) -> str:
    """A real id with its hex digits in capitals: none, as ids are "32 lowercase hex"."""
    prefix, _, digits = record_id.partition("_")
    return f"{prefix}_{digits.upper()}"


MALFORMED_RECORD_IDS: dict[str, Callable[[str], str]] = {
    "user id": lambda real: f"usr_{'a' * 32}",
    "tag id": lambda real: f"tag_{'b' * 32}",
    "short hex": lambda real: "con_123",
    "uppercase hex": lambda real: f"con_{'A' * 32}",
    "no prefix": lambda real: "not-an-id",
    "a contact's uppercased": _capitals,
}
"""Each malformed `record_id`, made from the body's real contact id where it needs one."""


@pytest.mark.req("ACT-012")
@pytest.mark.parametrize("malformed", MALFORMED_RECORD_IDS)
def test_a_record_id_not_naming_a_contact_organization_or_deal_is_refused(
    api: ApiClient, body: dict[str, Any], observe: Callable[[str, Any], None], malformed: str
) -> None:
    """`record_id` "matches `con_`, `org_` or `deal_` prefix plus 32 hex", a rule of the
    field: a value breaking it is an invalid field (422 `validation_failed`), not a
    contact, organization or deal id naming nothing (`record_not_found` is for those).
    Identifiers are "32 lowercase hex characters": a real contact's id in capitals is
    none, whatever a case-blind lookup would find."""
    record_id = MALFORMED_RECORD_IDS[malformed](str(body["record_id"]))
    body["record_id"] = record_id
    response = api.post(ACTIVITIES, json=body)
    observe("malformed record_id answer", response.status_code)
    expect_error(response, "ACT-012", status=422, code="validation_failed")


@pytest.mark.req("ACT-014", "ACT-025", "IDN-018", "IDN-019", "IDN-020", "IDN-021")
def test_an_assigned_activity_renders_its_assignee(
    api: ApiClient, adapter: AdapterClient, body: dict[str, Any]
) -> None:
    users = adapter.fixture_ids("users")
    response = api.post(ACTIVITIES, json={**body, "assignee_id": users[0]})
    activity = expect_success(response, "ACT-014")
    expect_field(response, "ACT-014", activity, "assignee_id", expected=users[0])
    expect_owner(response, "ACT-014", activity, "assignee", users[0])


UNKNOWN_ASSIGNEE = {404: ("record_not_found",), 422: ("validation_failed", "assignee_not_found")}
"""How an `assignee_id` naming no teammate may be refused: the endpoint's errors are 404
`record_not_found` ("param names the field") and 422 `validation_failed`, and the code
the Errors table gives an assignee that cannot take a conversation fits as well."""


@pytest.mark.req("ACT-014")
def test_an_assignee_id_naming_no_teammate_is_refused(
    api: ApiClient, body: dict[str, Any], observe: Callable[[str, Any], None]
) -> None:
    response = api.post(ACTIVITIES, json={**body, "assignee_id": absent_id("usr")})
    error = expect_error_among(response, "ACT-014", UNKNOWN_ASSIGNEE)
    observe("unknown assignee_id: status and code", [response.status_code, error.get("code")])


@pytest.mark.req("USR-004")
def test_a_listed_user_id_serves_as_the_assignee_id(
    api: ApiClient, body: dict[str, Any], factory: RecordFactory
) -> None:
    user_id = factory.listed_user_id()
    response = api.post(ACTIVITIES, json={**body, "assignee_id": user_id})
    activity = expect_success(response, "USR-004")
    expect_field(response, "USR-004", activity, "assignee_id", expected=user_id)


@pytest.mark.req("ACT-015", "ACT-025")
def test_created_by_is_an_owner_or_null(api: ApiClient, body: dict[str, Any]) -> None:
    response = api.post(ACTIVITIES, json={**body, "description": "from the suite"})
    activity = expect_success(response, "ACT-015")
    expect_field(response, "ACT-025", activity, "description", expected="from the suite")
    created_by = activity.get("created_by")
    expect_true(
        response,
        "ACT-015",
        created_by is None
        or (isinstance(created_by, dict) and created_by.get("object") == "owner"),
        expected="created_by an Owner or null",
        got=f"created_by = {created_by!r}",
    )


@pytest.mark.req("ACT-016")
def test_an_activity_a_workspace_token_creates_has_no_creator(
    api: ApiClient, body: dict[str, Any], updates: Updates
) -> None:
    """ "null when an integration created it": a workspace token "has no user behind it",
    so what it creates was created by no person, and no Owner (a teammate or the AI agent)
    fits: `created_by` is null, in the create's answer and at the target's retrieve."""
    response = api.post(ACTIVITIES, json=body)
    activity = expect_success(response, "ACT-016")
    expect_field(response, "ACT-016", activity, "created_by", expected=None, why="an integration's")
    read = updates.read("activity", str(activity["id"]), "ACT-016")
    expect_field(None, "ACT-016", read, "created_by", expected=None, why="at the retrieve")
