"""Requests and responses between schemathesis and the harness client: a case as the
client's keyword arguments, the client's `httpx.Response` as schemathesis's and back.

Why: the hand-written suites and the fuzz layer send through the same client (pacing,
retries, redaction, the exchange log) and are judged by the same checks, which read an
`httpx.Response`.
"""

from typing import Any

import httpx
from schemathesis.core.transport import Response

from crm_conformance.core.transport import bounds, retries


class HarnessResponse(Response):
    """A schemathesis response that keeps the harness client's `httpx.Response` it was
    made from, so the adapted checks read that one instead of a rebuilt copy."""

    __slots__ = ("harness",)
    harness: httpx.Response


def as_httpx(response: Response) -> httpx.Response:
    """The httpx.Response the harness checks take: the harness client's own when the
    fuzz layer sent the request, else one rebuilt from a response schemathesis fetched.

    Rebuilt, it leaves out `Content-Encoding`: the body schemathesis hands over is already
    decoded, and an httpx.Response told it is still gzip would decode it again and fail.
    """
    if isinstance(response, HarnessResponse):
        return response.harness
    sent = response.request
    request = httpx.Request(
        str(sent.method),
        str(sent.url),
        headers=[(k, v if isinstance(v, str) else v.decode()) for k, v in sent.headers.items()],
    )
    headers = [
        (name, value)
        for name, values in response.headers.items()
        if name != "content-encoding"
        for value in values
    ]
    return httpx.Response(
        response.status_code, headers=headers, content=response.content, request=request
    )


def as_schemathesis(response: httpx.Response) -> HarnessResponse:
    """The harness client's response as schemathesis's, with the request as it was sent.

    schemathesis's own httpx conversion adds the query parameters to a URL that already
    carries them (every reproduction would repeat the query) and keeps one value per
    repeated header; this one does neither. The body is the decoded one with the headers
    as received (`Content-Encoding` included), as schemathesis's own transport hands it.
    """
    import requests

    sent = response.request
    request = requests.Request(
        method=sent.method, url=str(sent.url), headers=dict(sent.headers), data=sent.content
    ).prepare()
    headers: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        headers.setdefault(name, []).append(value)
    converted = HarnessResponse(
        status_code=response.status_code,
        headers=headers,
        content=response.content,
        request=request,
        elapsed=response.elapsed.total_seconds(),
        message=response.reason_phrase,
        encoding=response.encoding,
        http_version=response.http_version,
        verify=True,
    )
    converted.harness = response
    return converted


def transport(case: Any) -> dict[str, Any]:
    """The keyword arguments of ApiClient.request for `case` (token added by the client)."""
    kwargs = case.as_transport_kwargs(base_url="http://unused")
    headers = {
        k: v for k, v in (kwargs.get("headers") or {}).items() if k.lower() != "authorization"
    }
    key = retries.key_of(headers)  # generated data, but the harness's to resend with
    sent: dict[str, Any] = {"params": kwargs.get("params"), "headers": headers}
    if key is not None:
        sent["idempotency_key"] = key
    if "json" in kwargs:
        sent["json"] = kwargs["json"]
    elif kwargs.get("data") is not None:
        sent["content"] = kwargs["data"]
    return sent


def probe_kwargs(target: Any) -> dict[str, Any]:
    """`transport_kwargs` for `case.validate_response`: the requests schemathesis's own
    checks send (`ignored_auth`'s probes without the token, ...) go through its
    `requests` transport, not the harness client; these bound each of them by the
    target's `timeout` and `max_response_bytes` as the harness client's are
    (`crm_conformance.core.transport.bounds`)."""
    return bounds.requests_kwargs(bounds.ExchangeBounds(target.timeout, target.max_response_bytes))
