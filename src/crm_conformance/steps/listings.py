"""The lists a list rule runs over: the three the document shows, and each one the target
file names.

The document shows the lists of contacts, users and audiences. It also says "Changes to
records are read by listing each resource with the `updated_since` filter" and gives the
common query parameters "of reads", so a list of deals, organizations, activities, tags,
conversations, campaigns or notes that a server offers is held to the same rules; its
path is the target's (`[conventions.lists]`, `notes.list_path`), and a list it leaves out
is not applicable, never guessed. Each rule of lists (the envelope, both ends of
`limit`, the refusals of invalid query values, the walk, `updated_since` on records)
takes its points from `ALL` (or `SYNCED`), so a list the target names is a point of
every one.
"""

from dataclasses import dataclass
from typing import Any

import httpx

from crm_conformance.core.model import conventions
from crm_conformance.core.transport.client import ApiClient
from crm_conformance.steps.expect import expect_status


@dataclass(frozen=True)
class Listing:
    """One list: a shown path, or the kind whose list the target file names."""

    name: str
    """The shown path (`/v1/contacts`), or the key of a named list's path
    (`lists.<kind>`, `notes.list`)."""
    req: str
    """The sentence of the list's own section (a named list: the collection convention)."""
    kind: str | None = None

    def path(self, convention: conventions.Lookup) -> str:
        """The path to send; a named list the target file leaves out is a skip naming its
        key (the `convention` lookup's)."""
        if self.kind is None:
            return self.name
        return conventions.path(convention, f"{self.name}_path")

    @property
    def synced(self) -> bool:
        """A list of records, which "changes to records are read by listing" with
        `updated_since`."""
        return self.name == "/v1/contacts" or self.kind in conventions.SYNCED


CONTACTS = Listing("/v1/contacts", "CON-001")
SHOWN = (CONTACTS, Listing("/v1/users", "USR-002"), Listing("/v1/audiences", "AUD-002"))
NAMED = (
    *(Listing(f"lists.{kind}", "PAG-001", kind) for kind in conventions.LISTED),
    Listing("notes.list", "PAG-001", "note"),
)
"""The lists the target file names: of each kind `[conventions.lists]` names, and of
notes (`notes.list_path`)."""
ALL = (*SHOWN, *NAMED)
SYNCED = tuple(listing for listing in ALL if listing.synced)


NAMED_READS = (
    *((kind, "list") for kind in conventions.LISTED),
    *((kind, "retrieve") for kind in conventions.RETRIEVED),
)
"""Each read the target file may name: its list of a kind, and its retrieve of one."""


def read_named(
    api: ApiClient,
    convention: conventions.Lookup,
    point: tuple[str, str],
    record_id: str,
    req: str,
    params: dict[str, Any],
) -> tuple[httpx.Response, list[tuple[str, Any]]]:
    """The rows one named read renders, each with where it was read: the first page of the
    list (`params` added), or the retrieve of `record_id`. A read the target leaves out is
    a skip naming its key; an answer other than 200 is a failure of `req`."""
    kind, read = point
    if read == "list":
        path = conventions.path(convention, f"lists.{kind}_path")
        response = api.get(path, params=params)
        rows = expect_status(response, req, 200).get("data") or []
        return response, [(f"GET {path} data[{i}]", row) for i, row in enumerate(rows)]
    path = conventions.path(convention, f"retrieve.{kind}_path", **{f"{kind}_id": record_id})
    response = api.get(path, params=params)
    return response, [(f"GET {path}", expect_status(response, req, 200))]
