"""A person's permissions: "An OAuth token is refused where its person lacks permission".

The API grants and withholds none, so the adapter's `permissions` feature does: it
withholds from a new person the permission to change CRM records (403
`user_grant_denied`, "authorizing person may not make the change") or to act on
conversations (403 `conversation_access_denied`, "authorizing person cannot act on the
conversation"), for every OAuth token acting for them, whatever its scopes.

Each point is one write, every one of its class: each write to contacts, organizations,
deals, activities or tags that the document shows or the target file names, and each
conversation move. The person first makes the write with every permission (which
changes a person may make is not shown: one they may not make even then is not
applicable), then the permission is withheld and the same write, on fresh data, must be
refused with the code.

A note is its author's: "only the note's author may change or delete it" (403
`note_author_only`), through the note operations the target file names
(`[conventions.notes]`).
"""

from collections.abc import Callable

import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import document
from crm_conformance.steps import RecordFactory, expect_error, expect_true, operations

RECORD_ROWS = ("contacts", "organizations", "deals", "activities", "tags")
"""The scope table's rows of CRM records: their writes are changes to records."""

WRITE_SCOPES = {f"{row}:write" for row in RECORD_ROWS}
CHANGES = sorted(
    {op.operation_id for op in document.operations() if set(op.scopes) & WRITE_SCOPES}
    | {op.operation_id for op in operations.NAMED if set(op.scopes) & WRITE_SCOPES}
)
"""Every write of a record the document shows or the target file may name."""

MOVES = sorted(
    {"closeConversation"}
    | {op.operation_id for op in document.operations() if op.scopes == ("conversations:write",)}
)
"""Closing (its scope is not shown) and every move `conversations:write` covers."""

WITHHELD = {"OAUTH-009": "changes", "OAUTH-010": "conversations"}
CODES = {"OAUTH-009": "user_grant_denied", "OAUTH-010": "conversation_access_denied"}


def _refused_once_withheld(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    call: Callable[[], operations.Call],
    req_id: str,
) -> None:
    """The write `call` builds (each time on fresh data) passes for a new person's OAuth
    token, then, with the permission of `req_id` withheld, is refused with its code."""
    adapter.require("permissions")
    person = factory.user()
    client = api.with_token(factory.token(kind="oauth", user_id=person["id"]).token)
    control = call().send(client)
    if not control.is_success:
        pytest.skip(
            f"the person may not make this write even with every permission "
            f"({control.status_code} {control.text[:120]}): which changes a person may make "
            "is not shown"
        )
    adapter.set_permissions(person["id"], **{WITHHELD[req_id]: False})
    refused = call().send(client)
    expect_true(
        refused,
        "OAUTH-008",
        not refused.is_success,
        expected=f"the write refused once the person's {WITHHELD[req_id]} is withheld",
        got=f"{refused.status_code} {refused.text[:120]}",
    )
    expect_error(refused, req_id, status=403, code=CODES[req_id])


POINTS = [
    pytest.param(req_id, operation_id, id=operation_id, marks=pytest.mark.req(req_id, "OAUTH-008"))
    for req_id, writes in (("OAUTH-009", CHANGES), ("OAUTH-010", MOVES))
    for operation_id in writes
]
"""Each record write refused as `user_grant_denied`, each move as
`conversation_access_denied`."""


@pytest.mark.parametrize(("req_id", "operation_id"), POINTS)
def test_a_person_without_the_permission_is_refused_the_write(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    maker: operations.Maker,
    req_id: str,
    operation_id: str,
) -> None:
    build = operations.BUILDERS[operation_id]
    _refused_once_withheld(api, adapter, factory, lambda: build(maker), req_id)


@pytest.mark.req("OAUTH-014")
@pytest.mark.parametrize("action", ["update", "delete"])
def test_only_a_notes_author_changes_or_deletes_it(
    api: ApiClient, factory: RecordFactory, maker: operations.Maker, action: str
) -> None:
    """ "only the note's author may change or delete it": a note one person wrote (their
    OAuth token, through the target's note create) is refused to another person's
    change or delete with 403 `note_author_only`. The control: the author may make it,
    on a second note of theirs (else not applicable: what an author may do is not
    shown, and the refusal would be the write's, not the author's)."""
    author, other = (
        api.with_token(factory.token(kind="oauth", user_id=factory.user()["id"]).token)
        for _ in range(2)
    )
    note_id, control_id = maker.note_id(author), maker.note_id(author)
    control = operations.note_call(maker, action, control_id).send(author)
    if not control.is_success:
        pytest.skip(f"the author's own {action} of their note answered {control.status_code}")
    refused = operations.note_call(maker, action, note_id).send(other)
    expect_error(refused, "OAUTH-014", status=403, code="note_author_only")
