"""`ConformanceFailure`: the one way a test says "the target broke the document".

It carries the requirement id, what was expected, what came back and the exchange,
and prints in the fixed format of STYLE.md (requirement, section, request, expected,
got, "Reproduce with:" curl), which the plugin shows instead of a traceback.
"""

import importlib
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from crm_conformance.redaction import Redactor
from crm_conformance.reproduction import curl_command

if TYPE_CHECKING:
    import httpx

    from crm_conformance.client import Exchange

RequirementLookup = Callable[[str], tuple[str, str] | None]
"""Maps a requirement id to its (title, section), or None when the id is unknown."""


@lru_cache(maxsize=1)
def _catalogue_lookup() -> RequirementLookup:
    """The catalogue's titles and sections; a stand-in that knows nothing if it cannot load."""
    try:
        # Imported by name: the catalogue module is optional while the spec is being written.
        catalogue = importlib.import_module("crm_conformance.catalogue").load_catalogue()
    except Exception:  # an unloadable catalogue must not hide the failure being reported
        return lambda req_id: None

    def lookup(req_id: str) -> tuple[str, str] | None:
        try:
            requirement = catalogue.get(req_id)
        except (KeyError, LookupError):
            return None
        if requirement is None:
            return None
        return requirement.title, requirement.section

    return lookup


_lookup: list[RequirementLookup] = []


def use_requirement_lookup(lookup: RequirementLookup | None) -> None:
    """Use `lookup` for titles and sections (tests; the CLI with another catalogue); None resets."""
    _lookup.clear()
    if lookup is not None:
        _lookup.append(lookup)


def describe_requirement(req_id: str) -> tuple[str, str]:
    """(title, section) of `req_id`, with placeholders when the catalogue does not know it."""
    lookup = _lookup[0] if _lookup else _catalogue_lookup()
    found = lookup(req_id)
    return found if found is not None else ("(not in the catalogue)", "(unknown)")


_scrub = Redactor()  # shape-based safety net; the plugin also filters the run's exact tokens


class ConformanceFailure(AssertionError):
    """The target broke requirement `req_id`: expected one thing, got another."""

    def __init__(
        self,
        req_id: str,
        *,
        expected: str,
        got: str,
        response: "httpx.Response | None" = None,
        exchange: "Exchange | None" = None,
    ) -> None:
        self.req_id = req_id
        self.expected = expected
        self.got = got
        self.response = response
        self.exchange = exchange
        super().__init__(f"{req_id}: expected {expected}; got {got}")

    def request_line(self) -> str:
        """`METHOD /path?query  -> status`, or a note that no request was involved."""
        if self.exchange is not None:
            from urllib.parse import urlsplit

            parts = urlsplit(self.exchange.url)
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            status = self.exchange.status if self.exchange.status is not None else "no response"
            return f"{self.exchange.method} {target}  -> {status}"
        if self.response is not None:
            request = self.response.request
            url = request.url
            target = url.path + (f"?{url.query.decode()}" if url.query else "")
            return f"{request.method} {target}  -> {self.response.status_code}"
        return "(none)"

    def reproduction(self) -> str | None:
        """A curl line for the request, with `$TOKEN` for the token; None without a request."""
        if self.exchange is not None:
            return self.exchange.curl()
        if self.response is not None:
            request = self.response.request
            return curl_command(
                method=request.method,
                url=str(request.url),
                headers=dict(request.headers),
                body=request.content,
            )
        return None

    def __str__(self) -> str:
        title, section = describe_requirement(self.req_id)
        lines = [
            f"{self.req_id}  {title}",
            f"  Section:  {section}",
            f"  Request:  {self.request_line()}",
            f"  Expected: {self.expected}",
            f"  Got:      {self.got}",
        ]
        reproduce = self.reproduction()
        if reproduce is not None:
            lines += ["Reproduce with:", f"  {reproduce}"]
        return _scrub.text("\n".join(lines))
