"""`ServerSettings`: everything that varies between two starts of the reference server."""

import secrets
from dataclasses import dataclass, field

from crm_conformance.reference.adapter_faults import ADAPTER_FAULTS
from crm_conformance.reference.faults import FAULTS
from crm_conformance.reference.variants import VARIANTS


@dataclass(frozen=True)
class ServerSettings:
    """How to start the server; validated eagerly so a typo fails at start, not mid-run."""

    db: str = ":memory:"
    """SQLite database file, or `:memory:`."""
    rate_limit: int = 100_000
    """Requests each token may make per window (a generous default; `--rate-limit`)."""
    rate_window: int = 60
    """Length of the rate-limit window in seconds."""
    adapter: bool = True
    """Serve the provisioning adapter at `/_adapter/v1/...`."""
    faults: frozenset[str] = frozenset()
    variants: frozenset[str] = frozenset()
    adapter_faults: frozenset[str] = frozenset()
    """Faults of the provisioning adapter (`adapter_faults.py`), never of the server."""
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)
    """Signs cursors and peppers token hashes; random per start unless given."""
    adapter_token: str | None = field(default=None, repr=False)
    """The secret the adapter requires as `Authorization: Bearer` (`serve
    --adapter-token-env`); None serves it to anyone who reaches the loopback port."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "faults", frozenset(self.faults))
        object.__setattr__(self, "variants", frozenset(self.variants))
        object.__setattr__(self, "adapter_faults", frozenset(self.adapter_faults))
        unknown = sorted(self.faults - FAULTS.keys())
        if unknown:
            raise ValueError(f"unknown fault(s): faults={unknown}; known: {sorted(FAULTS)}")
        unknown = sorted(self.variants - VARIANTS.keys())
        if unknown:
            raise ValueError(f"unknown variant(s): variants={unknown}; known: {sorted(VARIANTS)}")
        unknown = sorted(self.adapter_faults - ADAPTER_FAULTS.keys())
        if unknown:
            raise ValueError(
                f"unknown adapter fault(s): adapter_faults={unknown}; "
                f"known: {sorted(ADAPTER_FAULTS)}"
            )
        if self.rate_limit < 1 or self.rate_window < 1:
            raise ValueError(
                f"rate_limit={self.rate_limit} and rate_window={self.rate_window} must be >= 1"
            )

    def has_fault(self, name: str) -> bool:
        """Whether the named fault is switched on (the name must exist)."""
        assert name in FAULTS, name
        return name in self.faults

    def has_variant(self, name: str) -> bool:
        """Whether the named variant is switched on (the name must exist)."""
        assert name in VARIANTS, name
        return name in self.variants

    def has_adapter_fault(self, name: str) -> bool:
        """Whether the named adapter fault is switched on (the name must exist)."""
        assert name in ADAPTER_FAULTS, name
        return name in self.adapter_faults
