"""Waivers: a vendor's expected failures, each with a reason, read from one file format.

A waived requirement's tests become strict expected failures: a failure is reported as
`expected_failure`, and a waived test that passes fails the run, so a waiver is removed
as soon as the bug is fixed. `run --certify` allows none. This module is the only reader
of the file; the command line and the pytest option share its help text.
"""

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from crm_conformance._errors import UsageError

HELP = (
    "expected failures, strict: a YAML list (or TOML [[waiver]] tables) of "
    "{id, reason, link, expires}"
)
"""The help text of `--waivers`, for `crm-conformance run` and for plain pytest."""


@dataclass(frozen=True)
class Waiver:
    """One expected failure: requirement id, why, where it is tracked, until when."""

    id: str
    reason: str
    link: str = ""
    expires: date | None = None

    def describe(self) -> str:
        """The xfail reason a waived test shows."""
        return " ".join(part for part in (f"waived {self.id}:", self.reason, self.link) if part)

    def as_dict(self) -> dict[str, str]:
        shown = {"id": self.id, "reason": self.reason, "link": self.link}
        if self.expires is not None:
            shown["expires"] = self.expires.isoformat()
        return {key: value for key, value in shown.items() if value}


def load_waivers(path: Path) -> list[Waiver]:
    """The waivers of `path` (YAML, or TOML with `[[waiver]]` tables), validated.

    Each entry needs an `id` and a `reason`; `expires` is an ISO date. Any problem is a
    `UsageError` naming the file and the entry.
    """
    import yaml  # here: the pytest plugin imports this module and stays import-light

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--waivers={path}: {exc.strerror}") from None
    try:
        data: Any = (
            tomllib.loads(text).get("waiver", [])
            if path.suffix == ".toml"
            else yaml.safe_load(text)
        )
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise UsageError(
            f"--waivers={path}: not valid {path.suffix[1:] or 'YAML'}: {exc}"
        ) from None
    if not isinstance(data, list):
        raise UsageError(
            f"--waivers={path}: expected a list of waivers (id, reason, link, expires)"
        )
    return [_waiver(path, number, entry) for number, entry in enumerate(data, 1)]


def _waiver(path: Path, number: int, entry: Any) -> Waiver:
    if not isinstance(entry, Mapping) or not entry.get("id") or not entry.get("reason"):
        raise UsageError(f"--waivers={path}: waiver {number} needs at least id and reason")
    expires = entry.get("expires")
    if expires is not None and not isinstance(expires, date):
        try:
            expires = date.fromisoformat(str(expires))
        except ValueError:
            raise UsageError(
                f"--waivers={path}: waiver {number} expires={expires!r} is not a date (YYYY-MM-DD)"
            ) from None
    return Waiver(
        id=str(entry["id"]),
        reason=str(entry["reason"]),
        link=str(entry.get("link") or ""),
        expires=expires,
    )


def in_force(waivers: Iterable[Waiver], today: date) -> tuple[dict[str, Waiver], list[str]]:
    """The waivers not expired by `today`, by requirement id, and a warning per expired one."""
    active: dict[str, Waiver] = {}
    warnings: list[str] = []
    for waiver in waivers:
        if waiver.expires is not None and waiver.expires < today:
            warnings.append(f"waiver for {waiver.id} expired on {waiver.expires}; ignored")
        else:
            active[waiver.id] = waiver
    return active, warnings
