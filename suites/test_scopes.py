"""Scopes: each operation is guarded by the scope the document's table names, and no more.

Authentication 4-7: `read` covers list and retrieve, `write` covers create, update and
delete; "Listing deleted records needs the read scope of the resource listed"; a call
without the needed scope answers 403 `insufficient_scope` with `param` the first
missing scope and the missing scopes in the message; a mirrored entity refuses writes
for every token (403 `local_write_denied`).

The matrix covers every operation `spec/openapi.yaml` gives a scope (`x-scopes`), the
updates and retrieves the target file names (`operations.NAMED`: the row's write and read
scopes) and the deletion feed of every resource the target file names a value for
(`deleted_records_values`): the scope alone is enough, and a token with every scope but
that one is refused. Each call is one the target accepts (`crm_conformance.steps.operations`:
a body the document shows or the target's convention, a record in a state the operation
allows), so the only thing wrong with it is the token. Tokens are minted once per scope
set per module (`steps.tokens.Minted`).

Policy tests mirror an entity in the second workspace (`tokens.other_workspace`), so
the rest of a parallel run, which works in the first, is not refused meanwhile; and
every test that uses the second workspace holds it alone while it runs (the
`other_api` fixture, `crm_conformance.core.transport.run_lock`).
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient, Target
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    discover,
    error_of,
    expect_insufficient_scope,
    expect_refusal,
    expect_status,
    expect_success,
    expect_true,
    expect_value,
    expect_written,
    matches,
    operations,
    refused_for_scope,
    tokens,
    words_in,
)

DOCUMENT_SCOPES = tokens.SCOPE_TABLE

ROW_REQ: dict[str, str] = {
    "contacts": "SCOPE-004",
    "organizations": "SCOPE-005",
    "deals": "SCOPE-006",
    "pipelines": "SCOPE-007",
    "fields": "SCOPE-008",
    "notes": "SCOPE-009",
    "activities": "SCOPE-010",
    "tags": "SCOPE-011",
    "conversations": "SCOPE-012",
    "messages": "SCOPE-012",
    "campaigns": "SCOPE-013",
    "analytics": "SCOPE-014",
    "success_events": "SCOPE-015",
}
"""The requirement of each row of the table, by the resource part of its scopes."""

READ_SCOPES = tuple(scope for scope in DOCUMENT_SCOPES if scope.endswith(":read"))
PERSON_REFUSALS = (
    "local_write_denied",
    "user_grant_denied",
    "conversation_access_denied",
    "channel_access_denied",
    "campaign_dispatch_denied",
)
"""What refuses an OAuth token's write to a mirrored entity: the policy, or the person
(Authentication 10's four codes: which check comes first is not shown, and a move or a
campaign's pause or resume may meet the person's own before the policy)."""
FEED_RESOURCES = tuple(
    key.key.removeprefix("deleted_records_values.")
    for key in conventions.KEYS
    if key.key.startswith("deleted_records_values.")
)
"""The resources the deletion feed lists, each named by a value in the target file."""


def guard_req(scope: str) -> str:
    """The requirement naming the guard of `scope`: its row's, but `conversations:write`,
    whose own sentence says what it guards (SCOPE-018)."""
    return "SCOPE-018" if scope == "conversations:write" else ROW_REQ[scope.split(":")[0]]


@dataclass(frozen=True)
class Point:
    """One point of the scope matrix: a call and the one scope that guards it."""

    name: str
    scope: str
    reads: bool
    guard: str
    """The requirement a refusal without the scope is charged to."""
    build: Callable[[operations.Maker], operations.Call]

    @property
    def reqs(self) -> tuple[str, ...]:
        return (self.guard, "SCOPE-002" if self.reads else "SCOPE-003")


def _operation_point(operation: document.DescribedOperation | operations.NamedOperation) -> Point:
    (scope,) = operation.scopes
    return Point(
        f"{operation.operation_id} {scope}",
        scope,
        operation.reads,
        guard_req(scope),
        lambda maker: operations.call_of(operation, maker),
    )


def _feed_point(resource: str) -> Point:
    return Point(
        f"deleted-records {resource} {resource}:read",
        f"{resource}:read",
        True,
        "SCOPE-020",
        lambda maker: maker.deletion_feed(resource),
    )


SCOPED = operations.every()
MIRRORED = {
    op.operation_id: op.scopes[0].split(":")[0]
    for op in SCOPED
    if op.scopes and op.scopes[0].endswith(":write")
}
"""The entity each write writes to (its scope's resource: `PUT /v1/policy/{entity}` names
the same), every write the document shows or the target names: "writes to that entity
are rejected for every token", the creates and the updates, moves and reversals alike."""
POINTS = (*map(_operation_point, SCOPED), *map(_feed_point, FEED_RESOURCES))
WRITES = tuple(point for point in POINTS if not point.reads)


def _cases(points: tuple[Point, ...]) -> list[Any]:
    return [pytest.param(p, id=p.name, marks=pytest.mark.req(*p.reqs)) for p in points]


@pytest.fixture(scope="module")
def minted(adapter: AdapterClient) -> tokens.Minted:
    return tokens.Minted(adapter)


def expect_not_refused_for_scope(response: httpx.Response, point: Point) -> None:
    """A read answers 2xx; a write is at least not refused for its token (its outcome
    may hang on state the scope rules do not speak of), charged to SCOPE-002 or -003."""
    req_id = "SCOPE-020" if point.guard == "SCOPE-020" else point.reqs[1]
    if point.reads:
        expect_success(response, req_id)
        return
    expect_true(
        response,
        req_id,
        response.status_code not in (401, 403),
        expected=f"{point.scope} alone lets the token make this call (no 401 or 403)",
        got=f"{response.status_code} {response.text[:200]}",
    )


@pytest.mark.parametrize("point", _cases(POINTS))  # each point names its ids
def test_the_scope_alone_is_enough(
    api: ApiClient, minted: tokens.Minted, maker: operations.Maker, point: Point
) -> None:
    call = point.build(maker)
    expect_not_refused_for_scope(call.send(api.with_token(minted.holding([point.scope]))), point)


@pytest.mark.parametrize(
    "point", [pytest.param(p, id=p.name, marks=pytest.mark.req(p.guard)) for p in POINTS]
)
def test_a_trailing_slash_does_not_route_around_the_scope(
    api: ApiClient, minted: tokens.Minted, maker: operations.Maker, point: Point
) -> None:
    """The call's path with a slash appended is no route of the document: a target may
    refuse it or serve it as the same operation, which its scope guards either way, so a
    token with every scope but that one never gets a success there."""
    call = point.build(maker)
    slashed = replace(call, path=f"{call.path}/")
    response = slashed.send(api.with_token(minted.all_but(point.scope)))
    expect_true(
        response,
        point.guard,
        not response.is_success,
        expected=f"{slashed.method} {slashed.path} not served to a token without {point.scope}",
        got=f"{response.status_code} {response.text[:200]}",
    )


@pytest.mark.req("SCOPE-021", "SCOPE-022", "SCOPE-023", "SCOPE-028")
@pytest.mark.parametrize("point", _cases(POINTS))
def test_every_scope_but_the_needed_one_is_insufficient(
    api: ApiClient, minted: tokens.Minted, maker: operations.Maker, point: Point
) -> None:
    call = point.build(maker)
    response = call.send(api.with_token(minted.all_but(point.scope)))
    expect_insufficient_scope(response, point.scope, point.guard)


def _expect_written(
    response: httpx.Response, call: operations.Call, req_id: str, full: ApiClient
) -> None:
    """2xx. A move whose body is the target's convention (the moves' bodies are not
    shown) refused as invalid is sent again with the full-scope token, the control: if
    that token may make it, the body was right and the refusal fails `req_id`; if not,
    the point is not applicable."""
    refused = response.status_code in (400, 422) and "validation_failed" in response.text
    if call.conventional and refused and not call.send(full).is_success:
        pytest.skip(
            f"the body is not shown, and the target refused {call.body!r} to the full-scope "
            "token too"
        )
    expect_written(response, req_id, call.method)


@pytest.mark.req("SCOPE-003")
@pytest.mark.parametrize("point", _cases(WRITES))
def test_the_write_scope_allows_the_write(
    api: ApiClient, minted: tokens.Minted, maker: operations.Maker, point: Point
) -> None:
    """With every read scope and the write scope, the write is made (2xx)."""
    call = point.build(maker)
    response = call.send(api.with_token(minted.holding([*READ_SCOPES, point.scope])))
    _expect_written(response, call, "SCOPE-003", api)


@pytest.mark.req("SCOPE-017")
@pytest.mark.parametrize("point", POINTS, ids=lambda point: point.name)  # reqs: not asserted
def test_messages_write_is_needed_by_no_operation(
    api: ApiClient, minted: tokens.Minted, maker: operations.Maker, point: Point
) -> None:
    """`messages:write` "is defined and attached to nothing": a token holding every
    scope the document names but it may make each call whose scope is shown."""
    call = point.build(maker)
    response = call.send(api.with_token(minted.all_but("messages:write")))
    _expect_written(response, call, "SCOPE-017", api)


@pytest.mark.req("SCOPE-026", "SCOPE-001", "SCOPE-005", "SCOPE-009", "SCOPE-012", "SCOPE-014")
def test_me_lists_the_scopes_of_the_token(
    configured_api: ApiClient,
    minted: tokens.Minted,
    target: Target,
    observe: Callable[[str, Any], None],
) -> None:
    """Every held scope appears in the answer (as a string of its own, or a word of a
    space-separated one: the shape is not shown); where the harness can read a scope
    list from it (`capabilities.listed_scopes`), that list is exactly the held scopes. A
    scope of the table missing from the full token's answer is charged to its row: the
    table defines it. `/v1/me` of the configured tokens.full, even when the run has a
    token pool: the target file declares that token's scopes."""
    api = configured_api
    response = api.get("/v1/me")
    full = expect_status(response, "SCOPE-026", 200)
    observe("GET /v1/me (tokens.full)", full)
    held = ["contacts:read", "deals:write"]
    narrow_token = minted.holding(held)
    found = discover(target=target, clients={"full": api, "narrow": api.with_token(narrow_token)})
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
    listed = words_in(full)
    for row in dict.fromkeys(ROW_REQ.values()):  # each row of the table defines its scopes
        scopes = [scope for scope in DOCUMENT_SCOPES if ROW_REQ[scope.split(":")[0]] == row]
        absent = [scope for scope in scopes if scope not in listed]
        expect_true(
            response,
            row,
            not absent,
            expected=f"GET /v1/me of tokens.full (every scope) lists {', '.join(scopes)}",
            got=f"not listed: {', '.join(absent)}",
        )
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
    if found.scopes_source["narrow"] == "GET /v1/me":
        expect_value(
            narrow, "SCOPE-026", "the scopes listed", got=found.scopes["narrow"], expected=set(held)
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
) -> operations.Maker:
    adapter.require("policy")
    return operations.Maker(
        adapter, unique, convention, pytest.skip, workspace="secondary", client=other_api
    )


def _fail_guard(response: httpx.Response, op: document.DescribedOperation) -> None:
    """Charge an `insufficient_scope` to a token holding `op`'s scopes to `op`'s guard."""
    expect_true(
        response,
        guard_req(op.scopes[0]),
        False,
        expected=f"no insufficient_scope to a token holding {', '.join(op.scopes)}",
        got=f"{response.status_code} {response.text[:200]}",
    )


def _mirrored_cases() -> list[Any]:
    return [
        pytest.param(
            op,
            id=f"{op.operation_id} {MIRRORED[op.operation_id]}",
            marks=pytest.mark.req(guard_req(op.scopes[0])),
        )
        for op in SCOPED
        if op.operation_id in MIRRORED
    ]


@pytest.mark.req("SCOPE-025", "SCOPE-029", "SCOPE-024", "SCOPE-003")
@pytest.mark.parametrize("op", _mirrored_cases())
def test_a_mirrored_entity_refuses_writes_whatever_the_scopes(
    other_api: ApiClient,
    adapter: AdapterClient,
    secondary: operations.Maker,
    minted: tokens.Minted,
    op: document.DescribedOperation,
    observe: Callable[[str, Any], None],
) -> None:
    """Every token is refused. An OAuth token acts for a person the adapter chose, whose
    permissions the suite cannot know, so `user_grant_denied` ("authorizing person may
    not make the change") is as documented a refusal for it as `local_write_denied`."""
    entity = MIRRORED[op.operation_id]
    only_write = other_api.with_token(minted.holding([*READ_SCOPES, *op.scopes], "secondary"))
    oauth = other_api.with_token(adapter.create_token(kind="oauth", workspace="secondary").token)
    # each call's data is made before the mirroring (a success event to reverse is
    # recorded through the API, which the mirrored entity refuses)
    calls = [operations.call_of(op, secondary) for _ in range(3)]
    with mirrored(adapter, entity):
        for client, call in zip((other_api, only_write), calls, strict=False):
            response = call.send(client)
            if client is only_write and refused_for_scope(response):
                # it holds the scopes the document names for the call: the refusal
                # breaks the call's guard, and the policy was never reached
                _fail_guard(response, op)
                continue
            expect_refusal(response, "SCOPE-025", status=403, code="local_write_denied")
            expect_refusal(response, "SCOPE-029", status=403, code="local_write_denied")
            # the token holds the write scope, and the policy still refuses the write
            expect_true(
                response,
                "SCOPE-024",
                response.status_code == 403,
                expected="403: the workspace's policy, not the token's scopes, decides",
                got=f"{response.status_code}",
            )
        response = calls[2].send(oauth)
        observe(f"mirrored {entity}: OAuth write refused with", error_of(response).get("code"))
        for req_id in ("SCOPE-025", "SCOPE-024"):  # an OAuth token's scopes exceed no policy
            expect_refusal(response, req_id, status=403, code=PERSON_REFUSALS)


def _mirrored_reads() -> list[Any]:
    """Every read of an entity a write policy can mirror, the named ones included."""
    entities = set(MIRRORED.values())
    return [
        pytest.param(
            op,
            id=f"{op.operation_id} {op.scopes[0].split(':')[0]}",
            marks=pytest.mark.req(guard_req(op.scopes[0])),
        )
        for op in SCOPED
        if op.scopes and op.scopes[0].endswith(":read") and op.scopes[0].split(":")[0] in entities
    ]


@pytest.mark.parametrize("op", _mirrored_reads())
def test_a_mirrored_entity_is_still_read(
    other_api: ApiClient, secondary: operations.Maker, op: document.DescribedOperation
) -> None:
    """ "writes to that entity are rejected for every token": the policy takes writes
    away, not reads, so each read of the mirrored entity still answers the token holding
    its read scope (a CRM mirrored into the workspace is read there)."""
    entity = op.scopes[0].split(":")[0]
    call = operations.call_of(op, secondary)
    with mirrored(secondary.adapter, entity):
        response = call.send(other_api)
    expect_success(response, guard_req(op.scopes[0]))


@pytest.mark.req("SCOPE-027")
def test_capabilities_report_the_effective_write_policy(
    other_api: ApiClient,
    target: Target,
    secondary: operations.Maker,
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
            got=(before.write_policy.get("deals"), after.write_policy.get("deals")),
            expected=(True, False),
        )
        return
    expect_true(
        response,
        "SCOPE-027",
        writable != refused,
        expected="GET /v1/capabilities changes when the deals entity is mirrored",
        got="the same body before and after",
    )
