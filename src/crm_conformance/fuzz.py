"""The fuzz layer: schemathesis over spec/openapi.yaml, judged by the harness's checks.

Why an overlay and not dropped failures: schemathesis skips body validation on a
status the document does not list, so the statuses the document leaves open (200 or
201 on create, 400 or 422 on validation) are added as aliases when the schema loads;
`status_code_conformance` stays on and every alias is still schema-checked.
Why an adapter: the hand-written suites and this layer must fail on the same rules
with the same requirement ids (STYLE.md), so each registered harness check is
wrapped as a schemathesis check rather than re-written.
"""

from collections.abc import Callable, Mapping
from typing import Any

import httpx
import schemathesis
from schemathesis.checks import CheckContext
from schemathesis.core.transport import Response

from crm_conformance import checks
from crm_conformance.paths import OPENAPI

ALIASES: Mapping[str, tuple[tuple[str, str], ...]] = {
    "post": (("201", "200"), ("200", "201")),
    "*": (("422", "400"), ("400", "422")),
}
"""Status pairs the document leaves open: when one is documented, the other is too."""


def overlay(raw_schema: dict[str, Any]) -> None:
    """Add the open alternatives of ALIASES to every operation, in place."""
    for path_item in raw_schema.get("paths", {}).values():
        for method, operation in path_item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for documented, alias in ALIASES.get(method, ()) + ALIASES["*"]:
                if documented in responses and alias not in responses:
                    responses[alias] = responses[documented]


def as_httpx(response: Response) -> httpx.Response:
    """The schemathesis response as the httpx.Response the harness checks take."""
    sent = response.request
    request = httpx.Request(
        str(sent.method),
        str(sent.url),
        headers=[(k, v if isinstance(v, str) else v.decode()) for k, v in sent.headers.items()],
    )
    headers = [(name, value) for name, values in response.headers.items() for value in values]
    return httpx.Response(
        response.status_code, headers=headers, content=response.content, request=request
    )


def adapted(check: checks.Check) -> Callable[[CheckContext, Response, Any], None]:
    """`check` as a schemathesis check; its ConformanceFailure (AssertionError) carries the id."""

    def run(ctx: CheckContext, response: Response, case: Any) -> None:
        check.function(as_httpx(response))

    run.__name__ = f"crm_{check.name}"
    return run


def harness_checks() -> list[Callable[[CheckContext, Response, Any], None]]:
    """Every registered harness check, adapted."""
    return [adapted(check) for check in checks.registered()]


def requirement_ids() -> tuple[str, ...]:
    """The requirement ids the adapted checks enforce, for the suites' req markers."""
    return tuple(dict.fromkeys(req for c in checks.registered() for req in c.requirements))


def load() -> Any:
    """spec/openapi.yaml with the overlay applied (the file itself is unchanged)."""
    import yaml

    raw = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    overlay(raw)
    return schemathesis.openapi.from_dict(raw)


PROFILES: Mapping[str, int] = {"quick": 5, "full": 100}
"""Generated examples per operation: `quick` fits DESIGN.md's budget, `full` is nightly."""


def profile_examples(name: str) -> int:
    """Examples per operation of profile `name`; ValueError names the known profiles."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"profile={name!r}: known profiles are {', '.join(PROFILES)}") from None


def sends_to(case: Any, *, embedded: bool) -> bool:
    """Whether `case` may be sent: outside the embedded server, only declared methods.

    The coverage phase sends undeclared methods (DELETE, PUT) to every path; on someone
    else's server a DELETE that happens to work destroys data the run did not create.
    """
    return embedded or str(case.method).upper() == str(case.operation.method).upper()


def transport(case: Any) -> dict[str, Any]:
    """The keyword arguments of ApiClient.request for `case` (token added by the client)."""
    kwargs = case.as_transport_kwargs(base_url="http://unused")
    headers = {
        k: v for k, v in (kwargs.get("headers") or {}).items() if k.lower() != "authorization"
    }
    sent: dict[str, Any] = {"params": kwargs.get("params"), "headers": headers}
    if "json" in kwargs:
        sent["json"] = kwargs["json"]
    elif kwargs.get("data") is not None:
        sent["content"] = kwargs["data"]
    return sent
