"""crm-conformance: a contract-conformance suite for the Messaging and CRM service API.

The package's public surface, for a vendor and a pytest user: the target, the client,
the outcomes and verdicts a run writes, the adapter (its client and the kit that serves
one) and the errors. A run is `crm-conformance run` or `pytest --target FILE` (the
plugin); its records are read with `read_records`. What a suite test calls to write its
steps is `crm_conformance.steps`. Every other module is the harness's business and may
change between releases.

The names load on first use (PEP 562): pytest imports this package for every session
of the environment (the plugin lives in it), so importing it must not load the HTTP
client, the catalogue or the fuzz layer. The imports under TYPE_CHECKING are the one
list of exports: type checkers read them, and `core.exports` derives `__all__` and the
lazy loading from them.
"""

from typing import TYPE_CHECKING

from crm_conformance.core.exports import lazy_exports

if TYPE_CHECKING:
    from crm_conformance._errors import AdapterError as AdapterError
    from crm_conformance._errors import BudgetExhausted as BudgetExhausted
    from crm_conformance._errors import CatalogueError as CatalogueError
    from crm_conformance._errors import ConformanceError as ConformanceError
    from crm_conformance._errors import ExchangeBoundExceeded as ExchangeBoundExceeded
    from crm_conformance._errors import FeatureMissing as FeatureMissing
    from crm_conformance._errors import RateLimitWaitError as RateLimitWaitError
    from crm_conformance._errors import ReportError as ReportError
    from crm_conformance._errors import SetupFailed as SetupFailed
    from crm_conformance._errors import TargetFileError as TargetFileError
    from crm_conformance._errors import TargetUnavailable as TargetUnavailable
    from crm_conformance._errors import TargetUnreachable as TargetUnreachable
    from crm_conformance._errors import UsageError as UsageError
    from crm_conformance.adapter.provisioning import AdapterClient as AdapterClient
    from crm_conformance.adapter_kit import Fixtures as Fixtures
    from crm_conformance.adapter_kit import IssuedToken as IssuedToken
    from crm_conformance.adapter_kit import Workspace as Workspace
    from crm_conformance.adapter_kit import adapter_app as adapter_app
    from crm_conformance.core.model.capabilities import Capabilities as Capabilities
    from crm_conformance.core.model.target import Target as Target
    from crm_conformance.core.model.target import load_target as load_target
    from crm_conformance.core.transport.client import ApiClient as ApiClient
    from crm_conformance.core.verdicts.failure import ConformanceFailure as ConformanceFailure
    from crm_conformance.core.verdicts.outcomes import Outcome as Outcome
    from crm_conformance.core.verdicts.outcomes import OutcomeRecord as OutcomeRecord
    from crm_conformance.core.verdicts.outcomes import Verdict as Verdict
    from crm_conformance.core.verdicts.outcomes import read_records as read_records

__version__ = "0.1.0"

_exports, __getattr__ = lazy_exports(__name__, __file__)
__all__ = sorted([*_exports, "__version__"])
