"""The registry of checks: a check is registered with the requirements it may fail, and
reports each one it evaluated and found held (`evidence`)."""

import functools
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from crm_conformance.core.verdicts import evidence
from crm_conformance.core.verdicts.failure import ConformanceFailure

Evaluated = bool | frozenset[str]
"""What a check returns when nothing broke: True when it evaluated every requirement it
names, a set of the ids it evaluated, or False (an empty set) when it did not apply."""
CheckFunction = Callable[[httpx.Response], Evaluated]


@dataclass(frozen=True)
class Check:
    """A registered check: its name, the requirement ids it may fail, the function."""

    name: str
    requirements: tuple[str, ...]
    function: CheckFunction


_REGISTRY: dict[str, Check] = {}


def check(*requirements: str, name: str | None = None) -> Callable[[CheckFunction], CheckFunction]:
    """Register `fn` as a check failing `requirements`.

    The function registered (and returned) reports each requirement `fn` evaluated and
    found held to `evidence`, so a requirement is verified only where its check applied
    to an answer: an error rule says nothing about a 200.
    """
    if not requirements:
        raise ValueError("a check names at least one requirement id")

    def register(fn: CheckFunction) -> CheckFunction:
        key = name or fn.__name__

        @functools.wraps(fn)
        def reporting(response: httpx.Response) -> Evaluated:
            held = fn(response)
            for req_id in requirements if held is True else held or ():
                evidence.passed(req_id, key)
            return held

        if key in _REGISTRY:
            raise ValueError(f"name={key!r}: a check of that name is already registered")
        _REGISTRY[key] = Check(name=key, requirements=tuple(requirements), function=reporting)
        return reporting

    return register


def registered() -> tuple[Check, ...]:
    """Every registered check, in registration order."""
    return tuple(_REGISTRY.values())


def get(name: str) -> Check:
    """The check called `name`; KeyError lists the known names."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"name={name!r}: no such check; known: {', '.join(_REGISTRY)}") from None


def failures(response: httpx.Response) -> list[ConformanceFailure]:
    """Every failure the registered checks find in `response` (empty when it conforms)."""
    found = []
    for registered_check in _REGISTRY.values():
        try:
            registered_check.function(response)
        except ConformanceFailure as failure:
            found.append(failure)
    return found


def run_checks(response: httpx.Response) -> None:
    """Raise the first failure any registered check finds in `response`."""
    found = failures(response)
    if found:
        raise found[0]
