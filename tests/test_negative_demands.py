"""Every refusal the fuzz layer demands has a sentence of the document behind it.

A constraint on a request in spec/openapi.yaml makes schemathesis send a value breaking
it and demand a 4xx. The catalogue's `negative_demands` names, for each constrained
place, the requirements that demand the refusal; these tests hold the two equal, so a
constraint added to the spec (or one left behind) without a decision fails here.
"""

from typing import Any

import yaml

from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.model.paths import OPENAPI
from crm_conformance.fuzz.request_constraints import constrained_places


def _spec() -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    return spec


def test_every_constrained_place_of_the_spec_has_its_demand_in_the_catalogue() -> None:
    places = set(constrained_places(_spec()))
    decided = set(load_catalogue().negative_demands)
    assert places - decided == set(), "constrained in the spec, no requirement demands refusal"
    assert decided - places == set(), "decided in the catalogue, no longer constrained in the spec"


def test_each_demand_names_testable_requirements() -> None:
    catalogue = load_catalogue()
    for place, ids in catalogue.negative_demands.items():
        for rid in ids:
            requirement = catalogue.get(rid)
            assert requirement is not None, (place, rid)
            assert requirement.testable, (place, rid)


def test_search_demands_nothing_of_an_idempotency_key_nor_of_a_missing_operator() -> None:
    """The two places decided out of the spec (IDEM-001's and SRCH-004's decisions): a
    search writes nothing, and a condition without `operator` may read as `equals`."""
    places = constrained_places(_spec())
    assert not [place for place in places if place.startswith("POST /v1/contacts/search header:")]
    condition = _spec()["components"]["schemas"]["ContactSearchCondition"]
    assert condition["required"] == ["field"]


def test_places_cover_parameters_bodies_members_alternatives_and_nesting() -> None:
    group = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/components/schemas/Group"}},
            "join": {"type": "string", "enum": ["and", "or"]},
        },
    }
    spec = {
        "components": {"schemas": {"Group": group}},
        "paths": {
            "/v1/things": {
                "get": {
                    "responses": {},
                    "parameters": [
                        {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                        {"name": "q", "in": "query", "schema": {"type": "string"}},
                    ],
                },
                "post": {
                    "responses": {},
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "additionalProperties": False,
                                    "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
                                    "properties": {
                                        "a": {"type": "string", "maxLength": 3},
                                        "group": {"$ref": "#/components/schemas/Group"},
                                    },
                                }
                            }
                        },
                    },
                },
            }
        },
    }
    assert constrained_places(spec) == {
        "GET /v1/things query:limit": frozenset({"type"}),
        "POST /v1/things body": frozenset({"required", "additionalProperties"}),
        "POST /v1/things body.a": frozenset({"type", "maxLength"}),
        "POST /v1/things body.group.items": frozenset({"type"}),
        "POST /v1/things body.group.join": frozenset({"type", "enum"}),
    }
