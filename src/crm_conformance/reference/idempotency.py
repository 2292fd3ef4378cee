"""Idempotency keys: a repeated write returns the original answer instead of acting twice.

Stored per workspace, token and key for 24 hours with a fingerprint of the request
(method, path and query, canonical JSON body). The key row is committed as
`processing` before the handler runs, so a concurrent duplicate sees it and answers
409 `idempotency_key_in_flight` instead of writing a second record. Only successful
answers are kept: a refused or failed request releases its key, so the client can fix
the request and retry with the same key. Under the variant `replays_refusals` a refusal
(a 4xx but 429, which a retry must be able to outwait) is kept and replayed too, as a
server reading "returns the original response" of every answer does.
"""

import hashlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from crm_conformance.reference.api_errors import ApiError, bad_query
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import parse_json
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Store, Transaction

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
WINDOW_SECONDS = 24 * 60 * 60
PROCESSING_SECONDS = 0.005
"""How long a keyed write holds its key as processing before it acts, while the server
answers other requests too. The reference's writes take well under a millisecond, so
without it a concurrent duplicate would seldom meet a first request still processing,
and no test could see the 409 `idempotency_key_in_flight` it must then answer (a busy
real server's writes take longer). Only under concurrency (`ACTIVE`): a hold on every
keyed write cost a quick run seconds (the fuzz layer sends hundreds), none of them
concurrent."""


class _Active:
    """How many requests the server is answering at this moment (the middleware counts
    them). Shared by every app of the process: it only decides the hold above."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    @contextmanager
    def request(self) -> Iterator[None]:
        with self._lock:
            self.count += 1
        try:
            yield
        finally:
            with self._lock:
                self.count -= 1


ACTIVE = _Active()


def fingerprint(method: str, target: str, body: bytes) -> str:
    """Same method, path, query and body (as JSON, whatever its spacing) → same print."""
    try:
        canonical = json.dumps(parse_json(body), sort_keys=True, separators=(",", ":"))
    except ApiError:
        canonical = body.decode("utf-8", "replace")
    return hashlib.sha256(f"{method} {target}\n{canonical}".encode()).hexdigest()


def ignores_key(method: str, path: str, settings: ServerSettings) -> bool:
    """A POST that writes nothing (search) need not honour `Idempotency-Key`.

    Under their faults, the close, the pause or a reversal is left out of the idempotency
    layer (only creates were wired to it), so a repeat acts again and meets the new state;
    so are the updates (only POST was wired), the deletes and the upsert."""
    if method in ("PATCH", "PUT") and settings.has_fault("update_ignores_idempotency_key"):
        return True
    if method == "DELETE" and settings.has_fault("delete_ignores_idempotency_key"):
        return True
    if path == "/v1/contacts/upsert" and settings.has_fault("upsert_ignores_idempotency_key"):
        return True
    if path.endswith("/close") and settings.has_fault("close_ignores_idempotency_key"):
        return True
    if path.endswith("/pause") and settings.has_fault("pause_ignores_idempotency_key"):
        return True
    if path.endswith("/reverse") and settings.has_fault("reverse_ignores_idempotency_key"):
        return True
    return path == "/v1/contacts/search" and settings.has_variant("search_ignores_idempotency_key")


def run_once(
    store: Store,
    settings: ServerSettings,
    *,
    workspace: str,
    token_id: str,
    key: str | None,
    fingerprint: str,
    handler: Callable[[], Reply],
) -> Reply:
    """Run `handler` once per key; replay its answer to later requests with the same key."""
    if not key:  # absent, or sent empty: no key to honour
        return handler()
    if len(key) > MAX_KEY_LENGTH and not settings.has_fault("idempotency_key_length_unchecked"):
        raise bad_query(HEADER, f"must be at most {MAX_KEY_LENGTH} characters", "too_long")
    if settings.has_fault("idempotency_key_must_be_uuid") and not _is_uuid(key):
        raise bad_query(HEADER, "must be a UUID", "pattern")
    shared = settings.has_fault("idempotency_cross_workspace")
    identity = ("", "", key) if shared else (workspace, token_id, key)
    with store.transaction() as tx:
        tx.execute(
            "DELETE FROM idempotency WHERE workspace = ? AND token_id = ? AND key = ?"
            " AND created_at < ?",
            (*identity, time.time() - WINDOW_SECONDS),
        )
        row = tx.execute(
            "SELECT fingerprint, state, status, body, headers FROM idempotency"
            " WHERE workspace = ? AND token_id = ? AND key = ?",
            identity,
        ).fetchone()
        if row is None:
            tx.execute(
                "INSERT INTO idempotency (workspace, token_id, key, fingerprint, state,"
                " created_at) VALUES (?, ?, ?, ?, 'processing', ?)",
                (*identity, fingerprint, time.time()),
            )
    if row is not None:
        return _answer_repeat(row, fingerprint, settings)
    if ACTIVE.count > 1:
        time.sleep(PROCESSING_SECONDS)
    try:
        reply = handler()
    except BaseException:
        _release(store, identity)
        raise
    if not keeps(reply.status, settings):
        _release(store, identity)
        return reply
    with store.transaction() as tx:
        tx.execute(
            "UPDATE idempotency SET state = 'done', status = ?, body = ?, headers = ?"
            " WHERE workspace = ? AND token_id = ? AND key = ?",
            (reply.status, json.dumps(reply.body), json.dumps(reply.headers), *identity),
        )
    return reply


def _answer_repeat(row: tuple[object, ...], fingerprint: str, settings: ServerSettings) -> Reply:
    stored_print, state, status, body, headers = row
    if stored_print != fingerprint and not settings.has_fault(
        "idempotency_key_ignored_across_bodies"
    ):
        raise ApiError(
            409,
            "idempotency_key_reused",
            "This Idempotency-Key was used with a different request body.",
            param=HEADER,
        )
    if state == "processing":
        in_flight = not settings.has_fault("in_flight_answers_conflict")
        raise ApiError(
            409,
            "idempotency_key_in_flight" if in_flight else "conflict",
            "The first request with this Idempotency-Key is still processing; retry shortly.",
            param=HEADER,
        )
    stored = int(status)  # type: ignore[call-overload]  # stored JSON: an int
    refused = stored >= 400 and settings.has_fault("refusal_replayed_as_success")
    replayed_status = 200 if settings.has_fault("replay_returns_200") or refused else stored
    marked = {} if settings.has_fault("replay_missing_header") else {"Idempotent-Replay": "true"}
    return Reply(replayed_status, json.loads(str(body)), {**json.loads(str(headers)), **marked})


def follow(tx: Transaction, rendered: dict[str, Any]) -> None:
    """The fault `tag_replay_follows_the_tag`: the stored answers that rendered the record
    `rendered` shows now become its current rendering (a store of records, not answers)."""
    rows = tx.execute(
        "SELECT workspace, token_id, key, body FROM idempotency WHERE body LIKE ?",
        (f"%{rendered['id']}%",),
    ).fetchall()
    for workspace, token_id, key, body in rows:
        if json.loads(body).get("id") == rendered["id"]:
            tx.execute(
                "UPDATE idempotency SET body = ? WHERE workspace = ? AND token_id = ? AND key = ?",
                (json.dumps(rendered), workspace, token_id, key),
            )


def keeps(status: int, settings: ServerSettings) -> bool:
    """Whether an answer of `status` is stored for replay: a success, or under the
    variant `replays_refusals` (and the fault `refusal_replayed_as_success`) a refusal
    the client cannot outwait."""
    if 200 <= status < 300:
        return True
    refusal = 400 <= status < 500 and status != 429
    kept = settings.has_variant("replays_refusals") or settings.has_fault(
        "refusal_replayed_as_success"
    )
    return refusal and kept


def _release(store: Store, identity: tuple[str, str, str]) -> None:
    with store.transaction() as tx:
        tx.execute(
            "DELETE FROM idempotency WHERE workspace = ? AND token_id = ? AND key = ?", identity
        )


def _is_uuid(key: str) -> bool:
    """Whether `key` is a UUID (what the `idempotency_key_must_be_uuid` fault insists on)."""
    try:
        uuid.UUID(key)
    except ValueError:
        return False
    return True
