"""crm-conformance: a contract-conformance suite for the Messaging and CRM service API."""

from crm_conformance._errors import (
    AdapterError,
    CatalogueError,
    ConformanceError,
    TargetFileError,
    TargetUnreachable,
)
from crm_conformance.failure import ConformanceFailure

__version__ = "0.1.0"

__all__ = [
    "AdapterError",
    "CatalogueError",
    "ConformanceError",
    "ConformanceFailure",
    "TargetFileError",
    "TargetUnreachable",
    "__version__",
]
