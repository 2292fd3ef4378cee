"""Storage: SQLite through the standard library, one connection, serialized transactions.

Why one connection behind a lock: the server's handlers run in a thread pool, and the
suite hits it from several xdist workers at once. Serializing every transaction on a
single connection rules out "database is locked" and lost writes, and SQLite is fast
enough that the lock is not the bottleneck at the suite's volume.

Records of every kind share one table: (workspace, kind, id, created_at, updated_at,
data as JSON) plus `seq`, a sequence number bumped on every insert, update and delete,
so a change feed can be read in commit order. Deletions are kept in their own table
for the deletion feed. `settings` holds per-workspace values (policy, seeded ids).

Why two caches (issue 14: a page of 50 contacts cost 3 ms of server CPU, most of it
decoding, rendering and encoding the same rows again on every request):
- decoded rows, keyed by their stored JSON text: the same text always decodes to the
  same record, so no write can make an entry wrong (`Transaction.view`);
- `Transaction.memo`, values derived from the database alone, kept while the
  database's generation stands: SQLite's count of rows ever inserted, updated or
  deleted on this connection, and of the rollbacks and of the commits of other
  connections to the same file (`PRAGMA data_version`). Every write moves it, so
  nothing kept outlives the state it was computed from.

And a third, for a page read right after a write (a suite's run mostly writes and
reads in turn, and each write dropped the whole kept page: 50 rows rendered and encoded
again because one changed): `Transaction.row_memo`, a value derived from one stored
row and from records of other kinds, keyed by the row's stored text and kept while no
record of another kind is written. Writes are counted per kind by `insert`, `update`
and `delete`; any other write (raw SQL through `execute`, a setting) and every
rollback or other connection's commit drops every row's value as well.
"""

import json
import sqlite3
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

from crm_conformance.reference.clock import now_stamp
from crm_conformance.reference.identifiers import new_id

Record = dict[str, Any]
_T = TypeVar("_T")
CACHE_SIZE = 5_000
"""Entries each cache holds at most; a full cache starts over (rows and pages are small)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_kind ON records (workspace, kind, created_at, id);
CREATE TABLE IF NOT EXISTS deletions (
    id TEXT NOT NULL,
    workspace TEXT NOT NULL,
    kind TEXT NOT NULL,
    deleted_at TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (workspace, seq)
);
CREATE TABLE IF NOT EXISTS settings (
    workspace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (workspace, key)
);
CREATE TABLE IF NOT EXISTS sequence (only INTEGER PRIMARY KEY CHECK (only = 1), value INTEGER);
INSERT OR IGNORE INTO sequence (only, value) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS tokens (
    id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    selector TEXT NOT NULL UNIQUE,
    verifier_hash TEXT NOT NULL,
    kind TEXT NOT NULL,
    user_id TEXT,
    scopes TEXT NOT NULL,
    state TEXT NOT NULL,
    expires_at TEXT,
    live INTEGER NOT NULL,
    rate_limit TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS idempotency (
    workspace TEXT NOT NULL,
    token_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL,
    status INTEGER,
    body BLOB,
    headers TEXT,
    created_at REAL NOT NULL,
    PRIMARY KEY (workspace, token_id, key)
);
"""


class Store:
    """The database: open it once per server, use `transaction()` for every access."""

    def __init__(self, path: str = ":memory:") -> None:
        self._connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.RLock()
        self._depth = 0
        self._moves = 0
        """Rollbacks, and the transactions that found another connection's commits."""
        self._data_version: int | None = None
        self._shared = path != ":memory:"
        """Whether other connections may open the same database (a file)."""
        self._decoded: dict[str, Record] = {}
        self._texts: dict[int, str] = {}
        """The stored text of each record in `_decoded`, by the record's id() (unique
        while `_decoded` keeps the record alive; both are cleared together)."""
        self._memo: dict[Hashable, Any] = {}
        self._memo_generation = self.generation()
        self._writes: dict[str, int] = {}
        """Records written (inserted, updated, deleted) per kind, ever."""
        self._all_writes = 0
        self._other_writes = 0
        """Writes not counted per kind: raw SQL through `execute`, settings."""
        self.stale: dict[Hashable, Any] = {}
        """What the fault `embedded_organization_cached` keeps for the server's life."""
        self._rows: dict[Hashable, tuple[tuple[int, int, int], Any]] = {}
        if path != ":memory:":
            self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.executescript(_SCHEMA)

    @contextmanager
    def transaction(self) -> Iterator["Transaction"]:
        """One serialized transaction; nested calls on the same thread join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield Transaction(self._connection, self)
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            self._connection.execute("BEGIN IMMEDIATE")
            if self._shared:
                version = self._connection.execute("PRAGMA data_version").fetchone()[0]
                if version != self._data_version:  # another connection wrote meanwhile
                    self._data_version = version
                    self._moves += 1
            try:
                yield Transaction(self._connection, self)
            except BaseException:
                self._connection.execute("ROLLBACK")
                self._moves += 1  # what was kept during it may hold undone writes
                raise
            else:
                self._connection.execute("COMMIT")
            finally:
                self._depth = 0

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def generation(self) -> tuple[int, int]:
        """Moves on every write and every rollback (see the module)."""
        return self._connection.total_changes, self._moves

    def memo(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        """See `Transaction.memo`; called with the lock held."""
        generation = self.generation()
        if generation != self._memo_generation or len(self._memo) >= CACHE_SIZE:
            self._memo.clear()
            self._memo_generation = generation
        if key in self._memo:
            return cast(_T, self._memo[key])
        value = compute()
        if self.generation() == generation:  # a compute() that wrote keeps nothing
            self._memo[key] = value
        return value

    def decoded(self, text: str) -> Record:
        """The record stored as `text`, decoded once for every read of that same text."""
        record = self._decoded.get(text)
        if record is None:
            if len(self._decoded) >= CACHE_SIZE:
                self._decoded.clear()
                self._texts.clear()
            record = self._decoded[text] = json.loads(text)
            self._texts[id(record)] = text
        return record

    def wrote(self, kind: str | None) -> None:
        """Count a write of a record of `kind`; None: a write of anything else."""
        if kind is None:
            self._other_writes += 1
        else:
            self._writes[kind] = self._writes.get(kind, 0) + 1
            self._all_writes += 1

    def row_memo(self, row: Record, kind: str, key: Hashable, compute: Callable[[], _T]) -> _T:
        """See `Transaction.row_memo`; called with the lock held."""
        text = self._texts.get(id(row))
        if text is None or self._decoded.get(text) is not row:  # not a shared record
            return compute()
        others = (self._moves, self._other_writes, self._all_writes - self._writes.get(kind, 0))
        full_key = (key, kind, text)
        kept = self._rows.get(full_key)
        if kept is not None and kept[0] == others:
            return cast(_T, kept[1])
        before = self.generation()
        value = compute()
        if self.generation() == before:  # a compute() that wrote keeps nothing
            if len(self._rows) >= CACHE_SIZE:
                self._rows.clear()
            self._rows[full_key] = (others, value)
        return value


class Transaction:
    """Record operations inside one transaction of a `Store`."""

    def __init__(self, connection: sqlite3.Connection, store: Store) -> None:
        self._connection = connection
        self._store = store
        self.embeds: Callable[[Record], bool] = lambda _: True
        """Whether a record embedded in another (an expanded organization) may be shown
        to the caller: what an OAuth token's person sees (`routing.Call.transaction`)."""
        self.embed_cache: dict[Hashable, Any] | None = None
        """Under the fault `embedded_organization_cached`, embedded organizations as first
        rendered, kept across writes (`routing.Call.transaction` hands in `Store.stale`)."""

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        """Raw SQL, for modules that own a table of their own (tokens, idempotency).
        Anything but a SELECT counts as a write of unknown kind (see `row_memo`)."""
        if not sql.lstrip().upper().startswith("SELECT"):
            self._store.wrote(None)
        return self._connection.execute(sql, parameters)

    def _write(
        self, kind: str | None, sql: str, parameters: tuple[Any, ...] = ()
    ) -> sqlite3.Cursor:
        self._store.wrote(kind)
        return self._connection.execute(sql, parameters)

    def memo(self, key: Hashable, compute: Callable[[], _T]) -> _T:
        """`compute()` once while the database does not change, for values derived from
        it alone (the custom-field definitions each of 50 rows renders; a page's rows encoded).
        `key` names everything else the value depends on. Read only: callers never
        change the value. Any write or rollback, in this transaction or another, drops
        what was kept."""
        return self._store.memo(key, compute)

    def row_memo(self, row: Record, kind: str, key: Hashable, compute: Callable[[], _T]) -> _T:
        """`compute()` once for `row`, a record of `kind` from `view`, while neither its
        stored text changes nor any record of another kind is written: for values
        derived from the row and from records of other kinds only, never from another
        record of `kind` (a contact rendered with its tags, owner and custom fields).
        `key` names everything else the value depends on. Read only, as `memo`."""
        return self._store.row_memo(row, kind, key, compute)

    def _read(self, sql: str, parameters: tuple[Any, ...]) -> sqlite3.Cursor:
        return self._connection.execute(sql, parameters)

    def next_seq(self) -> int:
        """The next value of the change sequence."""
        self._connection.execute("UPDATE sequence SET value = value + 1 WHERE only = 1")
        return int(self._read("SELECT value FROM sequence WHERE only = 1", ()).fetchone()[0])

    # --- records ---------------------------------------------------------------------

    def insert(
        self,
        workspace: str,
        kind: str,
        data: Record,
        *,
        id: str | None = None,
        created_at: str | None = None,
        updated_at: str | None = None,
    ) -> Record:
        """Store a new record of `kind`; returns it with `id`, `created_at`, `updated_at`."""
        created = created_at or now_stamp()
        record = {
            **data,
            "id": id or new_id(kind),
            "created_at": created,
            "updated_at": updated_at or created,
        }
        self._write(
            kind,
            "INSERT INTO records (id, workspace, kind, created_at, updated_at, seq, data)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                record["id"],
                workspace,
                kind,
                record["created_at"],
                record["updated_at"],
                self.next_seq(),
                json.dumps(record),
            ),
        )
        return record

    def update(self, workspace: str, kind: str, record: Record, *, touch: bool = True) -> Record:
        """Store the new state of an existing record; `touch` sets `updated_at` to now."""
        if touch:
            record = {**record, "updated_at": now_stamp()}
        self._write(
            kind,
            "UPDATE records SET updated_at = ?, seq = ?, data = ?"
            " WHERE id = ? AND workspace = ? AND kind = ?",
            (
                record["updated_at"],
                self.next_seq(),
                json.dumps(record),
                record["id"],
                workspace,
                kind,
            ),
        )
        return record

    def delete(self, workspace: str, kind: str, id: str, *, noted: bool = True) -> bool:
        """Delete a record and note it in the deletion feed (unless not `noted`: the
        `organization_delete_unnoted` fault); False when there was none."""
        cursor = self._write(
            kind,
            "DELETE FROM records WHERE id = ? AND workspace = ? AND kind = ?",
            (id, workspace, kind),
        )
        if cursor.rowcount == 0 or not noted:
            return cursor.rowcount > 0
        self._connection.execute(
            "INSERT INTO deletions (id, workspace, kind, deleted_at, seq) VALUES (?, ?, ?, ?, ?)",
            (id, workspace, kind, now_stamp(), self.next_seq()),
        )
        return True

    def note_deletion(self, workspace: str, kind: str, id: str) -> None:
        """Note a deletion in the feed, the record left in place (the
        `deleted_records_still_served` fault: a soft delete no read honours)."""
        self._connection.execute(
            "INSERT INTO deletions (id, workspace, kind, deleted_at, seq) VALUES (?, ?, ?, ?, ?)",
            (id, workspace, kind, now_stamp(), self.next_seq()),
        )

    def get(self, workspace: str, kind: str, id: str) -> Record | None:
        """The record of `kind` with `id` in `workspace`, or None (also for another workspace)."""
        row = self._read(
            "SELECT data FROM records WHERE id = ? AND workspace = ? AND kind = ?",
            (id, workspace, kind),
        ).fetchone()
        return json.loads(row[0]) if row else None

    def all(self, workspace: str, kind: str) -> list[Record]:
        """Every record of `kind` in `workspace`, oldest first."""
        return [json.loads(text) for text in self._all_texts(workspace, kind)]

    def view(self, workspace: str, kind: str) -> list[Record]:
        """`all`, for reading only: the records are shared with every other read of the
        same stored text (decoded once, see the module), so callers never change them."""
        decoded = self._store.decoded
        return [decoded(text) for text in self._all_texts(workspace, kind)]

    def _all_texts(self, workspace: str, kind: str) -> list[str]:
        rows = self._read(
            "SELECT data FROM records WHERE workspace = ? AND kind = ? ORDER BY created_at, id",
            (workspace, kind),
        )
        return [row[0] for row in rows]

    def find(self, workspace: str, kind: str, **equals: Any) -> list[Record]:
        """Records of `kind` whose top-level fields equal the given values."""
        sql = "SELECT data FROM records WHERE workspace = ? AND kind = ?"
        parameters: list[Any] = [workspace, kind]
        for name, value in equals.items():
            sql += f" AND json_extract(data, '$.{name}') = ?"
            parameters.append(value)
        rows = self._read(sql + " ORDER BY created_at, id", tuple(parameters))
        return [json.loads(row[0]) for row in rows]

    def was_deleted(self, workspace: str, id: str) -> bool:
        """Whether the deletion feed of `workspace` holds `id` (for faults that take a
        deleted record's id as one still made)."""
        found = "SELECT 1 FROM deletions WHERE id = ? AND workspace = ?"
        return self._read(found, (id, workspace)).fetchone() is not None

    def deletions(self, workspace: str) -> list[Record]:
        """The deletion feed of `workspace` in order: `{id, kind, deleted_at, seq}`."""
        rows = self._read(
            "SELECT id, kind, deleted_at, seq FROM deletions WHERE workspace = ? ORDER BY seq",
            (workspace,),
        )
        return [{"id": r[0], "kind": r[1], "deleted_at": r[2], "seq": r[3]} for r in rows]

    # --- per-workspace settings --------------------------------------------------------

    def setting(self, workspace: str, key: str) -> Any:
        """A workspace setting's value, or None when unset."""
        row = self._read(
            "SELECT value FROM settings WHERE workspace = ? AND key = ?", (workspace, key)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def set_setting(self, workspace: str, key: str, value: Any) -> None:
        self._write(
            None,
            "INSERT INTO settings (workspace, key, value) VALUES (?, ?, ?)"
            " ON CONFLICT (workspace, key) DO UPDATE SET value = excluded.value",
            (workspace, key, json.dumps(value)),
        )

    def workspaces(self) -> list[str]:
        """Names of the seeded workspaces."""
        rows = self._read("SELECT workspace FROM settings WHERE key = 'workspace.name'", ())
        return [row[0] for row in rows]
