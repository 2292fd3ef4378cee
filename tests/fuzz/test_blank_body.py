"""`checking.blank_body_taken`: a body of blank bytes alone (whitespace, control
characters), taken by an operation whose body is optional, is read as no body and not
judged as accepted invalid data; any other body, a required body, or a refusal is judged
as before."""

from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from crm_conformance.fuzz.checking import blank_body_taken


def _case(path: str, method: str = "post") -> Any:
    return SimpleNamespace(operation=SimpleNamespace(method=method, path=path))


def _answer(body: bytes, status: int = 200, path: str = "/v1/contacts/search") -> httpx.Response:
    return httpx.Response(status, request=httpx.Request("POST", f"http://t{path}", content=body))


@pytest.mark.parametrize("body", [b"\n", b"  \r\n\t", b"\x1d", b"\x00 \x1f"])
def test_whitespace_taken_by_an_optional_body_is_not_judged(body: bytes) -> None:
    assert blank_body_taken(_case("/v1/contacts/search"), _answer(body))


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/v1/contacts/search", b"\x00\xff", 200),  # a byte that is not blank
        ("/v1/contacts/search", b"\n{", 200),  # not JSON, and not blank
        ("/v1/contacts/search", b"\n", 400),  # refused: nothing to excuse
        ("/v1/contacts/search", b"", 200),  # no body at all: nothing was sent to judge
        ("/v1/deals", b"\n", 201),  # the deal create's body is required
    ],
)
def test_anything_else_is_judged(path: str, body: bytes, status: int) -> None:
    assert not blank_body_taken(_case(path), _answer(body, status, path))
