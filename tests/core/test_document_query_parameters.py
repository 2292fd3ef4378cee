"""`document.query_parameters()`: the typed query parameters the query-validation matrix
gives invalid values, read from `spec/openapi.yaml` with their `$ref`s resolved."""

from crm_conformance.core.model import document


def test_query_parameters_carry_their_types_and_bounds() -> None:
    found = {(p.method, p.path, p.name): p for p in document.query_parameters()}
    for path in ("/v1/contacts", "/v1/users", "/v1/audiences"):
        limit = found["GET", path, "limit"]
        assert (limit.type, limit.minimum, limit.maximum) == ("integer", 1, 200)
    assert found["GET", "/v1/contacts", "updated_since"].format == "date-time"
    stats = "/v1/campaigns/{campaign_id}/stats"
    assert {found["GET", stats, name].format for name in ("window_start", "window_end")} == {
        "date-time"
    }
    assert found["GET", "/v1/contacts/{contact_id}", "fields"].type == "string"


def test_only_query_parameters_are_listed() -> None:
    names = {p.name for p in document.query_parameters()}
    assert not names & {"contact_id", "campaign_id", "Idempotency-Key"}
