"""`crm-conformance smoke`: is the setup right, before any conformance verdict?

Three checks (reachable, token accepted, a list answers JSON). A failure here means
"your setup is wrong" (exit 2 for the target file or token, 3 for reachability), never
"non-conformant", so a vendor fixes the setup before reading any failure. `run` makes
the same checks before its first test (`check_target`), and `adapter-check` too.
"""

from pathlib import Path

import httpx

from crm_conformance._errors import ExchangeBoundExceeded, TargetFileError, TargetUnreachable
from crm_conformance.core.model.target import Target, load_target
from crm_conformance.core.transport.bounds import ExchangeBounds, get_bounded


def check(*, target_path: Path | None, base_url: str | None = None) -> list[str]:
    """The lines to print when every check passes; raises the setup error otherwise."""
    return check_target(load_target(path=target_path, base_url=base_url))


def check_target(target: Target) -> list[str]:
    """`check` for a loaded target."""
    url = target.base_url + "/v1/contacts"
    headers = {"Authorization": f"Bearer {target.tokens['full']}"}
    bounds = ExchangeBounds(target.timeout, target.max_response_bytes)
    try:
        response = get_bounded(url, bounds=bounds, params={"limit": 1}, headers=headers)
    except httpx.TransportError as exc:
        raise TargetUnreachable(
            f"GET {url} failed ({type(exc).__name__}); check base_url and that the server runs"
        ) from None
    lines = [f"ok  reachable: GET {url} -> {response.status_code}"]
    if response.status_code == 401:
        raise TargetFileError(
            f"tokens.full is not accepted: GET {url} -> 401{_code(response)}; check the token "
            "(value or value_env) in the target file"
        )
    if response.status_code == 403:
        raise TargetFileError(
            f"tokens.full is accepted but may not list contacts: GET {url} -> 403"
            f"{_code(response)}; tokens.full needs every scope of the document's table"
        )
    lines.append("ok  tokens.full is accepted")
    media = response.headers.get("Content-Type", "").split(";")[0].strip()
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code != 200 or not isinstance(body, dict) or "data" not in body:
        raise TargetUnreachable(
            f"GET {url} -> {response.status_code} ({media or 'no Content-Type'}) is not a JSON "
            "list; is base_url the API root (paths start with /v1)?"
        )
    lines.append(f"ok  a list answers JSON ({media})")
    if target.adapter_url is not None:
        try:
            health = get_bounded(target.adapter_url + "/v1/health", bounds=bounds)
            lines.append(f"ok  adapter answers: GET /v1/health -> {health.status_code}")
        except ExchangeBoundExceeded as exc:
            raise ExchangeBoundExceeded(f"adapter_url {target.adapter_url}: {exc}") from None
        except httpx.TransportError as exc:
            raise TargetUnreachable(
                f"adapter_url {target.adapter_url} unreachable ({type(exc).__name__})"
            ) from None
    else:
        lines.append("--  no adapter_url: tests that need the adapter will be not applicable")
    return lines


def _code(response: httpx.Response) -> str:
    """` (<error code>)` of an error answer in the envelope, or nothing."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return ""
    return f" ({error.get('code')})" if isinstance(error, dict) and error.get("code") else ""
