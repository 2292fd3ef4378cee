"""The kit's secret: `adapter_app(..., token=...)` answers only requests that carry it."""

import hmac
import warnings
from collections.abc import Callable

import pytest
from starlette.exceptions import StarletteDeprecationWarning

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

from crm_conformance.adapter_kit import IssuedToken, TokenRequest, adapter_app

SECRET = "adapter-secret-7f3a9c"


class Tokens:
    def create_token(self, request: TokenRequest) -> IssuedToken:
        return IssuedToken(id="tok_1", token="minted-token-value", kind=request.kind, scopes=())

    def revoke_token(self, token_id: str) -> None:
        return None


def client(token: str | None = SECRET) -> TestClient:
    return TestClient(adapter_app(Tokens(), token=token))


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-secret", f"Bearer {SECRET}x", f"Basic {SECRET}", SECRET, "Bearer "],
)
def test_a_request_without_the_secret_is_refused_401_in_the_envelope(
    authorization: str | None,
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    for method, path in [("GET", "/v1/health"), ("POST", "/v1/tokens"), ("GET", "/v1/nowhere")]:
        response = client().request(
            method, path, headers=headers, json={"workspace": "primary", "kind": "workspace"}
        )
        assert response.status_code == 401, (method, path)
        error = response.json()["error"]
        assert error["code"] == "unauthorized"
        assert error["type"] == "authentication_error"
        assert "Authorization: Bearer <secret>" in error["message"]
        assert "adapter_token" in error["message"]
        assert error["request_id"] == response.headers["X-Request-ID"]
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        assert SECRET not in response.text


def test_the_right_secret_is_served() -> None:
    headers = {"Authorization": f"Bearer {SECRET}"}
    health = client().get("/v1/health", headers=headers)
    assert health.status_code == 200
    assert health.json()["features"] == ["tokens"]
    made = client().post(
        "/v1/tokens", headers=headers, json={"workspace": "primary", "kind": "workspace"}
    )
    assert made.status_code == 201
    assert made.json()["token"] == "minted-token-value"
    # The scheme is case-insensitive, as HTTP's auth schemes are.
    assert client().get("/v1/health", headers={"Authorization": f"bearer {SECRET}"}).is_success


def test_without_a_secret_the_kit_serves_anyone() -> None:
    assert client(token=None).get("/v1/health").status_code == 200


def test_the_secret_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    original: Callable[[bytes, bytes], bool] = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return original(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    assert client().get("/v1/health", headers={"Authorization": "Bearer guess"}).status_code == 401
    assert compared == [(b"guess", SECRET.encode())]


@pytest.mark.parametrize("bad", ["", "  ", " padded "])
def test_a_blank_or_padded_secret_is_refused_at_build_time(bad: str) -> None:
    with pytest.raises(ValueError, match="non-empty string without surrounding whitespace"):
        adapter_app(Tokens(), token=bad)
