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
    FeatureMissing,
    RateLimitWaitError,
    ReportError,
    SetupFailed,
    TargetFileError,
    TargetUnreachable,
    UsageError,
)
from crm_conformance.failure import ConformanceFailure

if TYPE_CHECKING:
    from crm_conformance import fuzz
    from crm_conformance.adapter_client import AdapterClient, Fixtures, IssuedToken, Workspace
    from crm_conformance.capabilities import Capabilities, discover
    from crm_conformance.checks import run_checks
    from crm_conformance.client import ApiClient
    from crm_conformance.expect import (
        expect_enum,
        expect_error,
        expect_identifier,
        expect_pages,
        expect_present,
        expect_status,
        expect_success,
        expect_timestamp,
        expect_true,
        expect_type_or_null,
        expect_value,
        expect_walk,
        instant,
        is_timestamp,
        matches,
        strings_in,
    )
    from crm_conformance.factories import RecordFactory
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
    "discover": "capabilities",
    "expect_enum": "expect",
    "expect_error": "expect",
    "expect_identifier": "expect",
    "expect_pages": "expect",
    "expect_present": "expect",
    "expect_status": "expect",
    "expect_success": "expect",
    "expect_timestamp": "expect",
    "expect_true": "expect",
    "expect_type_or_null": "expect",
    "expect_value": "expect",
    "expect_walk": "expect",
    "instant": "expect",
    "is_timestamp": "expect",
    "matches": "expect",
    "refill_window": "pacing",
    "run_checks": "checks",
    "strings_in": "expect",
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
    "FeatureMissing",
    "Fixtures",
    "IssuedToken",
    "RateLimitWaitError",
    "RecordFactory",
    "ReportError",
    "SetupFailed",
    "Target",
    "TargetFileError",
    "TargetUnreachable",
    "UsageError",
    "Workspace",
    "__version__",
    "discover",
    "expect_enum",
    "expect_error",
    "expect_identifier",
    "expect_pages",
    "expect_present",
    "expect_status",
    "expect_success",
    "expect_timestamp",
    "expect_true",
    "expect_type_or_null",
    "expect_value",
    "expect_walk",
    "fuzz",
    "instant",
    "is_timestamp",
    "matches",
    "refill_window",
    "run_checks",
    "strings_in",
]
