"""The feature checks of `adapter-check`, one a feature of `spec/adapter.yaml`.

Each check calls its feature as the contract says and reads its promises back through
the public API (a record made for a workspace is visible to that workspace's token and
no other's, a token made with chosen scopes holds exactly those, a deletion shows in the
deletion feed, ...). It raises `Broken` with the reason and the request that shows it,
or answers notes on what it could not check. `CHECKS` is the registry, in the order the
command runs them (`command.py`).
"""

import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from crm_conformance.adapter_check.permissions import check_permissions
from crm_conformance.adapter_check.probe import (
    Probe,
    contact,
    error_code,
    expect_status,
    instant,
    new_tag,
    workspaces,
)
from crm_conformance.adapter_check.samples import check_samples
from crm_conformance.core.model.capabilities import discover
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.expect import strings_in
from crm_conformance.steps.pages import walk

NO_OTHER = "workspace secondary not checked: add [tokens.other_workspace] to the target file"
NOWHERE = "c" * 32

Check = Callable[[Probe], list[str]]
CHECKS: dict[str, Check] = {}
"""Feature -> its check: raises `Broken`, or answers notes on what it could not check."""


def check(feature: str) -> Callable[[Check], Check]:
    """Register the check of one feature."""

    def register(function: Check) -> Check:
        CHECKS[feature] = function
        return function

    return register


# --- the features ---------------------------------------------------------------------


@check("fixtures")
def _fixtures(probe: Probe) -> list[str]:
    probe.refused("getFixtures", params={"workspace": "nowhere"})
    notes = [] if probe.other is not None else [NO_OTHER]
    for workspace, client, _ in workspaces(probe):
        fixtures = probe.call("getFixtures", params={"workspace": workspace})
        listed = probe.listed_ids(client, "/v1/users")
        missing = [user for user in fixtures["users"] if user not in listed]
        if missing:
            raise probe.broken(
                f"the fixtures of workspace {workspace} name the user {missing[0]}, which "
                f"GET /v1/users of {probe.role(client)} does not list"
            )
        if workspace == "primary" and not any(len(p["stages"]) > 1 for p in fixtures["pipelines"]):
            notes.append("no pipeline with two stages: deal tests that move a stage cannot run")
        if workspace == "primary":
            with probe.cleanup() as undo:
                notes += check_samples(probe, fixtures, undo)
    return notes


def _issue(
    probe: Probe, undo: list[tuple[str, str]], **body: Any
) -> tuple[dict[str, Any], ApiClient]:
    made = probe.call("createToken", json={"workspace": "primary", "kind": "workspace", **body})
    probe.redactor.add(made["token"])
    undo.append(("revokeToken", made["id"]))
    return made, probe.api.with_token(made["token"])


@check("tokens")
def _tokens(probe: Probe) -> list[str]:
    notes = []
    probe.refused(
        "createToken", json={"workspace": "primary", "kind": "workspace", "scopes": ["nope:read"]}
    )
    # "an id the adapter never issued is a 404"
    probe.refused("revokeToken", path={"token_id": f"tok_{NOWHERE}"}, status=404)
    with probe.cleanup() as undo:
        made, reader = _issue(probe, undo, scopes=["contacts:read"])
        if sorted(made["scopes"]) != ["contacts:read"]:
            raise probe.broken(
                f"a token asked with scopes [contacts:read] answered scopes {made['scopes']}"
            )
        promise = "a token made with scopes [contacts:read] should list contacts"
        expect_status(probe, reader, "GET", "/v1/contacts", 200, promise, params={"limit": "1"})
        found = discover(target=probe.target, clients={"made": reader})
        if found.scopes_source["made"] == "GET /v1/me":
            if found.scopes["made"] != frozenset({"contacts:read"}):
                raise probe.broken(
                    "GET /v1/me of a token made with scopes [contacts:read] lists "
                    f"{sorted(found.scopes['made'] or ())}"
                )
        else:
            notes.append("GET /v1/me's scopes unreadable: scopes checked through answers only")
        _, other_scope = _issue(probe, undo, scopes=["deals:read"])
        promise = "a token made with scopes [deals:read] should hold no more than that"
        expect_status(probe, other_scope, "GET", "/v1/contacts", 403, promise)
        for state in ("revoked", "expired"):
            _, unusable = _issue(probe, undo, state=state)
            expect_status(
                probe,
                unusable,
                "GET",
                "/v1/contacts",
                401,
                f"a token made {state} should be refused",
            )
        _, expired = _issue(probe, undo, kind="oauth", state="expired")
        response = expired.get("/v1/contacts")
        code = error_code(response)
        if (response.status_code, code) != (401, "token_expired"):
            raise probe.broken(
                f"an OAuth token made expired answered {response.status_code} {code}; the "
                "document: an expired OAuth token answers 401 token_expired"
            )
        active, client = _issue(probe, undo)
        promise = "a token made active should work"
        expect_status(probe, client, "GET", "/v1/contacts", 200, promise)
        probe.call("revokeToken", path={"token_id": active["id"]})
        promise = "a revoked token should be refused at once"
        expect_status(probe, client, "GET", "/v1/contacts", 401, promise)
        if probe.other is None:
            return [*notes, NO_OTHER]
        _, theirs = _issue(probe, undo, workspace="secondary")
        seen = _user_ids(probe, theirs)
        if seen & _user_ids(probe, probe.api) or not seen & _user_ids(probe, probe.other):
            raise probe.broken(
                "a token made for workspace secondary does not read that workspace: its "
                "GET /v1/users lists the users of tokens.full's workspace, not those of "
                "tokens.other_workspace's"
            )
    return notes


def _user_ids(probe: Probe, client: ApiClient) -> set[str]:
    """The ids of the users `GET /v1/users` lists for a token (bounded pages)."""
    found = walk(client, "/v1/users")
    if found.refused is not None:
        raise probe.broken(f"GET /v1/users answered {found.refused}; expected 200")
    return {str(user["id"]) for user in found.records if isinstance(user.get("id"), str)}


@check("users")
def _users(probe: Probe) -> list[str]:
    probe.refused("createUser", json={"workspace": "nowhere"})
    for workspace, client, others in workspaces(probe):
        made = probe.call("createUser", json={"workspace": workspace, "name": probe.name("user")})
        if made["id"] not in probe.listed_ids(client, "/v1/users"):
            raise probe.broken(
                f"a user made for workspace {workspace} is not listed by GET /v1/users of "
                f"{probe.role(client)}"
            )
        for other in others:
            if made["id"] in probe.listed_ids(other, "/v1/users"):
                raise probe.broken(
                    f"a user made for workspace {workspace} is listed by GET /v1/users of "
                    f"{probe.role(other)}"
                )
    return [] if probe.other is not None else [NO_OTHER]


check("permissions")(check_permissions)


def _same_instant(value: Any, chosen: str) -> bool:
    """Whether `value` is a date-time naming the instant `chosen` (False for anything
    that is no date-time, a missing field included)."""
    try:
        return instant(value) == instant(chosen)
    except (TypeError, ValueError):
        return False


@check("records")
def _records(probe: Probe) -> list[str]:
    notes = [] if probe.other is not None else [NO_OTHER]
    probe.refused("createRecord", json={"workspace": "primary", "kind": "nope", "fields": {}})
    probe.refused("deleteRecord", path={"record_id": f"con_{NOWHERE}"}, status=404)
    chosen = "2020-01-02T03:04:05Z"
    with probe.cleanup() as undo:
        made_in: dict[str, str] = {}
        for workspace, client, others in workspaces(probe):
            made = contact(probe, workspace, created_at=chosen)
            undo.append(("deleteRecord", made["id"]))
            made_in[workspace] = made["id"]
            path = f"/v1/contacts/{made['id']}"
            expect_status(
                probe, client, "GET", path, 200, f"a contact made for workspace {workspace} "
                f"should be visible to {probe.role(client)}"
            )  # fmt: skip
            for other in others:
                expect_status(
                    probe, other, "GET", path, 404, f"a contact made for workspace {workspace} "
                    f"should be invisible to {probe.role(other)}"
                )  # fmt: skip
            read = probe.read(client, path)
            for stamp in ("created_at", "updated_at"):  # updated_at "defaults to created_at"
                if not _same_instant(read.get(stamp), chosen):
                    raise probe.broken(
                        f"a contact made with created_at {chosen} reads {stamp} {read.get(stamp)}"
                    )
        deal = probe.call(
            "createRecord",
            json={
                "workspace": "primary",
                "kind": "deal",
                "fields": {"title": probe.name("deal"), "contact_id": made_in["primary"]},
                "created_at": chosen,
            },
        )
        undo.append(("deleteRecord", deal["id"]))
        if not _same_instant(deal.get("stage_changed_at"), chosen):  # "then"
            raise probe.broken(
                f"a deal made with created_at {chosen} reads stage_changed_at "
                f"{deal.get('stage_changed_at')}"
            )
    gone = contact(probe, "primary")
    probe.call("deleteRecord", path={"record_id": gone["id"]})
    path = f"/v1/contacts/{gone['id']}"
    expect_status(probe, probe.api, "GET", path, 404, "a deleted contact should be gone")
    notes += _deletion_in_feed(probe, gone["id"])
    notes += _tag_deletion(probe)
    _people_and_campaigns_deletion(probe)
    return notes


def _deletion_in_feed(probe: Probe, record_id: str) -> list[str]:
    """The deletion in `GET /v1/deleted-records`, queried with the target's conventions: the
    parameter naming the resource, and its value for contacts (`contacts` when not given).
    A feed that refuses the query is the target file's to fix, not the adapter's."""
    conventions = probe.target.conventions
    name = conventions.get("deleted_records_entity_param")
    if name is None:
        return ["the deletion feed not read: add deleted_records_entity_param under [conventions]"]
    value = conventions.get("deleted_records_values.contacts", "contacts")
    query = f"GET /v1/deleted-records?{name}={value}"
    found = walk(probe.api, "/v1/deleted-records", params={name: value})
    if found.refused is not None:
        return [
            f"the deletion feed not read: {query} answered {found.refused} (set "
            "contacts under [conventions.deleted_records_values])"
        ]
    if record_id not in strings_in(found.records):
        raise probe.broken(f"a contact deleted through the adapter ({record_id}) is not in {query}")
    return []


def _tag_deletion(probe: Probe) -> list[str]:
    selector = probe.target.conventions.get("tag_catalogue_field")
    if selector is None:
        return ["tag deletion not checked: add tag_catalogue_field under [conventions]"]
    name = probe.name("tag")
    body = {"name": name, selector: "contact"}
    made = probe.api.post("/v1/tags", json=body)
    if not made.is_success:
        return [f"tag deletion not checked: POST /v1/tags answered {made.status_code}"]
    probe.call("deleteRecord", path={"record_id": made.json()["id"]})
    again = probe.api.post("/v1/tags", json=body)
    if not again.is_success:
        raise probe.broken(
            f"a tag deleted through the adapter keeps its name: POST /v1/tags with it again "
            f"answered {again.status_code}"
        )
    probe.call("deleteRecord", path={"record_id": again.json()["id"]})
    return []


def _people_and_campaigns_deletion(probe: Probe) -> None:
    """With `users` or `campaigns` offered too, their records can be deleted (for sweep)."""
    if "users" in probe.listed:
        user = probe.call("createUser", json={"workspace": "primary", "name": probe.name("user")})
        probe.call("deleteRecord", path={"record_id": user["id"]})
        if user["id"] in probe.listed_ids(probe.api, "/v1/users"):
            raise probe.broken(
                f"a user deleted through the adapter ({user['id']}) is still listed by "
                "GET /v1/users"
            )
    if "campaigns" in probe.listed:
        campaign = probe.call(
            "createCampaign",
            json={"workspace": "primary", "status": "draft", "name": probe.name("campaign")},
        )
        probe.call("deleteRecord", path={"record_id": campaign["id"]})
        path = f"/v1/campaigns/{campaign['id']}/stats"
        promise = "a campaign deleted through the adapter should be gone"
        expect_status(probe, probe.api, "GET", path, 404, promise)


def _close(client: ApiClient, conversation_id: str) -> httpx.Response:
    return client.post(f"/v1/conversations/{conversation_id}/close")


@check("conversations")
def _conversations(probe: Probe) -> list[str]:
    probe.refused("createConversation", json={"workspace": "primary", "status": "closed"})
    for impossible in (  # "refused (422)": combinations the document's states do not allow
        {"status": "waiting", "handler": "agent"},
        {"status": "active", "handler": "agent", "agent_available": False},
    ):
        probe.refused("createConversation", json={"workspace": "primary", **impossible}, status=422)
    for body, holder in (
        ({"status": "waiting"}, None),
        ({"status": "active", "handler": "agent"}, "agent"),
        ({"status": "active", "handler": "user"}, "user"),
    ):
        made = probe.call("createConversation", json={"workspace": "primary", **body})
        kind = (made.get("handler") or {}).get("kind")
        if made["status"] != body["status"] or (holder is not None and kind != holder):
            raise probe.broken(
                f"a conversation made {body} reads status {made['status']} held by {kind}"
            )
    for workspace, client, others in workspaces(probe):
        made = probe.call("createConversation", json={"workspace": workspace, "status": "active"})
        path = f"/v1/conversations/{made['id']}/close"
        for other in others:
            expect_status(
                probe, other, "POST", path, 404, f"a conversation made for workspace "
                f"{workspace} should be out of reach of {probe.role(other)}"
            )  # fmt: skip
        closed = _close(client, made["id"])
        if closed.status_code != 200 or closed.json().get("status") != "closed":
            raise probe.broken(
                f"an active conversation made for workspace {workspace} cannot be closed by "
                f"{probe.role(client)}: the close answered {closed.status_code}"
            )
    return [] if probe.other is not None else [NO_OTHER]


def _a_contact(probe: Probe) -> str | None:
    """A contact of the primary workspace, made with whatever feature can make one."""
    if "records" in probe.listed:
        return str(contact(probe, "primary")["id"])
    if "conversations" in probe.listed:
        made = probe.call("createConversation", json={"workspace": "primary", "status": "active"})
        _close(probe.api, made["id"])
        return str(made["contact_id"])
    return None


@check("inbound")
def _inbound(probe: Probe) -> list[str]:
    probe.refused("inboundMessage", json={"workspace": "primary", "contact_id": f"con_{NOWHERE}"})
    contact_id = _a_contact(probe)
    if contact_id is None:
        return ["only a refusal checked: making a contact needs records or conversations"]
    body = {"workspace": "primary", "contact_id": contact_id}
    first = probe.call("inboundMessage", json=body)
    if first["contact_id"] != contact_id or first["status"] == "closed":
        raise probe.broken(
            f"the contact {contact_id} writing in landed in {first['id']}, "
            f"{first['status']}, of contact {first['contact_id']}"
        )
    again = probe.call("inboundMessage", json=body)
    if again["id"] != first["id"]:
        raise probe.broken(
            f"a second message while {first['id']} is open opened another conversation"
        )
    closed = _close(probe.api, first["id"])
    if closed.status_code != 200:
        raise probe.broken(
            f"the conversation inbound made cannot be closed: the close answered "
            f"{closed.status_code}"
        )
    after = probe.call("inboundMessage", json=body)
    if after["id"] == first["id"] or after["status"] == "closed":
        raise probe.broken(
            "after its conversation was closed, the contact writing in did not open a new one"
        )
    return []


@check("campaigns")
def _campaigns(probe: Probe) -> list[str]:
    probe.refused("createCampaign", json={"workspace": "primary", "status": "nope"})
    enrolled = (datetime.now(UTC) - timedelta(days=1)).isoformat(timespec="seconds")
    for workspace, client, others in workspaces(probe):
        made = probe.call(
            "createCampaign",
            json={
                "workspace": workspace,
                "status": "running",
                "name": probe.name("campaign"),
                "participants": [{"enrolled_at": enrolled}],
            },
        )
        stats = f"/v1/campaigns/{made['id']}/stats"
        expect_status(
            probe, client, "GET", stats, 200, f"a campaign made for workspace {workspace} "
            f"should be visible to {probe.role(client)}"
        )  # fmt: skip
        counted = probe.read(client, stats).get("enrolled")
        if made["status"] != "running" or counted != 1:
            raise probe.broken(
                f"a campaign made running with one participant for workspace {workspace} "
                f"reads status {made['status']}, enrolled {counted}"
            )
        for other in others:
            expect_status(
                probe, other, "GET", stats, 404, f"a campaign made for workspace {workspace} "
                f"should be out of reach of {probe.role(other)}"
            )  # fmt: skip
        paused = client.post(f"/v1/campaigns/{made['id']}/pause")
        if paused.status_code != 200 or paused.json().get("status") != "paused":
            raise probe.broken(
                f"a campaign made running does not pause: the pause answered {paused.status_code}"
            )
    made = probe.call("createCampaign", json={"workspace": "primary", "status": "paused"})
    refused = probe.api.post(f"/v1/campaigns/{made['id']}/pause")
    code = error_code(refused)
    if (refused.status_code, code) != (409, "campaign_not_running"):
        raise probe.broken(
            f"a campaign made paused answered the pause with {refused.status_code} {code}; "
            "expected 409 campaign_not_running"
        )
    return [] if probe.other is not None else [NO_OTHER]


def _mirrored_write(probe: Probe) -> tuple[str, Callable[[], httpx.Response]] | None:
    """An entity and a public write to it, to see the policy bite; None when no write
    the document shows can be made with this target's conventions and features."""
    selector = probe.target.conventions.get("tag_catalogue_field")
    if selector is not None:
        return "tags", lambda: new_tag(probe, selector)
    if "records" in probe.listed:
        contact_id = contact(probe, "primary")["id"]
        body = {"title": probe.name("activity"), "due_at": "2030-01-01T00:00:00Z"}
        return "activities", lambda: probe.api.post(
            "/v1/activities", json={**body, "record_id": contact_id}
        )
    return None


@check("policy")
def _policy(probe: Probe) -> list[str]:
    probe.refused(
        "setPolicy", path={"entity": "widgets"}, json={"workspace": "primary", "local_write": True}
    )
    write = _mirrored_write(probe)
    entity = write[0] if write is not None else "tags"
    answer = probe.call(
        "setPolicy", path={"entity": entity}, json={"workspace": "primary", "local_write": False}
    )
    try:
        if answer["local_write"] is not False:
            raise probe.broken(f"mirroring {entity} answered local_write {answer['local_write']}")
        if write is not None:
            refused = write[1]()
            code = error_code(refused)
            if (refused.status_code, code) != (403, "local_write_denied"):
                raise probe.broken(
                    f"a write to {entity} while it is mirrored answered {refused.status_code} "
                    f"{code}; expected 403 local_write_denied"
                )
    finally:
        probe.call(
            "setPolicy", path={"entity": entity}, json={"workspace": "primary", "local_write": True}
        )
    if write is None:
        return ["the effect not checked: add tag_catalogue_field under [conventions]"]
    restored = write[1]()
    if not restored.is_success:
        raise probe.broken(
            f"a write to {entity} after local_write: true answered {restored.status_code}"
        )
    return []


@check("success_event_types")
def _success_event_types(probe: Probe) -> list[str]:
    probe.refused(
        "createSuccessEventType",
        json={"workspace": "primary", "code": "Not A Code", "value": "required"},
    )
    for workspace, client, others in workspaces(probe):
        code = f"cc_check_{secrets.token_hex(4)}"
        body = {"workspace": workspace, "code": code, "value": "required"}
        probe.call("createSuccessEventType", json=body)
        probe.call("createSuccessEventType", json=body)
        probe.refused("createSuccessEventType", json={**body, "value": "forbidden"}, status=409)
        if code not in probe.listed_ids(client, "/v1/success-event-types"):
            raise probe.broken(
                f"the event type {code} made for workspace {workspace} is not in "
                f"GET /v1/success-event-types of {probe.role(client)}"
            )
        for other in others:
            if code in probe.listed_ids(other, "/v1/success-event-types"):
                raise probe.broken(
                    f"the event type {code} made for workspace {workspace} is listed for "
                    f"{probe.role(other)}"
                )
    return [] if probe.other is not None else [NO_OTHER]
