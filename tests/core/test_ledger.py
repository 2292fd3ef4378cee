"""The ledger notes what the clients create, and only that: new ids of the kinds the
adapter deletes, with their workspace, never a token; and forked writers keep it whole."""

import json
import os
from pathlib import Path
from typing import Any

import httpx

from crm_conformance.adapter.provisioning import AdapterClient
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.core.transport.ledger import Ledger, read

FULL, OTHER = "secret-full-token", "secret-other-token"


def api_answering(ledger: Ledger, answer: dict[str, Any], status: int = 201) -> ApiClient:
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=answer)

    return ApiClient(
        base_url="http://api.test",
        token=FULL,
        transport=httpx.MockTransport(reply),
        ledger=ledger,
    )


def ledger_at(tmp_path: Path) -> Ledger:
    return Ledger(tmp_path / "created.jsonl", tokens={"full": FULL, "other_workspace": OTHER})


def lines(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "created.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_created_record_is_noted_with_the_workspace_of_its_token(tmp_path: Path) -> None:
    ledger = ledger_at(tmp_path)
    api = api_answering(ledger, {"id": "tag_1", "object": "tag"})
    api.post("/v1/tags", json={"name": "x"})
    api.with_token(OTHER).post("/v1/tags", json={"name": "x"})  # same id: noted once
    api_answering(ledger, {"id": "deal_2"}).with_token(OTHER).post("/v1/deals", json={})
    assert lines(tmp_path) == [
        {"id": "tag_1", "kind": "tag", "workspace": "primary", "via": "api"},
        {"id": "deal_2", "kind": "deal", "workspace": "secondary", "via": "api"},
    ]
    text = (tmp_path / "created.jsonl").read_text(encoding="utf-8")
    assert FULL not in text
    assert OTHER not in text


def test_what_is_not_a_creation_is_not_noted(tmp_path: Path) -> None:
    ledger = ledger_at(tmp_path)
    api_answering(ledger, {"id": "deal_1"}).post("/v1/deals/deal_1/won")  # acts on it
    api_answering(ledger, {"id": "con_1"}).get("/v1/contacts/con_1")  # a read
    api_answering(ledger, {"id": "con_1"}).patch("/v1/contacts/con_1", json={})
    api_answering(ledger, {"id": "conv_1"}).post("/v1/conversations", json={})  # not kept
    api_answering(ledger, {"error": {"code": "x"}}, 422).post("/v1/tags", json={})
    api_answering(ledger, {"id": "tag_3"}, 409).post("/v1/tags", json={})
    assert lines(tmp_path) == []


def test_the_adapter_notes_its_records_and_the_contact_it_makes(tmp_path: Path) -> None:
    ledger = ledger_at(tmp_path)

    def reply(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/health":
            return httpx.Response(200, json={"ok": True, "features": ["records", "conversations"]})
        if request.url.path == "/v1/records":
            return httpx.Response(201, json={"id": "org_1"})
        return httpx.Response(201, json={"id": "conv_1", "contact_id": "con_9"})

    adapter = AdapterClient(
        adapter_url="http://adapter.test", transport=httpx.MockTransport(reply), ledger=ledger
    )
    adapter.create_record(kind="organization", fields={"name": "n"}, workspace="secondary")
    adapter.create_conversation(status="active")  # the adapter makes its contact
    adapter.create_conversation(status="active", contact_id="con_given")
    assert [(e.id, e.kind, e.workspace, e.via) for e in read(tmp_path / "created.jsonl")] == [
        ("org_1", "organization", "secondary", "adapter"),
        ("con_9", "contact", "primary", "adapter"),
    ]


def test_forked_writers_keep_every_line_whole(tmp_path: Path) -> None:
    """Four processes append 300 records each to one ledger at once."""
    children = []
    for worker in range(4):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            ledger = ledger_at(tmp_path)
            for n in range(300):
                ledger.note(f"con_{worker}_{n}_{'x' * 200}", workspace="primary", via="api")
            os._exit(0)
        children.append(pid)
    for pid in children:
        assert os.waitpid(pid, 0)[1] == 0
    written = lines(tmp_path)  # every line parses
    assert len({entry["id"] for entry in written}) == len(written) == 1200
