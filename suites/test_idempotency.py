"""Idempotency: a repeated write with the same key answers once, whatever the timing.

"Every write accepts an optional `Idempotency-Key` header", so each rule is checked on
every write: the creates of tags (public API only), activities and deals (their
contact, pipeline and stage come from the adapter), closing a conversation and pausing a
campaign (made by the adapter), and the writes whose shape is the target's: the upsert,
the update and the delete of each record kind, the conversation moves and resuming a
campaign (`steps.operations`). Each is a write where acting twice is visible: a second
record, a `tag_already_exists` conflict with the first one, a 409 for a conversation
already closed or a campaign not running, an update stamped twice, a 404 for a record
already deleted. A write whose body is fixed (a move's
convention, a pause, resume or delete with none) has no other body to reuse its key with.
"""

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import httpx
import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    RecordFactory,
    Updates,
    error_of,
    expect_error,
    expect_success,
    expect_true,
    expect_value,
    expect_written,
    operations,
    stamp,
)

KEY_HEADER = "Idempotency-Key"
REPLAY_HEADER = "Idempotent-Replay"
MAX_KEY = document.max_idempotency_key()
DUPLICATES = 6
"""Concurrent requests sent with one key; enough to overlap on any server."""
THREAD_TIMEOUT = 30.0


@pytest.fixture
def api(configured_api: ApiClient) -> ApiClient:
    """The configured tokens.full, even when the run has a token pool: the scope of a key
    is not shown (the reference keeps it per workspace, token and key), so every keyed
    write of this module and each of its repeats go through that one token."""
    return configured_api


@dataclass(frozen=True)
class Write:
    """A write: where to POST, and a body maker (each call a new, distinct body; None
    for an operation that takes no body)."""

    path: str
    body: Callable[[], Any]
    method: str = "POST"
    own_req: str | None = None
    """The rule of this operation's own section: close's replay header (checked on the
    replay), pause's optional key (checked on the first answer)."""

    def send(self, client: ApiClient, body: Any, headers: dict[str, str]) -> httpx.Response:
        if body is None:
            return client.request(self.method, self.path, headers=headers)
        return client.request(self.method, self.path, json=body, headers=headers)

    def succeeded(self, response: httpx.Response, req_id: str) -> Any:
        """The answer's JSON object, its success required (a delete's may be None)."""
        return expect_written(response, req_id, self.method)

    def keyed(self, client: ApiClient, key: str, req_id: str) -> "Keyed":
        """This write sent once with a new body under `key`, its success required."""
        headers, body = {KEY_HEADER: key}, self.body()
        first = self.send(client, body, headers)
        return Keyed(self, headers, body, first, self.succeeded(first, req_id))


@dataclass(frozen=True)
class Keyed:
    """A write sent once under a key: what a repeat reuses, and what it first answered."""

    write: Write
    headers: dict[str, str]
    body: Any
    first: httpx.Response
    original: Any

    def repeat(self, client: ApiClient) -> httpx.Response:
        """The same write again: the same body under the same key."""
        return self.write.send(client, self.body, self.headers)


def _tag_write(factory: RecordFactory, maker: operations.Maker) -> Write:
    selector = maker.convention("tag_catalogue_field")
    return Write("/v1/tags", lambda: {"name": factory.unique("idem-tag"), selector: "contact"})


def _activity_write(factory: RecordFactory, maker: operations.Maker) -> Write:
    record_id = factory.contact()["id"]
    due_at = stamp()
    return Write(
        "/v1/activities",
        lambda: {"title": factory.unique("idem-act"), "due_at": due_at, "record_id": record_id},
    )


def _deal_write(factory: RecordFactory, maker: operations.Maker) -> Write:
    pipelines = factory.adapter.fixtures().pipelines
    if not pipelines or not pipelines[0].stages:
        pytest.skip("the adapter's GET /v1/fixtures lists no pipeline with a stage")
    base = {
        "pipeline_id": pipelines[0].id,
        "stage_id": pipelines[0].stages[0].id,
        "contact_id": factory.contact()["id"],
    }
    return Write("/v1/deals", lambda: {**base, "title": factory.unique("idem-deal")})


def _close_write(factory: RecordFactory, maker: operations.Maker) -> Write:
    """Closing answers 200 once; acting twice would answer 409 `conversation_closed`."""
    conversation = factory.conversation(status="active")
    outcomes = itertools.cycle(({"outcome": "resolved"}, {"outcome": "won"}))
    return Write(f"/v1/conversations/{conversation['id']}/close", lambda: dict(next(outcomes)))


def _pause_write(factory: RecordFactory, maker: operations.Maker) -> Write:
    """Pausing takes no body; acting twice would answer 409 `campaign_not_running`."""
    campaign = factory.campaign(status="running")
    return Write(f"/v1/campaigns/{campaign['id']}/pause", lambda: None)


def _upsert_write(factory: RecordFactory, maker: operations.Maker) -> Write:
    """Each body a new contact (another external_id and phone)."""
    return Write("/v1/contacts/upsert", maker.upsert_body)


def _event_write(factory: RecordFactory, maker: operations.Maker) -> Write:
    """Events of one new type (its value required), each body another value."""
    code = maker.event_code()
    values = itertools.count(operations.EVENT_VALUE)
    call = maker.success_event(code)
    return Write(call.path, lambda: maker.success_event(code, next(values)).body)


def _update_write(kind: str) -> Callable[[RecordFactory, operations.Maker], Write]:
    """The target's update of a new record of `kind`; each body a new value of the
    plain field `operations.PLAIN_CHANGE` changes."""

    def make(factory: RecordFactory, maker: operations.Maker) -> Write:
        record_id = maker.record_id(kind)
        ((field, value),) = operations.PLAIN_CHANGE[kind].items()

        def body() -> Any:
            changes = {field: f"{value}-{factory.unique('idem')}"}
            return conventions.update(maker.convention, kind, record_id, changes).body

        update = conventions.update(maker.convention, kind, record_id, {})
        return Write(update.path, body, method=update.method)

    return make


def _create_write(kind: str) -> Callable[[RecordFactory, operations.Maker], Write]:
    """The target's create of `kind` (`[conventions.creates]`); each body a new record."""

    def make(factory: RecordFactory, maker: operations.Maker) -> Write:
        def body() -> Any:
            return conventions.create(maker.convention, kind, maker.create_fields(kind)).body

        return Write(conventions.create(maker.convention, kind, {}).path, body)

    return make


def _note_write(action: str) -> Callable[[RecordFactory, operations.Maker], Write]:
    """The target's note create (`[conventions.notes]`; each body a new note's text on one
    contact) or change of a new note (each body a new text)."""

    def make(factory: RecordFactory, maker: operations.Maker) -> Write:
        if action == "create":
            record_id = maker.contact_id()

            def body() -> Any:
                text = factory.unique("idem")
                return conventions.note_create(maker.convention, record_id, text).body

            return Write(conventions.path(maker.convention, "notes.create_path"), body)
        note_id = maker.note_id()

        def changed() -> Any:
            return conventions.note_update(maker.convention, note_id, factory.unique("idem")).body

        made = conventions.note_update(maker.convention, note_id, "")
        return Write(made.path, changed, method=made.method)

    return make


def _fixed_write(operation_id: str) -> Callable[[RecordFactory, operations.Maker], Write]:
    """A write with one body, the call `steps.operations` builds (a move at the target's
    path and body, resuming a paused campaign)."""

    def make(factory: RecordFactory, maker: operations.Maker) -> Write:
        call = operations.BUILDERS[operation_id](maker)
        body = None if call.body is operations.NO_BODY else call.body
        return Write(call.path, lambda: body, method=call.method)

    return make


def _assign_write(factory: RecordFactory, maker: operations.Maker) -> Write:
    """Assignment at the target's path and body, each body another teammate of the
    adapter's fixtures in turn: a key reused to assign someone else is a key reused with
    another body (with one teammate, or a body that names none, every body is one)."""
    calls = maker.moves("assign", "waiting", None)
    bodies = itertools.cycle([None if c.body is operations.NO_BODY else c.body for c in calls])
    return Write(calls[0].path, lambda: next(bodies), method=calls[0].method)


WRITES: dict[str, Callable[[RecordFactory, operations.Maker], Write]] = {
    "tag": _tag_write,
    "activity": _activity_write,
    "deal": _deal_write,
    "close": _close_write,
    "pause": _pause_write,
    "upsert": _upsert_write,
    **{f"create {kind}": _create_write(kind) for kind in conventions.CREATED},
    **{f"update {kind}": _update_write(kind) for kind in conventions.UPDATED},
    **{f"delete {kind}": _fixed_write(f"delete{kind.title()}") for kind in conventions.DELETED},
    "handoff": _fixed_write("handoffConversation"),
    "assign": _assign_write,
    "resume conversation": _fixed_write("resumeConversation"),
    "resume campaign": _fixed_write("resumeCampaign"),
    "cancel activity": _fixed_write("cancelActivity"),
    "success event": _event_write,
    "create note": _note_write("create"),
    "update note": _note_write("update"),
    "delete note": _fixed_write("deleteNote"),
    "reverse success event": _fixed_write("reverseSuccessEvent"),
}
FIXED_BODY = (
    "delete note",
    *(f"delete {kind}" for kind in conventions.DELETED),
    "pause",
    "cancel activity",
    "handoff",
    "resume conversation",
    "resume campaign",
    "reverse success event",
)
OWN_RULE = {"close": "IDEM-008", "pause": "IDEM-009"}
"""The writes whose own section speaks of idempotency: "Header `Idempotent-Replay: true`
on a stored replay" (close), "optional `Idempotency-Key`" (pause)."""
MARKS = {name: pytest.mark.req(req_id) for name, req_id in OWN_RULE.items()}
WITH_BODY = [pytest.param(n, marks=MARKS.get(n, ())) for n in sorted(WRITES) if n not in FIXED_BODY]
"""The writes whose body can change: a key cannot be reused with another body on the
others."""


@pytest.fixture(params=[pytest.param(name, marks=MARKS.get(name, ())) for name in sorted(WRITES)])
def write(request: pytest.FixtureRequest, factory: RecordFactory, maker: operations.Maker) -> Write:
    made = WRITES[request.param](factory, maker)
    return replace(made, own_req=OWN_RULE.get(request.param))


def _body(response: httpx.Response) -> object:
    """The parsed body, or None where there is none or it is not JSON."""
    try:
        return response.json() if response.content else None
    except ValueError:
        return None


def _replayed(response: httpx.Response) -> bool:
    return str(response.headers.get(REPLAY_HEADER, "")).strip().lower() == "true"


@pytest.mark.req("IDEM-001", "IDEM-003", "IDEM-004")
def test_a_repeat_replays_the_original_response(
    api: ApiClient,
    write: Write,
    unique: Callable[[str], str],
    observe: Callable[[str, Any], None],
) -> None:
    sent = write.keyed(api, unique("key"), "IDEM-001")
    first, original = sent.first, sent.original
    observe(f"create status of POST {write.path}", first.status_code)
    expect_true(
        first,
        "IDEM-004",
        not _replayed(first),
        expected=f"no {REPLAY_HEADER}: true on the first response",
        got=f"{REPLAY_HEADER}: {first.headers.get(REPLAY_HEADER)!r}",
    )
    repeat = sent.repeat(api)
    if write.own_req is not None:  # this operation's own sentence first, then the general
        header = write.own_req == "IDEM-008"  # the close's names the header; pause's the key
        expect_true(
            repeat,
            write.own_req,
            repeat.status_code == first.status_code
            and _body(repeat) == original
            and (_replayed(repeat) or not header),
            expected="the original answer again"
            + (f", with {REPLAY_HEADER}: true" if header else ", the key honoured"),
            got=f"{repeat.status_code} {REPLAY_HEADER}: {repeat.headers.get(REPLAY_HEADER)!r}",
        )
    expect_value(
        repeat,
        "IDEM-003",
        "status of the repeat",
        got=repeat.status_code,
        expected=first.status_code,
    )
    replayed = write.succeeded(repeat, "IDEM-003")
    expect_value(repeat, "IDEM-003", "body of the repeat", got=replayed, expected=original)
    expect_true(
        repeat,
        "IDEM-004",
        _replayed(repeat),
        expected=f"{REPLAY_HEADER}: true on the replay",
        got=f"{REPLAY_HEADER}: {repeat.headers.get(REPLAY_HEADER)!r}",
    )


CHANGED_LATER = {
    "tag": "tag",
    "activity": "activity",
    "deal": "deal",
    **{f"create {kind}": kind for kind in conventions.CREATED},
}
"""The creates whose record the target's update then changes, by the kind it updates."""


@pytest.mark.req("IDEM-003")
@pytest.mark.parametrize("name", sorted(CHANGED_LATER))
def test_a_repeat_after_the_record_changed_replays_the_original_response(
    api: ApiClient,
    factory: RecordFactory,
    maker: operations.Maker,
    updates: Updates,
    unique: Callable[[str], str],
    name: str,
) -> None:
    """ "returns the original response": a repeat of a create after its record was
    changed (by the target's update) answers what the create answered, not the record as
    it reads now."""
    sent = WRITES[name](factory, maker).keyed(api, unique("key"), "IDEM-003")
    original = sent.original
    kind, record_id = CHANGED_LATER[name], original.get("id")
    if not isinstance(record_id, str):
        pytest.skip(f"the create answered no id to change ({sent.write.path})")
    ((field, value),) = operations.PLAIN_CHANGE[kind].items()
    change = updates.send(kind, record_id, {field: f"{value} {unique('changed')}"})
    updates.applied(change, "IDEM-003", updates.control(kind, record_id))
    repeat = sent.repeat(api)
    expect_value(repeat, "IDEM-003", "body of the repeat", got=_body(repeat), expected=original)


@dataclass(frozen=True)
class Refused:
    """A move made once, so that doing it again meets the state the document refuses."""

    made: str
    """The requirement the first move answers to."""
    refused: str
    status: int
    code: str


REFUSED_AGAIN = {
    "close": Refused("CONV-024", "CONV-033", 409, "conversation_closed"),
    "pause": Refused("CAMP-004", "CAMP-006", 409, "campaign_not_running"),
}
"""The keyed writes a stated refusal answers the second time they are made."""


@pytest.mark.req("IDEM-003", "CONV-033", "CAMP-006")
@pytest.mark.parametrize("name", sorted(REFUSED_AGAIN))
def test_a_repeated_refusal_is_replayed_whole_or_refused_again(
    api: ApiClient,
    factory: RecordFactory,
    maker: operations.Maker,
    unique: Callable[[str], str],
    observe: Callable[[str, Any], None],
    name: str,
) -> None:
    """Whether a key keeps a refused write is not shown: a repeat may act again, and
    meet the same state, or replay the refusal. A replay is "the original response",
    status and body (its `request_id` names the first answer, whatever the repeat's own
    `X-Request-ID`); acting again is the same refusal."""
    write, rule = WRITES[name](factory, maker), REFUSED_AGAIN[name]
    write.succeeded(write.send(api, write.body(), {}), rule.made)
    body, keyed = write.body(), {KEY_HEADER: unique("key")}
    first = write.send(api, body, keyed)
    expect_error(first, rule.refused, status=rule.status, code=rule.code)
    repeat = write.send(api, body, keyed)
    observe(
        f"{name} refused, repeated under its key", "replayed" if _replayed(repeat) else "made again"
    )
    if not _replayed(repeat):
        expect_error(repeat, rule.refused, status=rule.status, code=rule.code)
        return
    expect_true(
        repeat,
        "IDEM-003",
        repeat.status_code == first.status_code and _body(repeat) == _body(first),
        expected=f"the original refusal again: {first.status_code} {first.text[:200]}",
        got=f"{repeat.status_code} {repeat.text[:200]}",
    )


@pytest.mark.req("IDEM-005")
@pytest.mark.parametrize("write", WITH_BODY, indirect=True)
def test_the_same_key_with_another_body_is_refused(
    api: ApiClient, write: Write, unique: Callable[[str], str]
) -> None:
    sent = write.keyed(api, unique("key"), "IDEM-005")
    other = write.body()
    if other == sent.body:
        pytest.skip(f"not applicable: every body of {write.path} is one (one teammate to assign)")
    reused = write.send(api, other, sent.headers)
    expect_error(reused, "IDEM-005", status=409, code="idempotency_key_reused")


@pytest.mark.req("IDEM-003", "IDEM-006")
def test_concurrent_duplicates_never_make_two_records(
    api: ApiClient,
    write: Write,
    unique: Callable[[str], str],
    observe: Callable[[str, Any], None],
) -> None:
    """Each duplicate is the original answer (replayed or not) or 409
    `idempotency_key_in_flight`; two different records, or any other refusal, means the
    write ran twice."""
    headers = {KEY_HEADER: unique("key")}
    body = write.body()
    start = threading.Barrier(DUPLICATES, timeout=THREAD_TIMEOUT)
    answers: list[httpx.Response] = []
    problems: list[BaseException] = []

    def send() -> None:
        client = api.with_token(api.token)
        try:
            start.wait()
            answers.append(write.send(client, body, headers))
        except BaseException as exc:  # reported below, never lost in the thread
            problems.append(exc)

    threads = [threading.Thread(target=send) for _ in range(DUPLICATES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(THREAD_TIMEOUT)
    if problems:
        raise problems[0]
    created = [r for r in answers if 200 <= r.status_code < 300]
    refused = [r for r in answers if not 200 <= r.status_code < 300]
    observe("concurrent duplicates: statuses", sorted(r.status_code for r in answers))
    for response in refused:
        expect_error(response, "IDEM-006", status=409, code="idempotency_key_in_flight")
    ids = {(write.succeeded(r, "IDEM-003") or {}).get("id") for r in created}
    expect_true(
        created[0] if created else answers[0],
        "IDEM-003",
        len(created) >= 1 and len(ids) == 1,
        expected=f"every successful duplicate naming one record ({DUPLICATES} sent)",
        got=f"{len(created)} successes naming {sorted(map(str, ids))}",
    )


@pytest.mark.req("IDEM-002", "IDEM-001")
def test_a_key_of_255_characters_is_accepted(
    api: ApiClient, write: Write, unique: Callable[[str], str]
) -> None:
    headers = {KEY_HEADER: unique("key").ljust(MAX_KEY, "k")}
    write.succeeded(write.send(api, write.body(), headers), "IDEM-002")


@pytest.mark.req("IDEM-002", "ERR-011")
def test_a_key_of_256_characters_is_refused(
    api: ApiClient, write: Write, unique: Callable[[str], str]
) -> None:
    """A header problem: 400 `validation_failed`."""
    headers = {KEY_HEADER: unique("key").ljust(MAX_KEY + 1, "k")}
    response = write.send(api, write.body(), headers)
    expect_error(response, "IDEM-002", status=400, code="validation_failed")


ON_A_RECORD = [
    name
    for name in sorted(WRITES)
    if name.startswith(("update ", "delete ", "resume "))
    or name in ("close", "pause", "handoff", "assign", "cancel activity", "reverse success event")
]
"""The writes whose path names the record they act on: two records, two paths."""


@pytest.mark.req("IDEM-003")
@pytest.mark.parametrize("name", ON_A_RECORD)
def test_a_key_reused_on_another_records_path_is_no_replay(
    api: ApiClient,
    factory: RecordFactory,
    maker: operations.Maker,
    unique: Callable[[str], str],
    name: str,
) -> None:
    """ "A repeat of a write" replays; the same key and body sent to another record's path
    is not a repeat of it. It acts on that record, or is refused as the key reused
    (409 `idempotency_key_reused`), never answered with the first record's response (a
    fingerprint of the route's template and the body, not the path)."""
    first_write, second_write = WRITES[name](factory, maker), WRITES[name](factory, maker)
    if first_write.path == second_write.path:
        pytest.skip(f"the target's {name} names its record in the body, not the path")
    keyed = first_write.keyed(api, unique("key"), "IDEM-003")
    response = second_write.send(api, keyed.body, keyed.headers)
    reused = response.status_code == 409 and error_of(response).get("code") == (
        "idempotency_key_reused"
    )
    original, answer = _body(keyed.first), _body(response)
    same_record = (
        isinstance(original, dict)
        and isinstance(answer, dict)
        and original.get("id") is not None
        and original.get("id") == answer.get("id")
    )
    expect_true(
        response,
        "IDEM-003",
        reused or not (_replayed(response) or same_record),
        expected=f"{second_write.method} {second_write.path} acting on its own record, or "
        f"409 idempotency_key_reused (the key was used on {first_write.path})",
        got=f"{response.status_code} {REPLAY_HEADER}: {response.headers.get(REPLAY_HEADER)!r}, "
        f"id {answer.get('id') if isinstance(answer, dict) else None!r}",
    )


@pytest.mark.req("IDEM-003", "TEN-001")
def test_a_key_never_replays_into_another_workspace(
    api: ApiClient,
    other_api: ApiClient,
    convention: Callable[[str], str],
    unique: Callable[[str], str],
) -> None:
    """The workspace is implied by the token, so the same key and body sent by another
    workspace is a new write there, not a replay of this workspace's record."""
    headers = {KEY_HEADER: unique("key")}
    body = {"name": unique("idem-tag"), convention("tag_catalogue_field"): "contact"}
    mine = expect_success(api.post("/v1/tags", json=body, headers=headers), "IDEM-003")
    theirs = other_api.post("/v1/tags", json=body, headers=headers)
    made = expect_success(theirs, "TEN-001")
    expect_true(
        theirs,
        "TEN-001",
        not _replayed(theirs) and made.get("id") != mine.get("id"),
        expected="a new tag in the other workspace, not a replay",
        got=f"{REPLAY_HEADER}: {theirs.headers.get(REPLAY_HEADER)!r}, id {made.get('id')!r} "
        f"(first workspace's tag: {mine.get('id')!r})",
    )
