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
from crm_conformance.failure import ConformanceFailure

if TYPE_CHECKING:
    from crm_conformance import conventions, document, fuzz, operations
    from crm_conformance.adapter_client import AdapterClient, Fixtures, IssuedToken, Workspace
    from crm_conformance.capabilities import Capabilities, discover
    from crm_conformance.checks import is_timestamp, run_checks
    from crm_conformance.client import ApiClient
    from crm_conformance.expect import (
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
    from crm_conformance.factories import RecordFactory, absent_id, phone_number, stamp
    from crm_conformance.pacing import refill_window
    from crm_conformance.target import Target

__version__ = "0.1.0"

_LAZY = {
    "AdapterClient": "adapter_client",
    "ApiClient": "client",
    "Capabilities": "capabilities",
    "Fixtures": "adapter_client",
    "IssuedToken": "adapter_client",
    "RecordFactory": "factories",
    "Target": "target",
    "Workspace": "adapter_client",
    "absent_id": "factories",
    "discover": "capabilities",
    "error_of": "expect",
    "expect_enum": "expect",
    "expect_error": "expect",
    "expect_error_among": "expect",
    "expect_identifier": "expect",
    "expect_narrowed": "expect",
    "expect_organization": "expect",
    "expect_owner": "expect",
    "expect_pages": "expect",
    "expect_present": "expect",
    "expect_refused_body": "expect",
    "expect_status": "expect",
    "expect_success": "expect",
    "expect_timestamp": "expect",
    "expect_true": "expect",
    "expect_type_or_null": "expect",
    "expect_unset_custom_fields": "expect",
    "expect_value": "expect",
    "expect_walk": "expect",
    "first_page": "expect",
    "ids_of": "expect",
    "instant": "expect",
    "is_timestamp": "checks",
    "matches": "expect",
    "phone_number": "factories",
    "refill_window": "pacing",
    "run_checks": "checks",
    "stamp": "factories",
    "strings_in": "expect",
    "with_cursor": "expect",
    "words_in": "expect",
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
    "conventions",
    "discover",
    "document",
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
    "fuzz",
    "ids_of",
    "instant",
    "is_timestamp",
    "matches",
    "operations",
    "phone_number",
    "refill_window",
    "run_checks",
    "stamp",
    "strings_in",
    "with_cursor",
    "words_in",
]
