"""crm-conformance: a contract-conformance suite for the Messaging and CRM service API."""

from crm_conformance._errors import (
    AdapterError,
    BudgetExhausted,
    CatalogueError,
    ConformanceError,
    FeatureMissing,
    ReportError,
    SetupFailed,
    TargetFileError,
    TargetUnreachable,
    UsageError,
)
from crm_conformance.failure import ConformanceFailure

__version__ = "0.1.0"

__all__ = [
    "AdapterError",
    "BudgetExhausted",
    "CatalogueError",
    "ConformanceError",
    "ConformanceFailure",
    "FeatureMissing",
    "ReportError",
    "SetupFailed",
    "TargetFileError",
    "TargetUnreachable",
    "UsageError",
    "__version__",
]
