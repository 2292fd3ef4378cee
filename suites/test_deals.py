"""Deals: "Resources and their fields › Deal" and "Endpoints › Deals" (`POST /v1/deals`).

The Deal table's create-body column is the contract of `POST /v1/deals`: `pipeline_id`
and `stage_id` required and belonging together, `title` of at least 1 character, one
of `contact_id`/`organization_id`, `probability` 0 to 100 (null inherits the stage
default), `value` a number in the body and a string in answers, `lost_reason_id` when
created lost, `external_id` 1 to 255 characters and unique. The errors are the
endpoint's list: 404 `pipeline_not_found`, `stage_not_found`, `record_not_found`
(`param` names the field), 409 `external_id_taken`, 422 `validation_failed`,
`stage_not_in_pipeline`.

Pipeline and stage ids (with the stages' default probabilities), lost reasons and users
come from the adapter's fixtures: `GET /v1/pipelines` exists but its shape is not shown.
"""

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

import pytest

from crm_conformance import AdapterClient, ApiClient, Fixtures
from crm_conformance.core.model import document
from crm_conformance.steps import (
    RecordFactory,
    absent_id,
    expect_embedded_as_made,
    expect_enum,
    expect_error,
    expect_error_among,
    expect_field,
    expect_identifier,
    expect_organization,
    expect_owner,
    expect_status,
    expect_success,
    expect_text,
    expect_timestamp,
    expect_true,
    expect_type_or_null,
    expect_unset_custom_fields,
    expect_value,
)

DEALS = "/v1/deals"
LOST_JUSTIFICATION = "Chose a competitor"
"""Sent with every deal created lost: "same rule as `lost_reason_id`" may read as
required when lost, or as allowed only then; both readings take it on a lost deal."""
VISIBILITIES = ("private", "team", "team_and_subteams", "company")
LOWEST, HIGHEST = document.number_range("DealCreateRequest", "probability")
MAX_EXTERNAL_ID = document.length_range("DealCreateRequest", "external_id")[1]


@pytest.fixture
def fixtures(adapter: AdapterClient) -> Fixtures:
    found = adapter.fixtures()
    if not found.pipelines or not found.pipelines[0].stages:
        pytest.skip("the adapter's GET /v1/fixtures lists no pipeline with a stage")
    return found


@pytest.fixture
def body(
    fixtures: Fixtures, factory: RecordFactory, unique: Callable[[str], str]
) -> dict[str, Any]:
    """A valid create body: first pipeline's first stage, on a new contact."""
    pipeline = fixtures.pipelines[0]
    return {
        "pipeline_id": pipeline.id,
        "stage_id": pipeline.stages[0].id,
        "title": unique("deal"),
        "contact_id": factory.contact()["id"],
    }


@pytest.mark.req("DEAL-001", "DEAL-002", "DEAL-018", "DEAL-030", "DEAL-027", "IDN-010")
@pytest.mark.req("IDN-003", "IDN-011", "IDN-012")
def test_a_deal_is_created_in_a_pipeline_stage(
    api: ApiClient, body: dict[str, Any], fixtures: Fixtures, observe: Callable[[str, Any], None]
) -> None:
    """In the pipeline's last stage: a server that starts every deal in the first stage
    whatever `stage_id` says is caught (with one stage, the first is the last)."""
    body["stage_id"] = fixtures.pipelines[0].stages[-1].id
    response = api.post(DEALS, json=body)
    deal = expect_success(response, "DEAL-001")
    observe("deal create status", response.status_code)
    observe("deal default status", deal.get("status"))
    # "Always present" (DEAL-002) and ISO 8601 timestamps (IDN-003) are universal
    # checks, applied by expect_success.
    expect_value(response, "DEAL-002", "object", got=deal["object"], expected="deal")
    for name in ("pipeline_id", "stage_id", "title", "contact_id"):
        expect_value(response, "DEAL-001", name, got=deal.get(name), expected=body[name])
    expect_enum(response, "DEAL-018", deal, "status", ("open", "won", "lost"))
    expect_enum(response, "DEAL-030", deal, "visibility", VISIBILITIES)
    expect_identifier(response, "IDN-010", deal, "id", "deal_")
    expect_identifier(response, "DEAL-027", deal, "contact_id", "con_")
    expect_identifier(response, "IDN-011", deal, "pipeline_id", "pipe_")
    expect_identifier(response, "IDN-012", deal, "stage_id", "stg_")


@pytest.mark.req("DEAL-006")
def test_a_deal_on_an_organization_only_is_created(
    api: ApiClient, body: dict[str, Any], factory: RecordFactory
) -> None:
    del body["contact_id"]
    organization = factory.organization()
    response = api.post(DEALS, json={**body, "organization_id": organization["id"]})
    linked = expect_success(response, "DEAL-006").get("organization_id")
    expect_value(response, "DEAL-006", "organization_id", got=linked, expected=organization["id"])


REFUSED_BODIES: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "no pipeline_id": ("DEAL-003", lambda b: b.pop("pipeline_id")),
    "no stage_id": ("DEAL-004", lambda b: b.pop("stage_id")),
    "no title": ("DEAL-005", lambda b: b.pop("title")),
    "empty title": ("DEAL-005", lambda b: b.update(title="")),
    "neither contact nor organization": ("DEAL-006", lambda b: b.pop("contact_id")),
    "contact_id null, no organization": ("DEAL-006", lambda b: b.update(contact_id=None)),
    "contact_id and organization_id null": (
        "DEAL-006",
        lambda b: b.update(contact_id=None, organization_id=None),
    ),
    "lost without lost_reason_id": (
        "DEAL-012",
        lambda b: b.update(status="lost", lost_justification=LOST_JUSTIFICATION),
    ),
    f"probability {LOWEST - 1}": ("DEAL-015", lambda b: b.update(probability=LOWEST - 1)),
    "score not cold, warm or hot": ("DEAL-017", lambda b: b.update(score="lukewarm")),
    "status not open, won or lost": ("DEAL-018", lambda b: b.update(status="pending")),
    f"probability {HIGHEST + 1}": ("DEAL-034", lambda b: b.update(probability=HIGHEST + 1)),
    "empty external_id": ("DEAL-032", lambda b: b.update(external_id="")),
    f"external_id of {MAX_EXTERNAL_ID + 1} characters": (
        "DEAL-032",
        lambda b: b.update(external_id="e" * (MAX_EXTERNAL_ID + 1)),
    ),
}
"""Bodies one change away from valid that the Deal table's rules refuse (422)."""


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.req(REFUSED_BODIES[c][0])) for c in sorted(REFUSED_BODIES)],
)  # each point names the one rule its body breaks
def test_a_body_breaking_a_create_rule_is_refused(
    api: ApiClient, body: dict[str, Any], case: str
) -> None:
    req_id, change = REFUSED_BODIES[case]
    change(body)
    expect_error(api.post(DEALS, json=body), req_id, status=422, code="validation_failed")


UNKNOWN_PIPELINE = {404: ("pipeline_not_found", "stage_not_found"), 422: ("stage_not_in_pipeline",)}
"""The answers an unknown pipeline with a real stage may get: the order of validation is
not shown, and each of these conditions holds (no such pipeline; no such stage in the
pipeline named; the stage belongs to another pipeline than the deal)."""


@pytest.mark.req("DEAL-008")
def test_an_unknown_pipeline_is_refused(
    api: ApiClient, body: dict[str, Any], observe: Callable[[str, Any], None]
) -> None:
    body["pipeline_id"] = absent_id("pipe")
    error = expect_error_among(api.post(DEALS, json=body), "DEAL-008", UNKNOWN_PIPELINE)
    observe("unknown pipeline with a real stage: code", error.get("code"))


@pytest.mark.req("DEAL-009")
def test_an_unknown_stage_answers_stage_not_found(api: ApiClient, body: dict[str, Any]) -> None:
    body["stage_id"] = absent_id("stg")
    expect_error(api.post(DEALS, json=body), "DEAL-009", status=404, code="stage_not_found")


STAGE_OF_ANOTHER_PIPELINE = {404: ("stage_not_found",), 422: ("stage_not_in_pipeline",)}
"""The answers a create naming a stage of another pipeline may get: at create both rows
describe it (`stage_not_found`: "no stage with that id or name in the pipeline";
`stage_not_in_pipeline`: "stage belongs to another pipeline than the deal")."""


@pytest.mark.req("DEAL-007")
def test_a_stage_of_another_pipeline_is_refused(
    api: ApiClient,
    body: dict[str, Any],
    fixtures: Fixtures,
    observe: Callable[[str, Any], None],
) -> None:
    others = [p for p in fixtures.pipelines[1:] if p.stages]
    if not others:
        pytest.skip("the adapter's fixtures list only one pipeline with stages")
    body["stage_id"] = others[0].stages[0].id
    response = api.post(DEALS, json=body)
    error = expect_error_among(response, "DEAL-007", STAGE_OF_ANOTHER_PIPELINE)
    observe("stage of another pipeline: code", error.get("code"))


@pytest.mark.req("DEAL-010")
@pytest.mark.parametrize(("field", "prefix"), [("contact_id", "con"), ("organization_id", "org")])
@pytest.mark.parametrize("gone", ["never made", "deleted"])
def test_an_unknown_linked_record_answers_record_not_found_naming_the_field(
    api: ApiClient, factory: RecordFactory, body: dict[str, Any], field: str, prefix: str, gone: str
) -> None:
    """ "id in the body missing": an id no record ever had, and a deleted record's."""
    if gone == "deleted":
        made = factory.contact() if prefix == "con" else factory.organization()
        factory.adapter.delete_record(made["id"])
        body[field] = made["id"]
    else:
        body[field] = absent_id(prefix)
    response = api.post(DEALS, json=body)
    expect_error(response, "DEAL-010", status=404, code="record_not_found", param=field)


@pytest.mark.req("DEAL-014")
@pytest.mark.parametrize("value", [1234.5, 99, 0])
def test_value_sent_as_a_number_reads_back_as_a_string(
    api: ApiClient, body: dict[str, Any], observe: Callable[[str, Any], None], value: float
) -> None:
    response = api.post(DEALS, json={**body, "value": value})
    rendered = expect_success(response, "DEAL-014").get("value")
    observe(f"deal value for {value}", rendered)
    try:
        same = isinstance(rendered, str) and Decimal(rendered) == Decimal(str(value))
    except InvalidOperation:
        same = False
    expect_true(
        response,
        "DEAL-014",
        same,
        expected=f"value a string of the amount {value}",
        got=f"value = {rendered!r}",
    )


@pytest.mark.req("DEAL-015", "DEAL-035")
@pytest.mark.parametrize("probability", [LOWEST, 55, HIGHEST])
def test_a_probability_from_0_to_100_is_kept(
    api: ApiClient, body: dict[str, Any], probability: int
) -> None:
    response = api.post(DEALS, json={**body, "probability": probability})
    deal = expect_success(response, "DEAL-015")
    got = deal.get("probability")
    expect_true(
        response,
        "DEAL-035",
        isinstance(got, int) and not isinstance(got, bool),
        expected="probability an integer",
        got=f"probability = {got!r}",
    )
    expect_value(response, "DEAL-015", "probability", got=got, expected=probability)


@pytest.mark.req("DEAL-016")
def test_a_null_probability_inherits_the_stage_default(
    api: ApiClient, body: dict[str, Any], fixtures: Fixtures
) -> None:
    stage = fixtures.pipelines[0].stages[0]  # the stage `body` places the deal in
    if stage.default_probability is None:
        pytest.skip("the adapter's fixtures give the first stage no default_probability")
    response = api.post(DEALS, json={**body, "probability": None})
    deal = expect_success(response, "DEAL-016")
    expect_field(response, "DEAL-016", deal, "probability", expected=stage.default_probability)


@pytest.mark.req("DEAL-012", "DEAL-013", "DEAL-018", "DEAL-019", "DEAL-020", "IDN-013")
def test_a_deal_created_lost_with_a_reason_names_the_reason(
    api: ApiClient, body: dict[str, Any], adapter: AdapterClient
) -> None:
    reason = adapter.fixture_ids("lost_reasons")[0]
    lost = {"status": "lost", "lost_reason_id": reason, "lost_justification": LOST_JUSTIFICATION}
    response = api.post(DEALS, json={**body, **lost})
    deal = expect_success(response, "DEAL-012")
    expect_field(response, "DEAL-013", deal, "lost_justification", expected=LOST_JUSTIFICATION)
    expect_field(response, "DEAL-018", deal, "status", expected="lost")
    expect_field(response, "DEAL-019", deal, "lost_reason_id", expected=reason)
    expect_identifier(response, "IDN-013", deal, "lost_reason_id", "lrsn_")
    expect_text(response, "DEAL-020", deal, "lost_reason", why="the name of the reason")
    expect_true(
        response,
        "DEAL-020",
        not str(deal.get("lost_reason")).startswith("lrsn_"),
        expected=f"lost_reason the name of {reason}, not an id",
        got=f"lost_reason = {deal.get('lost_reason')!r}",
    )


@pytest.mark.req("DEAL-011", "DEAL-033", "DEAL-032")
def test_an_external_id_another_deal_has_answers_external_id_taken(
    api: ApiClient, body: dict[str, Any], unique: Callable[[str], str]
) -> None:
    external_id = unique("ext")
    first = api.post(DEALS, json={**body, "external_id": external_id})
    kept = expect_success(first, "DEAL-032").get("external_id")
    expect_value(first, "DEAL-032", "external_id", got=kept, expected=external_id)
    again = api.post(DEALS, json={**body, "title": unique("deal"), "external_id": external_id})
    expect_error(again, "DEAL-011", status=409, code="external_id_taken")


@pytest.mark.req("DEAL-032")
def test_an_external_id_of_255_characters_is_accepted(
    api: ApiClient, body: dict[str, Any], unique: Callable[[str], str]
) -> None:
    external_id = unique("ext")
    external_id += "e" * (MAX_EXTERNAL_ID - len(external_id))
    response = api.post(DEALS, json={**body, "external_id": external_id})
    deal = expect_success(response, "DEAL-032")
    expect_field(response, "DEAL-032", deal, "external_id", expected=external_id)


@pytest.mark.req("DEAL-024", "DEAL-025", "IDN-018", "IDN-019", "IDN-020", "IDN-021", "USR-004")
def test_a_deal_with_an_owner_renders_the_owner(
    api: ApiClient, body: dict[str, Any], factory: RecordFactory
) -> None:
    """The owner is a member as `GET /v1/users` lists them ("A user id serves as
    `owner_id`")."""
    owner_id = factory.listed_user_id()
    response = api.post(DEALS, json={**body, "owner_id": owner_id})
    deal = expect_success(response, "DEAL-024")
    expect_field(response, "DEAL-024", deal, "owner_id", expected=owner_id)
    expect_owner(response, "DEAL-025", deal, "owner", owner_id)


@pytest.mark.req("DEAL-026", "CON-026", "CON-025")
def test_the_organization_is_embedded_only_when_expanded(
    api: ApiClient, body: dict[str, Any], factory: RecordFactory, adapter: AdapterClient
) -> None:
    """The organization "as embedded in a contact or deal" is one form: embedded in a
    deal, it carries the fields a contact's shows (name, visibility, website,
    external_id as made) and every organization custom field, null when unset."""
    organization = factory.organization(
        website="https://example.com/", external_id=factory.unique("org-ext")
    )
    body["organization_id"] = organization["id"]
    plain = api.post(DEALS, json=body)
    expect_organization(plain, "DEAL-026", expect_success(plain, "DEAL-026"), None)
    body["title"] += " expanded"
    expanded = api.post(DEALS, params={"expand": "organization"}, json=body)
    deal = expect_success(expanded, "DEAL-026")
    embedded = expect_organization(expanded, "DEAL-026", deal, organization["id"])
    assert embedded is not None
    expect_embedded_as_made(expanded, "CON-026", embedded, organization)
    keys = adapter.fixtures().organization_custom_fields
    if keys:
        expect_unset_custom_fields(expanded, "CON-025", embedded, keys)


@pytest.mark.req("DEAL-017", "DEAL-021", "DEAL-022", "DEAL-028", "DEAL-029")
def test_optional_fields_have_their_documented_types(api: ApiClient, body: dict[str, Any]) -> None:
    sent = {**body, "score": "warm", "expected_close_date": "2030-01-31T12:00:00Z"}
    response = api.post(DEALS, json=sent)
    deal = expect_success(response, "DEAL-017")
    expect_field(response, "DEAL-017", deal, "score", expected="warm")
    expect_timestamp(response, "DEAL-021", deal, "expected_close_date")
    expect_timestamp(response, "DEAL-022", deal, "stage_changed_at")
    for field, req_id, kind, called in (
        ("custom_fields", "DEAL-028", dict, "an object"),
        ("tags", "DEAL-029", list, "an array"),
    ):
        expect_type_or_null(response, req_id, deal, field, kind, called)
    for tag in deal.get("tags") or ():
        expect_value(response, "DEAL-029", "tags[].object", got=tag.get("object"), expected="tag")


@pytest.mark.req("CON-025", "DEAL-028")
def test_every_custom_field_of_a_deal_appears_and_an_unset_one_is_null(
    api: ApiClient, body: dict[str, Any], adapter: AdapterClient
) -> None:
    """ "Every custom field defined for that resource in the workspace appears; an unset
    one is null", for deals: a deal created with none set carries each as null."""
    keys = adapter.fixture_ids("deal_custom_fields")
    response = api.post(DEALS, json=body)
    deal = expect_success(response, "CON-025")
    expect_unset_custom_fields(response, "CON-025", deal, keys)


@pytest.mark.req("DEAL-031")
def test_pipelines_are_listed(api: ApiClient) -> None:
    expect_status(api.get("/v1/pipelines"), "DEAL-031", 200)
