"""The outcome vocabulary of a run, and its one stream of records (`outcomes.jsonl`).

Every reader of a run's results (the runner's verdict, the summaries, the certificate,
the self-test) reads the same records in the same words, so they cannot disagree about
what a test established. A blocked test or a harness error is neither a pass nor a
failure of the target, and the records keep them apart.

Pytest-free: the harness plugin fills the record keys (`PROP_*`) in a test's
`user_properties` (they travel across xdist workers) and writes the stream; everything
else reads it with `read_records`.
"""

import contextlib
import enum
import json
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from crm_conformance._errors import (
    AdapterError,
    BudgetExhausted,
    RateLimitWaitError,
    SetupFailed,
    TargetUnavailable,
    TargetUnreachable,
)
from crm_conformance.failure import ConformanceFailure

OUTCOMES_FILE = "outcomes.jsonl"
"""The stream's file name in a run folder."""

PROP_REQUIREMENT = "requirement"
"""user_properties key: a requirement id the test checks (one entry per id)."""
PROP_CLASS = "class"
"""user_properties key: a conformance class of the test's ids (one entry per class)."""
PROP_OBSERVATION = "observation"
"""user_properties key: `{key, value}` the target chose where the document is silent."""
PROP_OUTCOME = "crm_outcome"
"""user_properties key: the harness's classification of a failed call (an `Outcome`)."""
PROP_CAUSE = "crm_cause"
"""user_properties key: the one-line cause of that outcome."""
PROP_FAILED = "crm_failed"
"""user_properties key: a requirement id a failure is charged to (one entry per id)."""
PROP_FUZZ = "fuzz"
"""user_properties key: `{seed, profile, requests}` of a fuzz test (written by the fuzz
suites; its seed replays the test's cases)."""
PROP_RATE_WAIT = "crm_rate_wait"
"""user_properties key: `{seconds, 429s}` the test waited for its tokens' rate allowance."""
PROP_FAULTS = "crm_faults"
"""user_properties key: `{retried: {reason: n}, given_up: {reason: n}}`, the transport
faults the test met (`retries`): those sent again, and those that ended its retries."""
PROP_ADAPTER_FEATURE = "adapter_feature"
"""user_properties key: an adapter feature the test required (`run --list --by-feature`)."""


class Outcome(enum.StrEnum):
    """What one test established."""

    PASSED = "passed"
    """It ran and every assertion held."""
    FAILED = "failed"
    """The target broke the document (a `ConformanceFailure` or a plain assertion)."""
    ERROR = "error"
    """The harness, the transport or the target's setup failed; not a target failure."""
    BLOCKED = "blocked"
    """The target refused to make the data the test needs (`SetupFailed`)."""
    EXPECTED_FAILURE = "expected_failure"
    """It failed, and a waiver says it would (strict: a pass is reported)."""
    NOT_APPLICABLE = "not_applicable"
    """It did not run: the target lacks what it needs, or its class was not claimed."""


class Verdict(enum.StrEnum):
    """What a run established about one requirement (DESIGN.md, "Conformance classes")."""

    PASSED = "passed"
    """A test asserting it ran and passed, and none failed."""
    FAILED = "failed"
    """A test charged its failure to it: the target broke the document."""
    EXPECTED_FAILURE = "expected_failure"
    """It failed and is waived (strict)."""
    ERROR = "error"
    """Its tests could not run for a harness or setup error (never a target failure)."""
    BLOCKED = "blocked"
    """Its tests could not make the data they need (the target refused it)."""
    NOT_VERIFIED = "not_verified"
    """No test asserting it could run; the reason names what would verify it."""
    UNTESTABLE = "untestable"
    """No black-box test can reach it (the catalogue says why)."""


class ClassVerdict(enum.StrEnum):
    """What a run established about a conformance class."""

    PASSED = "passed"
    """Every testable requirement of the class passed, and so did core's."""
    CORE_NOT_PASSED = "core_not_passed"
    """Every testable requirement of the class passed, but core did not pass in full
    (a run of `--classes tags` runs only part of core): every class builds on core, so
    the class is not passed either."""
    FAILED = "failed"
    """A requirement of the class failed."""
    PARTIALLY_VERIFIED = "partially_verified"
    """Nothing failed, and some but not all testable requirements passed."""
    NOT_VERIFIED = "not_verified"
    """Nothing failed, and no testable requirement passed."""
    UNTESTABLE = "untestable"
    """The class has no testable requirement."""


@dataclass(frozen=True)
class Classified:
    """The outcome of a failed call the harness recognises, and whether the run stops."""

    outcome: Outcome
    cause: str
    stops_run: bool = False


def classify(exc: BaseException) -> Classified | None:
    """The outcome of the harness's own exception types; None for anything else.

    None leaves pytest's verdict: an exception the harness does not know is a failure.
    """
    if isinstance(exc, ConformanceFailure):
        return Classified(Outcome.FAILED, str(exc))
    if isinstance(exc, SetupFailed):
        return Classified(Outcome.BLOCKED, f"blocked: {exc}")
    if isinstance(exc, AdapterError):
        return Classified(
            Outcome.ERROR, f"adapter error (a setup problem, not a target failure): {exc}"
        )
    if isinstance(exc, TargetUnavailable):
        return Classified(Outcome.ERROR, f"{TargetUnavailable.PREFIX}: {exc}")
    unavailable = _only_unavailable(exc)
    if unavailable is not None:  # Hypothesis's group of a fault its replay did not meet
        return classify(unavailable)
    if isinstance(exc, TargetUnreachable):
        return Classified(Outcome.ERROR, f"target unreachable: {exc}", stops_run=True)
    if isinstance(exc, BudgetExhausted | RateLimitWaitError):
        return Classified(Outcome.ERROR, str(exc), stops_run=True)
    import httpx  # here: importing the vocabulary does not load an HTTP client

    if isinstance(exc, httpx.TransportError):
        where = ""
        with contextlib.suppress(RuntimeError):  # an error raised before a request existed
            where = f" on {exc.request.method} {exc.request.url.path}"
        return Classified(
            Outcome.ERROR,
            f"transport error talking to the target{where}: "
            f"{type(exc).__name__}: {exc or 'no detail'}",
        )
    return None


def _only_unavailable(exc: BaseException) -> TargetUnavailable | None:
    """The first `TargetUnavailable` of a group holding nothing else (nested groups
    included); None otherwise. Hypothesis replays a failing example: when the target
    answered the replay, it raises the fault in a group (`FlakyFailure`), still no
    failure of the target."""
    if not isinstance(exc, BaseExceptionGroup) or not exc.exceptions:
        return None
    found: list[TargetUnavailable] = []
    for member in exc.exceptions:
        inner = member if isinstance(member, TargetUnavailable) else _only_unavailable(member)
        if inner is None:
            return None
        found.append(inner)
    return found[0]


_CHECK_REQUIREMENTS: dict[str, tuple[str, ...]] = {}
"""Requirement ids of checks the harness did not write (schemathesis's), by check name
or failure code."""


def attribute_checks(requirements: Mapping[str, tuple[str, ...]]) -> None:
    """Say which requirement ids a foreign check enforces (the fuzz layer, at import).

    A failure such a check raises then lands on those ids (`failed_requirements`).
    """
    _CHECK_REQUIREMENTS.update(requirements)


def failed_requirements(exc: BaseException) -> list[str] | None:
    """The requirement ids a failure is charged to; None when it does not say.

    A `ConformanceFailure` names its id; a group of failures (schemathesis's, or
    Hypothesis's several distinct bugs) is charged to the ids of its members; a check
    failure of schemathesis to the ids its check was attributed (`attribute_checks`).
    One member that does not say makes the whole failure say nothing: its test then
    charges every id it names, as nothing finer is known.
    """
    if isinstance(exc, ConformanceFailure):
        return [exc.req_id]
    members: list[BaseException] = []
    wrapped = getattr(exc, "exception", None)  # schemathesis's CustomFailure wraps our check's
    if isinstance(exc, BaseExceptionGroup):
        members = list(exc.exceptions)
    elif isinstance(wrapped, BaseException):
        members = [wrapped]
    if members:
        found: list[str] = []
        for member in members:
            ids = failed_requirements(member)
            if ids is None:
                return None
            found += [i for i in ids if i not in found]
        return found
    # A schemathesis Failure: its kind by `code` (ST109), else the checks that raise it.
    names = [getattr(exc, "code", None), *(getattr(exc, "checks", None) or ())]
    attributed = next((_CHECK_REQUIREMENTS[n] for n in names if n in _CHECK_REQUIREMENTS), None)
    return list(attributed) if attributed else None


@dataclass(frozen=True)
class OutcomeRecord:
    """What one test established: its requirement ids, classes and outcome."""

    nodeid: str
    outcome: Outcome
    requirements: list[str]
    classes: list[str]
    cause: str = ""
    duration: float = 0.0
    observations: list[dict[str, Any]] = field(default_factory=list)
    failed_requirements: list[str] = field(default_factory=list)
    """Of a failed (or waived) test: the ids its failure is charged to; its other ids
    were neither verified nor broken by it."""
    seeds: list[int] = field(default_factory=list)
    """The seeds a generating test ran with (replay: `--seed`)."""
    rate_wait: dict[str, Any] = field(default_factory=dict)
    """Seconds the test waited for its tokens' rate allowance and the 429s it waited out
    (`{"seconds": s, "429s": n}`); empty when it never waited."""
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    """The transport faults the test met, by reason: `retried` (sent again) and
    `given_up` (ended its retries: the target was unavailable); empty when none."""

    @property
    def charged(self) -> frozenset[str]:
        """The ids a failure of this test counts against: `failed_requirements`, or every
        id it names when the failure did not say which rule it broke."""
        return frozenset(self.failed_requirements or self.requirements)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, line: str) -> "OutcomeRecord":
        data = json.loads(line)
        return cls(**{**data, "outcome": Outcome(data["outcome"])})


def append_record(path: Path, record: OutcomeRecord) -> None:
    """Add `record` to the stream at `path` as it finishes, so a crash keeps what ran."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(record.to_json() + "\n")


def read_records(path: Path) -> Iterator[OutcomeRecord]:
    """The records of an `outcomes.jsonl` (none when the run wrote no such file)."""
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield OutcomeRecord.from_json(line)
