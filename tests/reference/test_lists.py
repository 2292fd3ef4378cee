"""Lists: envelope, limit, keyset cursors bound to their query, sort, expand, fields."""

from starlette.testclient import TestClient

from crm_conformance.reference.app import ReferenceApp


def make_contacts(api: TestClient, count: int, **fields) -> list[dict]:
    made = []
    for index in range(count):
        body = {"first_name": f"P{index:03d}", "last_name": "List", **fields}
        response = api.post("/v1/contacts", json=body)
        assert response.status_code == 201, response.text
        made.append(response.json())
    return made


def page_through(api: TestClient, path: str, params: dict, between=None) -> list[dict]:
    rows, cursor = [], None
    for _ in range(100):
        response = api.get(path, params={**params, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.text
        body = response.json()
        assert (body["links"]["next"] is not None) == body["meta"]["has_more"]
        assert len(body["data"]) <= body["meta"]["limit"]
        rows += body["data"]
        cursor = body["links"]["next"]
        if cursor is None:
            return rows
        if between:
            between()
    raise AssertionError("paging did not end")


def test_collection_envelope_and_default_limit(api: TestClient) -> None:
    body = api.get("/v1/contacts").json()
    assert set(body) == {"data", "meta", "links"}
    assert body["meta"] == {"has_more": False, "limit": 50}
    assert body["links"] == {"next": None}


def test_default_page_size_variant(make_app) -> None:
    app = make_app(variants={"default_page_size_20"})
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    assert client.get("/v1/contacts").json()["meta"]["limit"] == 20


def test_limit_bounds(api: TestClient) -> None:
    for good in ("1", "200"):
        assert api.get("/v1/contacts", params={"limit": good}).json()["meta"]["limit"] == int(good)
    for bad in ("0", "201", "-1", "ten", "1.5", ""):
        response = api.get("/v1/contacts", params={"limit": bad})
        assert response.status_code == 400, bad
        assert response.json()["error"]["code"] == "validation_failed"


def test_paging_visits_every_row_once_newest_first(api: TestClient) -> None:
    made = make_contacts(api, 7)
    rows = page_through(api, "/v1/contacts", {"limit": 2})
    assert [row["id"] for row in rows] == [c["id"] for c in reversed(made)]


def test_paging_never_repeats_or_skips_while_rows_are_inserted(api: TestClient) -> None:
    made = make_contacts(api, 6)
    inserted = iter(range(100))
    rows = page_through(
        api,
        "/v1/contacts",
        {"limit": 2},
        between=lambda: api.post("/v1/contacts", json={"first_name": f"new{next(inserted)}"}),
    )
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids))
    assert {c["id"] for c in made} <= set(ids)


def test_offset_cursor_fault_repeats_a_row(make_app) -> None:
    app = make_app(faults={"cursor_repeats_row_on_insert"})
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    make_contacts(client, 4)
    rows = page_through(
        client, "/v1/contacts", {"limit": 2},
        between=lambda: client.post("/v1/contacts", json={"first_name": "late"}),
    )  # fmt: skip
    ids = [row["id"] for row in rows]
    assert len(ids) > len(set(ids))


def test_last_page_has_no_next(api: TestClient) -> None:
    make_contacts(api, 4)
    body = api.get("/v1/contacts", params={"limit": 4}).json()
    assert body["meta"]["has_more"] is False
    assert body["links"]["next"] is None


def test_has_more_fault_on_full_last_page(make_app) -> None:
    app = make_app(faults={"has_more_wrong_on_last_page"})
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    make_contacts(client, 4)
    body = client.get("/v1/contacts", params={"limit": 4}).json()
    assert body["meta"]["has_more"] is True
    assert body["links"]["next"]


def test_cursor_is_bound_to_its_query(api: TestClient) -> None:
    make_contacts(api, 3, status="open")
    cursor = api.get("/v1/contacts", params={"limit": 1}).json()["links"]["next"]
    assert api.get("/v1/contacts", params={"limit": 5, "cursor": cursor}).status_code == 200
    for other in ({"status": "open"}, {"sort": "created_at"}):
        response = api.get("/v1/contacts", params={"limit": 1, "cursor": cursor, **other})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_cursor"


def test_corrupt_and_foreign_cursors(api: TestClient, other_api: TestClient) -> None:
    make_contacts(api, 3)
    cursor = api.get("/v1/contacts", params={"limit": 1}).json()["links"]["next"]
    payload, signature = cursor.split(".")
    for bad in ("garbage", cursor[:-2], payload[:-3] + "AAA." + signature, "." * 5, "é"):
        response = api.get("/v1/contacts", params={"cursor": bad})
        assert response.json()["error"]["code"] == "invalid_cursor", bad
    response = other_api.get("/v1/contacts", params={"limit": 1, "cursor": cursor})
    assert response.json()["error"]["code"] == "invalid_cursor"


def test_sort_keys_and_directions(api: TestClient) -> None:
    make_contacts(api, 2, score="hot")
    make_contacts(api, 2, score="cold")
    rows = api.get("/v1/contacts", params={"sort": "score,-created_at"}).json()["data"]
    assert [r["score"] for r in rows] == ["cold", "cold", "hot", "hot"]
    assert rows[0]["created_at"] >= rows[1]["created_at"]
    names = [
        r["first_name"]
        for r in api.get("/v1/contacts", params={"sort": "-first_name"}).json()["data"]
    ]
    assert names == sorted(names, reverse=True)


def test_unknown_and_unsupported_sort(api: TestClient) -> None:
    error = api.get("/v1/contacts", params={"sort": "shoe_size"}).json()["error"]
    assert (error["code"], error["param"]) == ("unknown_sort_field", "sort")
    assert (
        api.get("/v1/users", params={"sort": "name"}).json()["error"]["code"] == "unsupported_sort"
    )


def test_expand_organization_and_limits(api: TestClient) -> None:
    contact = api.post("/v1/contacts", json={"first_name": "E", "company_name": "Expand Co"}).json()
    plain = api.get(f"/v1/contacts/{contact['id']}").json()
    assert "organization" not in plain
    assert plain["organization_id"].startswith("org_")
    expanded = api.get(f"/v1/contacts/{contact['id']}", params={"expand": "organization"}).json()
    assert expanded["organization"]["name"] == "Expand Co"
    assert expanded["organization"]["object"] == "organization"
    for expand, code in (("owner", "unknown_expand"), ("a,b,c,d,e", "expand_limit_exceeded")):
        response = api.get("/v1/contacts", params={"expand": expand})
        assert response.json()["error"]["code"] == code


def test_fields_narrow_and_keep_id_and_object(api: TestClient) -> None:
    make_contacts(api, 1)
    row = api.get("/v1/contacts", params={"fields": "first_name,status"}).json()["data"][0]
    assert set(row) == {"id", "object", "first_name", "status"}
    response = api.get("/v1/contacts", params={"fields": "first_name,shoe_size"})
    assert response.json()["error"]["code"] == "unknown_field"


def test_extra_fields_variant_respects_fields(make_app) -> None:
    app: ReferenceApp = make_app(variants={"extra_response_fields"})
    client = TestClient(app, headers={"Authorization": f"Bearer {app.seeded_tokens['primary']}"})
    make_contacts(client, 1)
    assert client.get("/v1/contacts").json()["data"][0]["livemode"] is False
    narrowed = client.get("/v1/contacts", params={"fields": "status"}).json()["data"][0]
    assert "livemode" not in narrowed


def test_unknown_query_parameter_is_refused(api: TestClient) -> None:
    response = api.get("/v1/contacts", params={"stauts": "open"})
    assert response.status_code == 400
    assert response.json()["error"]["detail"][0]["field"] == "stauts"
