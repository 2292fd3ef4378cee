"""Layer 3, the reference server: the contract done right, served by `crm-conformance serve`.

See README.md beside this file for how it is built and how to extend it.
"""

from crm_conformance.reference.app import create_app
from crm_conformance.reference.server import ServedTarget, running_server
from crm_conformance.reference.settings import ServerSettings

__all__ = ["ServedTarget", "ServerSettings", "create_app", "running_server"]
