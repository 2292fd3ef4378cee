"""The transport of the schemas the fuzz layer loads: what schemathesis sends itself goes
through the harness client.

Why: schemathesis's checks send requests of their own (`ignored_auth`'s probes without
and with invalid credentials, a content-type control); through `requests` they would
skip the harness's policy, and a 429 or a gateway's 502 on a probe would be judged as
the service's answer.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from schemathesis.core.transport import Response
from schemathesis.transport.requests import REQUESTS_TRANSPORT

from crm_conformance.core.transport import retries
from crm_conformance.fuzz.exchange import as_schemathesis

if TYPE_CHECKING:
    from crm_conformance.core.transport.client import ApiClient


class HarnessTransport:
    """schemathesis's transport of every schema `load` makes: its requests (a check's
    probes, anything it sends itself) go through the harness client `client`, so they
    are paced, their 429s waited out and their transport faults retried like the
    harness's own (`ApiClient.request`). Sent as schemathesis built them: the case's
    headers only, no run token (a probe without credentials must go without). With no
    client it is schemathesis's requests transport; serialisers and media types are
    always that transport's."""

    def __init__(self) -> None:
        self.client: ApiClient | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(REQUESTS_TRANSPORT, name)

    def send(self, case: Any, *, session: Any = None, **kwargs: Any) -> Response:
        client = self.client
        if client is None:
            return REQUESTS_TRANSPORT.send(case, session=session, **kwargs)
        import requests

        data = REQUESTS_TRANSPORT.serialize_case(case, **kwargs)
        prepared = requests.Request(
            method=str(data["method"]),
            url=data["url"],
            headers=data.get("headers"),
            params=data.get("params"),
            json=data.get("json"),
            data=data.get("data"),
            files=data.get("files"),
            cookies=data.get("cookies"),
            auth=data.get("auth"),
        ).prepare()
        url = str(prepared.url)
        if not url.startswith(client.base_url + "/"):
            raise ValueError(f"schemathesis asked to send to {url}, outside the target")
        headers = {
            name: value if isinstance(value, str) else value.decode("latin-1")
            for name, value in prepared.headers.items()
            if name.lower() != "content-length"
        }
        key = retries.key_of(headers)  # generated data: the harness's to send again
        response = client.request(
            str(prepared.method),
            url[len(client.base_url) :],
            content=prepared.body,  # type: ignore[arg-type]  # str or bytes as prepared
            headers=headers,
            token=None,
            idempotency_key=True if key is None else key,
        )
        return as_schemathesis(response)


TRANSPORT = HarnessTransport()
"""The transport of the schemas `load` makes (one per process)."""


@contextmanager
def sent_through(client: "ApiClient") -> Iterator[None]:
    """While the block runs, what schemathesis sends itself goes through `client`."""
    before, TRANSPORT.client = TRANSPORT.client, client
    try:
        yield
    finally:
        TRANSPORT.client = before


def routed(schema: Any) -> Any:
    """`schema`, whose operations send through `TRANSPORT` (its clones too: they are
    made of its class). schemathesis has no setting for a schema's transport (a property
    of the schema's class, chosen by its `app`), hence a subclass naming it."""
    base = type(schema)
    if base not in _ROUTED:
        _ROUTED[base] = type(base.__name__, (base,), {"transport": TRANSPORT})
    schema.__class__ = _ROUTED[base]
    return schema


_ROUTED: dict[type, type] = {}
"""Each schema class, and its subclass sending through `TRANSPORT`."""
