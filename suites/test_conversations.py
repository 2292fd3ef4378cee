"""Conversations: closing one, what closing does to it and to its contact, and refusals.

Conversations start when a contact writes in, which no public operation can cause, so
the adapter opens them (`factory.conversation`). The public API shows one operation in
full, `POST /v1/conversations/{conversation_id}/close`, whose answer (200, the
Conversation) is the only rendering of a conversation a test can read; the contact's
side effects are read with `GET /v1/contacts/{contact_id}`. Handoff, assign and resume
are only named by the document ("the moves themselves are not shown"): they are sent to
the paths and with the bodies the target file names (`[conventions.conversation_moves]`),
and their refusals, which the error tables give, are checked; where the target file
names the conversation list too, what each allowed move does to the conversation
(`updated_at`, `needs_human`) is read back there. Without those keys the move tests
skip, naming them; a path the file names is one the target offers.
"""

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import conventions, document
from crm_conformance.steps import (
    RecordFactory,
    Updates,
    absent_id,
    error_of,
    expect_enum,
    expect_error,
    expect_error_among,
    expect_field,
    expect_identifier,
    expect_insufficient_scope,
    expect_pages,
    expect_present,
    expect_refused_body,
    expect_status,
    expect_success,
    expect_timestamp,
    expect_true,
    expect_type_or_null,
    expect_value,
    instant,
    later,
    same_instant,
    settle,
    stamp,
    universal,
)

OUTCOMES = document.enum("ConversationCloseRequest", "outcome")
WON_REASONS = document.enum("ConversationCloseRequest", "won_reason")
CHANNELS = document.enum("Conversation", "channel")
STATES = document.enum("Conversation", "status")
OPEN_STATES = ("waiting", "active")
ABSENT: Any = object()
"""A close with no body at all (the document: "Body optional (may be absent or null)")."""


def close_path(conversation_id: str) -> str:
    return f"/v1/conversations/{conversation_id}/close"


def close(api: ApiClient, conversation_id: str, body: Any = ABSENT) -> httpx.Response:
    """POST the close; `body=None` sends a JSON `null`, `ABSENT` sends no body."""
    if body is ABSENT:
        return api.post(close_path(conversation_id))
    if body is None:
        return api.post(
            close_path(conversation_id),
            content=b"null",
            headers={"Content-Type": "application/json"},
        )
    return api.post(close_path(conversation_id), json=body)


def closed(response: httpx.Response, req_id: str, conversation_id: str) -> dict[str, Any]:
    """The Conversation of a successful close: 200, the same id, status `closed` (a
    status outside the enum fails its own rule first)."""
    body = expect_status(response, req_id, 200)
    expect_true(
        response,
        req_id,
        isinstance(body, dict),
        expected="the Conversation as a JSON object",
        got=repr(body)[:200],
    )
    expect_field(response, "CONV-002", body, "object", expected="conversation")
    expect_value(response, req_id, "id", got=body.get("id"), expected=conversation_id)
    expect_enum(response, "CONV-003", body, "status", STATES)
    expect_field(response, "CONV-024", body, "status", expected="closed")
    return cast(dict[str, Any], body)


def contact_of(api: ApiClient, contact_id: str, req_id: str) -> dict[str, Any]:
    """The contact as `GET /v1/contacts/{contact_id}` renders it now."""
    response = api.get(f"/v1/contacts/{contact_id}")
    body = expect_status(response, req_id, 200)
    expect_true(
        response, req_id, isinstance(body, dict), expected="the Contact", got=repr(body)[:200]
    )
    return dict(body)


def conversation_of(conversations: RecordFactory, contact_id: str) -> dict[str, Any]:
    """An active conversation with an existing contact (the factory makes a new one)."""
    made = conversations.adapter.create_conversation(status="active", contact_id=contact_id)
    conversations.created.append(("conversation", made["id"]))
    return made


@pytest.fixture
def conversations(factory: RecordFactory) -> RecordFactory:
    """The factory, once the adapter is known to open conversations."""
    return factory.requiring("conversations")


# --- no send --------------------------------------------------------------------------


@pytest.mark.req("CONV-043")
def test_no_operation_sends_a_message_into_a_conversation(
    api: ApiClient, conversations: RecordFactory, unique: Callable[[str], str]
) -> None:
    """ "There is no public operation that sends a message into a conversation." No test
    can show an absence, so the rule stays untestable and this never verifies it; a send
    where a REST API puts one, answered 2xx by the full token, shows one and fails it."""
    conversation = conversations.conversation(status="active")
    response = api.post(
        f"/v1/conversations/{conversation['id']}/messages", json={"text": unique("message")}
    )
    expect_true(
        response,
        "CONV-043",
        not response.is_success,
        expected="no message sent: the POST refused, as no such operation exists",
        got=f"{response.status_code} {response.text[:200]}",
    )


# --- close: the answer --------------------------------------------------------------


@pytest.mark.req("CONV-014", "CONV-015", "CONV-024")
@pytest.mark.parametrize("status", OPEN_STATES)
def test_close_answers_200_with_the_closed_conversation(
    api: ApiClient, conversations: RecordFactory, status: str
) -> None:
    """A refused close fails "closes a waiting or active conversation" (this test's point
    is each open state); an accepted one that is not 200 with the Conversation fails the
    answer's rule."""
    conversation = conversations.conversation(status=status)
    response = close(api, conversation["id"])
    expect_status(response, "CONV-024", *range(200, 300))
    body = closed(response, "CONV-015", conversation["id"])
    expect_field(response, "CONV-014", body, "status", expected="closed")


@pytest.mark.req(
    "CONV-001", "CONV-002", "CONV-003", "CONV-004", "CONV-005", "CONV-006", "CONV-009",
    "CONV-011", "CONV-012", "IDN-004", "IDN-005",
)  # fmt: skip
def test_the_closed_conversation_has_the_documented_fields(
    api: ApiClient, conversations: RecordFactory
) -> None:
    conversation = conversations.conversation(status="active")
    response = close(api, conversation["id"])
    body = closed(response, "CONV-015", conversation["id"])
    expect_present(response, "CONV-002", body, ("id", "object", "status"))
    expect_identifier(response, "CONV-001", body, "id", "conv_")
    expect_identifier(response, "IDN-004", body, "id", "conv_")
    expect_identifier(response, "IDN-005", body, "channel_id", "chn_", nullable=True)
    expect_true(
        response,
        "CONV-009",
        body.get("needs_human") is None or isinstance(body.get("needs_human"), bool),
        expected="needs_human a boolean or null",
        got=f"needs_human = {body.get('needs_human')!r}",
    )
    expect_enum(response, "CONV-003", body, "status", STATES)
    expect_enum(response, "CONV-004", body, "channel", CHANNELS)
    for field, req_id in (("channel_id", "CONV-005"), ("contact_id", "CONV-006")):
        expect_type_or_null(response, req_id, body, field, str, "a string")
    expect_field(response, "CONV-006", body, "contact_id", expected=conversation.get("contact_id"))
    expect_type_or_null(response, "CONV-011", body, "queue_name", str, "a string")
    for field in ("last_message_at", "created_at", "updated_at"):
        expect_timestamp(response, "CONV-012", body, field)


OPEN_HOLDERS = [("active", "agent"), ("active", "user"), ("waiting", None)]
"""Every state a close is allowed from, by who holds the conversation."""


@pytest.mark.req("CONV-032", "CONV-008", "CONV-009")
@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize(("status", "handler"), OPEN_HOLDERS)
def test_close_clears_handler_and_needs_human(
    api: ApiClient,
    conversations: RecordFactory,
    status: str,
    handler: str | None,
    outcome: str,
    observe: Callable[[str, Any], None],
) -> None:
    """From every open state, with every outcome ("`handler` and `needs_human` become
    null" is the transition's, whatever the outcome). Absent counts as null: the
    Conversation table has no "always present" list."""
    conversation = conversations.conversation(status=status, handler=handler)
    response = close(api, conversation["id"], {"outcome": outcome})
    body = closed(response, "CONV-015", conversation["id"])
    observe("close_renders_null_holder_fields", sorted({"handler", "needs_human"} & set(body)))
    # each field's own row ("null ... once closed"), then the close's "become null"
    for field, own in (("handler", ("CONV-008",)), ("needs_human", ("CONV-009",))):
        for rule in (*own, "CONV-032"):
            expect_true(
                response,
                rule,
                body.get(field) is None,
                expected=f"{field} null once closed as {outcome}",
                got=f"{field} = {body.get(field)!r}",
            )


@pytest.mark.req("CONV-032", "CONV-008", "CONV-009", "CONV-013")
@pytest.mark.parametrize("read", ["retrieve", "list"])
@pytest.mark.parametrize("outcome", OUTCOMES)
def test_a_closed_conversation_reads_closed_on_every_read(
    api: ApiClient,
    conversations: RecordFactory,
    convention: conventions.Lookup,
    outcome: str,
    read: str,
) -> None:
    """The close's answer is not the only read of it: the conversation's retrieve and
    its row in the list the target file names read it closed too, `handler` and
    `needs_human` null ("null once closed"), with the close's `updated_at` (the close
    is its last change). Held by a teammate, so both fields had a value to lose."""
    conversation = conversations.conversation(status="active", handler="user")
    body = closed(
        close(api, conversation["id"], {"outcome": outcome}), "CONV-015", conversation["id"]
    )
    response: httpx.Response | None = None
    if read == "retrieve":
        ids = {"conversation_id": str(conversation["id"])}
        response = api.get(conventions.path(convention, "retrieve.conversation_path", **ids))
        row: dict[str, Any] | None = expect_success(response, "CONV-032")
    else:
        row = read_in_list(api, convention, str(conversation["id"]))
        if row is None:  # the list's default filter and order are not shown
            pytest.skip(f"the conversation list does not show {conversation['id']} once closed")
    assert row is not None
    for field, own in (
        ("status", "CONV-032"),
        ("handler", "CONV-008"),
        ("needs_human", "CONV-009"),
    ):
        expected = "closed" if field == "status" else None
        expect_value(response, own, f"{read}: {field}", got=row.get(field), expected=expected)
    expect_true(
        response,
        "CONV-013",
        same_instant(row.get("updated_at"), body.get("updated_at")),
        expected=f"{read}: updated_at the close's {body.get('updated_at')!r} (to the "
        "second): the close is the conversation's last change",
        got=f"updated_at = {row.get('updated_at')!r}",
    )


@pytest.mark.req("CONV-013")
@pytest.mark.parametrize("outcome", OUTCOMES)
def test_close_moves_updated_at(api: ApiClient, conversations: RecordFactory, outcome: str) -> None:
    conversation = conversations.conversation(status="active")
    settle(conversation["updated_at"])  # a target stamping whole seconds still shows it
    response = close(api, conversation["id"], {"outcome": outcome})
    body = closed(response, "CONV-015", conversation["id"])
    expect_timestamp(response, "CONV-013", body, "updated_at")
    before = instant(conversation["updated_at"])
    after = instant(body["updated_at"])
    expect_true(
        response,
        "CONV-013",
        after > before,
        expected=f"updated_at later than before the close ({conversation['updated_at']})",
        got=f"updated_at = {body['updated_at']!r}",
    )


# --- close: the outcome and the contact ---------------------------------------------


@pytest.mark.req("CONV-020")
@pytest.mark.parametrize("outcome", OUTCOMES)
def test_every_outcome_closes(api: ApiClient, conversations: RecordFactory, outcome: str) -> None:
    conversation = conversations.conversation(status="active")
    closed(close(api, conversation["id"], {"outcome": outcome}), "CONV-020", conversation["id"])


@pytest.mark.req("CONV-027", "CONV-028", "CONV-021")
@pytest.mark.parametrize(
    "won_reason", [*WON_REASONS, None, ABSENT], ids=[*WON_REASONS, "null", "absent"]
)
def test_closing_as_won_marks_the_contact_won(
    api: ApiClient, conversations: RecordFactory, won_reason: Any
) -> None:
    conversation = conversations.conversation(status="active")
    body: dict[str, Any] = {"outcome": "won"}
    if won_reason is not ABSENT:
        body["won_reason"] = won_reason
    closed(close(api, conversation["id"], body), "CONV-021", conversation["id"])
    contact = contact_of(api, conversation["contact_id"], "CONV-028")
    for req_id in ("CONV-027", "CONV-028"):  # the transition's "Also", the status's section
        expect_value(
            None, req_id, "the contact's status", got=contact.get("status"), expected="won"
        )


@pytest.mark.req("SYNC-005", "CONV-027")
def test_the_contact_a_won_close_marks_won_is_stamped_changed(
    api: ApiClient, conversations: RecordFactory, updates: Updates
) -> None:
    """The contact's status changed, so its `updated_at` moves: "Changes to records are
    read by listing each resource with the `updated_since` filter". The contact is
    stamped an hour ago (the adapter's `created_at`, where it honours it), or the close
    waits out a second."""
    asked = datetime.now(UTC) - timedelta(hours=1)
    contact = updates.made("contact", created_at=stamp(asked))
    before = contact_of(api, contact["id"], "SYNC-005")
    if not _near(before.get("updated_at"), asked):  # stamped now: wait out a second
        time.sleep(1.1)
    conversation = conversation_of(conversations, contact["id"])
    closed(close(api, conversation["id"], {"outcome": "won"}), "CONV-021", conversation["id"])
    after = contact_of(api, contact["id"], "SYNC-005")
    expect_value(None, "CONV-027", "the contact's status", got=after.get("status"), expected="won")
    expect_true(
        None,
        "SYNC-005",
        later(after.get("updated_at"), before.get("updated_at")),
        expected=f"the contact's updated_at later than {before.get('updated_at')!r}",
        got=f"updated_at = {after.get('updated_at')!r}",
    )


def _near(value: Any, asked: datetime) -> bool:
    """Whether a stamp is the instant the adapter was asked for (to the second)."""
    try:
        return abs((instant(value) - asked).total_seconds()) < 2
    except (TypeError, ValueError):
        return False


IGNORED_CONTACT_FIELDS = frozenset({"updated_at", "avatar_url"})
"""Left out of "changes nothing else": `avatar_url` is a short-lived signed URL that may
differ on every read, and the document gives no rule for a contact's `updated_at`."""


@pytest.mark.req("CONV-030", "CONV-020")
@pytest.mark.parametrize(
    "body", [{"outcome": "resolved"}, ABSENT, None], ids=["resolved", "absent", "null"]
)
@pytest.mark.parametrize("contact_status", ["open", "on_hold"])
def test_closing_as_resolved_changes_nothing_on_the_contact(
    api: ApiClient,
    conversations: RecordFactory,
    body: Any,
    contact_status: str,
    observe: Callable[[str, Any], None],
) -> None:
    contact = conversations.contact(status=contact_status)
    conversation = conversation_of(conversations, contact["id"])
    before = contact_of(api, contact["id"], "CONV-030")
    response = close(api, conversation["id"], body)
    closed(response, "CONV-018", conversation["id"])
    after = contact_of(api, contact["id"], "CONV-030")
    changed = sorted(
        key
        for key in set(before) | set(after)
        if key not in IGNORED_CONTACT_FIELDS and before.get(key) != after.get(key)
    )
    observe(
        "contact_updated_at_moved_on_resolved_close",
        before.get("updated_at") != after.get("updated_at"),
    )
    expect_true(
        response,
        "CONV-030",
        not changed,
        expected="the contact unchanged by a resolved close",
        got="; ".join(f"{k}: {before.get(k)!r} -> {after.get(k)!r}" for k in changed)[:300],
    )


@pytest.mark.req("CONV-020")
def test_closing_as_spam_is_accepted(
    api: ApiClient, conversations: RecordFactory, observe: Callable[[str, Any], None]
) -> None:
    """How a spam mark shows on a contact is not shown: the contact is only observed."""
    conversation = conversations.conversation(status="active")
    before = contact_of(api, conversation["contact_id"], "CONV-020")
    closed(close(api, conversation["id"], {"outcome": "spam"}), "CONV-020", conversation["id"])
    after = contact_of(api, conversation["contact_id"], "CONV-020")
    observe(
        "contact_fields_changed_by_spam_close",
        sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k)),
    )


# --- close: the body ----------------------------------------------------------------


@pytest.mark.req("CONV-018")
@pytest.mark.parametrize("body", [ABSENT, None, {}], ids=["absent", "null", "empty object"])
def test_close_accepts_an_absent_or_null_body(
    api: ApiClient, conversations: RecordFactory, body: Any
) -> None:
    conversation = conversations.conversation(status="active")
    closed(close(api, conversation["id"], body), "CONV-018", conversation["id"])


@pytest.mark.req("CONV-019")
@pytest.mark.parametrize(
    "body",
    [{"reason": "done"}, {"outcome": "resolved", "notify": False}, {"Outcome": "won"}],
    ids=["unknown only", "beside a known key", "misspelt case"],
)
def test_close_rejects_unknown_keys(
    api: ApiClient,
    conversations: RecordFactory,
    body: dict[str, Any],
    observe: Callable[[str, Any], None],
) -> None:
    conversation = conversations.conversation(status="active")
    response = close(api, conversation["id"], body)
    error = expect_refused_body(response, "CONV-019")
    observe("unknown close body key: status and code", [response.status_code, error.get("code")])
    # rejected, not ignored: the conversation is still open and closes now
    closed(close(api, conversation["id"]), "CONV-019", conversation["id"])


@pytest.mark.req("CONV-020", "CONV-021")
@pytest.mark.parametrize(
    "body",
    [
        {"outcome": "lost"},
        {"outcome": "WON"},
        {"outcome": 1},
        {"outcome": "won", "won_reason": "lucky"},
        {"outcome": "won", "won_reason": "Other"},
    ],
    ids=[
        "unknown outcome",
        "outcome in capitals",
        "outcome a number",
        "unknown won_reason",
        "won_reason in capitals",
    ],
)
def test_close_refuses_values_outside_the_enums(
    api: ApiClient, conversations: RecordFactory, body: dict[str, Any]
) -> None:
    """A value outside the enum is 422 `validation_failed` ("fields invalid"); a value of
    another type may also read as a body not understood, 400 (a typed parser's), as on
    every write (`expect_refused_body`'s reading)."""
    conversation = conversations.conversation(status="active")
    req_id = "CONV-021" if "won_reason" in body else "CONV-020"
    allowed: dict[int, tuple[str, ...]] = {422: ("validation_failed",)}
    if not all(isinstance(value, str) for value in body.values()):
        allowed[400] = ("bad_request", "validation_failed")
    expect_error_among(close(api, conversation["id"], body), req_id, allowed)


@pytest.mark.req("CONV-023")
@pytest.mark.parametrize(
    "body",
    [
        {"won_reason": "other"},
        {"outcome": "resolved", "won_reason": "contract_signed"},
        {"outcome": "spam", "won_reason": "other"},
    ],
    ids=["default outcome", "resolved", "spam"],
)
def test_won_reason_without_won_is_refused(
    api: ApiClient, conversations: RecordFactory, body: dict[str, Any]
) -> None:
    conversation = conversations.conversation(status="active")
    expect_error(
        close(api, conversation["id"], body), "CONV-023", status=422, code="won_reason_without_won"
    )


# --- close: refusals ----------------------------------------------------------------


@pytest.mark.req("CONV-033", "CONV-014")
@pytest.mark.parametrize("outcome", OUTCOMES)
def test_closing_a_closed_conversation_is_a_conflict(
    api: ApiClient, conversations: RecordFactory, outcome: str
) -> None:
    conversation = conversations.conversation(status="active")
    closed(close(api, conversation["id"]), "CONV-015", conversation["id"])
    again = close(api, conversation["id"], {"outcome": outcome})
    expect_true(  # a close that closed: the conversation is closed now, not open
        again,
        "CONV-014",
        not 200 <= again.status_code < 300,
        expected="the conversation the first close answered for stays closed",
        got=f"a second close answered {again.status_code}",
    )
    expect_error(again, "CONV-033", status=409, code="conversation_closed")


@pytest.mark.req("CONV-025")
@pytest.mark.parametrize("status", OPEN_STATES)
def test_closing_a_conversation_without_a_contact_is_a_conflict(
    api: ApiClient, conversations: RecordFactory, status: str
) -> None:
    conversation = conversations.conversation(status=status, contact=False)
    expect_error(
        close(api, conversation["id"]), "CONV-025", status=409, code="conversation_has_no_contact"
    )


@pytest.mark.req("CONV-026", "CONV-025")
def test_closing_a_conversation_whose_contact_is_gone_is_a_conflict(
    api: ApiClient, conversations: RecordFactory
) -> None:
    conversations.adapter.require("records")
    contact = conversations.contact()
    conversation = conversation_of(conversations, contact["id"])
    conversations.adapter.delete_record(contact["id"])
    expect_error(
        close(api, conversation["id"]), "CONV-026", status=409, code="conversation_has_no_contact"
    )


@pytest.mark.req("CONV-016")
@pytest.mark.parametrize(
    "conversation_id", ["42", "con_" + "0" * 32, "conv_" + "G" * 32, "conv_123"]
)
def test_close_refuses_a_malformed_path_id(api: ApiClient, conversation_id: str) -> None:
    expect_status(close(api, conversation_id), "CONV-016", 400)


@pytest.mark.req("CONV-017")
def test_close_of_an_unknown_conversation_is_not_found(api: ApiClient) -> None:
    expect_error(close(api, "conv_" + "0" * 32), "CONV-017", status=404, code="not_found")


# --- other moves on a closed conversation -------------------------------------------


def move(
    api: ApiClient,
    conversations: RecordFactory,
    convention: conventions.Lookup,
    conversation_id: str,
    name: str,
    *,
    assignee_id: str | None = None,
) -> httpx.Response:
    """POST the move `name` (handoff, assign, resume) at the target's path with its body;
    assign names `assignee_id` (the first teammate of the fixtures unless given). Skips
    when the target refuses its own body as invalid: the moves' bodies are not shown, so
    a body the target file names may still want values the suite cannot know."""
    key = f"conversation_moves.{name}"
    path = conventions.path(convention, f"{key}_path", conversation_id=conversation_id)
    if name == "assign" and assignee_id is None:
        users = conversations.adapter.fixtures().users
        if not users:
            pytest.skip("the adapter's GET /v1/fixtures lists no user to assign to")
        assignee_id = users[0]
    values = {"conversation_id": conversation_id, "assignee_id": assignee_id or conventions.OMIT}
    body = conventions.body(convention, f"{key}_body", **values)
    response = api.post(path, json=body)
    if response.status_code in (400, 422) and "validation_failed" in response.text:
        pytest.skip(f"the {name} body is not shown, and the target refused {body!r} as invalid")
    return response


@pytest.mark.req("CONV-034")
@pytest.mark.parametrize("name", ["handoff", "assign", "resume"])
def test_a_closed_conversation_cannot_be_moved(
    api: ApiClient, conversations: RecordFactory, convention: conventions.Lookup, name: str
) -> None:
    conversation = conversations.conversation(status="active")
    closed(close(api, conversation["id"]), "CONV-015", conversation["id"])
    response = move(api, conversations, convention, conversation["id"], name)
    expect_error(response, "CONV-034", status=409, code="conversation_closed")


@pytest.mark.req("SCOPE-018", "SCOPE-021", "SCOPE-023", "SCOPE-028")
def test_a_handoff_without_conversations_write_is_insufficient_scope(
    api: ApiClient, conversations: RecordFactory, convention: conventions.Lookup
) -> None:
    """ "`conversations:write` changes who handles a conversation": a handoff by a token
    that can only read conversations is refused, and the message names the scope (other
    scopes the target may also want are not shown, so `param` is not looked at)."""
    conversation = conversations.conversation(status="active", handler="agent")
    reader = api.with_token(conversations.token(scopes=["conversations:read"]).token)
    response = move(reader, conversations, convention, conversation["id"], "handoff")
    expect_insufficient_scope(response, "conversations:write", "SCOPE-018", first=False)


HOLDERS: dict[str, dict[str, Any]] = {
    "the AI agent": {"status": "active", "handler": "agent"},
    "a teammate": {"status": "active", "handler": "user"},
    "the queue": {"status": "waiting", "handler": None},
}
"""Who holds an open conversation, as the adapter makes it."""


@pytest.mark.req("CONV-027", "CONV-028")
@pytest.mark.parametrize("contact_status", ["open", "on_hold", "lost"])
@pytest.mark.parametrize("holder", list(HOLDERS))
def test_a_won_close_marks_the_contact_won_from_every_state(
    api: ApiClient,
    conversations: RecordFactory,
    updates: Updates,
    holder: str,
    contact_status: str,
) -> None:
    """ "outcome `won` marks the contact won" whoever holds the conversation (the AI
    agent, a teammate, the queue) and whatever the contact's status was (open, on hold,
    lost): the side effect of one branch of the close, or of a move from `open` only,
    shows on the others."""
    contact = updates.made("contact", status=contact_status)
    made = conversations.adapter.create_conversation(contact_id=contact["id"], **HOLDERS[holder])
    conversations.created.append(("conversation", made["id"]))
    closed(close(api, made["id"], {"outcome": "won"}), "CONV-021", made["id"])
    now = contact_of(api, contact["id"], "CONV-028")
    for req_id in ("CONV-027", "CONV-028"):
        expect_value(
            None,
            req_id,
            f"the status of a contact {contact_status} before, its conversation held by {holder}",
            got=now.get("status"),
            expected="won",
        )


HELD_BY = {
    "the AI agent": ("agent", "agt_", "IDN-009"),
    "a teammate": ("user", "usr_", "IDN-018"),
}
"""The handler an open conversation reads by its holder: its kind, its id's prefix, and
the identifier row of that prefix ("AI agent | `agt_`", "user (teammate) | `usr_`")."""


@pytest.mark.req("CONV-007", "CONV-008", "CONV-042", "IDN-009", "IDN-018")
@pytest.mark.parametrize("holder", list(HOLDERS))
def test_an_open_conversation_reads_its_holder(
    api: ApiClient, conversations: RecordFactory, convention: conventions.Lookup, holder: str
) -> None:
    """Read back where the target file names a conversation's retrieve: held by the AI
    agent, the handler is `kind: agent` with an `agt_` id; by a teammate, `kind: user`
    with a `usr_` id; an `active` conversation has a handler ("handled by the AI agent or
    a teammate"); queued for a teammate (`waiting`, no holder), the handler is null."""
    made = conversations.conversation(**HOLDERS[holder])
    ids = {"conversation_id": str(made["id"])}
    path = conventions.path(convention, "retrieve.conversation_path", **ids)
    response = api.get(path)
    read = expect_success(response, "CONV-007")
    handler = read.get("handler")
    if holder not in HELD_BY:
        expect_field(response, "CONV-008", read, "handler", expected=None, why="queued")
        return
    kind, prefix, id_req = HELD_BY[holder]
    expect_true(
        response,
        "CONV-042",
        isinstance(handler, dict),
        expected=f"an active conversation held by {holder} with a handler",
        got=f"handler = {handler!r}",
    )
    assert isinstance(handler, dict)
    expect_value(response, "CONV-007", "handler.kind", got=handler.get("kind"), expected=kind)
    expect_identifier(response, id_req, handler, "id", prefix)


REFUSED_MOVES = [
    ("handoff", "a teammate", "CONV-035", "conversation_not_with_ai"),
    ("handoff", "the queue", "CONV-035", "conversation_not_with_ai"),
    ("assign", "the AI agent", "CONV-036", "conversation_with_ai"),
    ("resume", "the AI agent", "CONV-037", "conversation_already_with_ai"),
]


@pytest.mark.req("CONV-035", "CONV-036", "CONV-037")
@pytest.mark.parametrize(("name", "holder", "req_id", "code"), REFUSED_MOVES)
def test_a_move_the_holder_rules_out_is_a_conflict(
    api: ApiClient,
    conversations: RecordFactory,
    convention: conventions.Lookup,
    name: str,
    holder: str,
    req_id: str,
    code: str,
) -> None:
    conversation = conversations.conversation(**HOLDERS[holder])
    response = move(api, conversations, convention, conversation["id"], name)
    expect_error(response, req_id, status=409, code=code)


ALLOWED_MOVES = [
    ("handoff", "the AI agent", True),
    ("assign", "the queue", True),
    ("assign", "a teammate", True),
    ("resume", "a teammate", False),
    ("resume", "the queue", False),
]
"""Each move from each holder the error rules leave it allowed from, and whether a person
is then asked for or assigned (`needs_human` "true when a person has been asked for, or a
teammate was assigned")."""


def read_in_list(
    api: ApiClient, convention: conventions.Lookup, conversation_id: str
) -> dict[str, Any] | None:
    """The conversation's row in the conversation list the target file names (the moves
    are not shown, nor is what they answer: the list renders the Conversation)."""
    path = conventions.path(convention, "lists.conversation_path")
    rows = expect_pages(api, path, "CONV-013", {})
    return next((row for row in rows if row.get("id") == conversation_id), None)


@pytest.mark.req("CONV-013", "CONV-010")
@pytest.mark.parametrize(("name", "holder", "asks_for_a_person"), ALLOWED_MOVES)
def test_a_move_changes_the_conversation_as_the_document_ties_it(
    api: ApiClient,
    conversations: RecordFactory,
    convention: conventions.Lookup,
    name: str,
    holder: str,
    asks_for_a_person: bool,
) -> None:
    """Read back through the conversation list: `updated_at` "changes on any change,
    including handler", so it is later after every move; after a handoff or an
    assignment, `needs_human` is true."""
    conversation = conversations.conversation(**HOLDERS[holder])
    settle(conversation["updated_at"])  # a target stamping whole seconds still shows it
    response = move(api, conversations, convention, conversation["id"], name)
    if not response.is_success:  # the moves are not shown: only the listed refusals bind
        pytest.skip(f"the target refused the {name} from {holder}: {response.status_code}")
    universal(response)
    row = read_in_list(api, convention, conversation["id"])
    expect_true(
        response,
        "CONV-013",
        row is not None,
        expected=f"{conversation['id']} in the conversation list after the {name}",
        got="not listed",
    )
    assert row is not None
    expect_true(
        response,
        "CONV-013",
        later(row.get("updated_at"), conversation["updated_at"]),
        expected=f"updated_at later than before the {name} ({conversation['updated_at']})",
        got=f"updated_at = {row.get('updated_at')!r}",
    )
    if asks_for_a_person:
        expect_field(response, "CONV-010", row, "needs_human", expected=True)


@pytest.mark.req("CONV-007", "CONV-035", "CONV-036")
@pytest.mark.parametrize("then", ["handoff", "assign"])
def test_a_handoff_takes_the_conversation_from_the_ai_agent(
    api: ApiClient, conversations: RecordFactory, convention: conventions.Lookup, then: str
) -> None:
    """ "`conversation_with_ai` | AI agent has it; hand off first": once handed off, the
    AI agent no longer has the conversation. Its handler is not the AI agent (null while
    queued, a teammate once one has it); handed off again, it is
    `conversation_not_with_ai` ("a teammate or queue already has it"); assigned, it is
    never refused as `conversation_with_ai`."""
    conversation = conversations.conversation(**HOLDERS["the AI agent"])
    response = move(api, conversations, convention, conversation["id"], "handoff")
    if not response.is_success:  # the moves are not shown: only the listed refusals bind
        pytest.skip(f"the target refused the handoff from the AI agent: {response.status_code}")
    row = read_in_list(api, convention, conversation["id"]) or {}
    handler = row.get("handler")
    expect_true(
        response,
        "CONV-007",
        not (isinstance(handler, dict) and handler.get("kind") == "agent"),
        expected="after the handoff, a handler other than the AI agent (or null, queued)",
        got=f"handler = {handler!r}",
    )
    second = move(api, conversations, convention, conversation["id"], then)
    if then == "handoff":
        expect_error(second, "CONV-035", status=409, code="conversation_not_with_ai")
        return
    code = error_of(second).get("code") if second.status_code == 409 else None
    expect_true(
        second,
        "CONV-036",
        code != "conversation_with_ai",
        expected="an assignment after the handoff not refused as the AI agent's",
        got=f"{second.status_code} {code}",
    )


@pytest.mark.req("CONV-038")
def test_resuming_where_no_ai_agent_can_take_it_is_a_conflict(
    api: ApiClient, conversations: RecordFactory, convention: conventions.Lookup
) -> None:
    conversation = conversations.conversation(**HOLDERS["the queue"], agent_available=False)
    response = move(api, conversations, convention, conversation["id"], "resume")
    expect_error(response, "CONV-038", status=409, code="no_agent_available")


@pytest.mark.req("CONV-040")
@pytest.mark.parametrize("holder", ["a teammate", "the queue"])
def test_assigning_to_someone_who_is_not_a_teammate_is_refused(
    api: ApiClient, conversations: RecordFactory, convention: conventions.Lookup, holder: str
) -> None:
    conversation = conversations.conversation(**HOLDERS[holder])
    response = move(
        api, conversations, convention, conversation["id"], "assign", assignee_id=absent_id("usr")
    )
    expect_error(response, "CONV-040", status=422, code="assignee_not_found")


# --- after a close, the contact writes again ----------------------------------------


@pytest.mark.req("CONV-029", "CONV-020")
def test_a_contact_closed_as_spam_writing_again_is_not_held_by_the_ai_agent(
    api: ApiClient, adapter: AdapterClient, conversations: RecordFactory
) -> None:
    """ "outcome `spam` ... stops the AI agent replying to them in future": the replies
    are not observable, the holder of the contact's next conversation is. The AI agent
    holding it (`handler` of `kind: agent`) is the agent replying; the queue or a
    teammate may hold it. The adapter answers the conversation the contact's message
    reached, as the API renders it (`spec/adapter.yaml`, inbound)."""
    adapter.require("inbound")
    conversation = conversations.conversation(status="active")
    closed(close(api, conversation["id"], {"outcome": "spam"}), "CONV-020", conversation["id"])
    again = adapter.inbound(contact_id=conversation["contact_id"])
    conversations.created.append(("conversation", str(again.get("id"))))
    handler = again.get("handler")
    expect_true(
        None,
        "CONV-029",
        not (isinstance(handler, dict) and handler.get("kind") == "agent"),
        expected="the spam contact's next conversation not held by the AI agent",
        got=f"{again.get('id')!r}: status = {again.get('status')!r}, handler = {handler!r}",
    )


@pytest.mark.req("CONV-041")
def test_a_contact_writing_after_the_close_opens_a_new_conversation(
    api: ApiClient, adapter: AdapterClient, conversations: RecordFactory
) -> None:
    adapter.require("inbound")
    conversation = conversations.conversation(status="active")
    response = close(api, conversation["id"])
    closed(response, "CONV-015", conversation["id"])
    again = adapter.inbound(contact_id=conversation["contact_id"])
    conversations.created.append(("conversation", str(again.get("id"))))
    expect_true(
        None,
        "CONV-041",
        again.get("id") != conversation["id"] and again.get("status") in OPEN_STATES,
        expected=f"a new open conversation for the contact, not {conversation['id']}",
        got=f"id = {again.get('id')!r}, status = {again.get('status')!r}",
    )
