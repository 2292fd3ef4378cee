"""The checks a test ran and passed, by requirement: what a `passed` verdict is earned from.

A marker names what a test *may* check; whether a requirement was verified depends on
what ran. Every check (`steps.expect`'s `expect_*`, the registered checks of
`core.verdicts.checks`, the fuzz layer's checks) reports here each time it evaluated a
requirement and found it held. A check that found a requirement broken raises
`ConformanceFailure`, which charges the failure (`outcomes.failed_requirements`). So a
requirement passes only through a check of it that ran and passed (DESIGN.md,
"Conformance classes and outcomes"), and a test that returns early, or whose check did
not apply to the answer it got, gives the ids it names nothing.

A predicate check (`checks_predicate`: a value, a presence, a format) that fails in a
test does not stop it: its failure is kept (`take_failed`) and the test goes on to its
other checks, so a server breaking two rules fails both, each charged to its own
requirement, and a fault's kill lands on every rule it breaks. A check whose answer the
test goes on to use (`checks_requirement`: a status, an error) stops it at once.

Pytest-free: the plugin opens a ledger when a test starts (`begin`), raises the kept
failures when its call ends, and writes what passed into the test's `user_properties`
when it ends (`end`); outside a test, passes go nowhere and every failure is raised.
One test runs at a time in a process, so the ledger is the process's.
"""

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

PROP_CHECKED = "crm_checked"
"""user_properties key: `{requirement: [check, ...]}`, the checks that ran and passed."""

_P = ParamSpec("_P")
_R = TypeVar("_R")


@dataclass
class Ledger:
    """The checks that passed during one test, by requirement, in the order first seen."""

    passed: dict[str, list[str]] = field(default_factory=dict)
    failed: list[AssertionError] = field(default_factory=list)
    """Failures of predicate checks, kept while the test goes on (`checks_predicate`)."""
    keeping: bool = False
    """Whether failures are kept: in the test's call only, never in a fixture's setup
    (a fixture that goes on past a broken rule would hand the test broken data)."""

    def add(self, req_id: str, check: str) -> None:
        names = self.passed.setdefault(req_id, [])
        if check not in names:
            names.append(check)


_lock = threading.Lock()
_current: Ledger | None = None


def begin() -> None:
    """Open a fresh ledger for the test that starts now (the previous one is dropped)."""
    global _current
    with _lock:
        _current = Ledger()


def end() -> dict[str, list[str]]:
    """Close the running test's ledger: what passed, by requirement (empty when none was
    open)."""
    global _current
    with _lock:
        ledger, _current = _current, None
    return {req: list(names) for req, names in ledger.passed.items()} if ledger else {}


def passed(req_id: str, check: str) -> None:
    """A check named `check` evaluated `req_id` and found it held."""
    with _lock:
        if _current is not None:
            _current.add(req_id, check)


def take_failed() -> list[AssertionError]:
    """The predicate failures the running test kept, and none kept after this call."""
    with _lock:
        if _current is None:
            return []
        failed, _current.failed = _current.failed, []
        return failed


def _kept() -> int:
    with _lock:
        return len(_current.failed) if _current is not None else 0


def _keep(failure: AssertionError) -> bool:
    """Keep `failure` in the running test's ledger; False outside a test's call (raise
    it)."""
    with _lock:
        if _current is None or not _current.keeping:
            return False
        _current.failed.append(failure)
        return True


def keep(failure: AssertionError) -> None:
    """Keep `failure` where a test's call goes on past it; raise it anywhere else."""
    if not _keep(failure):
        raise failure


def keep_failures(keeping: bool) -> None:
    """Start (True) or stop keeping predicate failures in the running test's ledger."""
    with _lock:
        if _current is not None:
            _current.keeping = keeping


def checks_requirement(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Make `fn(response, req_id, ...)`, a step that raises `ConformanceFailure` when the
    rule `req_id` is broken, report a pass of `req_id` when it returns and no check it
    made kept a failure."""
    return _reporting(fn, keep=False)


def checks_predicate(fn: Callable[_P, None]) -> Callable[_P, None]:
    """As `checks_requirement`, for a step whose answer nothing uses: in a test, its
    failure is kept and the test goes on (`take_failed`)."""
    return _reporting(fn, keep=True)


def _reporting(fn: Callable[_P, _R], *, keep: bool) -> Callable[_P, _R]:
    @functools.wraps(fn)
    def step(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        kept = _kept()
        try:
            result = fn(*args, **kwargs)
        except AssertionError as failure:
            if keep and getattr(failure, "req_id", None) and _keep(failure):
                return None  # type: ignore[return-value]  # a predicate returns None
            raise
        req_id = args[1] if len(args) > 1 else kwargs.get("req_id")
        if isinstance(req_id, str) and _kept() == kept:
            passed(req_id, fn.__name__)
        return result

    return step
