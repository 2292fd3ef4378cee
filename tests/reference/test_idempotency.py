"""Idempotency-Key: replay, reuse with another body, in flight, length, expiry."""

import threading
import time

import httpx
import pytest
from starlette.testclient import TestClient

from crm_conformance.reference import ServerSettings, idempotency, running_server
from crm_conformance.reference.app import ReferenceApp


def code(response) -> str:
    return response.json()["error"]["code"]


def count_tags(api: TestClient) -> int:
    return len(api.get("/v1/tags", params={"limit": 200}).json()["data"])


def test_replay_returns_the_original_answer(api: TestClient) -> None:
    key = {"Idempotency-Key": "k-1"}
    first = api.post("/v1/tags", json={"name": "once", "kind": "deal"}, headers=key)
    again = api.post("/v1/tags", json={"kind": "deal", "name": "once"}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replay"] == "true"
    assert "Idempotent-Replay" not in first.headers
    assert again.headers["X-Request-ID"] != first.headers["X-Request-ID"]
    assert count_tags(api) == 1


def test_same_key_with_another_body_is_409(api: TestClient) -> None:
    key = {"Idempotency-Key": "k-2"}
    api.post("/v1/tags", json={"name": "a", "kind": "deal"}, headers=key)
    response = api.post("/v1/tags", json={"name": "b", "kind": "deal"}, headers=key)
    assert (response.status_code, code(response)) == (409, "idempotency_key_reused")
    assert response.json()["error"]["type"] == "conflict_error"


def test_keys_are_per_token(api: TestClient, issue) -> None:
    key = {"Idempotency-Key": "k-3"}
    api.post("/v1/tags", json={"name": "mine", "kind": "deal"}, headers=key)
    other = issue().post("/v1/tags", json={"name": "yours", "kind": "deal"}, headers=key)
    assert other.status_code == 201


def test_key_length_limit(api: TestClient) -> None:
    ok = api.post(
        "/v1/tags", json={"name": "x", "kind": "deal"}, headers={"Idempotency-Key": "k" * 255}
    )
    assert ok.status_code == 201
    long = api.post(
        "/v1/tags", json={"name": "y", "kind": "deal"}, headers={"Idempotency-Key": "k" * 256}
    )
    assert (long.status_code, code(long)) == (400, "validation_failed")
    assert long.json()["error"]["param"] == "Idempotency-Key"


def test_in_flight_key_is_409(app: ReferenceApp, api: TestClient) -> None:
    body = {"name": "slow", "kind": "deal"}
    with app.store.transaction() as tx:
        token_id = tx.execute("SELECT id FROM tokens WHERE workspace='primary'").fetchone()[0]
    print_ = idempotency.fingerprint(
        "POST", "/v1/tags", httpx.Request("POST", "/", json=body).content
    )
    with app.store.transaction() as tx:
        tx.execute(
            "INSERT INTO idempotency (workspace, token_id, key, fingerprint, state, created_at)"
            " VALUES ('primary', ?, 'busy', ?, 'processing', ?)",
            (token_id, print_, time.time()),
        )
    response = api.post("/v1/tags", json=body, headers={"Idempotency-Key": "busy"})
    assert (response.status_code, code(response)) == (409, "idempotency_key_in_flight")


def test_refused_request_releases_its_key(api: TestClient) -> None:
    key = {"Idempotency-Key": "k-4"}
    assert api.post("/v1/tags", json={"name": ""}, headers=key).status_code == 422
    assert (
        api.post("/v1/tags", json={"name": "fixed", "kind": "deal"}, headers=key).status_code == 201
    )


def test_keys_expire_after_24_hours(app: ReferenceApp, api: TestClient) -> None:
    key = {"Idempotency-Key": "k-5"}
    api.post("/v1/tags", json={"name": "old", "kind": "deal"}, headers=key)
    with app.store.transaction() as tx:
        tx.execute("UPDATE idempotency SET created_at = created_at - 86401")
    response = api.post("/v1/tags", json={"name": "new", "kind": "deal"}, headers=key)
    assert response.status_code == 201
    assert "Idempotent-Replay" not in response.headers


def test_replay_returns_200_fault(make_app) -> None:
    app = make_app(faults={"replay_returns_200"})
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    key = {"Idempotency-Key": "k-6"}
    client.post("/v1/tags", json={"name": "f", "kind": "deal"}, headers=key)
    assert (
        client.post("/v1/tags", json={"name": "f", "kind": "deal"}, headers=key).status_code == 200
    )


def test_concurrent_duplicates_make_one_record() -> None:
    with running_server(ServerSettings()) as served:
        headers = {"Authorization": f"Bearer {served.tokens['full']}", "Idempotency-Key": "race"}
        statuses: list[int] = []
        barrier = threading.Barrier(8)

        def send() -> None:
            with httpx.Client(base_url=served.base_url, headers=headers) as client:
                barrier.wait()
                body = {"first_name": "Race", "external_id": "race-1"}
                response = client.post("/v1/contacts", json=body)
                statuses.append(response.status_code)
                if response.status_code == 409:
                    assert code(response) == "idempotency_key_in_flight"

        threads = [threading.Thread(target=send) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert set(statuses) <= {201, 409}
        assert 201 in statuses
        with httpx.Client(base_url=served.base_url, headers=headers) as client:
            found = client.get("/v1/contacts", params={"external_id": "race-1"}).json()["data"]
        assert len(found) == 1


def test_concurrent_writes_are_all_kept() -> None:
    with running_server(ServerSettings()) as served:
        headers = {"Authorization": f"Bearer {served.tokens['full']}"}
        failures: list[int] = []

        def write(worker: int) -> None:
            with httpx.Client(base_url=served.base_url, headers=headers) as client:
                for index in range(10):
                    body = {"first_name": f"w{worker}-{index}"}
                    response = client.post("/v1/contacts", json=body)
                    if response.status_code != 201:
                        failures.append(response.status_code)

        threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        with httpx.Client(base_url=served.base_url, headers=headers) as client:
            body = client.get("/v1/contacts", params={"limit": 200}).json()
        assert len(body["data"]) == 80


def test_empty_key_is_no_key(api: TestClient) -> None:
    for name in ("e1", "e2"):
        response = api.post(
            "/v1/tags", json={"name": name, "kind": "deal"}, headers={"Idempotency-Key": ""}
        )
        assert response.status_code == 201
        assert "Idempotent-Replay" not in response.headers


def test_a_keyed_write_holds_its_key_only_while_other_requests_are_answered(
    api: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hold that lets a concurrent duplicate meet the key still processing costs
    nothing when no other request is being answered (the fuzz layer's hundreds of keyed
    writes come one at a time)."""
    holds: list[float] = []
    clock = type(
        "Clock", (), {"time": staticmethod(time.time), "sleep": staticmethod(holds.append)}
    )
    monkeypatch.setattr(idempotency, "time", clock)
    api.post("/v1/tags", json={"name": "alone", "kind": "deal"}, headers={"Idempotency-Key": "a"})
    assert holds == []
    with idempotency.ACTIVE.request():  # another request being answered meanwhile
        api.post(
            "/v1/tags", json={"name": "busy", "kind": "deal"}, headers={"Idempotency-Key": "b"}
        )
    assert holds == [idempotency.PROCESSING_SECONDS]
