"""Reading an answer's body and naming a failure: the helpers every area's checks share."""

import functools
import json
from typing import Any

import httpx

from crm_conformance.core.verdicts.failure import ConformanceFailure

ERROR_TYPES = (
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "not_found_error",
    "conflict_error",
    "rate_limit_error",
    "api_error",
)

NO_BODY = object()


def body_json(response: httpx.Response) -> Any:
    """The parsed body, or `NO_BODY` when it is empty or not JSON (read, never changed)."""
    if not response.content:
        return NO_BODY
    return parsed_json(response.content)


@functools.lru_cache(maxsize=4)
def parsed_json(content: bytes) -> Any:
    """One parse per body for every check that reads it (all of them run on each answer)."""
    try:
        return json.loads(content)
    except ValueError:
        return NO_BODY


def is_error_answer(response: httpx.Response) -> bool:
    # "Every non-2xx response": 304 carries no body by HTTP's own rules, so it is left out.
    return not 200 <= response.status_code < 300 and response.status_code != 304


def shorten(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


def error_object(response: httpx.Response) -> dict[str, Any] | None:
    body = body_json(response)
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else None


def failed(req_id: str, response: httpx.Response, *, expected: str, got: str) -> ConformanceFailure:
    return ConformanceFailure(req_id, expected=expected, got=got, response=response)


def first_five(problems: list[str]) -> str:
    """The first five problems, and how many more (a failure line stays readable)."""
    more = f"; {len(problems) - 5} more" if problems[5:] else ""
    return "; ".join(problems[:5]) + more


def api_path(request: httpx.Request) -> str:
    """The request path from its `/v1/` on (a base URL may carry a path of its own)."""
    path = request.url.path
    return path[path.find("/v1/") :] if "/v1/" in path else path
