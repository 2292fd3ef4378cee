"""One fault of the catalogue: a named bug, the requirements it means to break, what it does."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Fault:
    """A named bug: the requirement ids it violates and what it does."""

    name: str
    reqs: tuple[str, ...]
    summary: str
    setup_only: bool = False
    """Breaks the provisioning adapter, not the API: the tests naming `reqs` cannot set
    up and end blocked or errored, never failed. A control of the kill matrix's
    accounting, which must show it survived (a setup failure is never a kill)."""
