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

import secrets
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

import pytest

from crm_conformance import (
    AdapterClient,
    ApiClient,
    Fixtures,
    RecordFactory,
    expect_enum,
    expect_error,
    expect_identifier,
    expect_status,
    expect_success,
    expect_timestamp,
    expect_true,
    expect_type_or_null,
    expect_value,
)

DEALS = "/v1/deals"
VISIBILITIES = ("private", "team", "team_and_subteams", "company")


def _absent_id(prefix: str) -> str:
    """A well-formed id no record has (random, so it never names a real one)."""
    return f"{prefix}_{secrets.token_hex(16)}"


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
@pytest.mark.req("IDN-011", "IDN-012")
def test_a_deal_is_created_in_a_pipeline_stage(
    api: ApiClient, body: dict[str, Any], observe: Callable[[str, Any], None]
) -> None:
    response = api.post(DEALS, json=body)
    deal = expect_success(response, "DEAL-001")
    observe("deal create status", response.status_code)
    observe("deal default status", deal.get("status"))
    # "Always present" (DEAL-002) is a universal check, applied by expect_success.
    expect_value(response, "DEAL-002", "object", deal["object"], "deal")
    for name in ("pipeline_id", "stage_id", "title", "contact_id"):
        expect_value(response, "DEAL-001", name, deal.get(name), body[name])
    expect_enum(response, "DEAL-018", deal, "status", ("open", "won", "lost"))
    expect_enum(response, "DEAL-030", deal, "visibility", VISIBILITIES)
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
    expect_value(response, "DEAL-006", "organization_id", linked, organization["id"])


REFUSED_BODIES: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "no pipeline_id": ("DEAL-003", lambda b: b.pop("pipeline_id")),
    "no stage_id": ("DEAL-004", lambda b: b.pop("stage_id")),
    "no title": ("DEAL-005", lambda b: b.pop("title")),
    "empty title": ("DEAL-005", lambda b: b.update(title="")),
    "neither contact nor organization": ("DEAL-006", lambda b: b.pop("contact_id")),
    "lost without lost_reason_id": ("DEAL-012", lambda b: b.update(status="lost")),
    "probability -1": ("DEAL-015", lambda b: b.update(probability=-1)),
    "probability 101": ("DEAL-034", lambda b: b.update(probability=101)),
    "empty external_id": ("DEAL-032", lambda b: b.update(external_id="")),
    "external_id of 256 characters": ("DEAL-032", lambda b: b.update(external_id="e" * 256)),
}
"""Bodies one change away from valid that the Deal table's rules refuse (422)."""


@pytest.mark.req("DEAL-003", "DEAL-004", "DEAL-005", "DEAL-006", "DEAL-012", "DEAL-015")
@pytest.mark.req("DEAL-032", "DEAL-034")
@pytest.mark.parametrize("case", sorted(REFUSED_BODIES))
def test_a_body_breaking_a_create_rule_is_refused(
    api: ApiClient, body: dict[str, Any], case: str
) -> None:
    req_id, change = REFUSED_BODIES[case]
    change(body)
    expect_error(api.post(DEALS, json=body), req_id, status=422, code="validation_failed")


@pytest.mark.req("DEAL-008")
def test_an_unknown_pipeline_answers_pipeline_not_found(
    api: ApiClient, body: dict[str, Any]
) -> None:
    body["pipeline_id"] = _absent_id("pipe")
    expect_error(api.post(DEALS, json=body), "DEAL-008", status=404, code="pipeline_not_found")


@pytest.mark.req("DEAL-009")
def test_an_unknown_stage_answers_stage_not_found(api: ApiClient, body: dict[str, Any]) -> None:
    body["stage_id"] = _absent_id("stg")
    expect_error(api.post(DEALS, json=body), "DEAL-009", status=404, code="stage_not_found")


@pytest.mark.req("DEAL-007", "DEAL-003")
def test_a_stage_of_another_pipeline_answers_stage_not_in_pipeline(
    api: ApiClient, body: dict[str, Any], fixtures: Fixtures
) -> None:
    others = [p for p in fixtures.pipelines[1:] if p.stages]
    if not others:
        pytest.skip("the adapter's fixtures list only one pipeline with stages")
    body["stage_id"] = others[0].stages[0].id
    response = api.post(DEALS, json=body)
    expect_error(response, "DEAL-007", status=422, code="stage_not_in_pipeline")


@pytest.mark.req("DEAL-010")
@pytest.mark.parametrize(("field", "prefix"), [("contact_id", "con"), ("organization_id", "org")])
def test_an_unknown_linked_record_answers_record_not_found_naming_the_field(
    api: ApiClient, body: dict[str, Any], field: str, prefix: str
) -> None:
    body[field] = _absent_id(prefix)
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
@pytest.mark.parametrize("probability", [0, 55, 100])
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
    expect_value(response, "DEAL-015", "probability", got, probability)


@pytest.mark.req("DEAL-016")
def test_a_null_probability_inherits_the_stage_default(
    api: ApiClient, body: dict[str, Any], fixtures: Fixtures
) -> None:
    stage = fixtures.pipelines[0].stages[0]  # the stage `body` places the deal in
    if stage.default_probability is None:
        pytest.skip("the adapter's fixtures give the first stage no default_probability")
    response = api.post(DEALS, json={**body, "probability": None})
    deal = expect_success(response, "DEAL-016")
    expect_value(
        response, "DEAL-016", "probability", deal.get("probability"), stage.default_probability
    )


@pytest.mark.req("DEAL-012", "DEAL-018", "DEAL-019", "DEAL-020", "IDN-013")
def test_a_deal_created_lost_with_a_reason_names_the_reason(
    api: ApiClient, body: dict[str, Any], fixtures: Fixtures
) -> None:
    if not fixtures.lost_reasons:
        pytest.skip("the adapter's fixtures list no lost reason")
    reason = fixtures.lost_reasons[0]
    response = api.post(DEALS, json={**body, "status": "lost", "lost_reason_id": reason})
    deal = expect_success(response, "DEAL-012")
    expect_value(response, "DEAL-018", "status", deal.get("status"), "lost")
    expect_value(response, "DEAL-019", "lost_reason_id", deal.get("lost_reason_id"), reason)
    expect_identifier(response, "IDN-013", deal, "lost_reason_id", "lrsn_")
    expect_true(
        response,
        "DEAL-020",
        isinstance(deal.get("lost_reason"), str) and bool(deal["lost_reason"]),
        expected="lost_reason the name of the reason",
        got=f"lost_reason = {deal.get('lost_reason')!r}",
    )


@pytest.mark.req("DEAL-011", "DEAL-033", "DEAL-032")
def test_an_external_id_another_deal_has_answers_external_id_taken(
    api: ApiClient, body: dict[str, Any], unique: Callable[[str], str]
) -> None:
    external_id = unique("ext")
    first = api.post(DEALS, json={**body, "external_id": external_id})
    kept = expect_success(first, "DEAL-032").get("external_id")
    expect_value(first, "DEAL-032", "external_id", kept, external_id)
    again = api.post(DEALS, json={**body, "title": unique("deal"), "external_id": external_id})
    expect_error(again, "DEAL-011", status=409, code="external_id_taken")


@pytest.mark.req("DEAL-032")
def test_an_external_id_of_255_characters_is_accepted(
    api: ApiClient, body: dict[str, Any], unique: Callable[[str], str]
) -> None:
    external_id = unique("ext")
    external_id += "e" * (255 - len(external_id))
    response = api.post(DEALS, json={**body, "external_id": external_id})
    deal = expect_success(response, "DEAL-032")
    expect_value(response, "DEAL-032", "external_id", deal.get("external_id"), external_id)


@pytest.mark.req("DEAL-024", "DEAL-025", "IDN-018", "IDN-019", "IDN-021", "USR-004")
def test_a_deal_with_an_owner_renders_the_owner(
    api: ApiClient, body: dict[str, Any], factory: RecordFactory
) -> None:
    """The owner is a member as `GET /v1/users` lists them ("A user id serves as
    `owner_id`")."""
    owner_id = factory.listed_user_id()
    response = api.post(DEALS, json={**body, "owner_id": owner_id})
    deal = expect_success(response, "DEAL-024")
    expect_value(response, "DEAL-024", "owner_id", deal.get("owner_id"), owner_id)
    owner = deal.get("owner")
    expect_true(
        response,
        "DEAL-025",
        isinstance(owner, dict) and owner.get("id") == owner_id,
        expected=f"owner an Owner object with id {owner_id}",
        got=f"owner = {owner!r}",
    )
    assert isinstance(owner, dict)
    expect_value(response, "IDN-021", "owner.object", owner.get("object"), "owner")
    expect_value(response, "IDN-019", "owner.kind", owner.get("kind"), "user")


@pytest.mark.req("DEAL-026")
def test_the_organization_is_embedded_only_when_expanded(
    api: ApiClient, body: dict[str, Any], factory: RecordFactory
) -> None:
    organization = factory.organization()
    body["organization_id"] = organization["id"]
    plain = api.post(DEALS, json=body)
    deal = expect_success(plain, "DEAL-026")
    expect_true(
        plain,
        "DEAL-026",
        deal.get("organization") is None,
        expected="no organization object without expand=organization",
        got=f"organization = {deal.get('organization')!r}",
    )
    body["title"] += " expanded"
    expanded = api.post(DEALS, params={"expand": "organization"}, json=body)
    embedded = expect_success(expanded, "DEAL-026").get("organization")
    expect_true(
        expanded,
        "DEAL-026",
        isinstance(embedded, dict) and embedded.get("id") == organization["id"],
        expected=f"organization the record {organization['id']} with expand=organization",
        got=f"organization = {embedded!r}",
    )


@pytest.mark.req("DEAL-017", "DEAL-021", "DEAL-022", "DEAL-028", "DEAL-029")
def test_optional_fields_have_their_documented_types(api: ApiClient, body: dict[str, Any]) -> None:
    sent = {**body, "score": "warm", "expected_close_date": "2030-01-31T12:00:00Z"}
    response = api.post(DEALS, json=sent)
    deal = expect_success(response, "DEAL-017")
    expect_value(response, "DEAL-017", "score", deal.get("score"), "warm")
    expect_timestamp(response, "DEAL-021", deal, "expected_close_date")
    expect_timestamp(response, "DEAL-022", deal, "stage_changed_at")
    for field, req_id, kind, called in (
        ("custom_fields", "DEAL-028", dict, "an object"),
        ("tags", "DEAL-029", list, "an array"),
    ):
        expect_type_or_null(response, req_id, deal, field, kind, called)
    for tag in deal.get("tags") or ():
        expect_value(response, "DEAL-029", "tags[].object", tag.get("object"), "tag")


@pytest.mark.req("DEAL-031")
def test_pipelines_are_listed(api: ApiClient) -> None:
    expect_status(api.get("/v1/pipelines"), "DEAL-031", 200)
