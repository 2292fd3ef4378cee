"""The fault catalogue: named, realistic bugs the reference server can be started with.

Each fault lists the requirements it means to break, so the suite's kill rate can be
measured: the suite must fail against every fault, charged to one of those ids. What a
fault was shown to break is measured, not declared: the kill matrix records the ids its
killing failures were charged to (`selftest.report.charged`). A fault is off unless
named (`ServerSettings(faults={...})`, `crm-conformance serve --fault NAME`); the code
checks `settings.has_fault(name)` where the bug would live, but for about twenty that
rewrite every answer's body in `rendering.py` instead.

Declared by area, one module per requirement class (the class of a fault's first
requirement), and assembled here in the catalogue's class order.
"""

from crm_conformance.reference.faults import (
    activities,
    campaigns,
    contacts,
    conversations,
    core,
    deals,
    directory,
    idempotency,
    oauth,
    pagination,
    rate_limits,
    scopes,
    success_events,
    sync,
    tags,
    tenancy,
)
from crm_conformance.reference.faults.fault import Fault

_FAULTS: tuple[Fault, ...] = (
    *core.FAULTS,
    *pagination.FAULTS,
    *contacts.FAULTS,
    *deals.FAULTS,
    *activities.FAULTS,
    *tags.FAULTS,
    *directory.FAULTS,
    *idempotency.FAULTS,
    *conversations.FAULTS,
    *campaigns.FAULTS,
    *success_events.FAULTS,
    *sync.FAULTS,
    *scopes.FAULTS,
    *oauth.FAULTS,
    *tenancy.FAULTS,
    *rate_limits.FAULTS,
)

FAULTS: dict[str, Fault] = {fault.name: fault for fault in _FAULTS}
"""Every fault by name."""

__all__ = ["FAULTS", "Fault"]
