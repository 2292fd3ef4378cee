"""The plugin loads in every pytest session of the environment, so importing it is cheap.

Importing `crm_conformance.plugin` imports the package `crm_conformance` first, so this
also holds the package's own import light.
"""

import subprocess
import sys


def test_importing_the_plugin_loads_no_http_client_catalogue_or_server() -> None:
    code = (
        "import sys, crm_conformance.plugin\n"
        "heavy = [m for m in ('httpx', 'yaml', 'schemathesis',"
        " 'crm_conformance.core.model.catalogue', 'crm_conformance.reference',"
        " 'crm_conformance.core.transport.client') if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
