"""`crm-conformance adapter-check`: is a vendor's adapter ready, feature by feature?

Before any conformance run, every feature `GET /v1/health` lists is called as
`spec/adapter.yaml` says (status codes, answer shapes, the error envelope of a refused
request), and its promises are read back through the public API as the document shows
it: a record made for a workspace is visible to that workspace's token and no other's,
a token made with chosen scopes holds exactly those, a revoked or expired token is
refused, a conversation or campaign made in a state behaves in that state, a deletion
shows in the deletion feed. One line per feature: ready, or broken with the reason and
the request that shows it as a curl line (token as `$TOKEN`).

It judges the adapter only: it writes no report and no verdict about the target. What it
makes carries the prefix `cc-check-<id>-` (records it can delete are deleted). It sends
the target's `adapter_token`, and warns (exit code unchanged) about an adapter off
loopback that answers without a secret (`adapter_exposure`).
"""

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx

from crm_conformance._errors import TargetFileError, TargetUnreachable
from crm_conformance.adapter_check import exposure as adapter_exposure
from crm_conformance.adapter_check.features import CHECKS
from crm_conformance.adapter_check.probe import Broken, Probe
from crm_conformance.core.model.target import Target, load_target
from crm_conformance.run import smoke


@dataclass(frozen=True)
class FeatureResult:
    """What adapter-check found for one feature."""

    feature: str
    state: Literal["ready", "broken", "not offered"]
    reason: str = ""
    curl: str = ""
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        if self.state == "broken":
            return [f"broken  {self.feature}: {self.reason}", f"        {self.curl}"]
        if self.state == "not offered":
            return [f"--      {self.feature}: not offered (tests that need it are not applicable)"]
        note = f" ({'; '.join(self.notes)})" if self.notes else ""
        return [f"ready   {self.feature}{note}"]


@dataclass(frozen=True)
class AdapterCheck:
    """Every feature's result; exit 0 when every listed feature is ready, else 1."""

    adapter_url: str
    results: tuple[FeatureResult, ...]
    warnings: tuple[str, ...] = ()
    """Risks of the deployment that break no feature (an adapter open to its network)."""

    @property
    def broken(self) -> list[FeatureResult]:
        return [r for r in self.results if r.state == "broken"]

    @property
    def exit_code(self) -> int:
        return 1 if self.broken else 0

    def text(self) -> str:
        listed = [r for r in self.results if r.state != "not offered"]
        lines = [f"adapter-check {self.adapter_url}"]
        lines += [f"warning: {warning}" for warning in self.warnings]
        for result in self.results:
            lines += result.lines()
        verdict = (
            f"{len(self.broken)} of {len(listed)} listed features broken"
            if self.broken
            else f"all {len(listed)} listed features ready"
        )
        lines.append(
            f"adapter-check: {verdict}. This judges the adapter only, never the target's "
            "conformance."
        )
        return "\n".join(lines)


def check_adapter(*, target_path: Path | None, base_url: str | None = None) -> AdapterCheck:
    """Check the adapter of the target; raises the setup error when there is none to check
    (no adapter_url: exit 2; the API or the adapter unreachable: exit 3)."""
    target = load_target(path=target_path, base_url=base_url)
    if target.adapter_url is None:
        raise TargetFileError(
            'the target has no adapter_url: add adapter_url = "<the adapter\'s root>" to the '
            "target file (spec/adapter.yaml describes what to implement)"
        )
    smoke.check_target(target)
    probe = Probe(target, prefix=f"cc-check-{secrets.token_hex(4)}-")
    try:
        return _check(probe, target)
    finally:
        probe.close()


def _check(probe: Probe, target: Target) -> AdapterCheck:
    assert target.adapter_url is not None
    try:
        health = probe.call("health")
    except httpx.TransportError as exc:
        raise TargetUnreachable(
            f"adapter_url {target.adapter_url} unreachable ({type(exc).__name__}); "
            "is the adapter running?"
        ) from None
    except Broken as broken:
        reason = broken.reason + _secret_hint(broken, target)
        result = FeatureResult("health", "broken", reason, _curl(broken))
        return AdapterCheck(target.adapter_url, (result,))
    warnings = _exposure(probe, target.adapter_url, secret=target.adapter_token)
    probe.listed = frozenset(health["features"])
    results = []
    for feature, run in CHECKS.items():
        if feature not in probe.listed:
            results.append(FeatureResult(feature, "not offered"))
            continue
        try:
            notes = run(probe)
        except Broken as broken:
            results.append(FeatureResult(feature, "broken", broken.reason, _curl(broken)))
        else:
            results.append(FeatureResult(feature, "ready", notes=tuple(notes)))
    return AdapterCheck(target.adapter_url, tuple(results), warnings)


def _secret_hint(broken: Broken, target: Target) -> str:
    """What to do about a health check refused with 401: the adapter wants a secret."""
    if broken.exchange is None or broken.exchange.status != 401:
        return ""
    if target.adapter_token is None:
        return "; the adapter requires a secret: set adapter_token in the target file"
    return "; the adapter refuses adapter_token: is it the adapter's secret?"


def _exposure(probe: Probe, adapter_url: str, *, secret: str | None) -> tuple[str, ...]:
    """The warning for an adapter off loopback that answers without a secret. Health was
    just answered: without a secret configured, that is the proof; with one, a request
    without it tells whether the adapter checks it."""
    if adapter_exposure.on_loopback(adapter_url):
        return ()
    if secret is not None:
        bare = probe.adapter.request("GET", "/v1/health", token=None)
        if not 200 <= bare.status_code < 300:
            return ()
    return (
        adapter_exposure.open_adapter_warning(adapter_url, secret_configured=secret is not None),
    )


def _curl(broken: Broken) -> str:
    return broken.exchange.curl() if broken.exchange is not None else "(no request was sent)"
