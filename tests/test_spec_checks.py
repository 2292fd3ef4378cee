"""Keep spec/openapi.yaml honest: valid, lint-clean, loadable, and complete against the document.

The completeness checks read their expectations from spec/api-reference.md (via
``document_tables``), so a code, enum value, prefix or limit added to the document fails here
until the spec carries it too. Each check is a plain function returning what is missing, and the
mutation tests run the same functions on a damaged copy to show they bite.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_spec_validator import validate
from referencing.jsonschema import DRAFT202012 as DRAFT_2020_12
from support.document_tables import (
    DOCUMENT,
    REPO_ROOT,
    enum_values,
    error_codes,
    identifier_prefixes,
    limit_numbers,
    load_sections,
    operation_codes,
)

SPEC = REPO_ROOT / "spec" / "openapi.yaml"
ADAPTER_SPEC = REPO_ROOT / "spec" / "adapter.yaml"
NODE_BIN = REPO_ROOT / "tools" / "node_modules" / ".bin"
SHARED_DOCUMENT = REPO_ROOT.parent / "shared" / "docs" / "api-reference.md"
METHODS = ("get", "put", "post", "delete", "patch")
RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-ID")
LIMIT_KEYWORDS = ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems")
# The two request bodies the document says reject unknown keys; nothing else may be closed.
CLOSED_SCHEMAS = {"ContactSearchRequest", "ConversationCloseRequest"}

needs_node_tools = pytest.mark.skipif(
    not NODE_BIN.is_dir(), reason="tools/node_modules is absent (CI installs it with npm ci)"
)

Spec = dict[str, Any]


@cache
def _load_spec_text() -> str:
    return SPEC.read_text(encoding="utf-8")


def load_spec() -> Spec:
    """A fresh dict of the spec, so a test may mutate its copy freely."""
    loaded: Spec = yaml.safe_load(_load_spec_text())
    return loaded


def resolve(spec: Spec, node: Any) -> Any:
    """Follow local ``$ref``s until a non-reference node is reached."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def operations(spec: Spec) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every (method, path, operation) of the spec."""
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield method, path, item[method]


def walk(node: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair of a nested structure, depth first."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def spec_codes_by_status(spec: Spec) -> dict[str, set[str]]:
    """Error codes the spec lists per status, on operations and on their (shared) responses."""
    found: dict[str, set[str]] = {}
    for _, _, operation in operations(spec):
        for status, codes in operation.get("x-error-codes", {}).items():
            found.setdefault(status, set()).update(codes)
        for status, response in operation["responses"].items():
            codes = resolve(spec, response).get("x-error-codes", [])
            found.setdefault(status, set()).update(codes)
    return found


def missing_error_codes(spec: Spec, documented: dict[str, set[str]]) -> list[str]:
    """Documented codes absent from every status their heading names ("429 and 500": either)."""
    listed = spec_codes_by_status(spec)
    missing = []
    for heading, codes in documented.items():
        statuses = re.findall(r"\d{3}", heading)
        available = set().union(*(listed.get(s, set()) for s in statuses))
        missing += [f"{heading}: {code}" for code in sorted(codes - available)]
    return missing


def misfiled_error_codes(spec: Spec, documented: dict[str, set[str]]) -> list[str]:
    """Operation-level codes listed under a status whose heading does not name them."""
    by_status: dict[str, set[str]] = {}
    for heading, codes in documented.items():
        for status in re.findall(r"\d{3}", heading):
            by_status.setdefault(status, set()).update(codes)
    # The document files `validation_failed` under 422 and says query, path and header
    # problems answer 400 with the same code.
    by_status.setdefault("400", set()).add("validation_failed")
    wrong = []
    for method, path, operation in operations(spec):
        for status, codes in operation.get("x-error-codes", {}).items():
            wrong += [
                f"{method.upper()} {path} {status}: {code}"
                for code in codes
                if code not in by_status.get(status, set())
            ]
    return wrong


def missing_enum_values(spec: Spec, documented: dict[str, set[str]]) -> list[str]:
    """Documented enum values that no ``enum`` of the spec contains."""
    present = {v for key, value in walk(spec) if key == "enum" for v in value}
    return [
        f"{where}: {v}" for where, values in documented.items() for v in sorted(values - present)
    ]


def missing_prefixes(spec: Spec, documented: dict[str, str]) -> list[str]:
    """Identifier kinds whose exact pattern (prefix + 32 lowercase hex) the spec lacks."""
    patterns = {value for key, value in walk(spec) if key == "pattern"}
    return [
        f"{kind}: {prefix}"
        for kind, prefix in documented.items()
        if f"^{prefix}[0-9a-f]{{32}}$" not in patterns
    ]


def missing_limits(spec: Spec, documented: dict[str, set[int]]) -> list[str]:
    """Limits-table numbers that appear in no constraint keyword or ``x-`` extension."""
    present = {
        value
        for key, value in walk(spec)
        if isinstance(value, int) and (key in LIMIT_KEYWORDS or key.startswith("x-"))
    }
    return [
        f"{name}: {n}" for name, numbers in documented.items() for n in sorted(numbers - present)
    ]


def unlisted_operation_codes(spec: Spec, documented: dict[str, set[str]]) -> list[str]:
    """Codes the document names for an operation that its ``x-error-codes`` omit."""
    listed = {
        f"{method.upper()} {path}": set().union(*operation.get("x-error-codes", {}).values())
        for method, path, operation in operations(spec)
    }
    return [
        f"{name}: {code}"
        for name, codes in documented.items()
        for code in sorted(codes - listed.get(name, set()))
    ]


@pytest.fixture(scope="module")
def spec() -> Spec:
    return load_spec()


@pytest.fixture(scope="module")
def sections() -> list[Any]:
    return load_sections()


def test_spec_is_valid_openapi_3_1(spec: Spec) -> None:
    assert spec["openapi"] == "3.1.0"
    validate(spec)


def test_spec_says_it_comes_from_the_document(spec: Spec) -> None:
    assert "api-reference.md" in spec["info"]["description"]
    assert spec["info"]["version"] == "1.0.0"
    assert all(path.startswith("/v1/") for path in spec["paths"])


@needs_node_tools
def test_spectral_reports_nothing() -> None:
    result = subprocess.run(
        [str(NODE_BIN / "spectral"), "lint", "-F", "warn", "-r", ".spectral.yaml", str(SPEC)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@needs_node_tools
@pytest.mark.parametrize("linted", [SPEC, ADAPTER_SPEC], ids=["openapi", "adapter"])
def test_redocly_reports_nothing(linted: Path) -> None:
    env = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}
    result = subprocess.run(
        [str(NODE_BIN / "redocly"), "lint", "--config", "redocly.yaml", str(linted)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_schemathesis_loads_every_operation() -> None:
    import schemathesis
    from schemathesis.core.result import Ok

    schema = schemathesis.openapi.from_path(str(SPEC))
    loaded = [result for result in schema.get_all_operations() if isinstance(result, Ok)]
    assert len(loaded) == sum(1 for _ in operations(load_spec()))


DOCUMENT_SHA256 = "0c1b100ce2cb49c461fd4cdc39b6b1592cc3324c39bc8a7da9db04e5ae66a511"
"""The document revision the spec and the catalogue were authored from: a new revision
must be read, and the spec and catalogue brought along, before this digest moves."""


def test_document_copy_is_the_revision_the_spec_was_authored_from() -> None:
    assert hashlib.sha256(DOCUMENT.read_bytes()).hexdigest() == DOCUMENT_SHA256
    if SHARED_DOCUMENT.is_file():  # a contributor's checkout beside the steering docs
        assert DOCUMENT.read_bytes() == SHARED_DOCUMENT.read_bytes()


def test_every_documented_error_code_is_in_the_spec(spec: Spec, sections: list[Any]) -> None:
    documented = error_codes(sections)
    assert len(documented) >= 8, documented
    assert missing_error_codes(spec, documented) == []


def test_operation_codes_sit_under_the_status_the_document_gives(
    spec: Spec, sections: list[Any]
) -> None:
    assert misfiled_error_codes(spec, error_codes(sections)) == []


def test_every_operation_lists_the_codes_its_text_names(spec: Spec, sections: list[Any]) -> None:
    known = set().union(*error_codes(sections).values())
    documented = operation_codes(sections, known)
    assert len(documented) == 11, sorted(documented)
    assert unlisted_operation_codes(spec, documented) == []


def test_unlisted_operation_code_is_reported(spec: Spec, sections: list[Any]) -> None:
    damaged = copy.deepcopy(spec)
    damaged["paths"]["/v1/campaigns/{campaign_id}/stats"]["get"]["x-error-codes"]["400"].remove(
        "invalid_window"
    )
    known = set().union(*error_codes(sections).values())
    assert unlisted_operation_codes(damaged, operation_codes(sections, known)) == [
        "GET /v1/campaigns/{campaign_id}/stats: invalid_window"
    ]


def test_every_documented_enum_value_is_in_the_spec(spec: Spec, sections: list[Any]) -> None:
    documented = enum_values(sections)
    assert len(documented) >= 15, documented
    assert missing_enum_values(spec, documented) == []


def test_every_identifier_prefix_has_its_pattern(spec: Spec, sections: list[Any]) -> None:
    documented = identifier_prefixes(sections)
    assert len(documented) >= 14, documented
    assert missing_prefixes(spec, documented) == []


def test_every_documented_limit_is_in_the_spec(spec: Spec, sections: list[Any]) -> None:
    documented = limit_numbers(sections)
    assert len(documented) >= 10, documented
    assert missing_limits(spec, documented) == []


def test_every_response_carries_the_rate_and_request_headers(spec: Spec) -> None:
    lacking = [
        f"{method.upper()} {path} {status}: {header}"
        for method, path, operation in operations(spec)
        for status, response in operation["responses"].items()
        for header in RATE_HEADERS
        if header not in resolve(spec, response).get("headers", {})
    ]
    assert lacking == []


def test_429_carries_retry_after_and_errors_use_the_envelope(spec: Spec) -> None:
    for method, path, operation in operations(spec):
        for status, response in operation["responses"].items():
            resolved = resolve(spec, response)
            if status == "429":
                assert "Retry-After" in resolved["headers"], f"{method} {path}"
            if not status.startswith("2"):
                schema = resolved["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (method, path)


def test_error_code_stays_open_and_type_is_closed(spec: Spec) -> None:
    body = spec["components"]["schemas"]["ErrorBody"]["properties"]
    assert "enum" not in body["code"]
    assert len(body["type"]["enum"]) == 7


READS_BY_POST = frozenset({"/v1/contacts/search"})
"""POSTs that write nothing: "Every write accepts an optional `Idempotency-Key`" does not
reach them, so no key is declared there (IDEM-001's decision)."""


def test_every_write_takes_an_idempotency_key(spec: Spec) -> None:
    key_ref = {"$ref": "#/components/parameters/IdempotencyKey"}
    assert spec["components"]["parameters"]["IdempotencyKey"]["schema"]["maxLength"] == 255
    for method, path, operation in operations(spec):
        if method == "post":
            declared = key_ref in operation.get("parameters", ())
            assert declared is (path not in READS_BY_POST), path


def test_every_operation_states_its_scope_or_that_it_is_not_shown(spec: Spec) -> None:
    for method, path, operation in operations(spec):
        assert ("x-scopes" in operation) != operation.get("x-scopes-not-shown", False), (
            method,
            path,
        )


def test_create_operations_answer_200_or_201_alike(spec: Spec) -> None:
    for path in ("/v1/deals", "/v1/activities", "/v1/tags", "/v1/contacts/upsert"):
        responses = spec["paths"][path]["post"]["responses"]
        assert responses["200"] == responses["201"], path


def test_only_the_documented_request_bodies_reject_unknown_keys(spec: Spec) -> None:
    closed = {
        name
        for name, schema in spec["components"]["schemas"].items()
        if schema.get("additionalProperties") is False
    }
    assert closed == CLOSED_SCHEMAS
    tag_body = spec["components"]["schemas"]["TagCreateRequest"]
    assert "additionalProperties" not in tag_body, "the catalogue selector's name is not shown"


def test_links_name_existing_operations(spec: Spec) -> None:
    operation_ids = {operation["operationId"] for _, _, operation in operations(spec)}
    links = [value for key, value in walk(spec) if key == "links" and isinstance(value, dict)]
    targets = [
        resolve(spec, link)["operationId"]
        for group in links
        for link in group.values()
        if isinstance(link, dict) and ("operationId" in link or "$ref" in link)
    ]
    assert len(targets) >= 8
    assert set(targets) <= operation_ids


def test_missing_error_code_is_reported(spec: Spec, sections: list[Any]) -> None:
    damaged = copy.deepcopy(spec)
    conflict = damaged["components"]["responses"]["Conflict"]
    conflict["x-error-codes"].remove("campaign_not_paused")
    for _, _, operation in operations(damaged):
        codes = operation.get("x-error-codes", {}).get("409", [])
        if "campaign_not_paused" in codes:
            codes.remove("campaign_not_paused")
    assert missing_error_codes(damaged, error_codes(sections)) == ["409: campaign_not_paused"]


def test_misfiled_error_code_is_reported(spec: Spec, sections: list[Any]) -> None:
    damaged = copy.deepcopy(spec)
    damaged["paths"]["/v1/deals"]["post"]["x-error-codes"]["404"].append("tag_already_exists")
    assert misfiled_error_codes(damaged, error_codes(sections)) == [
        "POST /v1/deals 404: tag_already_exists"
    ]


def test_missing_enum_value_is_reported(spec: Spec, sections: list[Any]) -> None:
    damaged = copy.deepcopy(spec)
    damaged["components"]["schemas"]["ConversationCloseRequest"]["properties"]["won_reason"][
        "enum"
    ].remove("contract_signed")
    assert missing_enum_values(damaged, enum_values(sections)) == [
        "Conversations: `won_reason`: contract_signed"
    ]


def test_missing_prefix_and_limit_are_reported(spec: Spec, sections: list[Any]) -> None:
    damaged = copy.deepcopy(spec)
    damaged["components"]["schemas"]["LostReasonIdentifier"]["pattern"] = "^lrsn_.*$"
    del damaged["components"]["parameters"]["Expand"]["x-max-relationships"]
    assert missing_prefixes(damaged, identifier_prefixes(sections)) == ["lost reason: lrsn_"]
    assert missing_limits(damaged, limit_numbers(sections)) == ["`expand` relationships: 4"]


def _hex(prefix: str) -> str:
    return f"{prefix}_{'a' * 32}"


STAMP = "2026-01-01T00:00:00Z"
UNOWNED = {
    "Contact": {
        "id": _hex("con"),
        "object": "contact",
        "status": "open",
        "visibility": "team",
        "created_at": STAMP,
        "updated_at": STAMP,
        "owner": None,
        "organization": None,
        "tags": None,
        "channels": None,
        "custom_fields": None,
    },
    "Deal": {
        "id": _hex("deal"),
        "object": "deal",
        "pipeline_id": _hex("pipe"),
        "stage_id": _hex("stg"),
        "title": "t",
        "visibility": "team",
        "created_at": STAMP,
        "updated_at": STAMP,
        "owner": None,
        "organization": None,
        "tags": None,
    },
    "Organization": {"id": _hex("org"), "object": "organization", "owner": None, "tags": None},
}
"""Records without an owner or organization, rendering those fields null: "always present
when the contact has an owner" says nothing of one without, and the spec's preamble lets
optional fields whose absence the document does not describe be null."""


@pytest.mark.parametrize("name", sorted(UNOWNED))
def test_optional_relations_may_be_null(spec: Spec, name: str) -> None:
    import jsonschema  # type: ignore[import-untyped]  # no stubs in the dev extras
    from referencing import Registry, Resource

    resource = Resource.from_contents(spec, default_specification=DRAFT_2020_12)
    registry = Registry().with_resource("urn:spec", resource)
    schema = {"$ref": f"urn:spec#/components/schemas/{name}"}
    jsonschema.Draft202012Validator(schema, registry=registry).validate(UNOWNED[name])
