"""The ledger of a run: every record it created, one JSON line each, in the report folder.

`crm-conformance sweep --run` deletes exactly these records (`ledger_sweep`), so nothing
a run made is left on a shared target, whichever list operations the server offers (the
document shows no `GET /v1/organizations`, `/deals`, `/activities`, `/tags` or
`/campaigns`, so the prefix sweep cannot search a server that lacks them).

Creation is caught at the two chokepoints: the adapter client's writes and the public
API client's answers to a POST (`observe_api`). Only the kinds the adapter's
`DELETE /v1/records/{id}` deletes are kept: contacts, organizations, deals,
activities, tags, campaigns and users. A line holds the id, its kind, its workspace
(`primary` or `secondary`) and the way it was made; never a token or a body.

Each line is written whole with one `write` on a descriptor opened `O_APPEND`: the
processes of a run (xdist workers, `plugin.forks` children) append to one file without
tearing each other's lines, and a Ctrl-C or a crashed worker loses nothing already
written.
"""

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LEDGER_FILE = "created.jsonl"
"""The ledger's name in the report folder."""

KINDS: dict[str, str] = {
    "con_": "contact",
    "org_": "organization",
    "deal_": "deal",
    "act_": "activity",
    "tag_": "tag",
    "camp_": "campaign",
    "usr_": "user",
}
"""Id prefix (identifier table, `checks.OBJECT_PREFIXES`) of each kind the adapter's
`DELETE /v1/records/{id}` deletes: the kinds the ledger keeps."""

WORKSPACE_OF_ROLE = {"full": "primary", "other_workspace": "secondary"}
"""The workspace of each token role of the target file (adapter-issued tokens are added
as the adapter issues them)."""


def kind_of(record_id: Any) -> str | None:
    """The kind `record_id` names by its prefix, when the ledger keeps that kind."""
    if not isinstance(record_id, str):
        return None
    return next((kind for prefix, kind in KINDS.items() if record_id.startswith(prefix)), None)


@dataclass(frozen=True)
class Entry:
    """One record a run created."""

    id: str
    kind: str
    workspace: str
    via: str
    """`adapter` or `api`."""

    def line(self) -> str:
        return json.dumps(
            {"id": self.id, "kind": self.kind, "workspace": self.workspace, "via": self.via}
        )


def append(path: Path, entry: Entry) -> None:
    """Append `entry` as one whole line with one `write` on an `O_APPEND` descriptor."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (entry.line() + "\n").encode())
    finally:
        os.close(fd)


class Ledger:
    """Appends the records this process creates to `path` (each id once per process)."""

    def __init__(self, path: Path, *, tokens: Mapping[str, str] | None = None) -> None:
        self.path = path
        self._workspaces = {
            value: WORKSPACE_OF_ROLE[role]
            for role, value in (tokens or {}).items()
            if role in WORKSPACE_OF_ROLE
        }
        self._written: set[str] = set()

    def note_token(self, token: str, workspace: str) -> None:
        """A token the adapter issued acts in `workspace` (kept in memory, never written)."""
        self._workspaces[token] = workspace

    def note(self, record_id: Any, *, workspace: str, via: str) -> None:
        """Append `record_id` if it is of a kind the ledger keeps and not written yet."""
        kind = kind_of(record_id)
        if kind is None or record_id in self._written:
            return
        append(self.path, Entry(id=record_id, kind=kind, workspace=workspace, via=via))
        self._written.add(record_id)

    def observe_api(
        self, *, method: str, path: str, status: int, body: bytes, authorization: str | None
    ) -> None:
        """Note the record a public API answer says was created: a 2xx answer to a POST
        whose JSON object has an `id` of a kept kind that the request's path does not name
        (`POST /v1/deals/{id}/won` answers the deal it acted on, not a new one)."""
        if method != "POST" or not 200 <= status < 300 or not body.startswith(b"{"):
            return
        try:
            answer = json.loads(body)
        except ValueError:
            return
        record_id = answer.get("id") if isinstance(answer, dict) else None
        if kind_of(record_id) is None or str(record_id) in path:
            return
        token = (authorization or "").removeprefix("Bearer ")
        self.note(record_id, workspace=self._workspaces.get(token, "primary"), via="api")

    def observe_adapter(
        self, *, path: str, sent: Mapping[str, Any] | None, answer: Mapping[str, Any]
    ) -> None:
        """Note what an adapter POST made: the record it answers, and the contact it made
        for a conversation asked for without one (`contact_id` absent)."""
        workspace = str((sent or {}).get("workspace", "primary"))
        if isinstance(answer.get("token"), str):
            self.note_token(answer["token"], workspace)
        self.note(answer.get("id"), workspace=workspace, via="adapter")
        if path == "/v1/conversations" and "contact_id" not in (sent or {}):
            contact = answer.get("contact")
            made = contact.get("id") if isinstance(contact, dict) else answer.get("contact_id")
            self.note(made, workspace=workspace, via="adapter")


def read(path: Path) -> Iterator[Entry]:
    """The entries of the ledger at `path`, each id once; a line that does not parse (a
    file edited by hand) is passed over."""
    if not path.is_file():
        return
    seen: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
            entry = Entry(
                id=str(data["id"]),
                kind=str(data["kind"]),
                workspace=str(data["workspace"]),
                via=str(data["via"]),
            )
        except (ValueError, KeyError, TypeError):
            continue
        if entry.id not in seen:
            seen.add(entry.id)
            yield entry
