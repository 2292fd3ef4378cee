"""Is the provisioning adapter open to whoever shares its network?

The adapter mints tokens and bypasses authorization by design. On loopback only the
suite's machine reaches it; on any other address (a CI container on a shared network)
everyone there does, unless it requires a secret (`adapter_token`, `spec/adapter.yaml`
"Security"). `adapter-check` says so plainly, as a warning: an open adapter is a risk of
the deployment, not a broken feature.
"""

import ipaddress
import socket
from urllib.parse import urlsplit


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback one (a name is resolved; a name
    that does not resolve counts as not loopback)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    addresses = {str(info[4][0]) for info in found}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


def on_loopback(adapter_url: str) -> bool:
    """Whether the adapter at `adapter_url` is reachable from its own machine only."""
    return is_loopback(urlsplit(adapter_url).hostname or "")


def open_adapter_warning(adapter_url: str, *, secret_configured: bool) -> str:
    """The warning for an adapter off loopback that answered a request without a secret:
    none configured (set one), or one configured that the adapter does not check."""
    if not secret_configured:
        return (
            f"the adapter at {adapter_url} answers without a secret: anyone on that network "
            "can mint tokens; set adapter_token"
        )
    return (
        f"the adapter at {adapter_url} answers without its secret (adapter_token is set, yet "
        "GET /v1/health without it was answered): anyone on that network can mint tokens; "
        "make the adapter require adapter_token"
    )
