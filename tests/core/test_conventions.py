"""Conventions: every key the suites read is documented, the reference writes each, and
paths, bodies and queries are filled as the target file says."""

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from crm_conformance.core.model import conventions
from crm_conformance.core.model.conventions import (
    OMIT,
    ConventionError,
    fill_body,
    fill_path,
    query_pairs,
)
from crm_conformance.core.model.target import target_from_data
from crm_conformance.reference.choices import CONVENTIONS, conventions_for
from crm_conformance.reference.variants import VARIANTS

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "target.toml"


def _flat(table: dict[str, Any]) -> dict[str, str]:
    data = {"base_url": "http://api", "tokens": {"full": {"value": "t"}}, "conventions": table}
    return dict(target_from_data(data, origin="test").conventions)


KEYS = {key.key for key in conventions.KEYS}


def test_the_example_target_file_documents_every_key_with_the_references_choice() -> None:
    example = _flat(tomllib.loads(EXAMPLE.read_text())["conventions"])
    assert set(example) == KEYS
    assert example == _flat(CONVENTIONS)


def test_every_variant_overrides_only_known_keys() -> None:
    """Each variant's target file states every key, but the tables it drops (a server
    that offers no such operation)."""
    for name in VARIANTS:
        dropped = {key for key, value in VARIANTS[name].conventions.items() if value is None}
        kept = {key for key in KEYS if key.split(".")[0] not in dropped}
        assert set(_flat(conventions_for([name]))) == kept, name


def test_a_variant_offering_no_unshown_list_names_none() -> None:
    assert not any(key.startswith("lists.") for key in _flat(conventions_for(["no_unshown_lists"])))


def test_a_path_is_filled_and_must_name_only_given_placeholders() -> None:
    assert fill_path("/v1/x/{campaign_id}/go", "k", campaign_id="camp_1") == "/v1/x/camp_1/go"
    with pytest.raises(ConventionError, match=re.escape("k = '/v1/x/{id}'")):
        fill_path("/v1/x/{id}", "k", campaign_id="camp_1")
    with pytest.raises(ConventionError):
        fill_path("v1/x", "k")


def test_a_body_fills_placeholders_with_any_json_value_and_drops_omitted_members() -> None:
    text = '{"code": "{code}", "value": "{value}", "meta": {"n": "{value}"}, "keep": "x{code}"}'
    assert fill_body(text, "k", code="c", value=100) == {
        "code": "c",
        "value": 100,
        "meta": {"n": 100},
        "keep": "x{code}",
    }
    assert fill_body(text, "k", code="c", value=OMIT) == {
        "code": "c",
        "meta": {},
        "keep": "x{code}",
    }
    with pytest.raises(ConventionError, match=re.escape("placeholder {value}")):
        fill_body(text, "k", code="c")
    with pytest.raises(ConventionError, match="not JSON"):
        fill_body("{nope", "k")
    assert conventions.placeholders(text) == {"code", "value"}


@pytest.mark.parametrize("text", ["", "a=", "=b", "a=1&b="])
def test_a_query_never_carries_an_empty_value(text: str) -> None:
    with pytest.raises(ConventionError):
        query_pairs(text, "fields_query")


def test_a_query_is_read_as_pairs() -> None:
    assert query_pairs("resource=contact&resource=deal", "k") == [
        ("resource", "contact"),
        ("resource", "deal"),
    ]


def test_an_update_fills_method_path_and_the_changed_fields_where_changes_stands() -> None:
    table = {
        "updates.deal_method": "put",
        "updates.deal_path": "/v1/deals/{deal_id}",
        "updates.deal_body": '{"data": "{changes}"}',
    }
    operation = conventions.update(table.__getitem__, "deal", "deal_1", {"title": "T"})
    assert operation == conventions.Operation("PUT", "/v1/deals/deal_1", {"data": {"title": "T"}})
    plain = {**table, "updates.deal_body": '"{changes}"'}
    assert conventions.update(plain.__getitem__, "deal", "d", {"a": None}).body == {"a": None}
    with pytest.raises(ConventionError, match="deal_method"):
        conventions.update({**table, "updates.deal_method": "GET"}.__getitem__, "deal", "d", {})
    with pytest.raises(ConventionError, match="changes"):
        conventions.update({**table, "updates.deal_body": "{}"}.__getitem__, "deal", "d", {})


def test_a_cancel_fills_its_path_and_sends_its_body_or_none() -> None:
    table = {
        "activities.cancel_method": "delete",
        "activities.cancel_path": "/v1/activities/{activity_id}",
        "activities.cancel_body": "null",
    }
    operation = conventions.cancel(table.__getitem__, "act_1")
    assert operation == conventions.Operation("DELETE", "/v1/activities/act_1", None)
    posted = {**table, "activities.cancel_method": "POST", "activities.cancel_body": "{}"}
    assert conventions.cancel(posted.__getitem__, "act_1").body == {}
    with pytest.raises(ConventionError, match="cancel_method"):
        conventions.cancel({**table, "activities.cancel_method": "GET"}.__getitem__, "act_1")
