"""The server's caches change no answer: a list assembled around its rows encoded once
reads as the whole page encoded at once, and every write (or rollback, or another
connection's commit) drops what was kept (`storage.Store.memo`, `Transaction.view`);
a row's value is kept through writes of other rows of its kind only
(`Transaction.row_memo`)."""

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from crm_conformance.reference.app import ReferenceApp
from crm_conformance.reference.listing import Page, collection, encoded_collection
from crm_conformance.reference.reply import compact
from crm_conformance.reference.storage import Store

WORKSPACE = "primary"
READS = 2
"""A page read after a write is rendered and its rows kept encoded; read again, it is
assembled from them: both paths, each time."""


def test_a_page_around_its_rows_encoded_is_the_page_encoded_at_once() -> None:
    rows: list[dict[str, Any]] = [
        {"id": "con_1", "name": "Zoë Ærø", "tags": [], "custom_fields": {"n": 1.5, "t": None}},
        {"id": "con_2", "name": '日本 \u2028 "q" \\', "channels": [{"a": True}], "x": -0.0},
    ]
    for page in (Page(rows, True, "c_next", 2), Page([], False, None, 50)):
        expected = compact(collection(page, page.rows))
        assert encoded_collection(page, compact(page.rows)) == expected


def test_a_list_answer_is_the_compact_encoding_of_its_own_rows(api: TestClient) -> None:
    for name in ("Zoë", "日本", "Ann"):
        api.post("/v1/contacts", json={"first_name": name, "city": "Århus"})
    for params in ({}, {"fields": "first_name,city"}, {"expand": "organization", "limit": "2"}):
        for _ in range(READS):
            response = api.get("/v1/contacts", params=params)
            assert response.status_code == 200
            assert response.content == compact(response.json()).encode()


def test_every_input_of_a_row_changes_the_next_list(app: ReferenceApp, api: TestClient) -> None:
    tag = api.post("/v1/tags", json={"name": "vip", "kind": "contact"}).json()
    body = {"first_name": "Kept", "tags": [tag["id"]], "company_name": "Old Name"}
    contact = api.post("/v1/contacts", json=body).json()

    def row(**params: str) -> dict[str, Any]:
        answers = [api.get("/v1/contacts", params=params).content for _ in range(READS)]
        assert len(set(answers)) == 1
        first: dict[str, Any] = json.loads(answers[0])["data"][0]
        return first

    assert row()["tags"][0]["name"] == "vip"
    api.patch(f"/v1/contacts/{contact['id']}", json={"city": "Lyon"})
    assert row()["city"] == "Lyon"
    api.delete(f"/v1/tags/{tag['id']}")
    assert row()["tags"] == []
    assert row(expand="organization")["organization"]["name"] == "Old Name"
    api.patch(f"/v1/organizations/{contact['organization_id']}", json={"name": "New Name"})
    assert row(expand="organization")["organization"]["name"] == "New Name"
    with app.store.transaction() as tx:
        definition = {"resource": "contact", "key": "kept_field", "label": "K", "type": "text"}
        tx.insert(WORKSPACE, "field", definition)
    assert "kept_field" in row()["custom_fields"]


def test_a_rollback_drops_what_was_kept_during_it() -> None:
    store = Store()

    def count() -> int:
        with store.transaction() as tx:
            return tx.memo("count", lambda: len(tx.all(WORKSPACE, "contact")))

    assert count() == 0

    def insert_then_fail() -> None:
        with store.transaction() as tx:
            tx.insert(WORKSPACE, "contact", {"first_name": "Undone"})
            assert tx.memo("count", lambda: len(tx.all(WORKSPACE, "contact"))) == 1
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError, match="rolled back"):
        insert_then_fail()
    assert count() == 0


def test_a_value_whose_computation_writes_is_not_kept() -> None:
    store = Store()
    with store.transaction() as tx:

        def insert_and_count() -> int:
            tx.insert(WORKSPACE, "contact", {"first_name": "Written"})
            return len(tx.all(WORKSPACE, "contact"))

        assert tx.memo("count", insert_and_count) == 1
        assert tx.memo("count", insert_and_count) == 2


def test_another_connections_commit_drops_what_was_kept(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    first, second = Store(path), Store(path)

    def count() -> int:
        with first.transaction() as tx:
            return tx.memo("count", lambda: len(tx.all(WORKSPACE, "contact")))

    assert count() == 0
    with second.transaction() as tx:
        tx.insert(WORKSPACE, "contact", {"first_name": "Elsewhere"})
    assert count() == 1
    first.close()
    second.close()


def test_view_decodes_a_stored_text_once() -> None:
    store = Store()
    with store.transaction() as tx:
        record = tx.insert(WORKSPACE, "contact", {"first_name": "Once"})
        first, again = tx.view(WORKSPACE, "contact"), tx.view(WORKSPACE, "contact")
        assert first[0] is again[0]
        assert first[0] == record
        tx.update(WORKSPACE, "contact", {**record, "first_name": "Twice"})
        assert tx.view(WORKSPACE, "contact")[0]["first_name"] == "Twice"
        assert tx.all(WORKSPACE, "contact")[0] is not tx.all(WORKSPACE, "contact")[0]
    assert json.loads(json.dumps(first[0])) == record  # the shared record was not changed


def _row_values(store: Store) -> tuple[list[str], list[str]]:
    """Each contact's row value, and the names of the rows computed to answer."""
    computed: list[str] = []
    with store.transaction() as tx:

        def value(row: dict[str, Any]) -> str:
            computed.append(row["first_name"])
            return f"{row['first_name']} ({len(tx.all(WORKSPACE, 'tag'))} tags)"

        values = [
            tx.row_memo(row, "contact", "key", functools.partial(value, row))
            for row in tx.view(WORKSPACE, "contact")
        ]
    return values, computed


def test_a_row_is_computed_again_only_when_it_or_another_kind_was_written() -> None:
    store = Store()
    with store.transaction() as tx:
        ann = tx.insert(WORKSPACE, "contact", {"first_name": "Ann"})
        tx.insert(WORKSPACE, "contact", {"first_name": "Bob"})
    assert _row_values(store) == (["Ann (0 tags)", "Bob (0 tags)"], ["Ann", "Bob"])
    assert _row_values(store) == (["Ann (0 tags)", "Bob (0 tags)"], [])
    with store.transaction() as tx:
        tx.update(WORKSPACE, "contact", {**ann, "first_name": "Anna"})
    assert _row_values(store) == (["Anna (0 tags)", "Bob (0 tags)"], ["Anna"])
    with store.transaction() as tx:
        tx.insert(WORKSPACE, "tag", {"name": "vip"})
    assert _row_values(store) == (["Anna (1 tags)", "Bob (1 tags)"], ["Anna", "Bob"])


@pytest.mark.parametrize("write", ["raw SQL", "setting", "rollback"])
def test_a_write_of_unknown_kind_or_a_rollback_drops_every_row(write: str) -> None:
    store = Store()
    with store.transaction() as tx:
        tx.insert(WORKSPACE, "contact", {"first_name": "Ann"})
    assert _row_values(store)[1] == ["Ann"]
    if write == "rollback":
        with pytest.raises(RuntimeError), store.transaction() as tx:
            raise RuntimeError("rolled back")
    else:
        with store.transaction() as tx:
            if write == "raw SQL":
                tx.execute("UPDATE sequence SET value = value + 1 WHERE only = 1")
            else:
                tx.set_setting(WORKSPACE, "policy", {"any": True})
    assert _row_values(store)[1] == ["Ann"]


def test_a_record_not_shared_by_view_is_never_kept() -> None:
    store = Store()
    with store.transaction() as tx:
        tx.insert(WORKSPACE, "contact", {"first_name": "Ann"})
        fresh = tx.all(WORKSPACE, "contact")[0]
        calls = [tx.row_memo(fresh, "contact", "key", lambda: object()) for _ in range(2)]
    assert calls[0] is not calls[1]


def test_an_owner_renamed_changes_the_next_list(app: ReferenceApp, api: TestClient) -> None:
    with app.store.transaction() as tx:
        owner = tx.view(WORKSPACE, "user")[0]
    api.post("/v1/contacts", json={"first_name": "Owned", "owner_id": owner["id"]})
    first = api.get("/v1/contacts").json()["data"][0]
    assert first["owner"]["id"] == owner["id"]
    with app.store.transaction() as tx:
        tx.update(WORKSPACE, "user", {**owner, "name": "Renamed Owner"})
    again = api.get("/v1/contacts").json()["data"][0]
    assert again["owner"]["name"] == "Renamed Owner"
