"""The fuzz layer: schemathesis over spec/openapi.yaml, judged by the harness's checks.

Why overlays and not dropped failures: schemathesis can only judge what the spec says,
and the points the document leaves open must not fail. So they are settled in the
schema when it loads (the file is unchanged) and every check stays on: the statuses
left open (200 or 201 on create, 400 or 422 on validation) become aliases, still
schema-checked; methods a path may serve without the document showing them are
declared and not generated (`declare_open_methods`); `null` where a value may be left
out is valid (`absent_may_be_null`).
Why an adapter: the hand-written suites and this layer must fail on the same rules
with the same requirement ids (STYLE.md), so each registered harness check is
wrapped as a schemathesis check rather than re-written.
Why a guard (`sends_to`, `stateful_schema`): on someone else's server the run must
neither send undeclared methods nor write to records it did not create.
Why a transport (`HarnessTransport`, `sent_through`): schemathesis's checks send
requests of their own (`ignored_auth`'s probes without and with invalid credentials, a
content-type control); through `requests` they would skip the harness's policy, and a
429 or a gateway's 502 on a probe would be judged as the service's answer.
"""

import copy
import functools
import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import schemathesis
from schemathesis.checks import CheckContext
from schemathesis.core.transport import Response
from schemathesis.transport.requests import REQUESTS_TRANSPORT

from crm_conformance.core import bounds, checks, profiles, retries
from crm_conformance.core.catalogue import load_catalogue
from crm_conformance.core.outcomes import OUTCOMES_FILE, read_records
from crm_conformance.core.paths import OPENAPI
from crm_conformance.core.profiles import Profile
from crm_conformance.fuzz import charges as fuzz_charges

if TYPE_CHECKING:
    from crm_conformance.core.client import ApiClient, Exchange

ALIASES: Mapping[str, tuple[tuple[str, str], ...]] = {
    "post": (("201", "200"), ("200", "201")),
    "*": (("422", "400"), ("400", "422")),
}
"""Status pairs the document leaves open: when one is documented, the other is too."""


def overlay(raw_schema: dict[str, Any]) -> None:
    """Add the open alternatives of ALIASES to every operation, in place."""
    for path_item in raw_schema.get("paths", {}).values():
        for method, operation in path_item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for documented, alias in ALIASES.get(method, ()) + ALIASES["*"]:
                if documented in responses and alias not in responses:
                    responses[alias] = responses[documented]


def absent_may_be_null(raw_schema: dict[str, Any]) -> None:
    """Let what a request may leave out also be `null`, in place: an optional JSON body,
    and each optional top-level property of a JSON body.

    The document never says how a server reads `null` where the value may be left out
    (contact search `{"fields": null}`, a `null` search body); reading it as absent is as
    legal as refusing it, so `negative_data_rejection` must not count it as invalid.
    Body schemas are copied first: a component shared with a response stays unchanged.
    """
    components = raw_schema.get("components", {})
    bodies = list(components.get("requestBodies", {}).values())
    for path_item in raw_schema.get("paths", {}).values():
        bodies += [op.get("requestBody", {}) for op in path_item.values() if isinstance(op, dict)]
    for body in bodies:
        media = body.get("content", {}).get("application/json")
        if media is None or "schema" not in media:
            continue
        schema = _dereferenced(components, media["schema"])
        required = set(schema.get("required", ()))
        properties = schema.get("properties", {})
        for name in properties:
            if name not in required:
                properties[name] = {"anyOf": [properties[name], {"type": "null"}]}
        media["schema"] = schema if body.get("required") else {"anyOf": [schema, {"type": "null"}]}


def _dereferenced(components: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of `schema`, or of the component schema it `$ref`s."""
    ref = schema.get("$ref", "")
    if ref.startswith("#/components/schemas/"):
        schema = components["schemas"][ref.rsplit("/", 1)[1]]
    return copy.deepcopy(schema)


NOT_RESOURCES = frozenset({"me", "capabilities", "deleted-records", "pipelines", "fields"})
"""Collections under /v1 that are not resources a client creates or lists generically:
the document says `pipelines:write` and `fields:write` "have no endpoints", and the
token, capabilities and deletion feed are named reads only."""

NOT_SHOWN = "x-method-not-shown"
"""Marks an operation the overlay declares because the document leaves it open."""


def open_methods(path: str) -> frozenset[str]:
    """Methods the document leaves open on `path`: neither shown nor ruled out.

    "Update, delete and retrieve operations of other resources: not shown" and "Contact
    create and update bodies: not shown": a resource collection (`/v1/<name>`) may also
    list and create, a record path (`.../{id}`) may also update and delete. Action paths
    (`/close`, `/search`, `/stats`) and the named reads get nothing: there a method the
    spec does not declare must answer 405 (ERR-013).
    """
    segments = path.strip("/").split("/")
    if len(segments) == 2 and segments[0] == "v1" and segments[1] not in NOT_RESOURCES:
        return frozenset({"get", "post"})
    if segments[-1].startswith("{"):
        return frozenset({"put", "patch", "delete"})
    return frozenset()


def declare_open_methods(raw_schema: dict[str, Any]) -> None:
    """Declare each open method of each path as a NOT_SHOWN operation, in place.

    Declared, schemathesis no longer sends it as an undeclared method expecting 405
    (a server may serve it; ST204 would be a false failure), and the suites exclude
    NOT_SHOWN operations from generation: their shapes are not shown, nothing to check.
    """
    paths = raw_schema.get("paths", {})
    for path, path_item in paths.items():
        shadows = [other for other in paths if _shadows(other, path)]
        methods = open_methods(path).union(*map(open_methods, shadows))
        for method in sorted(methods - set(path_item)):
            path_item[method] = {
                NOT_SHOWN: True,
                "responses": {"default": {"description": "Not shown by the document."}},
            }


def _shadows(record_path: str, path: str) -> bool:
    """Whether a router may send a request for the literal `path` to `record_path`
    (`/v1/contacts/search` and `/v1/contacts/{contact_id}`): then the methods left open
    on the record path are open on the literal one too."""
    record, literal = record_path.strip("/").split("/"), path.strip("/").split("/")
    return (
        len(record) == len(literal)
        and record[-1].startswith("{")
        and not literal[-1].startswith("{")
        and record[:-1] == literal[:-1]
    )


def is_not_shown(ctx: Any) -> bool:
    """Filter for `schema.exclude(func=...)`: the operation is one the overlay declared."""
    return bool(ctx.operation.definition.raw.get(NOT_SHOWN))


class HarnessResponse(Response):
    """A schemathesis response that keeps the harness client's `httpx.Response` it was
    made from, so the adapted checks read that one instead of a rebuilt copy."""

    __slots__ = ("harness",)
    harness: httpx.Response


def as_httpx(response: Response) -> httpx.Response:
    """The httpx.Response the harness checks take: the harness client's own when the
    fuzz layer sent the request, else one rebuilt from a response schemathesis fetched.

    Rebuilt, it leaves out `Content-Encoding`: the body schemathesis hands over is already
    decoded, and an httpx.Response told it is still gzip would decode it again and fail.
    """
    if isinstance(response, HarnessResponse):
        return response.harness
    sent = response.request
    request = httpx.Request(
        str(sent.method),
        str(sent.url),
        headers=[(k, v if isinstance(v, str) else v.decode()) for k, v in sent.headers.items()],
    )
    headers = [
        (name, value)
        for name, values in response.headers.items()
        if name != "content-encoding"
        for value in values
    ]
    return httpx.Response(
        response.status_code, headers=headers, content=response.content, request=request
    )


def as_schemathesis(response: httpx.Response) -> HarnessResponse:
    """The harness client's response as schemathesis's, with the request as it was sent.

    schemathesis's own httpx conversion adds the query parameters to a URL that already
    carries them (every reproduction would repeat the query) and keeps one value per
    repeated header; this one does neither. The body is the decoded one with the headers
    as received (`Content-Encoding` included), as schemathesis's own transport hands it.
    """
    import requests

    sent = response.request
    request = requests.Request(
        method=sent.method, url=str(sent.url), headers=dict(sent.headers), data=sent.content
    ).prepare()
    headers: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        headers.setdefault(name, []).append(value)
    converted = HarnessResponse(
        status_code=response.status_code,
        headers=headers,
        content=response.content,
        request=request,
        elapsed=response.elapsed.total_seconds(),
        message=response.reason_phrase,
        encoding=response.encoding,
        http_version=response.http_version,
        verify=True,
    )
    converted.harness = response
    return converted


class HarnessTransport:
    """schemathesis's transport of every schema `load` makes: its requests (a check's
    probes, anything it sends itself) go through the harness client `client`, so they
    are paced, their 429s waited out and their transport faults retried like the
    harness's own (`ApiClient.request`). Sent as schemathesis built them: the case's
    headers only, no run token (a probe without credentials must go without). With no
    client it is schemathesis's requests transport; serialisers and media types are
    always that transport's."""

    def __init__(self) -> None:
        self.client: ApiClient | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(REQUESTS_TRANSPORT, name)

    def send(self, case: Any, *, session: Any = None, **kwargs: Any) -> Response:
        client = self.client
        if client is None:
            return REQUESTS_TRANSPORT.send(case, session=session, **kwargs)
        import requests

        data = REQUESTS_TRANSPORT.serialize_case(case, **kwargs)
        prepared = requests.Request(
            method=str(data["method"]),
            url=data["url"],
            headers=data.get("headers"),
            params=data.get("params"),
            json=data.get("json"),
            data=data.get("data"),
            files=data.get("files"),
            cookies=data.get("cookies"),
            auth=data.get("auth"),
        ).prepare()
        url = str(prepared.url)
        if not url.startswith(client.base_url + "/"):
            raise ValueError(f"schemathesis asked to send to {url}, outside the target")
        headers = {
            name: value if isinstance(value, str) else value.decode("latin-1")
            for name, value in prepared.headers.items()
            if name.lower() != "content-length"
        }
        key = retries.key_of(headers)  # generated data: the harness's to send again
        response = client.request(
            str(prepared.method),
            url[len(client.base_url) :],
            content=prepared.body,  # type: ignore[arg-type]  # str or bytes as prepared
            headers=headers,
            token=None,
            idempotency_key=True if key is None else key,
        )
        return as_schemathesis(response)


TRANSPORT = HarnessTransport()
"""The transport of the schemas `load` makes (one per process)."""


@contextmanager
def sent_through(client: "ApiClient") -> Iterator[None]:
    """While the block runs, what schemathesis sends itself goes through `client`."""
    before, TRANSPORT.client = TRANSPORT.client, client
    try:
        yield
    finally:
        TRANSPORT.client = before


def _routed(schema: Any) -> Any:
    """`schema`, whose operations send through `TRANSPORT` (its clones too: they are
    made of its class). schemathesis has no setting for a schema's transport (a property
    of the schema's class, chosen by its `app`), hence a subclass naming it."""
    base = type(schema)
    if base not in _ROUTED:
        _ROUTED[base] = type(base.__name__, (base,), {"transport": TRANSPORT})
    schema.__class__ = _ROUTED[base]
    return schema


_ROUTED: dict[type, type] = {}
"""Each schema class, and its subclass sending through `TRANSPORT`."""


def adapted(check: checks.Check) -> Callable[[CheckContext, Response, Any], None]:
    """`check` as a schemathesis check; its ConformanceFailure (AssertionError) carries the id."""

    def run(ctx: CheckContext, response: Response, case: Any) -> None:
        check.function(as_httpx(response))

    run.__name__ = f"crm_{check.name}"
    return run


def fuzzed_checks() -> tuple[checks.Check, ...]:
    """The harness checks the fuzz layer runs: all but those of opt-in classes.

    An opt-in requirement (Retry-After on a 429, of the rate-limits class) must never
    keep the fuzz tests from running against a target that did not claim its class;
    its own tests (suites/test_rate_limits.py) check it when the class is claimed.
    """
    catalogue = load_catalogue()
    opt_in = catalogue.opt_in_classes
    return tuple(
        check
        for check in checks.registered()
        if not any(catalogue.class_of(req) in opt_in for req in check.requirements)
    )


def harness_checks() -> list[Callable[[CheckContext, Response, Any], None]]:
    """Every fuzzed harness check, adapted."""
    return [adapted(check) for check in fuzzed_checks()]


def requirement_ids() -> tuple[str, ...]:
    """The requirement ids the adapted checks enforce, for the suites' req markers."""
    return tuple(dict.fromkeys(req for c in fuzzed_checks() for req in c.requirements))


SCHEMATHESIS_CHECKS = fuzz_charges.BY_CHECK
"""Requirement ids of schemathesis's own checks that one sentence covers whatever the
case; the others (by where the case or the body broke) and the reasons for each choice
are in `fuzz_charges`, which attributes every check this layer runs, so a failure lands
on its own requirement and never on every id of its test."""


def validate(case: Any, response: Any, **kwargs: Any) -> None:
    """`case.validate_response` on `response` (schemathesis's, made from the harness
    client's by `as_schemathesis`), with the headers as sent (they tell schemathesis
    the token was the run's own, not generated) and its failures stamped
    (`fuzz_charges.stamp`), so each lands on its own requirement with its own request:
    what the fuzz suites call."""
    from schemathesis.core.failures import Failure, FailureGroup

    sent = as_httpx(response)
    try:
        case.validate_response(response, headers=dict(sent.request.headers), **kwargs)
    except (FailureGroup, Failure) as exc:
        fuzz_charges.stamp(exc, case, sent)
        raise


ACCEPTED_WHEN_VALID = ("2xx", "3xx", "400", "401", "403", "404", "409", "422", "429", "5xx")
"""What `positive_data_acceptance` accepts for a schema-valid request: besides its
defaults, 400 and 422. The document refuses schema-valid requests for reasons a schema
cannot say: a cursor it did not issue (`invalid_cursor`), a `sort`, `expand` or `fields`
name not on the resource (`unknown_*`), a body that is "well-formed but not applicable"
(422 `invalid_request`, `stage_not_in_pipeline`), and bodies whose shape is not shown.
Server errors stay failures through `not_a_server_error`."""


def settings(*, seed: int | None = None) -> dict[str, Any]:
    """The schemathesis configuration of a fuzz run (as `schemathesis.toml` data).

    Why each entry: `database = "none"` so a run replays nothing from an earlier one
    (the seed alone reproduces it); `with-security-parameters = false` because the
    harness client sends the token and `ignored_auth` probes missing and invalid ones;
    `allow_header_conformance` off because the document never mentions `Allow`;
    `content_type_conformance` off because the document asks only for JSON bodies, which
    the harness's HDR-004 check holds (any `+json` type, as `application/problem+json`).
    """
    config: dict[str, Any] = {
        "generation": {"database": "none", "with-security-parameters": False},
        "checks": {
            "allow_header_conformance": {"enabled": False},
            "content_type_conformance": {"enabled": False},
            "positive_data_acceptance": {"expected-statuses": list(ACCEPTED_WHEN_VALID)},
        },
        "phases": {"stateful": {"generation": {"mode": "positive"}}},
    }
    if seed is not None:
        config["seed"] = seed
    return config


def load(*, seed: int | None = None, coverage_when_run: bool = False) -> Any:
    """spec/openapi.yaml with the overlays applied (the file itself is unchanged), the
    run's `settings`, and the operations of `declare_open_methods` excluded.

    `coverage_when_run`: the tests parametrized by this schema get the coverage phase's
    cases when they run (`add_coverage_cases`), not when they are collected.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 8x faster when present
    raw = yaml.load(OPENAPI.read_text(encoding="utf-8"), Loader=loader)
    overlay(raw)
    absent_may_be_null(raw)
    declare_open_methods(raw)
    config = schemathesis.Config.from_dict(settings(seed=seed))
    schema = _routed(schemathesis.openapi.from_dict(raw, config=config)).exclude(func=is_not_shown)
    if coverage_when_run:
        schema.config.phases.coverage.enabled = False
    return schema


def add_coverage_cases(item: Any, schema: Any) -> None:
    """Give the built test of `item` (a `schema.parametrize()` test) the coverage phase's
    cases, as schemathesis gives them when it builds the test with that phase on.

    Why when the test runs: schemathesis builds every operation's coverage cases while
    it collects, in every process that collects, and they are most of a collection's
    CPU (about 1.5 s of 3). Under xdist each worker collected all 22 operations' cases to
    run its half of them; now each builds only the cases of the tests it runs. The cases
    are the same (tests/fuzz/test_fuzz_layer.py compares them with schemathesis's own),
    and they go in the same place: explicit examples, attached last, so Hypothesis runs
    them first. Schemathesis has no public call for this; these are the calls its test
    builder makes (`schemathesis.generation.hypothesis.builder.create_test`), pinned by
    that comparison.
    """
    from schemathesis.auths import AuthStorageMark
    from schemathesis.generation import overrides
    from schemathesis.generation.feedback import FeedbackSources
    from schemathesis.generation.hypothesis.builder import ApiOperationMark, add_coverage
    from schemathesis.hooks import HookDispatcherMark
    from schemathesis.python._constants.orchestrator import make_constants_value_source

    test = item.obj
    if getattr(test, _COVERAGE_ADDED, False):
        return
    operation = ApiOperationMark.get(test)
    assert operation is not None, "a test schemathesis built carries its operation"
    config = schema.config
    generation = config.generation_for(operation=operation, phase="coverage")
    add_coverage(
        test,
        operation,
        generation.modes,
        AuthStorageMark.get(item.test_function),
        overrides.with_config_headers(config, operation=operation),
        # the schema's constants steer generation; schemathesis caches them on the schema
        feedback=FeedbackSources(constants_value_source=make_constants_value_source(schema)),
        generation_config=generation,
        hooks=HookDispatcherMark.get(item.test_function),
    )
    setattr(test, _COVERAGE_ADDED, True)


_COVERAGE_ADDED = "_crm_coverage_added"
"""Set on a built test once `add_coverage_cases` gave it its cases (never twice)."""


def profile_of(config: Any) -> Profile:
    """The run's profile: `--profile` (an option of the harness plugin), else the
    environment's CRM_PROFILE, else `quick`; ValueError names the known profiles."""
    name = config.getoption("crm_profile", default=None) or os.environ.get("CRM_PROFILE")
    return profiles.profile(name or profiles.DEFAULT)


MODULES = ("test_fuzz.py", "test_fuzz_stateful.py")
"""The fuzz layer's suite modules, which share the deep profile's `--fuzz-minutes`."""


def time_share(request: Any) -> float:
    """Seconds of `--fuzz-minutes` (or CRM_FUZZ_MINUTES) this test may spend: an equal
    share for each fuzz test the run selected; ValueError names the accepted form."""
    minutes = profiles.fuzz_minutes(request.config.getoption("crm_fuzz_minutes", default=None))
    tests = sum(1 for item in request.session.items if item.path.name in MODULES)
    return minutes * 60 / max(1, tests)


def in_rounds(
    run_round: Callable[[int], None], *, seconds: float, exactly: int | None = None
) -> int:
    """Call `run_round(0)`, `run_round(1)`, ... while one more round, as long as the
    longest so far, still fits in `seconds`; at least one. With `exactly` (a replay,
    `replayed_rounds`), that many rounds whatever the time. Returns how many ran.

    A failing round ends the test at once: its exception carries the round's number.
    """
    started = time.monotonic()
    longest = 0.0
    rounds = 0
    while True:
        began = time.monotonic()
        try:
            run_round(rounds)
        except BaseException as exc:
            exc.add_note(
                f"(deep profile: in round {rounds + 1}; the seed of round r is seed + r - 1)"
            )
            raise
        rounds += 1
        longest = max(longest, time.monotonic() - began)
        if exactly is not None:
            if rounds >= exactly:
                return rounds
        elif time.monotonic() - started + longest > seconds:
            return rounds


def timed(
    test: Any, *, seconds: float, rounds: list[int], exactly: int | None = None
) -> Callable[..., None]:
    """The built Hypothesis test `test` as a test running `in_rounds` for `seconds` (or
    `exactly` rounds): round r with its seed + r, and after the first round generated
    cases only (the coverage phase's explicit cases would be the same again). Keeps in
    `rounds` the rounds started, a failing one included: what a replay must run."""
    from hypothesis import Phase
    from hypothesis import settings as hypothesis_settings

    seed = test._hypothesis_internal_use_seed
    first = test._hypothesis_internal_use_settings
    again = hypothesis_settings(first, phases=[Phase.generate, Phase.target, Phase.shrink])

    def run(**fixtures: Any) -> None:
        def round_of(number: int) -> None:
            rounds[:] = [number + 1]
            test._hypothesis_internal_use_seed = seed + number
            test._hypothesis_internal_use_settings = again if number else first
            test(**fixtures)

        in_rounds(round_of, seconds=seconds, exactly=exactly)

    return run


@functools.cache
def _rounds_of_run(run_dir: str) -> Mapping[str, int]:
    """The rounds each deep fuzz test of the run in `run_dir` ran, by node id."""
    return {
        record.nodeid: record.rounds
        for record in read_records(Path(run_dir) / OUTCOMES_FILE)
        if record.rounds is not None
    }


def replayed_rounds(request: Any) -> int | None:
    """The rounds this deep fuzz test runs to replay an earlier run (`--fuzz-rounds
    RUN_DIR`: as many as it ran there; one when it did not run there), else None (the
    time budget bounds it)."""
    run_dir = request.config.getoption("crm_fuzz_rounds", default=None)
    if run_dir is None:
        return None
    return _rounds_of_run(str(run_dir)).get(request.node.nodeid, 1)


def sent_digest(exchanges: Iterable["Exchange"]) -> str:
    """A fingerprint of the requests `exchanges` sent: method, path, query and body, not
    the host (a replay's embedded server has another port), so two runs that sent the
    same cases have the same one (recorded in the `fuzz` property)."""
    digest = hashlib.sha256()
    for exchange in exchanges:
        url = httpx.URL(exchange.url)
        sent = [exchange.method, url.raw_path.decode("ascii"), exchange.request_body or ""]
        digest.update(json.dumps(sent).encode("utf-8"))
    return digest.hexdigest()[:16]


def run_seed() -> int:
    """The seed of this run: `--hypothesis-seed` when given, else one shared by the xdist
    workers of the run, else a fresh one (printed by the suites, so it can be given back).

    Schemathesis seeds each operation from its own config seed, which `--hypothesis-seed`
    alone does not reach (schemathesis-4x-cookbook §6.4), hence this bridge.
    """
    from hypothesis import core

    if core.global_force_seed is not None:
        return int(core.global_force_seed)
    shared = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if shared:
        return int(shared[:8], 16)
    return secrets.randbelow(2**32)


def announce(config: Any, *, seed: int, label: str = "fuzz") -> None:
    """Print the seed, the profile and how to replay them, past pytest's output capture."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    line = (
        f"{label}: seed {seed}, profile {profile_of(config).name} "
        f"(replay: --hypothesis-seed={seed})"
    )
    with capture.global_and_fixture_disabled():
        reporter.write_line(line)


def distinguish_in_allure(item: Any) -> None:
    """Name the operation as an Allure parameter, when Allure records the run.

    allure-pytest derives `historyId` from the test function and its parameters, and
    schemathesis's items have none, so without this every operation would share one
    history (schemathesis-4x-cookbook pitfall 2).
    """
    label = getattr(item, "operation_label", None)
    if label and item.config.getoption("allure_report_dir", None):
        import allure

        allure.dynamic.parameter("operation", label)


def use_examples(test: Any, examples: int) -> None:
    """Give the built Hypothesis test `test` `examples` generated cases per run.

    The profile is an option, known after the schema (and its tests) were built at
    import; Hypothesis reads these settings when the test runs, so they can change here.
    """
    from hypothesis import settings as hypothesis_settings

    current = test._hypothesis_internal_use_settings
    test._hypothesis_internal_use_settings = hypothesis_settings(current, max_examples=examples)


def probe_kwargs(target: Any) -> dict[str, Any]:
    """`transport_kwargs` for `case.validate_response`: the requests schemathesis's own
    checks send (`ignored_auth`'s probes without the token, ...) go through its
    `requests` transport, not the harness client; these bound each of them by the
    target's `timeout` and `max_response_bytes` as the harness client's are
    (`crm_conformance.core.bounds`)."""
    return bounds.requests_kwargs(bounds.ExchangeBounds(target.timeout, target.max_response_bytes))


def is_embedded(target: Any) -> bool:
    """Whether `target` is the embedded reference server this process started."""
    return str(target.sources.get("base_url", "")).startswith("embedded reference server")


MATCHES_EXISTING: Mapping[str, frozenset[str]] = {
    "upsertContact": frozenset({"phone", "external_id", "email"}),
}
"""Writes that act on whichever existing record matches a body field (operation id →
those fields): upsert "creates or updates in one call", so a generated phone could
update a contact someone else owns."""


def sends_to(case: Any, *, embedded: bool) -> bool:
    """Whether `case` may be sent: outside the embedded server, only declared methods, and
    no write that could change a record the run did not create.

    The coverage phase sends undeclared methods (DELETE, PUT) to every path; on someone
    else's server a DELETE that happens to work destroys data the run did not create.
    Generated record ids (128 random bits) name no existing record; a matching field
    value in an upsert body may.
    """
    if embedded:
        return True
    if str(case.method).upper() != str(case.operation.method).upper():
        return False
    matching = MATCHES_EXISTING.get(case.operation.definition.raw.get("operationId", ""))
    return not (matching and isinstance(case.body, dict) and matching & set(case.body))


def skipped_unless_sent(test: Any, *, sent: Callable[[], int], label: str) -> Callable[..., None]:
    """The built test `test`, skipped (not applicable, with the reason) when none of its
    cases reached the target: `sent` counts the requests it sent.

    Outside the embedded server `sends_to` holds cases back without failing them; a test
    whose every case was held back checked nothing, and a pass would claim its ids.
    The wrapper keeps the Hypothesis test's attributes, so its plugin still reports it.
    """

    def run(**fixtures: Any) -> None:
        test(**fixtures)
        if sent() == 0:
            import pytest

            pytest.skip(
                f"every case generated for {label} was held back on this target (an "
                "undeclared method, or a write that could reach a record the run did not "
                "create: fuzz.sends_to); nothing was sent, nothing checked"
            )

    return functools.update_wrapper(run, test)


def stateful_schema(schema: Any, *, embedded: bool) -> Any:
    """`schema` for the stateful phase: outside the embedded server, links the document
    gives only (inferred ones could carry an id read from someone else's record into a
    write) and none of the writes of MATCHES_EXISTING."""
    if embedded:
        return schema
    schema.config.phases.stateful.inference.algorithms = []
    return schema.exclude(func=lambda ctx: ctx.operation.label in _matching_labels(schema))


def run_replay_safe(machine: Any, settings: Any) -> None:
    """Run the state machine `machine`; if Hypothesis's replay of a failing scenario
    diverges (a server that kept its state answers differently: `Flaky`), raise the
    failure the machine saw first (`machine.first_failure`) instead of that noise."""
    from hypothesis.errors import Flaky

    try:
        machine.run(settings=settings)
    except Flaky:
        if machine.first_failure is None:
            raise
        raise machine.first_failure from None


def _matching_labels(schema: Any) -> set[str]:
    return {
        operation.label
        for operation in (result.ok() for result in schema.get_all_operations())
        if operation.definition.raw.get("operationId") in MATCHES_EXISTING
    }


def transport(case: Any) -> dict[str, Any]:
    """The keyword arguments of ApiClient.request for `case` (token added by the client)."""
    kwargs = case.as_transport_kwargs(base_url="http://unused")
    headers = {
        k: v for k, v in (kwargs.get("headers") or {}).items() if k.lower() != "authorization"
    }
    key = retries.key_of(headers)  # generated data, but the harness's to resend with
    sent: dict[str, Any] = {"params": kwargs.get("params"), "headers": headers}
    if key is not None:
        sent["idempotency_key"] = key
    if "json" in kwargs:
        sent["json"] = kwargs["json"]
    elif kwargs.get("data") is not None:
        sent["content"] = kwargs["data"]
    return sent
