"""Tenancy: the bearer token picks the workspace, and other workspaces do not show.

"The workspace is implied by the bearer token. No tenant or workspace header exists."
"A 404 does not distinguish a missing record from one in another workspace." And
`record_not_found` is a "contact, organization or deal id in the body missing or
invisible to the token; `param` names the field".

Two matrices, both computed from `spec/openapi.yaml` at collection, so an operation or
an input added to the description is a new point of each:

- **Every identifier input** (`document.id_inputs()`: path, query and JSON body; the
  contact list's id filters, named by the target's `contact_filters.*`; the ids a
  convention body holds; the path id and each id field of the update and retrieve of
  every resource the target's `updates.*` and `retrieve.*` name, and the path id of
  each delete `deletes.*` names; the success event paths with `{event_id}` and the
  note paths with `{note_id}`) sent naming a record of the second workspace answers
  exactly as a well-formed id that names nothing: same status, type, code, param,
  detail and body keys, and no wording about another workspace. Comparing with a
  missing id, not with a fixed expectation, accepts whatever the target answers for a
  missing record; only a contact, organization or deal id in a body the document
  shows is pinned (404 `record_not_found` naming the field), as the error table states.
- **Every read** (each list, the note list too, the contact list's filters, search by
  free text and by a condition, the deletion feed of each resource the target names)
  shows nothing of a record the second workspace made to match it. The second
  workspace's own token must see that record with the same read, or the read proves
  nothing and is skipped.
  `GET /v1/me`, `/v1/capabilities` and `/v1/fields` list no record a workspace makes
  (scopes, policy, field definitions of the same seeded names), so they are left out.

The second workspace's records, and this one's that make the rest of a request valid,
are made once per module through the adapter (`tokens.other_workspace` is held while
they are made and read: `other_api`); a conforming target refuses every write that
names another workspace's record, so none of them changes or goes (the deletion-feed
tests make and delete their own).
"""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import httpx
import pytest

from crm_conformance import AdapterClient, AdapterError, ApiClient, Workspace
from crm_conformance.core.model import conventions
from crm_conformance.steps import (
    NOTE,
    WorkspaceRecords,
    absent_id,
    error_of,
    expect_error,
    expect_pages,
    expect_success,
    expect_true,
    id_inputs,
    ids_of,
    is_record_object,
    operations,
    reads,
    stamp,
    strings_in,
)

TENANT_HEADERS = ("X-Workspace-Id", "X-Tenant-Id", "Workspace", "X-Organization-Id")
"""Headers a client might try; the document says none exists, so they change nothing."""
TENANT_VALUES = 6
"""How many values naming the second workspace each header is tried with."""
TENANT_KEYS = ("workspace", "tenant", "account", "organization", "org")
"""Words of a `GET /v1/me` member that may hold the workspace's own id."""


def tenant_values(other_api: ApiClient) -> list[str]:
    """Values a server could take as the second workspace's name: what its own token's
    `GET /v1/me` says (its shape is not shown: every short string but the scopes, those
    of a member named like a workspace first), then the adapter's name for it."""
    response = other_api.get("/v1/me")
    said = response.json() if response.is_success and response.content else {}
    members = said.items() if isinstance(said, dict) else ()
    named = sorted(
        str(value)
        for key, value in members
        if isinstance(value, str) and any(word in key.lower() for word in TENANT_KEYS)
    )
    rest = sorted(strings_in(said) - set(named))
    candidates = [v for v in (*named, *rest) if 0 < len(v) <= 64 and ":" not in v and " " not in v]
    return [*dict.fromkeys(candidates[: TENANT_VALUES - 1]), "secondary"]


CONTACTS = "/v1/contacts"


# --- the second workspace's records and this one's -------------------------------------


@pytest.fixture
def elsewhere(
    other_api: ApiClient, maker: operations.Maker, workspaces: dict[str, WorkspaceRecords]
) -> WorkspaceRecords:
    """The second workspace's records (held by this test while it runs: `other_api`)."""
    return workspaces["secondary"].bind(maker, other_api)


def expect_same_as_missing(
    req_id: str,
    elsewhere: httpx.Response,
    missing: httpx.Response,
    sent: tuple[str, str] = ("", ""),
) -> None:
    """`elsewhere` answers as `missing` does, and says nothing of another workspace.
    `sent` are the two ids (another workspace's, a missing one): a `detail` message may
    quote the id it was sent, so each is read as the same placeholder."""
    seen, wanted = error_of(elsewhere), error_of(missing)
    details = [
        _masked(error.get("detail"), id) for error, id in ((seen, sent[0]), (wanted, sent[1]))
    ]
    for what, got, expected in (
        ("status", elsewhere.status_code, missing.status_code),
        ("body keys", sorted(_json_keys(elsewhere)), sorted(_json_keys(missing))),
        ("error keys", sorted(seen), sorted(wanted)),
        *((f"error.{key}", seen.get(key), wanted.get(key)) for key in ("type", "code", "param")),
        ("error.detail", *details),
    ):
        expect_true(
            elsewhere,
            req_id,
            got == expected,
            expected=f"{what} as for an id that names nothing: {expected!r}",
            got=f"{what} = {got!r}",
        )
    message, reference = str(seen.get("message", "")), str(wanted.get("message", ""))
    expect_true(
        elsewhere,
        req_id,
        "workspace" not in message.lower() or "workspace" in reference.lower(),
        expected="a message that does not mention another workspace",
        got=f"error.message = {message!r}",
    )


def _masked(value: Any, sent: str) -> Any:
    """`value` (a JSON value) with the id `sent` in any string read as `<id>`."""
    if isinstance(value, str):
        return value.replace(sent, "<id>") if sent else value
    if isinstance(value, list):
        return [_masked(item, sent) for item in value]
    if isinstance(value, dict):
        return {key: _masked(item, sent) for key, item in value.items()}
    return value


def _json_keys(response: httpx.Response) -> list[str]:
    try:
        body = response.json() if response.content else None
    except ValueError:
        return []
    return sorted(body) if isinstance(body, dict) else []


# --- every identifier input ----------------------------------------------------------


POINTS = id_inputs.points()
WRITE_POINTS = [p for p in POINTS if p.input.where != "query"]
FILTER_POINTS = [p for p in POINTS if p.input.where == "query"]


def _missing_like(foreign_id: str, prefix: str) -> str:
    """An id of `foreign_id`'s shape that names nothing; not applicable where the kind's
    id format is not shown and `foreign_id` is not prefix_<32 hex>."""
    missing_id = id_inputs.missing_like(foreign_id, prefix)
    if missing_id is None:
        pytest.skip(
            f"a {prefix}'s id format is not shown, and {foreign_id!r} is not prefix_<32 hex>"
        )
    return missing_id


@pytest.mark.req("TEN-003", "TEN-004")
@pytest.mark.parametrize("point", WRITE_POINTS, ids=str)
def test_an_id_of_another_workspace_answers_as_a_missing_one(
    point: id_inputs.Point,
    api: ApiClient,
    elsewhere: WorkspaceRecords,
    here: WorkspaceRecords,
    convention: conventions.Lookup,
) -> None:
    send = id_inputs.sender(point, here, convention)
    foreign_id = elsewhere.id_of(point.prefix)
    missing_id = _missing_like(foreign_id, point.prefix)
    foreign = send(api, foreign_id)
    if (
        point.input.shape_shown
        and point.input.where == "body"
        and point.prefix in id_inputs.RECORD_KINDS
    ):
        expect_error(
            foreign, "TEN-004", status=404, code="record_not_found", param=point.input.name
        )
    missing = send(api, missing_id)
    expect_same_as_missing("TEN-003", foreign, missing, (foreign_id, missing_id))


def _refusing(elsewhere: WorkspaceRecords, other_api: ApiClient, prefix: str) -> str:
    """A record of the second workspace in a state every move on it refuses: a
    conversation closed (through that workspace's own token), a campaign completed."""
    if prefix == "camp":
        made = elsewhere.adapter.create_campaign(
            status="completed", name=elsewhere.unique("tenancy"), workspace=elsewhere.workspace
        )
        return str(made["id"])
    conversation = elsewhere.adapter.create_conversation(
        status="active", contact_id=elsewhere.id_of("con"), workspace=elsewhere.workspace
    )
    closed = other_api.post(f"/v1/conversations/{conversation['id']}/close")
    if not closed.is_success:
        pytest.skip(f"the second workspace's conversation did not close: {closed.status_code}")
    return str(conversation["id"])


STATE_POINTS = [p for p in WRITE_POINTS if p.input.where == "path" and p.prefix in ("conv", "camp")]


@pytest.mark.req("TEN-003")
@pytest.mark.parametrize("point", STATE_POINTS, ids=str)
def test_an_id_of_another_workspace_answers_as_a_missing_one_whatever_its_state(
    point: id_inputs.Point,
    api: ApiClient,
    other_api: ApiClient,
    elsewhere: WorkspaceRecords,
    here: WorkspaceRecords,
    convention: conventions.Lookup,
) -> None:
    """ "A 404 does not distinguish a missing record from one in another workspace",
    whatever state that record is in: another workspace's closed conversation or
    completed campaign, on every operation naming one in its path (each move would
    refuse it: a server judging the state before the workspace answers 409 there)."""
    send = id_inputs.sender(point, here, convention)
    foreign_id = _refusing(elsewhere, other_api, point.prefix)
    missing_id = _missing_like(foreign_id, point.prefix)
    expect_same_as_missing(
        "TEN-003", send(api, foreign_id), send(api, missing_id), (foreign_id, missing_id)
    )


@pytest.mark.req("TEN-001")
@pytest.mark.parametrize("point", FILTER_POINTS, ids=str)
def test_a_filter_on_another_workspaces_id_answers_as_one_on_a_missing_id(
    point: id_inputs.Point,
    api: ApiClient,
    elsewhere: WorkspaceRecords,
    convention: conventions.Lookup,
) -> None:
    """The second workspace's contact has this id set; a filter naming it lists what a
    filter on an id that names nothing lists (or is refused as that one is)."""
    elsewhere.the_contact()
    name = convention(point.convention) if point.convention else point.input.name
    foreign_id, missing_id = elsewhere.id_of(point.prefix), absent_id(point.prefix)
    refused = api.get(point.input.path, params={name: missing_id})
    if refused.status_code != 200:
        answer = api.get(point.input.path, params={name: foreign_id})
        expect_same_as_missing("TEN-001", answer, refused, (foreign_id, missing_id))
        return

    def rows(value: str) -> list[str]:
        return ids_of(expect_pages(api, point.input.path, "TEN-001", {name: value}))

    foreign, missing = rows(foreign_id), rows(missing_id)
    expect_true(
        None,
        "TEN-001",
        sorted(foreign) == sorted(missing),
        expected=f"{point.input.path}?{name}=<the second workspace's {point.prefix}_ id> listing "
        f"what a {name} naming nothing lists: {sorted(missing)}",
        got=f"{sorted(foreign)}",
    )


# --- every read ----------------------------------------------------------------------


ReadOf = Callable[[WorkspaceRecords, conventions.Lookup], reads.Read]
"""(the second workspace's records, the target's conventions) -> the read."""


def _of_contact(read: reads.ContactRead) -> ReadOf:
    """A read finding the second workspace's contact (`WorkspaceRecords.the_contact`)."""
    return lambda elsewhere, convention: read(convention, elsewhere.the_contact())


def _user(elsewhere: WorkspaceRecords, _: conventions.Lookup) -> reads.Read:
    """A person the adapter added to the second workspace ("appears in `GET /v1/users` of
    that workspace (and of no other)"), or its first seeded one where it adds none."""
    adapter = elsewhere.adapter
    added = adapter.create_user(workspace=elsewhere.workspace) if adapter.has("users") else None
    return reads.Read(
        "GET", "/v1/users", {}, None, added["id"] if added else elsewhere.id_of("usr")
    )


def _pipeline(elsewhere: WorkspaceRecords, _: conventions.Lookup) -> reads.Read:
    return reads.Read("GET", "/v1/pipelines", {}, None, elsewhere.id_of("pipe"), pages=False)


def _audience(elsewhere: WorkspaceRecords, _: conventions.Lookup) -> reads.Read:
    """Audiences are not made through the adapter: the marker is left empty, for the
    first audience the second workspace's token lists."""
    return reads.Read("GET", "/v1/audiences", {}, None, "")


def _event_type(elsewhere: WorkspaceRecords, _: conventions.Lookup) -> reads.Read:
    code = elsewhere.unique("tenancy").replace("-", "_")
    elsewhere.adapter.create_success_event_type(
        code=code, value="forbidden", workspace=elsewhere.workspace
    )
    return reads.Read("GET", "/v1/success-event-types", {}, None, code, pages=False)


def _deleted(resource: str) -> ReadOf:
    """A record of `resource` the second workspace made and deleted, in the feed."""

    def read(elsewhere: WorkspaceRecords, convention: conventions.Lookup) -> reads.Read:
        fields: dict[str, Any] = {
            "contact": {"first_name": elsewhere.unique("tenancy")},
            "organization": {"name": elsewhere.unique("tenancy")},
            "deal": {"title": elsewhere.unique("tenancy"), "contact_id": elsewhere.id_of("con")},
            "activity": {
                "title": elsewhere.unique("tenancy"),
                "due_at": stamp(),
                "record_id": elsewhere.id_of("con"),
            },
        }
        kind = operations.FEED_KINDS.get(resource)
        if kind is None:
            pytest.skip(f"the adapter makes no record of {resource} to delete")
        made = elsewhere.record(kind, **fields[kind])
        elsewhere.adapter.delete_record(made["id"])
        query = conventions.deletion_feed(convention, resource)
        return reads.Read("GET", "/v1/deleted-records", query, None, made["id"])

    return read


def _named_list(kind: str) -> ReadOf:
    """The list of `kind` the target file names, whole (bounded), for the second
    workspace's record of that kind."""

    def read(elsewhere: WorkspaceRecords, convention: conventions.Lookup) -> reads.Read:
        path = conventions.path(convention, f"lists.{kind}_path")
        return reads.Read("GET", path, {}, None, elsewhere.id_of(operations.PREFIXES[kind]))

    return read


def _note_list(elsewhere: WorkspaceRecords, convention: conventions.Lookup) -> reads.Read:
    """The note list the target file names, for a note the second workspace wrote."""
    path = conventions.path(convention, "notes.list_path")
    return reads.Read("GET", path, {}, None, elsewhere.id_of(NOTE))


def _reads() -> dict[str, ReadOf]:
    """Every read point: every read that can find a contact (`steps.reads`), every other
    list (the target's named lists and note list too), and the deletion feed of each
    resource."""
    found: dict[str, ReadOf] = {
        name: _of_contact(read) for name, read in reads.contact_reads(id_filters=False).items()
    }
    for key in conventions.KEYS:
        table, _, name = key.key.partition(".")
        if table == "deleted_records_values":
            found[f"listDeletedRecords-{name}"] = _deleted(name)
    found["listUsers"] = _user
    found["listAudiences"] = _audience
    found["listPipelines"] = _pipeline
    found["listSuccessEventTypes"] = _event_type
    for kind in conventions.LISTED:
        found[operations.list_id(kind)] = _named_list(kind)
    found["listNotes"] = _note_list
    return found


READS = _reads()


@pytest.mark.parametrize(
    "header",
    [
        pytest.param(False, id="token", marks=pytest.mark.req("TEN-001")),
        pytest.param(True, id="tenant header", marks=pytest.mark.req("TEN-002")),
    ],
)
@pytest.mark.parametrize("name", list(READS))
def test_a_read_shows_nothing_of_another_workspace(
    name: str,
    header: bool,
    api: ApiClient,
    other_api: ApiClient,
    elsewhere: WorkspaceRecords,
    convention: conventions.Lookup,
) -> None:
    """ "The workspace is implied by the bearer token": no read of the first workspace's
    token shows the second workspace's record. "No tenant or workspace header exists":
    nor when the read carries a tenant header naming the second workspace (each value a
    server could take for it)."""
    read = READS[name](elsewhere, convention)
    if not read.marker:
        theirs = ids_of(expect_pages(other_api, read.path, "TEN-001", read.query, max_pages=1))
        if not theirs:
            pytest.skip(f"the second workspace's {read.path} lists nothing to look for")
        read = replace(read, marker=theirs[0])
    req_id = "TEN-002" if header else "TEN-001"
    values = tenant_values(other_api) if header else [None]
    for value in values:
        sent = dict.fromkeys(TENANT_HEADERS, value) if value is not None else {}
        ours, answer = reads.seen(api, read, req_id, sent)
        expect_true(
            answer,
            req_id,
            read.marker not in ours,
            expected=f"nothing of the second workspace's {read.marker} in {read.method} "
            f"{read.path}" + (f" with {TENANT_HEADERS[0]}: {value}" if value else ""),
            got="it is in the answer to the first workspace's token",
        )
    if read.marker not in reads.seen(other_api, read, "TEN-001")[0]:
        pytest.skip(
            f"the second workspace's own token does not find {read.marker} with this read, "
            "so it proves nothing here"
        )


@pytest.mark.req("TEN-001")
def test_a_contact_linked_to_another_workspaces_organization_never_shows_it(
    api: ApiClient, elsewhere: WorkspaceRecords, here: WorkspaceRecords
) -> None:
    """A contact made with the second workspace's organization_id (the adapter makes
    contacts: their create body is not shown) is refused, as `record_not_found` says (an
    adapter's 4xx: the target refused the foreign id, which is this rule kept); if it is
    made all the same, `expand=organization` must not show that organization."""
    organization = elsewhere.id_of("org")
    try:
        made = here.record(
            "contact", first_name=here.unique("tenancy"), organization_id=organization
        )
    except AdapterError as refused:
        if refused.status is not None and 400 <= refused.status < 500:
            pytest.skip(
                f"the adapter refused a contact with the second workspace's organization "
                f"({refused.status}): the adapter is not the API, so the rule is not tested "
                "here (the id matrices send the foreign organization_id through the API)"
            )
        raise
    response = api.get(f"{CONTACTS}/{made['id']}", params={"expand": "organization"})
    shown = expect_success(response, "TEN-001").get("organization")
    expect_true(
        response,
        "TEN-001",
        not is_record_object(shown, organization),
        expected=f"no organization {organization} of the second workspace expanded",
        got=f"organization = {shown!r}",
    )


# --- headers and external ids --------------------------------------------------------


@pytest.mark.req("TEN-002")
def test_a_workspace_header_changes_nothing(
    api: ApiClient, other_api: ApiClient, elsewhere: WorkspaceRecords
) -> None:
    """ "No tenant or workspace header exists": the second workspace's contact, read with
    a tenant header naming that workspace (each value a server could take), answers as
    it does without one."""
    path = f"{CONTACTS}/{elsewhere.id_of('con')}"
    plain = api.get(path)
    for value in tenant_values(other_api):
        headers = dict.fromkeys(TENANT_HEADERS, value)
        expect_same_as_missing("TEN-002", api.get(path, headers=headers), plain)


@pytest.mark.req("TEN-005")
def test_two_workspaces_may_share_an_external_id(
    api: ApiClient, other_api: ApiClient, adapter: AdapterClient, unique: Callable[[str], str]
) -> None:
    shared = unique("ext")
    sides: tuple[tuple[ApiClient, Workspace], ...] = ((api, "primary"), (other_api, "secondary"))
    for client, workspace in sides:
        pipelines = adapter.fixtures(workspace=workspace).pipelines
        if not pipelines or not pipelines[0].stages:
            pytest.skip(f"the adapter's GET /v1/fixtures lists no pipeline in {workspace}")
        contact = adapter.create_record(
            kind="contact", fields={"first_name": unique("tenant")}, workspace=workspace
        )
        body = {
            "pipeline_id": pipelines[0].id,
            "stage_id": pipelines[0].stages[0].id,
            "title": unique("deal"),
            "contact_id": contact["id"],
            "external_id": shared,
        }
        expect_success(client.post("/v1/deals", json=body), "TEN-005")
