"""The fault registry, and that each fault of the core areas breaks what it says.

(Faults of lists, errors, scopes and idempotency are shown beside their rules in the
other test modules.)
"""

from collections.abc import Callable

import pytest
import yaml
from starlette.testclient import TestClient

from crm_conformance.core.model.paths import SPEC_DIR
from crm_conformance.reference.app import ReferenceApp
from crm_conformance.reference.faults import FAULTS
from crm_conformance.reference.tokens import issue_token, revoke_token


def test_every_fault_names_catalogued_requirements() -> None:
    catalogue = yaml.safe_load((SPEC_DIR / "requirements.yaml").read_text(encoding="utf-8"))
    known = {requirement["id"] for requirement in catalogue["requirements"]}
    for fault in FAULTS.values():
        assert fault.reqs, fault.name
        assert set(fault.reqs) <= known, fault.name


def client(app: ReferenceApp, token: str | None = None) -> TestClient:
    return TestClient(
        app, headers={"Authorization": f"Bearer {token or app.seeded_tokens['primary']}"}
    )


def query_422(app: ReferenceApp) -> bool:
    return client(app).get("/v1/contacts?limit=0").status_code == 422


def headers_missing(app: ReferenceApp) -> bool:
    return "X-RateLimit-Limit" not in client(app).get("/v1/nope").headers


def oldest_first(app: ReferenceApp) -> bool:
    api = client(app)
    first = api.post("/v1/contacts", json={"first_name": "first"}).json()
    api.post("/v1/contacts", json={"first_name": "second"})
    return api.get("/v1/contacts").json()["data"][0]["id"] == first["id"]


def conflict_without_id(app: ReferenceApp) -> bool:
    api = client(app)
    tag = api.post("/v1/tags", json={"name": "dup", "kind": "contact"}).json()
    again = api.post("/v1/tags", json={"name": "dup", "kind": "contact"})
    return again.status_code == 409 and tag["id"] not in again.json()["error"]["message"]


def phone_as_sent(app: ReferenceApp) -> bool:
    return (
        client(app).post("/v1/contacts", json={"phone": "+1 555 010 9999"}).json()["phone"]
        != "+15550109999"
    )


def unset_omitted(app: ReferenceApp) -> bool:
    return client(app).post("/v1/contacts", json={"first_name": "cf"}).json()["custom_fields"] == {}


def revoked_works(app: ReferenceApp) -> bool:
    with app.store.transaction() as tx:
        issued = issue_token(tx, app.settings.secret, workspace="primary")
        revoke_token(tx, issued.id)
    return client(app, issued.token).get("/v1/users").status_code == 200


def expired_oauth_unauthorized(app: ReferenceApp) -> bool:
    with app.store.transaction() as tx:
        user = tx.all("primary", "user")[0]["id"]
        issued = issue_token(
            tx,
            app.settings.secret,
            workspace="primary",
            kind="oauth",
            user_id=user,
            state="expired",
        )
    return client(app, issued.token).get("/v1/users").json()["error"]["code"] == "unauthorized"


SHOWN: dict[str, Callable[[ReferenceApp], bool]] = {
    "query_errors_answer_422": query_422,
    "rate_limit_headers_missing_on_errors": headers_missing,
    "contacts_oldest_first": oldest_first,
    "tag_conflict_without_id": conflict_without_id,
    "phone_not_normalized": phone_as_sent,
    "custom_fields_omit_unset": unset_omitted,
    "revoked_token_accepted": revoked_works,
    "expired_oauth_unauthorized": expired_oauth_unauthorized,
}


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_fault_breaks_only_when_switched_on(make_app, name: str) -> None:
    assert SHOWN[name](make_app(faults={name})), f"{name} did not show"
    assert not SHOWN[name](make_app()), f"{name} shows without the fault"
