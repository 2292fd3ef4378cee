"""Scopes: each documented operation is guarded by the scope the document's table names.

Authentication 4-7: `read` covers list and retrieve, `write` covers create, update and
delete; a call without the needed scope answers 403 `insufficient_scope` with `param`
the first missing scope and the missing scopes in the message; a mirrored entity
refuses writes for every token (403 `local_write_denied`). The cases are the
operations the document shows, each with the scope its resource row implies
(contacts list, retrieve and upsert; deal, activity and tag creation; pipelines,
fields and success event types lists; campaign stats and pause). Each call is made
with a body the document accepts, or for upsert the target's own (`upsert.body`), and
the target's query for fields (`fields_query`), so the only thing wrong with it is the
token.

Policy tests mirror an entity in the second workspace (`tokens.other_workspace`), so
the rest of a parallel run, which works in the first, is not refused meanwhile; and
every test that uses the second workspace holds it alone while it runs (the
`other_api` fixture, `crm_conformance.run_lock`).
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from crm_conformance import (
    AdapterClient,
    ApiClient,
    Target,
    Workspace,
    conventions,
    discover,
    expect_error,
    expect_status,
    expect_success,
    expect_true,
    expect_value,
    matches,
    phone_number,
    stamp,
    words_in,
)

DOCUMENT_SCOPES: tuple[str, ...] = (
    "contacts:read",
    "contacts:write",
    "organizations:read",
    "organizations:write",
    "deals:read",
    "deals:write",
    "pipelines:read",
    "pipelines:write",
    "fields:read",
    "fields:write",
    "notes:read",
    "notes:write",
    "activities:read",
    "activities:write",
    "tags:read",
    "tags:write",
    "conversations:read",
    "messages:write",
    "conversations:write",
    "campaigns:read",
    "campaigns:write",
    "analytics:read",
    "success_events:read",
    "success_events:write",
)
"""The scope table of Authentication 4, row by row."""

READ_SCOPES = tuple(scope for scope in DOCUMENT_SCOPES if scope.endswith(":read"))
PERSON_REFUSALS = ("local_write_denied", "user_grant_denied")
"""What refuses an OAuth token's write to a mirrored entity: the policy or the person."""


class Setup:
    """Makes the data one operation needs in one workspace, through the adapter."""

    def __init__(
        self,
        adapter: AdapterClient,
        unique: Callable[[str], str],
        convention: Callable[[str], str],
        workspace: Workspace = "primary",
    ) -> None:
        self.adapter = adapter
        self.unique = unique
        self.convention = convention
        self.workspace = workspace

    def contact_id(self) -> str:
        made = self.adapter.create_record(
            kind="contact",
            fields={
                "first_name": self.unique("scope"),
                "last_name": "Conformance",
                "visibility": "company",
            },
            workspace=self.workspace,
        )
        return str(made["id"])

    def campaign_id(self) -> str:
        made = self.adapter.create_campaign(
            status="running", name=self.unique("campaign"), workspace=self.workspace
        )
        return str(made["id"])

    def deal_body(self) -> dict[str, Any]:
        pipelines = self.adapter.fixtures(workspace=self.workspace).pipelines
        if not pipelines or not pipelines[0].stages:
            pytest.skip("the adapter's GET /v1/fixtures lists no pipeline with a stage")
        return {
            "pipeline_id": pipelines[0].id,
            "stage_id": pipelines[0].stages[0].id,
            "title": self.unique("deal"),
            "contact_id": self.contact_id(),
        }

    def activity_body(self) -> dict[str, Any]:
        return {
            "title": self.unique("activity"),
            "due_at": stamp(),
            "record_id": self.contact_id(),
        }

    def tag_body(self) -> dict[str, Any]:
        return {"name": self.unique("tag"), self.convention("tag_catalogue_field"): "contact"}

    def fields_query(self) -> list[tuple[str, str]]:
        return conventions.query(self.convention, "fields_query")

    def upsert_body(self) -> dict[str, Any]:
        """The target's upsert body (a convention: its shape is not shown) for a new
        contact, so a refusal can only be about the token or the policy."""
        made = conventions.body(
            self.convention,
            "upsert.body",
            external_id=self.unique("upsert"),
            phone=phone_number(),
            first_name=self.unique("upsert"),
        )
        return dict(made)


@dataclass(frozen=True)
class Request:
    """What one call of an operation sends, the token aside."""

    path: str
    query: list[tuple[str, str]]
    body: dict[str, Any] | None


@dataclass(frozen=True)
class Operation:
    """One documented operation and the scope the document's table gives it."""

    scope: str
    method: str
    path: str
    """May hold `{contact_id}` or `{campaign_id}`, filled with a fresh record."""
    reqs: tuple[str, ...]
    body: Callable[[Setup], dict[str, Any]] | None = None
    entity: str | None = None
    """The entity `PUT /v1/policy/{entity}` mirrors, for writes."""
    query: Callable[[Setup], list[tuple[str, str]]] | None = None
    """The query the operation is read with, where the target needs one (a convention)."""

    @property
    def name(self) -> str:
        return f"{self.scope} {self.method} {self.path}"

    def request(self, setup: Setup) -> Request:
        """The path, query and body of this operation on fresh data."""
        path = self.path
        if "{contact_id}" in path:
            path = path.replace("{contact_id}", setup.contact_id())
        if "{campaign_id}" in path:
            setup.adapter.require("campaigns")
            path = path.replace("{campaign_id}", setup.campaign_id())
        return Request(
            path,
            self.query(setup) if self.query is not None else [],
            self.body(setup) if self.body is not None else None,
        )

    def send(self, client: ApiClient, request: Request) -> httpx.Response:
        if request.body is None:
            return client.request(self.method, request.path, params=request.query)
        return client.request(self.method, request.path, params=request.query, json=request.body)


READS = (
    Operation("contacts:read", "GET", "/v1/contacts", ("SCOPE-004", "SCOPE-002")),
    Operation("contacts:read", "GET", "/v1/contacts/{contact_id}", ("SCOPE-004", "SCOPE-002")),
    Operation("pipelines:read", "GET", "/v1/pipelines", ("SCOPE-007",)),
    Operation("fields:read", "GET", "/v1/fields", ("SCOPE-008",), query=Setup.fields_query),
    Operation("campaigns:read", "GET", "/v1/campaigns/{campaign_id}/stats", ("SCOPE-013",)),
    Operation("success_events:read", "GET", "/v1/success-event-types", ("SCOPE-015",)),
)
WRITES = (
    Operation(
        "contacts:write",
        "POST",
        "/v1/contacts/upsert",
        ("SCOPE-004", "SCOPE-003"),
        Setup.upsert_body,
        "contacts",
    ),
    Operation(
        "deals:write", "POST", "/v1/deals", ("SCOPE-006", "SCOPE-003"), Setup.deal_body, "deals"
    ),
    Operation(
        "activities:write",
        "POST",
        "/v1/activities",
        ("SCOPE-010", "SCOPE-003"),
        Setup.activity_body,
        "activities",
    ),
    Operation("tags:write", "POST", "/v1/tags", ("SCOPE-011", "SCOPE-003"), Setup.tag_body, "tags"),
    Operation("campaigns:write", "POST", "/v1/campaigns/{campaign_id}/pause", ("SCOPE-013",)),
)


def _cases(operations: tuple[Operation, ...]) -> list[Any]:
    return [pytest.param(op, id=op.name, marks=pytest.mark.req(*op.reqs)) for op in operations]


@pytest.fixture
def setup(
    adapter: AdapterClient, unique: Callable[[str], str], convention: Callable[[str], str]
) -> Setup:
    return Setup(adapter, unique, convention)


def expect_insufficient_scope(response: httpx.Response, missing: str) -> None:
    """403 `insufficient_scope`, `param` the first missing scope, the message naming it."""
    error = expect_error(response, "SCOPE-021", status=403, code="insufficient_scope")
    expect_error(response, "SCOPE-022", status=403, code="insufficient_scope", param=missing)
    message = error.get("message")
    expect_true(
        response,
        "SCOPE-023",
        isinstance(message, str) and missing in message,
        expected=f"error.message names the missing scope {missing!r}",
        got=f"error.message = {message!r}",
    )


def _token(adapter: AdapterClient, scopes: list[str], workspace: Workspace = "primary") -> str:
    return adapter.create_token(scopes=scopes, workspace=workspace).token


@pytest.mark.req("SCOPE-021", "SCOPE-022", "SCOPE-023", "SCOPE-028")
@pytest.mark.parametrize("op", _cases(READS + WRITES))
def test_every_scope_but_the_needed_one_is_insufficient(
    api: ApiClient, adapter: AdapterClient, setup: Setup, op: Operation
) -> None:
    request = op.request(setup)
    token = _token(adapter, [scope for scope in DOCUMENT_SCOPES if scope != op.scope])
    expect_insufficient_scope(op.send(api.with_token(token), request), op.scope)


@pytest.mark.req("SCOPE-002")
@pytest.mark.parametrize("op", _cases(READS))
def test_the_read_scope_allows_the_read(
    api: ApiClient, adapter: AdapterClient, setup: Setup, op: Operation
) -> None:
    request = op.request(setup)
    response = op.send(api.with_token(_token(adapter, [op.scope])), request)
    expect_status(response, op.reqs[0], 200)


@pytest.mark.req("SCOPE-003", "SCOPE-021", "SCOPE-022", "SCOPE-023")
@pytest.mark.parametrize("op", _cases(WRITES))
def test_a_read_only_token_cannot_write(
    api: ApiClient, adapter: AdapterClient, setup: Setup, op: Operation
) -> None:
    request = op.request(setup)
    response = op.send(api.with_token(_token(adapter, list(READ_SCOPES))), request)
    expect_insufficient_scope(response, op.scope)


@pytest.mark.req("SCOPE-003")
@pytest.mark.parametrize("op", _cases(WRITES))
def test_the_write_scope_allows_the_write(
    api: ApiClient, adapter: AdapterClient, setup: Setup, op: Operation
) -> None:
    request = op.request(setup)
    token = _token(adapter, [*READ_SCOPES, op.scope])
    expect_success(op.send(api.with_token(token), request), op.reqs[0])


@pytest.mark.req("SCOPE-017")
@pytest.mark.parametrize("op", READS + WRITES, ids=lambda op: op.name)  # no op.reqs: not asserted
def test_messages_write_is_needed_by_no_operation(
    api: ApiClient, adapter: AdapterClient, setup: Setup, op: Operation
) -> None:
    """`messages:write` "is defined and attached to nothing": a token holding every
    scope the document names but it may do each operation whose scope is shown."""
    request = op.request(setup)
    token = _token(adapter, [scope for scope in DOCUMENT_SCOPES if scope != "messages:write"])
    expect_success(op.send(api.with_token(token), request), "SCOPE-017")


@pytest.mark.req("SCOPE-026", "SCOPE-001", "SCOPE-005", "SCOPE-009", "SCOPE-012", "SCOPE-014")
def test_me_lists_the_scopes_of_the_token(
    api: ApiClient,
    adapter: AdapterClient,
    target: Target,
    observe: Callable[[str, Any], None],
) -> None:
    """Every held scope appears in the answer (as a string of its own, or a word of a
    space-separated one: the shape is not shown); where the harness can read a scope
    list from it (`capabilities.listed_scopes`), that list is exactly the held scopes."""
    response = api.get("/v1/me")
    full = expect_status(response, "SCOPE-026", 200)
    observe("GET /v1/me (tokens.full)", full)
    listed = words_in(full)
    absent = [scope for scope in DOCUMENT_SCOPES if scope not in listed]
    expect_true(
        response,
        "SCOPE-026",
        not absent,
        expected="GET /v1/me of tokens.full (every scope) lists every scope of the table",
        got=f"not listed: {', '.join(absent)}",
    )
    held = ["contacts:read", "deals:write"]
    narrow_token = _token(adapter, held)
    narrow = api.with_token(narrow_token).get("/v1/me")
    body = expect_status(narrow, "SCOPE-026", 200)
    observe("GET /v1/me (a token with contacts:read, deals:write)", body)
    expect_true(
        narrow,
        "SCOPE-026",
        all(scope in words_in(body) for scope in held),
        expected=f"GET /v1/me lists the token's scopes {held}",
        got=f"words in the body: {sorted(words_in(body))[:30]}",
    )
    found = discover(target=target, clients={"full": api, "narrow": api.with_token(narrow_token)})
    if found.scopes_source["narrow"] == "GET /v1/me":
        expect_value(narrow, "SCOPE-026", "the scopes listed", found.scopes["narrow"], set(held))
    malformed = sorted(
        scope for scope in found.scopes["full"] or () if not matches(r"[a-z_]+:[a-z_]+", scope)
    )
    expect_true(
        response,
        "SCOPE-001",
        not malformed,
        expected="every scope GET /v1/me lists of the form <resource>:<access>",
        got=f"listed: {', '.join(malformed)}",
    )


@contextmanager
def mirrored(adapter: AdapterClient, entity: str) -> Iterator[None]:
    """`entity` of the second workspace mirrored from an external CRM, then restored."""
    adapter.set_policy(entity, local_write=False, workspace="secondary")
    try:
        yield
    finally:
        adapter.set_policy(entity, local_write=True, workspace="secondary")


@pytest.fixture
def secondary(
    other_api: ApiClient,
    adapter: AdapterClient,
    unique: Callable[[str], str],
    convention: Callable[[str], str],
) -> Setup:
    adapter.require("policy")
    return Setup(adapter, unique, convention, workspace="secondary")


@pytest.mark.req("SCOPE-025", "SCOPE-029", "SCOPE-024")
@pytest.mark.parametrize("op", _cases(tuple(op for op in WRITES if op.entity)))
def test_a_mirrored_entity_refuses_writes_whatever_the_scopes(
    other_api: ApiClient,
    adapter: AdapterClient,
    secondary: Setup,
    op: Operation,
    observe: Callable[[str, Any], None],
) -> None:
    """Every token is refused. An OAuth token acts for a person the adapter chose, whose
    permissions the suite cannot know, so `user_grant_denied` ("authorizing person may
    not make the change") is as documented a refusal for it as `local_write_denied`."""
    assert op.entity is not None
    only_write = other_api.with_token(_token(adapter, [*READ_SCOPES, op.scope], "secondary"))
    oauth = other_api.with_token(adapter.create_token(kind="oauth", workspace="secondary").token)
    with mirrored(adapter, op.entity):
        for client in (other_api, only_write):
            response = op.send(client, op.request(secondary))
            expect_error(response, "SCOPE-025", status=403, code="local_write_denied")
        response = op.send(oauth, op.request(secondary))
        error = expect_error(response, "SCOPE-025", status=403, code=PERSON_REFUSALS)
        observe(f"mirrored {op.entity}: OAuth write refused with", error.get("code"))


@pytest.mark.req("SCOPE-027")
def test_capabilities_report_the_effective_write_policy(
    other_api: ApiClient,
    target: Target,
    secondary: Setup,
    observe: Callable[[str, Any], None],
) -> None:
    """With deals mirrored, the answer says deals cannot be written, and it said they
    could before. The shape is not shown: where the harness reads a policy from it
    (`capabilities.discover`), the deals entry must flip; where it cannot, the answer
    must at least change."""
    writable = expect_status(other_api.get("/v1/capabilities"), "SCOPE-027", 200)
    before = discover(target=target, clients={"full": other_api})
    with mirrored(secondary.adapter, "deals"):
        response = other_api.get("/v1/capabilities")
        refused = expect_status(response, "SCOPE-027", 200)
        after = discover(target=target, clients={"full": other_api})
    observe("GET /v1/capabilities", writable)
    observe("GET /v1/capabilities (deals mirrored)", refused)
    if before.write_policy_source == after.write_policy_source == "GET /v1/capabilities":
        expect_value(
            response,
            "SCOPE-027",
            "deals writable (before, while mirrored)",
            (before.write_policy.get("deals"), after.write_policy.get("deals")),
            (True, False),
        )
        return
    expect_true(
        response,
        "SCOPE-027",
        writable != refused,
        expected="GET /v1/capabilities changes when the deals entity is mirrored",
        got="the same body before and after",
    )
