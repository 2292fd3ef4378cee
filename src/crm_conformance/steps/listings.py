"""The lists a list rule runs over: the three the document shows, and each one the target
file names.

The document shows the lists of contacts, users and audiences. It also says "Changes to
records are read by listing each resource with the `updated_since` filter" and gives the
common query parameters "of reads", so a list of deals, organizations, activities, tags,
conversations or campaigns that a server offers is held to the same rules; its path is
the target's (`[conventions.lists]`), and a list it leaves out is not applicable, never
guessed. Each rule of lists (the envelope, both ends of `limit`, the refusals of invalid
query values, the walk, `updated_since` on records) takes its points from `ALL` (or
`SYNCED`), so a list the target names is a point of every one.
"""

from dataclasses import dataclass

from crm_conformance.core.model import conventions


@dataclass(frozen=True)
class Listing:
    """One list: a shown path, or the kind whose list the target file names."""

    name: str
    """The shown path (`/v1/contacts`), or `lists.<kind>` for a named list."""
    req: str
    """The sentence of the list's own section (a named list: the collection convention)."""
    kind: str | None = None

    def path(self, convention: conventions.Lookup) -> str:
        """The path to send; a named list the target file leaves out is a skip naming its
        key (the `convention` lookup's)."""
        if self.kind is None:
            return self.name
        return conventions.path(convention, f"lists.{self.kind}_path")

    @property
    def synced(self) -> bool:
        """A list of records, which "changes to records are read by listing" with
        `updated_since`."""
        return self.name == "/v1/contacts" or self.kind in conventions.SYNCED


CONTACTS = Listing("/v1/contacts", "CON-001")
SHOWN = (CONTACTS, Listing("/v1/users", "USR-002"), Listing("/v1/audiences", "AUD-002"))
NAMED = tuple(Listing(f"lists.{kind}", "PAG-001", kind) for kind in conventions.LISTED)
ALL = (*SHOWN, *NAMED)
SYNCED = tuple(listing for listing in ALL if listing.synced)
