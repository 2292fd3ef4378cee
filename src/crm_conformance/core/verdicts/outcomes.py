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
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from crm_conformance._errors import (
    AdapterError,
    BudgetExhausted,
    ExchangeBoundExceeded,
    RateLimitWaitError,
    SetupFailed,
    TargetUnavailable,
    TargetUnreachable,
)
from crm_conformance.core.verdicts.failure import ConformanceFailure

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
"""user_properties key: `{seed, profile, requests, sent}` of a fuzz test, and `rounds`
under the deep profile (written by the fuzz suites; its seed and rounds replay the test's
cases, `sent` is their fingerprint)."""
PROP_RATE_WAIT = "crm_rate_wait"
"""user_properties key: `{seconds, 429s}` the test waited for its tokens' rate allowance."""
PROP_FAULTS = "crm_faults"
"""user_properties key: `{retried: {reason: n}, given_up: {reason: n}}`, the transport
faults the test met (`retries`): those sent again, and those that ended its retries."""
PROP_DETAILS = "crm_details"
"""user_properties key: a failed test's report (request, expected, got, the curl line),
redacted and inert, which `requirements.html` shows beside the clause it breaks."""
PROP_REQUESTS = "crm_requests"
"""user_properties key: how many requests the test sent to the API (answered or not)."""
PROP_TOKEN = "crm_token"
"""user_properties key: the name of the token the test's `api` sent (`token_pool`)."""
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
    SUITE_ERROR = "suite_error"
    """An exception that is no check's failure: the suite's own fault, never charged to
    a requirement (its traceback is in `pytest.log`)."""
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


SUITE_ERROR_PREFIX = "suite error (the suite's own fault, not the target's)"


def classify(exc: BaseException) -> Classified | None:
    """The outcome of the harness's own exception types; None for a failure whose check
    says which requirement it breaks (pytest's verdict, a failure, stands).

    An exception that is neither (a KeyError of a test reading an answer, a Hypothesis
    health check, a check that names no requirement) is a suite error: no check found
    the target broke a rule, so nothing is charged.
    """
    if isinstance(exc, ConformanceFailure):
        return Classified(Outcome.FAILED, str(exc))
    members = failure_members(exc)
    if members != [exc] and all(isinstance(m, ConformanceFailure) for m in members):
        # several checks of one test failed (`evidence.checks_predicate`): each report
        return Classified(Outcome.FAILED, "\n\n".join(str(m) for m in members))
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
    if isinstance(exc, ExchangeBoundExceeded):
        # One answer that did not end is this test's error; the circuit breaker stops
        # the run when they keep coming.
        return Classified(Outcome.ERROR, f"transport error talking to the target: {exc}")
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
    if (failure_members(exc) != [exc] and only_transport(exc)) or is_transport_error(exc):
        # Not the service's answer (a group of them, a gateway's 502): nothing established.
        return Classified(
            Outcome.ERROR,
            "transport error talking to the target: " + "; ".join(failure_causes(exc)),
        )
    if failed_requirements(exc) is None:
        text = str(exc).strip().splitlines()
        said = f": {text[0]}" if text else ""
        return Classified(Outcome.SUITE_ERROR, f"{SUITE_ERROR_PREFIX}: {type(exc).__name__}{said}")
    return None


def _only_unavailable(exc: BaseException) -> TargetUnavailable | TargetUnreachable | None:
    """Of a group holding nothing but a target unavailable or unreachable (nested groups
    included), the first unreachable (it stops the run), else the first unavailable; None
    otherwise. Hypothesis replays a failing example: when the target answered the replay,
    it raises the fault in a group (`FlakyFailure`), and when the target went away
    between the two, the group holds both kinds; still no failure of the target."""
    if not isinstance(exc, BaseExceptionGroup) or not exc.exceptions:
        return None
    found: list[TargetUnavailable | TargetUnreachable] = []
    for member in exc.exceptions:
        inner = (
            member
            if isinstance(member, TargetUnavailable | TargetUnreachable)
            else _only_unavailable(member)
        )
        if inner is None:
            return None
        found.append(inner)
    return next((e for e in found if isinstance(e, TargetUnreachable)), found[0])


_CHECK_RESOLVERS: list[Callable[[BaseException], Iterable[str] | None]] = []
"""Say which requirement ids a failure of a check the harness did not write
(schemathesis's) is charged to; None when they do not know it."""

TRANSPORT_ATTR = "crm_transport"
"""Attribute set (True) on a failure provoked by a transport fault's answer, not the
service's (a gateway's 502 without the error envelope, a 503): charged to none."""

REQUIREMENTS_ATTR = "crm_requirements"
"""Attribute naming the ids a foreign failure is charged to, set where it was caught
(`fuzz_charges.stamp`), which knows the case and the response."""

REQUEST_ATTR = "crm_request"
"""Attribute naming the request (`METHOD /path -> status`) that provoked a failure."""


def attribute_checks(
    requirements: Mapping[str, tuple[str, ...]] | Callable[[BaseException], Iterable[str] | None],
) -> None:
    """Say which requirement ids a foreign check enforces (the fuzz layer, at import): a
    table by check name or failure code, or a function of the failure.

    A failure such a check raises then lands on those ids (`failed_requirements`).
    """
    if callable(requirements):
        _CHECK_RESOLVERS.append(requirements)
        return
    table = dict(requirements)

    def by_name(exc: BaseException) -> tuple[str, ...] | None:
        names = [getattr(exc, "code", None), *(getattr(exc, "checks", None) or ())]
        return next((table[n] for n in names if n in table), None)

    _CHECK_RESOLVERS.append(by_name)


def is_transport_error(exc: BaseException) -> bool:
    """Whether `exc` is a transport fault, not the service's answer: a dropped connection
    or a timeout (httpx's, requests's, the socket's), or a failure marked TRANSPORT_ATTR.

    Looks up httpx and requests only when loaded: an exception of a module never
    imported cannot have been raised.
    """
    if getattr(exc, TRANSPORT_ATTR, False):
        return True
    kinds: list[type[BaseException]] = [ConnectionError, TimeoutError]
    httpx = sys.modules.get("httpx")
    if httpx is not None:
        kinds.append(httpx.TransportError)
    requests = sys.modules.get("requests")
    if requests is not None:
        kinds += [requests.ConnectionError, requests.Timeout]
        kinds.append(requests.exceptions.ChunkedEncodingError)
    return isinstance(exc, tuple(kinds))


def failure_members(exc: BaseException) -> list[BaseException]:
    """The single failures in `exc`: the members of (nested) groups, each one unwrapped
    from schemathesis's CustomFailure around a harness check's failure."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for member in exc.exceptions for leaf in failure_members(member)]
    wrapped = getattr(exc, "exception", None)  # schemathesis's CustomFailure wraps our check's
    if isinstance(wrapped, BaseException) and not is_transport_error(exc):
        return [wrapped]
    return [exc]


def _member_requirements(exc: BaseException) -> list[str] | None:
    if is_transport_error(exc):
        return []
    if isinstance(exc, ConformanceFailure):
        return [exc.req_id]
    said = getattr(exc, REQUIREMENTS_ATTR, None)
    if said is not None:
        return list(said)
    for resolve in _CHECK_RESOLVERS:
        ids = resolve(exc)
        if ids is not None:
            return list(ids)
    return None


def failed_requirements(exc: BaseException) -> list[str] | None:
    """The requirement ids a failure is charged to; None when it does not say.

    A `ConformanceFailure` names its id; a group of failures (schemathesis's, or
    Hypothesis's several distinct bugs) is charged member by member, to the union of
    their ids; a check failure of schemathesis to the ids its check was attributed
    (`attribute_checks`, or REQUIREMENTS_ATTR set where it was caught); a transport
    fault (`is_transport_error`) to none, as it is not the service's answer.
    One member that does not say makes the whole failure say nothing: no check said
    which rule broke, so it is a suite error (`classify`), charged to none.
    """
    found: list[str] = []
    for member in failure_members(exc):
        ids = _member_requirements(member)
        if ids is None:
            return None
        found += [i for i in ids if i not in found]
    return found


def only_transport(exc: BaseException) -> bool:
    """Whether every failure in `exc` is a transport fault (the test then established
    nothing about the target: an error, not a failure)."""
    return all(is_transport_error(member) for member in failure_members(exc))


CAUSE_WIDTH = 200
"""Characters of one cause line (a target's text is cut, never carried whole)."""
REQUEST_WIDTH = 90
"""Characters of the request in a cause line; the message is cut first, so it stays."""


def failure_causes(exc: BaseException) -> list[str]:
    """One line per failure in `exc`: the ids it is charged to, its own message and the
    request that provoked it (`ERR-001: expected ...; got ... (GET /v1/contacts -> 502)`)."""
    lines: list[str] = []
    for member in failure_members(exc):
        ids = _member_requirements(member)
        charged = "charged to none" if ids == [] else ", ".join(ids or ["(unattributed)"])
        if is_transport_error(member) and not getattr(member, TRANSPORT_ATTR, False):
            message = f"transport error: {type(member).__name__}: {member or 'no detail'}"
        else:
            message = _message(member)
        if getattr(member, TRANSPORT_ATTR, False):
            message = f"a gateway's answer, not the service's: {message}"
        request = _cut(_request(member), REQUEST_WIDTH)
        said = f" ({request})" if request else ""
        room = CAUSE_WIDTH - len(charged) - len(said) - 2
        lines.append(f"{charged}: {_cut(message, room)}{said}")
    return lines


def _cut(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters (a target's text is never whole)."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(0, width - 3)] + "..."


def _message(exc: BaseException) -> str:
    if isinstance(exc, ConformanceFailure):
        return f"expected {exc.expected}; got {exc.got}"
    title = getattr(exc, "title", None)
    detail = str(getattr(exc, "message", "") or "")
    if title is None:
        text = str(exc).strip()
        return text.splitlines()[0] if text else type(exc).__name__
    first = next((line.strip() for line in detail.splitlines() if line.strip()), "")
    return f"{title}: {first}" if first else str(title)


def _request(exc: BaseException) -> str:
    said = getattr(exc, REQUEST_ATTR, None)
    if said:
        return str(said)
    if isinstance(exc, ConformanceFailure):
        line = exc.request_line()
        return "" if line == "(none)" else " ".join(line.split())
    return str(getattr(exc, "operation", "") or "")


def cause_for(cause: str, req_id: str) -> str:
    """The lines of a record's `cause` (`failure_causes`) charged to `req_id`, else all."""
    lines = cause.splitlines()
    own = [line for line in lines if req_id in line.partition(": ")[0].split(", ")]
    return "\n".join(own) if own else cause


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
    rounds: int | None = None
    """The rounds a deep-profile fuzz test started, a failing one included (replay:
    `--fuzz-rounds RUN_DIR`); None for any other test."""
    rate_wait: dict[str, Any] = field(default_factory=dict)
    """Seconds the test waited for its tokens' rate allowance and the 429s it waited out
    (`{"seconds": s, "429s": n}`); empty when it never waited."""
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    """The transport faults the test met, by reason: `retried` (sent again) and
    `given_up` (ended its retries: the target was unavailable); empty when none."""
    details: str = ""
    """Of a failed test: its failure's report (request, expected, got, the curl line),
    redacted and inert; empty otherwise (`PROP_DETAILS`)."""
    requests: int = 0
    """Requests the test sent to the API, each attempt counted (the adapter's apart)."""
    token: str = ""
    """The name of the token its `api` sent: `tokens.full`, or `pool K` of a token pool."""
    checked: dict[str, list[str]] = field(default_factory=dict)
    """`{requirement: [check, ...]}`: the checks that ran in the test and found the
    requirement held (`evidence`). A requirement's `passed` comes only from here."""

    @property
    def charged(self) -> frozenset[str]:
        """The ids a failure of this test counts against: `failed_requirements` (a failure
        that says no rule is a suite error, charged to none)."""
        return frozenset(self.failed_requirements)

    def to_json(self) -> str:
        # The fields as they are: `asdict` would deep-copy every list and dict first,
        # 1.5 % of a quick run's CPU for a copy json.dumps only reads.
        return json.dumps({f.name: getattr(self, f.name) for f in fields(self)}, sort_keys=True)

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
