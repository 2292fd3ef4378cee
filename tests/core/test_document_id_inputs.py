"""`document.id_inputs()` and its helpers: the identifier inputs the tenancy matrix
sends naming another workspace's record, read from `spec/openapi.yaml`."""

from crm_conformance.core.model import document


def test_identifier_prefixes_follow_refs_and_alternatives() -> None:
    activity = document.schema("ActivityCreateRequest")["properties"]
    assert document.identifier_prefixes(activity["record_id"]) == ("con", "org", "deal")
    assert document.identifier_prefixes(activity["assignee_id"]) == ("usr",)
    contact = document.schema("Contact")["properties"]
    assert document.identifier_prefixes(contact["organization_id"]) == ("org",)  # oneOf, null
    assert document.identifier_prefixes(contact["external_id"]) == ()
    assert document.identifier_prefixes(None) == ()


def test_field_prefixes_find_a_field_in_any_schema() -> None:
    assert document.field_prefixes("assignee_id") == ("usr",)
    assert document.field_prefixes("title") == ()


def test_id_inputs_cover_paths_and_bodies() -> None:
    found = {(i.operation_id, i.where, i.name): i for i in document.id_inputs()}
    assert found["getContact", "path", "contact_id"].prefixes == ("con",)
    assert found["createDeal", "body", "stage_id"].prefixes == ("stg",)
    assert found["createActivity", "body", "record_id"].prefixes == ("con", "org", "deal")
    assert found["getCampaignStats", "path", "campaign_id"].shape_shown
    assert not found["resumeCampaign", "path", "campaign_id"].shape_shown
    assert not any(i.name in ("title", "limit", "cursor") for i in found.values())


def test_request_schema_and_whether_a_body_is_required() -> None:
    deal = document.request_schema("POST", "/v1/deals")
    assert deal is not None
    assert "pipeline_id" in deal["required"]
    assert document.body_required("POST", "/v1/deals")
    assert not document.body_required("POST", "/v1/conversations/{conversation_id}/close")
    assert document.request_schema("GET", "/v1/contacts") is None
