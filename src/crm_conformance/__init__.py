"""crm-conformance: a contract-conformance suite for the Messaging and CRM service API.

The package's public surface: what a suite test may import, ours and a vendor's own
tests beside ours (`from crm_conformance import ApiClient, expect_status`). Every other
module is the harness's business and may change between releases.

The names load on first use (PEP 562): pytest imports this package for every session
of the environment (the plugin lives in it), so importing it must not load the HTTP
client, the catalogue or the fuzz layer.
"""

import importlib
from typing import TYPE_CHECKING, Any

from crm_conformance._errors import (
    AdapterError,
    BudgetExhausted,
    CatalogueError,
    ConformanceError,
    ExchangeBoundExceeded,
    FeatureMissing,
    RateLimitWaitError,
    ReportError,
    SetupFailed,
    TargetFileError,
    TargetUnavailable,
    TargetUnreachable,
    UsageError,
)
from crm_conformance.core.failure import ConformanceFailure

if TYPE_CHECKING:
    from crm_conformance.adapter.client import AdapterClient, Fixtures, IssuedToken, Workspace
    from crm_conformance.core.capabilities import Capabilities, discover
    from crm_conformance.core.checks import is_timestamp, run_checks
    from crm_conformance.core.client import ApiClient
    from crm_conformance.core.pacing import refill_window
    from crm_conformance.core.target import Target
    from crm_conformance.steps.expect import (
        error_of,
        expect_enum,
        expect_error,
        expect_error_among,
        expect_identifier,
        expect_narrowed,
        expect_organization,
        expect_owner,
        expect_pages,
        expect_present,
        expect_refused_body,
        expect_status,
        expect_success,
        expect_timestamp,
        expect_true,
        expect_type_or_null,
        expect_unset_custom_fields,
        expect_value,
        expect_walk,
        first_page,
        ids_of,
        instant,
        matches,
        strings_in,
        with_cursor,
        words_in,
    )
    from crm_conformance.steps.factories import RecordFactory, absent_id, phone_number, stamp

__version__ = "0.1.0"

_LAZY = {
    "AdapterClient": "adapter.client",
    "ApiClient": "core.client",
    "Capabilities": "core.capabilities",
    "Fixtures": "adapter.client",
    "IssuedToken": "adapter.client",
    "RecordFactory": "steps.factories",
    "Target": "core.target",
    "Workspace": "adapter.client",
    "absent_id": "steps.factories",
    "discover": "core.capabilities",
    "error_of": "steps.expect",
    "expect_enum": "steps.expect",
    "expect_error": "steps.expect",
    "expect_error_among": "steps.expect",
    "expect_identifier": "steps.expect",
    "expect_narrowed": "steps.expect",
    "expect_organization": "steps.expect",
    "expect_owner": "steps.expect",
    "expect_pages": "steps.expect",
    "expect_present": "steps.expect",
    "expect_refused_body": "steps.expect",
    "expect_status": "steps.expect",
    "expect_success": "steps.expect",
    "expect_timestamp": "steps.expect",
    "expect_true": "steps.expect",
    "expect_type_or_null": "steps.expect",
    "expect_unset_custom_fields": "steps.expect",
    "expect_value": "steps.expect",
    "expect_walk": "steps.expect",
    "first_page": "steps.expect",
    "ids_of": "steps.expect",
    "instant": "steps.expect",
    "is_timestamp": "core.checks",
    "matches": "steps.expect",
    "phone_number": "steps.factories",
    "refill_window": "core.pacing",
    "run_checks": "core.checks",
    "stamp": "steps.factories",
    "strings_in": "steps.expect",
    "with_cursor": "steps.expect",
    "words_in": "steps.expect",
}
"""Exported name -> the module (under crm_conformance) it is loaded from on first use."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'crm_conformance' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"crm_conformance.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AdapterClient",
    "AdapterError",
    "ApiClient",
    "BudgetExhausted",
    "Capabilities",
    "CatalogueError",
    "ConformanceError",
    "ConformanceFailure",
    "ExchangeBoundExceeded",
    "FeatureMissing",
    "Fixtures",
    "IssuedToken",
    "RateLimitWaitError",
    "RecordFactory",
    "ReportError",
    "SetupFailed",
    "Target",
    "TargetFileError",
    "TargetUnavailable",
    "TargetUnreachable",
    "UsageError",
    "Workspace",
    "__version__",
    "absent_id",
    "discover",
    "error_of",
    "expect_enum",
    "expect_error",
    "expect_error_among",
    "expect_identifier",
    "expect_narrowed",
    "expect_organization",
    "expect_owner",
    "expect_pages",
    "expect_present",
    "expect_refused_body",
    "expect_status",
    "expect_success",
    "expect_timestamp",
    "expect_true",
    "expect_type_or_null",
    "expect_unset_custom_fields",
    "expect_value",
    "expect_walk",
    "first_page",
    "ids_of",
    "instant",
    "is_timestamp",
    "matches",
    "phone_number",
    "refill_window",
    "run_checks",
    "stamp",
    "strings_in",
    "with_cursor",
    "words_in",
]
