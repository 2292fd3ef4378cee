"""The pytest plugin: options, markers, fixtures and outcomes of a conformance run.

Import-light on purpose: pytest loads it for every session (entry point `pytest11`),
so httpx, the catalogue and the reference server load inside hooks and fixtures only,
and nothing happens unless a run asks for it (a target option, a suite test, a
fixture). ARCHITECTURE.md, "What the plugin gives a suite", is the contract.
"""

import contextlib
import functools
import importlib
import itertools
import json
import re
import uuid
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from crm_conformance.adapter_client import AdapterClient
    from crm_conformance.capabilities import Capabilities
    from crm_conformance.client import ApiClient, CircuitBreaker, ExchangeLog, RequestBudget
    from crm_conformance.factories import RecordFactory
    from crm_conformance.redaction import Redactor
    from crm_conformance.target import Target

CLASSES = (
    "core",
    "pagination",
    "contacts",
    "deals",
    "activities",
    "tags",
    "directory",
    "idempotency",
    "conversations",
    "campaigns",
    "success-events",
    "sync",
    "scopes",
    "oauth",
    "tenancy",
    "rate-limits",
)
"""Conformance classes (ARCHITECTURE.md), used when the catalogue cannot be loaded."""

AREA_CLASSES = {
    "AUTH": "core",
    "ERR": "core",
    "HDR": "core",
    "IDN": "core",
    "VER": "core",
    "PAG": "pagination",
    "QRY": "pagination",
    "CON": "contacts",
    "SRCH": "contacts",
    "DEAL": "deals",
    "ACT": "activities",
    "TAG": "tags",
    "USR": "directory",
    "AUD": "directory",
    "IDEM": "idempotency",
    "CONV": "conversations",
    "CAMP": "campaigns",
    "STAT": "campaigns",
    "SEV": "success-events",
    "SYNC": "sync",
    "SCOPE": "scopes",
    "OAUTH": "oauth",
    "TEN": "tenancy",
    "RATE": "rate-limits",
}
"""Usual class of each id area (ARCHITECTURE.md), used when the catalogue cannot be loaded."""

DEFAULT_REQUEST_BUDGET = 20_000
BREAKER_THRESHOLD = 8
_ID = re.compile(r"^[A-Z]+-[0-9]{3}$")
_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")

# Keys of user_properties; they travel across xdist workers to the report.
PROP_REQUIREMENT = "requirement"
PROP_CLASS = "class"
PROP_OBSERVATION = "observation"
PROP_OUTCOME = "crm_outcome"
PROP_CAUSE = "crm_cause"


# --- options -------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crm-conformance", "contract conformance of the Messaging and CRM API")
    group.addoption(
        "--target",
        dest="crm_target",
        metavar="FILE",
        help="target file (TOML) naming base_url, tokens, adapter_url and conventions",
    )
    group.addoption(
        "--base-url",
        dest="crm_base_url",
        metavar="URL",
        help="API root to test; overrides the target file's base_url (not adapter_url). "
        "Without --target, tokens come from CRM_TOKEN_FULL and CRM_TOKEN_OTHER",
    )
    group.addoption(
        "--classes",
        dest="crm_classes",
        metavar="A,B",
        help="run only these conformance classes (core always runs), e.g. --classes deals,tags; "
        "'all' claims every class, the opt-in ones (rate-limits) included",
    )
    group.addoption(
        "--run-id",
        dest="crm_run_id",
        metavar="ID",
        help="id of this run, used in the prefix of every record it creates (default: random)",
    )
    group.addoption(
        "--request-budget",
        dest="crm_request_budget",
        metavar="N",
        help=f"most requests the run may send, split across workers "
        f"(default {DEFAULT_REQUEST_BUDGET})",
    )


@dataclass(frozen=True)
class Options:
    """The plugin's command-line options, validated."""

    target_path: Path | None
    base_url: str | None
    classes: frozenset[str] | None
    run_id: str
    request_budget: int


@dataclass
class RunState:
    """Everything a conformance run shares in one process (one per xdist worker)."""

    options: Options
    worker: str
    worker_count: int
    target: "Target | None" = None
    redactor: "Redactor | None" = None
    log: "ExchangeLog | None" = None
    budget: "RequestBudget | None" = None
    breaker: "CircuitBreaker | None" = None
    pending_observations: list[tuple[str, Any]] = field(default_factory=list)
    counter: Iterator[int] = field(default_factory=itertools.count)
    closers: list[Callable[[], None]] = field(default_factory=list)

    @property
    def run_prefix(self) -> str:
        """`cc-<run id>-<worker>-`: names every record this worker creates."""
        return f"cc-{self.options.run_id}-{self.worker}-"


STATE = pytest.StashKey[RunState]()
EXCHANGE_MARK = pytest.StashKey[tuple[int, int]]()
"""Where the log stood when a test started: (exchanges, 429s without Retry-After)."""
EXCHANGES = pytest.StashKey[list[Any]]()
"""The exchanges of one test (`client.Exchange`), for reporters running in the worker."""


def _options(config: pytest.Config) -> Options:
    raw_budget = config.getoption("crm_request_budget")
    budget = DEFAULT_REQUEST_BUDGET
    if raw_budget is not None:
        if not str(raw_budget).isdigit() or int(raw_budget) < 1:
            raise pytest.UsageError(
                f"--request-budget={raw_budget!r}: expected a positive integer, "
                "e.g. --request-budget 5000"
            )
        budget = int(raw_budget)
    run_id = config.getoption("crm_run_id")
    if run_id is not None and not _RUN_ID.match(run_id):
        raise pytest.UsageError(
            f"--run-id={run_id!r}: expected 1 to 40 letters, digits, '-' or '_', "
            "e.g. --run-id nightly-42"
        )
    if run_id is None:
        workerinput = getattr(config, "workerinput", None)
        run_id = workerinput["testrunuid"][:8] if workerinput else uuid.uuid4().hex[:8]
    classes = None
    raw_classes = config.getoption("crm_classes")
    if raw_classes is not None:
        names = [name.strip() for name in raw_classes.split(",") if name.strip()]
        known = _known_classes()
        if names == ["all"]:
            names = list(known)
        unknown = [name for name in names if name not in known]
        if not names or unknown:
            raise pytest.UsageError(
                f"--classes={raw_classes!r}: "
                + (f"unknown class {unknown[0]!r}; " if unknown else "no class named; ")
                + f"expected 'all' or a comma-separated list of: {', '.join(known)}"
            )
        classes = frozenset({"core", *names})
    target = config.getoption("crm_target")
    return Options(
        target_path=Path(target) if target else None,
        base_url=config.getoption("crm_base_url"),
        classes=classes,
        run_id=run_id,
        request_budget=budget,
    )


# --- configuration and the target ----------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "req(*ids): the requirement ids of spec/requirements.yaml this test checks"
    )
    options = _options(config)
    workerinput = getattr(config, "workerinput", None)
    state = RunState(
        options=options,
        worker=workerinput["workerid"] if workerinput else "main",
        worker_count=int(workerinput["workercount"]) if workerinput else 1,
    )
    if options.target_path is not None or options.base_url is not None:
        from crm_conformance._errors import TargetFileError
        from crm_conformance.target import load_target

        try:
            _adopt_target(state, load_target(path=options.target_path, base_url=options.base_url))
        except TargetFileError as exc:
            raise pytest.UsageError(str(exc)) from None
    config.stash[STATE] = state


def _adopt_target(state: RunState, target: "Target") -> None:
    from crm_conformance.client import CircuitBreaker, ExchangeLog, RequestBudget
    from crm_conformance.redaction import Redactor

    state.target = target
    state.redactor = Redactor(target.tokens.values())
    state.log = ExchangeLog()
    share = -(-state.options.request_budget // state.worker_count)  # ceiling division
    state.budget = RequestBudget(share)
    state.breaker = CircuitBreaker(BREAKER_THRESHOLD)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Probe a given target once, so an unreachable one is one message (exit 3), not N errors."""
    config = session.config
    state = config.stash.get(STATE, None)
    if (
        state is None
        or state.target is None
        or hasattr(config, "workerinput")
        or config.option.collectonly
    ):
        return
    problem = _probe(state.target)
    if problem is not None:
        pytest.exit(problem, returncode=3)


def _probe(target: "Target") -> str | None:
    """None when base_url answers like a JSON API; else the one message to print."""
    import httpx

    url = target.base_url + "/v1/me"
    token = target.tokens["full"]
    try:
        response = httpx.get(
            url, headers={"Authorization": f"Bearer {token}"}, timeout=target.timeout
        )
    except httpx.TransportError as exc:
        return (
            f"target unreachable: GET {url} failed ({type(exc).__name__}: {exc or 'no detail'}). "
            "Check base_url (or --base-url) and that the server is running"
        )
    media_type = response.headers.get("Content-Type", "").split(";")[0].strip()
    if media_type != "application/json" and not media_type.endswith("+json"):
        return (
            f"target does not answer like the API: GET {url} -> {response.status_code} "
            f"with Content-Type {media_type or '(none)'!r}, not JSON. "
            "Is base_url the API root (paths start with /v1)?"
        )
    return None


def _state(config: pytest.Config) -> RunState:
    return config.stash[STATE]


def _ensure_target(config: pytest.Config) -> "Target":
    """The run's target; with none given, the embedded reference server, started once."""
    state = _state(config)
    if state.target is None:
        from crm_conformance._errors import TargetUnreachable

        try:
            target = _start_reference(state)
        except Exception as exc:
            raise TargetUnreachable(
                "no --target or --base-url given, and the embedded reference server could not "
                f"start ({type(exc).__name__}: {exc})"
            ) from exc
        _adopt_target(state, target)
    assert state.target is not None
    return state.target


def _start_reference(state: RunState) -> "Target":
    """Start the embedded reference server (stopped at unconfigure); return its target.

    In a process of its own, one per pytest process, so xdist workers never queue behind
    one interpreter (`crm_conformance.embedded`).
    """
    from crm_conformance.embedded import EmbeddedServer

    server = EmbeddedServer.spawn()
    state.closers.append(server.stop)
    return server.target()


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE, None)
    if state is not None:
        while state.closers:
            state.closers.pop()()


# --- the catalogue, markers and classes ----------------------------------------------


@functools.lru_cache(maxsize=1)
def _load_catalogue() -> Any:
    """The requirements catalogue, or None while spec/requirements.yaml does not exist.

    Loaded once per process: every suite module's collection asks for it.
    """
    from crm_conformance.paths import REQUIREMENTS

    if not REQUIREMENTS.is_file():
        return None
    return importlib.import_module("crm_conformance.catalogue").load_catalogue()


def _catalogue_or_none() -> Any:
    try:
        return _load_catalogue()
    except Exception:
        return None


def _known_classes() -> tuple[str, ...]:
    catalogue = _catalogue_or_none()
    classes = getattr(catalogue, "classes", None)
    return tuple(classes) if classes else CLASSES


def _opt_in_classes() -> frozenset[str]:
    """Classes that run only when claimed (their tests spend something of the target's)."""
    catalogue = _catalogue_or_none()
    classes = getattr(catalogue, "classes", None) or {}
    return frozenset(name for name, cls in classes.items() if getattr(cls, "opt_in", False))


def _opt_in_skip(options: Options, classes: list[str]) -> str | None:
    """Why a test of an opt-in class does not run, or None when it does.

    An opt-in class runs when `--classes` names it (or `all`), and against the embedded
    reference server, whose allowance is nobody else's. Skipped, it reads as not
    applicable, with the option that would run it.
    """
    unclaimed = sorted(set(classes) & _opt_in_classes() - (options.classes or frozenset()))
    if not unclaimed or (options.target_path is None and options.base_url is None):
        return None
    return (
        f"opt-in class {unclaimed[0]} is not claimed: add it to --classes "
        f"(e.g. --classes all) to run it against this target"
    )


def _requirement(catalogue: Any, req_id: str) -> Any:
    if catalogue is None:
        return None
    try:
        return catalogue.get(req_id)
    except (KeyError, LookupError):
        return None


def _class_of(catalogue: Any, req_id: str) -> str:
    requirement = _requirement(catalogue, req_id)
    cls = getattr(requirement, "cls", None)
    if isinstance(cls, str):
        return cls
    return AREA_CLASSES.get(req_id.split("-")[0], "core")


def _req_ids(item: pytest.Item) -> list[str]:
    ids: list[str] = []
    for marker in item.iter_markers("req"):
        for req_id in marker.args:
            if req_id not in ids:
                ids.append(req_id)
    return ids


def _in_suites(path: Path) -> bool:
    return "suites" in path.parts


def _marker_problems(item: pytest.Item, catalogue: Any) -> list[str]:
    ids = _req_ids(item)
    if not ids:
        return [f"{item.nodeid}: no @pytest.mark.req(...) naming the requirement ids it checks"]
    problems = []
    for req_id in ids:
        if not isinstance(req_id, str) or not _ID.match(req_id):
            problems.append(f"{item.nodeid}: requirement id {req_id!r} is not of the form AREA-NNN")
        elif catalogue is not None and _requirement(catalogue, req_id) is None:
            problems.append(f"{item.nodeid}: requirement id {req_id!r} is not in the catalogue")
    return problems


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A suite test without a known requirement id fails collection (with xdist too)."""
    report = yield
    if (
        report.passed
        and isinstance(collector, pytest.Module | pytest.Class)
        and _in_suites(collector.path)
    ):
        functions = [node for node in report.result if isinstance(node, pytest.Function)]
        if functions:
            try:
                catalogue = _load_catalogue()
            except Exception as exc:
                report.outcome = "failed"
                report.longrepr = f"the requirements catalogue cannot be loaded: {exc}"
                return report
            problems = [p for node in functions for p in _marker_problems(node, catalogue)]
            if problems:
                report.outcome = "failed"
                report.longrepr = "\n".join(problems)
                report.result = []
    return report


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Record ids and classes in user_properties; apply --classes."""
    catalogue = None
    loaded = False
    state = _state(config)
    selected: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    considered = 0
    for item in items:
        ids = _req_ids(item)
        if not ids:
            selected.append(item)
            continue
        if not loaded:
            catalogue, loaded = _catalogue_or_none(), True
        classes = list(dict.fromkeys(_class_of(catalogue, req_id) for req_id in ids))
        item.user_properties.extend((PROP_REQUIREMENT, req_id) for req_id in ids)
        item.user_properties.extend((PROP_CLASS, cls) for cls in classes)
        considered += 1
        # A test runs when every class it exercises beyond core is claimed.
        own = set(classes) - {"core"}
        if state.options.classes is None or own <= state.options.classes:
            selected.append(item)
            reason = _opt_in_skip(state.options, classes)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
        else:
            deselected.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
    if state.options.classes is not None and considered and len(deselected) == considered:
        if hasattr(config, "workerinput"):
            return  # the controller reports "no tests ran"; workers must not crash
        raise pytest.UsageError(
            f"--classes {','.join(sorted(state.options.classes))} selects none of the "
            f"{considered} conformance tests collected"
        )


# --- fixtures ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config) -> "Target":
    """The loaded target: base_url, adapter_url, token roles, conventions."""
    return _ensure_target(pytestconfig)


def _client(state: RunState, token: str | None) -> "ApiClient":
    from crm_conformance.client import ApiClient

    assert state.target is not None and state.redactor is not None
    client = ApiClient(
        base_url=state.target.base_url,
        token=token,
        redactor=state.redactor,
        log=state.log,
        budget=state.budget,
        breaker=state.breaker,
        timeout=state.target.timeout,
    )
    state.closers.append(client.close)
    return client


@pytest.fixture(scope="session")
def api(pytestconfig: pytest.Config, target: "Target") -> "ApiClient":
    """ApiClient bound to tokens.full; `api.with_token(value)` for another token."""
    return _client(_state(pytestconfig), target.tokens["full"])


@pytest.fixture(scope="session")
def other_api(pytestconfig: pytest.Config, target: "Target") -> "ApiClient":
    """ApiClient for tokens.other_workspace; skipped when the target has none."""
    token = target.token("other_workspace")
    if token is None:
        pytest.skip(
            "needs a second workspace: add [tokens.other_workspace] (value_env or value: a "
            "full-scope token of another workspace) to the target file"
        )
    return _client(_state(pytestconfig), token)


def _adapter_or_none(config: pytest.Config) -> "AdapterClient | None":
    state = _state(config)
    target = _ensure_target(config)
    if target.adapter_url is None:
        return None
    cached = config.stash.get(_ADAPTER, None)
    if cached is None:
        from crm_conformance.adapter_client import AdapterClient

        cached = AdapterClient(
            adapter_url=target.adapter_url,
            redactor=state.redactor,
            log=state.log,
            budget=state.budget,
            timeout=target.timeout,
            skip=pytest.skip,
        )
        state.closers.append(cached.close)
        config.stash[_ADAPTER] = cached
    return cached


_ADAPTER = pytest.StashKey["AdapterClient"]()


@pytest.fixture(scope="session")
def adapter(pytestconfig: pytest.Config) -> "AdapterClient":
    """AdapterClient for adapter_url; skipped when the target has none."""
    client = _adapter_or_none(pytestconfig)
    if client is None:
        from crm_conformance.factories import NO_ADAPTER

        pytest.skip(f"this test {NO_ADAPTER}")
    return client


@pytest.fixture(scope="session")
def run_prefix(pytestconfig: pytest.Config) -> str:
    """Per-run, per-worker prefix for names and external ids (`cc-<run id>-<worker>-`)."""
    return _state(pytestconfig).run_prefix


@pytest.fixture
def unique(pytestconfig: pytest.Config, run_prefix: str) -> Callable[[str], str]:
    """`unique("label")`: a string unique within the run, starting with the run prefix."""
    counter = _state(pytestconfig).counter

    def make(label: str) -> str:
        return f"{run_prefix}{label[:40]}-{next(counter)}"

    return make


@pytest.fixture
def factory(
    pytestconfig: pytest.Config,
    api: "ApiClient",
    target: "Target",
    unique: Callable[[str], str],
) -> "RecordFactory":
    """RecordFactory: contacts, deals, tags, conversations, tokens, ... with the run prefix."""
    from crm_conformance.factories import RecordFactory

    return RecordFactory(
        api=api,
        adapter=_adapter_or_none(pytestconfig),
        target=target,
        unique=unique,
        skip=pytest.skip,
    )


def _jsonable(config: pytest.Config, value: Any) -> Any:
    """`value` as plain JSON data (so it crosses xdist and lands in any report), redacted."""
    text = json.dumps(value, default=str)
    state = config.stash.get(STATE, None)
    if state is not None and state.redactor is not None:
        text = state.redactor.text(text)
    return json.loads(text)


@pytest.fixture
def observe(request: pytest.FixtureRequest) -> Callable[[str, Any], None]:
    """`observe("key", value)`: record what the target chose where the document is silent."""
    item = request.node

    def record(key: str, value: Any) -> None:
        value = _jsonable(item.config, value)
        item.user_properties.append((PROP_OBSERVATION, {"key": key, "value": value}))

    return record


@pytest.fixture
def convention(target: "Target") -> Callable[[str], str]:
    """`convention("tag_catalogue_field")`: the target's name for something "not shown"."""

    def lookup(key: str) -> str:
        value = target.conventions.get(key)
        if value is None:
            table, _, name = key.rpartition(".")
            where = f"[conventions.{table}]" if table else "[conventions]"
            pytest.skip(
                f'the document does not name this: add {name} = "..." under {where} '
                "in the target file"
            )
        return value

    return lookup


@pytest.fixture(scope="session")
def capabilities(pytestconfig: pytest.Config, target: "Target", api: "ApiClient") -> "Capabilities":
    """Scopes per token and write policy, read from the target, else from the target file."""
    from crm_conformance.capabilities import discover

    clients = {"full": api}
    other = target.token("other_workspace")
    if other is not None:
        clients["other_workspace"] = api.with_token(other)
    found = discover(target=target, clients=clients)
    _state(pytestconfig).pending_observations.append(("capabilities", found.describe()))
    return found


# --- outcomes ------------------------------------------------------------------------


def pytest_runtest_setup(item: pytest.Item) -> None:
    state = item.config.stash.get(STATE, None)
    if state is not None and state.log is not None:
        item.stash[EXCHANGE_MARK] = (state.log.mark(), len(state.log.missing_retry_after))


def _unnamed_requirement(item: pytest.Item, exc: BaseException) -> list[tuple[str, Any]]:
    """The requirement a universal check failed, when the test's markers do not name it.

    A test that calls `run_checks` checks the rules of every response besides its own;
    when one of those fails, the failure belongs on that requirement's row of the report
    (and counts as catching a fault on it), so its id and class join the test's.
    """
    from crm_conformance.failure import ConformanceFailure

    if not isinstance(exc, ConformanceFailure):
        return []
    named = {value for name, value in item.user_properties if name == PROP_REQUIREMENT}
    if exc.req_id in named:
        return []
    catalogue = _catalogue_or_none()
    return [(PROP_REQUIREMENT, exc.req_id), (PROP_CLASS, _class_of(catalogue, exc.req_id))]


def _classify(exc: BaseException) -> tuple[str, str, bool] | None:
    """(outcome, one-line cause, stop the run) for the harness's own exception types."""
    from crm_conformance._errors import AdapterError, TargetUnreachable
    from crm_conformance.client import BudgetExhausted
    from crm_conformance.factories import SetupFailed
    from crm_conformance.failure import ConformanceFailure

    if isinstance(exc, ConformanceFailure):
        return "failed", str(exc), False
    if isinstance(exc, SetupFailed):
        return "blocked", f"blocked: {exc}", False
    if isinstance(exc, AdapterError):
        return "error", f"adapter error (a setup problem, not a target failure): {exc}", False
    if isinstance(exc, TargetUnreachable):
        return "error", f"target unreachable: {exc}", True
    if isinstance(exc, BudgetExhausted):
        return "error", str(exc), True
    import httpx

    if isinstance(exc, httpx.TransportError):
        where = ""
        with contextlib.suppress(RuntimeError):  # an error raised before a request existed
            where = f" on {exc.request.method} {exc.request.url.path}"
        return (
            "error",
            f"transport error talking to the target{where}: "
            f"{type(exc).__name__}: {exc or 'no detail'}",
            False,
        )
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    state = item.config.stash.get(STATE, None)
    if state is not None and state.pending_observations:
        item.user_properties.extend(
            (PROP_OBSERVATION, {"key": key, "value": _jsonable(item.config, value)})
            for key, value in state.pending_observations
        )
        state.pending_observations.clear()
    if call.when == "teardown" and state is not None and state.log is not None:
        exchanges_from, throttled_from = item.stash.get(EXCHANGE_MARK, (0, 0))
        item.stash[EXCHANGES] = state.log.since(exchanges_from)
        unannounced = state.log.missing_retry_after[throttled_from:]
        if unannounced:
            # Retried so the test could go on, but not hidden: the report shows each one.
            item.user_properties.append(
                (
                    PROP_OBSERVATION,
                    {
                        "key": "429 without an integer Retry-After (retried)",
                        "value": [f"{e.method} {e.url}" for e in unannounced],
                    },
                )
            )
    report = yield
    if call.excinfo is not None and report.failed:
        classified = _classify(call.excinfo.value)
        if classified is not None:
            outcome, cause, stop = classified
            report.longrepr = cause
            # On the item too: JUnit writes the teardown report's properties only.
            properties = [(PROP_OUTCOME, outcome), (PROP_CAUSE, cause.splitlines()[0])]
            properties += _unnamed_requirement(item, call.excinfo.value)
            item.user_properties.extend(properties)
            report.user_properties = [*report.user_properties, *properties]
            if stop:
                item.session.shouldstop = cause
    if state is not None and state.redactor is not None:
        _redact_report(report, state.redactor)
    return report


def _redact_report(report: pytest.TestReport, redactor: "Redactor") -> None:
    """No token value reaches the terminal, JUnit or a worker's report (DESIGN.md principle 4)."""
    if report.longrepr is not None:
        text = str(report.longrepr)
        clean = redactor.text(text)
        if clean != text:
            report.longrepr = clean
    report.sections = [(title, redactor.text(content)) for title, content in report.sections]


def _property(report: pytest.TestReport, key: str) -> Any:
    return next((value for name, value in report.user_properties if name == key), None)


def pytest_report_teststatus(
    report: pytest.CollectReport | pytest.TestReport, config: pytest.Config
) -> tuple[str, str, str | tuple[str, dict[str, bool]]] | None:
    """A call that failed for harness or setup reasons reads as an error, not a failure."""
    if not isinstance(report, pytest.TestReport) or report.when != "call" or not report.failed:
        return None
    outcome = _property(report, PROP_OUTCOME)
    if outcome == "error":
        return "error", "E", ("ERROR", {"red": True})
    if outcome == "blocked":
        return "error", "B", ("BLOCKED", {"yellow": True})
    return None
