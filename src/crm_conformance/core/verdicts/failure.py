"""`ConformanceFailure`: the one way a test says "the target broke the document".

It carries the requirement id, what was expected, what came back and the exchange,
and prints in the fixed format of STYLE.md (requirement, section, request, expected,
got, "Reproduce with:" curl), which the plugin shows instead of a traceback.
"""

from typing import TYPE_CHECKING

from crm_conformance._errors import CatalogueError
from crm_conformance.core.hygiene.inert import LINE_LIMIT, TEXT_LIMIT, inert
from crm_conformance.core.hygiene.redaction import Redactor
from crm_conformance.core.transport.reproduction import curl_command

if TYPE_CHECKING:
    import httpx

    from crm_conformance.core.transport.exchanges import Exchange


def describe_requirement(req_id: str) -> tuple[str, str]:
    """(title, section) of `req_id`, with placeholders when the catalogue does not know it.

    An unloadable catalogue must not hide the failure being reported, so it reads as
    unknown here (the collection of the suites reports why it cannot be loaded).
    """
    from crm_conformance.core.model.catalogue import load_catalogue

    try:
        requirement = load_catalogue().get(req_id)
    except CatalogueError:
        requirement = None
    if requirement is None:
        return "(not in the catalogue)", "(unknown)"
    return requirement.title, requirement.section


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
            f"  Request:  {_shown(self.request_line())}",
            f"  Expected: {_shown(self.expected)}",
            f"  Got:      {_shown(self.got)}",
        ]
        reproduce = self.reproduction()
        if reproduce is not None:
            # Within the report's bound for one line (`inert_lines`), indent included.
            lines += ["Reproduce with:", f"  {_shown(reproduce, TEXT_LIMIT - 2)}"]
        return "\n".join(lines)


def _shown(text: str, limit: int = LINE_LIMIT) -> str:
    """One field of the report, redacted, then inert: one line, cut to `limit` (`inert`).

    Each field on its own: a target's newline cannot forge a "Got:" or "Reproduce with:"
    line, and its 1 MB message cannot push the curl line out of the report.
    """
    return inert(_scrub.text(text), limit=limit)
