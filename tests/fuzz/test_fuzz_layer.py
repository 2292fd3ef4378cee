"""The fuzz layer on a small spec and a hand-written ASGI app (no server needed), and
its overlays on spec/openapi.yaml: the overlay documents the open statuses, a conforming app
passes every check, and a missing X-Request-ID on errors fails with the requirement id."""

import datetime
import gzip
import json
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis.errors import FlakyStrategyDefinition
from schemathesis.core.failures import FailureGroup

from crm_conformance.core.model.catalogue import load_catalogue
from crm_conformance.core.planning import profiles
from crm_conformance.core.verdicts.failure import ConformanceFailure
from crm_conformance.fuzz import budget, checking, exchange, guard, loader, overlay, seeding
from crm_conformance.fuzz import charges as fuzz_charges
from crm_conformance.plugin import fuzz as plugin_fuzz

Send = Callable[[dict[str, Any]], Awaitable[None]]

SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "mini", "version": "1"},
    "paths": {
        "/v1/notes": {
            "post": {
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["text"],
                                "properties": {"text": {"type": "string"}},
                            }
                        }
                    },
                },
                "responses": {
                    "201": {
                        "description": "created",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["id"],
                                    "properties": {"id": {"type": "string"}},
                                }
                            }
                        },
                    },
                    "422": {"description": "invalid"},
                },
            }
        }
    },
}


def answer(
    body: bytes, *, request_id_on_errors: bool
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """200 (not the documented 201) on a valid note, 400 (not 422) otherwise."""
    try:
        payload = json.loads(body)
    except ValueError:
        payload = None
    reply: dict[str, Any]
    if isinstance(payload, dict) and isinstance(payload.get("text"), str):
        status, reply, rid = 200, {"id": "note_1"}, "req_1"
    else:
        rid = "req_2" if request_id_on_errors else ""
        error = {"type": "invalid_request_error", "code": "x", "message": "bad"}
        status, reply = 400, {"error": {**error, "request_id": rid or None}}
    headers = [(b"content-type", b"application/json")]
    headers += [(n, b"10") for n in (b"x-ratelimit-limit", b"x-ratelimit-remaining")]
    headers.append((b"x-ratelimit-reset", b"1"))
    if rid:
        headers.append((b"x-request-id", rid.encode()))
    return status, headers, json.dumps(reply).encode()


def gzipped(
    status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """The same answer compressed, as a server answering `Accept-Encoding: gzip` sends it."""
    return status, [*headers, (b"content-encoding", b"gzip")], gzip.compress(body)


def app(*, request_id_on_errors: bool, compress: bool = False) -> Callable[..., Awaitable[None]]:
    """`answer` as an ASGI app, gzipped when `compress`."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Send) -> None:
        if scope["type"] == "lifespan":
            for _ in range(2):  # startup, then shutdown
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        status, headers, content = answer(body, request_id_on_errors=request_id_on_errors)
        if compress:
            status, headers, content = gzipped(status, headers, content)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    return asgi


def loaded(*, request_id_on_errors: bool, compress: bool = False) -> Any:
    raw = json.loads(json.dumps(SPEC))
    overlay.overlay(raw)
    schema = schemathesis.openapi.from_dict(raw)
    schema.app = app(request_id_on_errors=request_id_on_errors, compress=compress)
    return schema


def test_overlay_documents_the_open_alternatives_and_keeps_the_documented_ones() -> None:
    raw = json.loads(json.dumps(SPEC))
    overlay.overlay(raw)
    responses = raw["paths"]["/v1/notes"]["post"]["responses"]
    assert sorted(responses) == ["200", "201", "400", "422"]
    assert responses["200"] is responses["201"]
    assert SPEC["paths"]["/v1/notes"]["post"]["responses"].keys() == {"201", "422"}


def _validate(schema: Any, body: Any) -> None:
    case = schema["/v1/notes"]["POST"].Case(body=body, media_type="application/json")
    response = case.call()
    case.validate_response(response, additional_checks=checking.harness_checks())


def test_conforming_app_passes_on_the_open_statuses() -> None:
    schema = loaded(request_id_on_errors=True)
    _validate(schema, {"text": "hello"})


def test_missing_request_id_on_an_error_fails_with_the_requirement_id() -> None:
    schema = loaded(request_id_on_errors=False)
    _validate(schema, {"text": "hello"})
    with pytest.raises(FailureGroup) as raised:
        _validate(schema, {"text": 1})
    assert "HDR-003" in " ".join(str(failure) for failure in raised.value.exceptions)


def test_a_gzipped_answer_fetched_by_schemathesis_is_checked_decoded_once() -> None:
    """schemathesis hands over the body decoded; the harness checks read exactly that
    body (not the gzip bytes, not a second decoding) and find the answer conforming."""
    schema = loaded(request_id_on_errors=True, compress=True)
    for body, reply in (({"text": "hello"}, {"id": "note_1"}), ({"text": 1}, None)):
        case = schema["/v1/notes"]["POST"].Case(body=body, media_type="application/json")
        response = case.call()
        assert response.headers["content-encoding"] == ["gzip"]  # it was sent compressed
        seen = exchange.as_httpx(response)
        assert seen.content == response.content
        assert "content-encoding" not in seen.headers
        assert seen.json() == reply or seen.json()["error"]["request_id"] == "req_2"
        case.validate_response(response, additional_checks=checking.harness_checks())


def test_a_gzipped_answer_fetched_by_the_harness_client_is_checked_as_it_read_it() -> None:
    def server(request: httpx.Request) -> httpx.Response:
        status, headers, content = gzipped(*answer(request.content, request_id_on_errors=True))
        return httpx.Response(status, headers=headers, content=content)

    schema = loaded(request_id_on_errors=True)
    case = schema["/v1/notes"]["POST"].Case(body={"text": 1}, media_type="application/json")
    with httpx.Client(transport=httpx.MockTransport(server)) as client:
        response = client.post("http://api.test/v1/notes", json={"text": 1})
    response.elapsed = datetime.timedelta(0)  # a MockTransport answer is never timed
    converted = exchange.as_schemathesis(response)
    assert converted.headers["content-encoding"] == ["gzip"]
    assert json.loads(converted.content)["error"]["code"] == "x"
    assert exchange.as_httpx(converted) is response
    case.validate_response(converted, additional_checks=checking.harness_checks())


def test_adapted_checks_cover_every_registered_rule() -> None:
    names = {check.__name__ for check in checking.harness_checks()}
    assert "crm_request_id_header" in names
    assert "crm_rate_limit_headers" in names
    assert {"ERR-001", "HDR-001", "IDN-001", "PAG-002"} <= set(checking.requirement_ids())
    assert issubclass(ConformanceFailure, AssertionError)


def test_undeclared_methods_are_sent_to_the_embedded_server_only() -> None:
    schema = loaded(request_id_on_errors=True)
    operation = schema["/v1/notes"]["POST"]
    declared = operation.Case(body={"text": "a"}, media_type="application/json")
    undeclared = operation.Case(method="DELETE")
    assert guard.sends_to(declared, embedded=False)
    assert not guard.sends_to(undeclared, embedded=False)
    assert guard.sends_to(undeclared, embedded=True)


def test_transport_leaves_the_token_to_the_client_and_keeps_the_body() -> None:
    schema = loaded(request_id_on_errors=True)
    case = schema["/v1/notes"]["POST"].Case(
        body={"text": "a"}, media_type="application/json", headers={"Authorization": "Bearer x"}
    )
    sent = exchange.transport(case)
    assert sent["json"] == {"text": "a"}
    assert all(name.lower() != "authorization" for name in sent["headers"])


def test_profiles_are_named_and_deep_is_full_in_rounds() -> None:
    quick, full, deep = (profiles.profile(name) for name in ("quick", "full", "deep"))
    assert quick.examples < full.examples
    assert quick.scenarios < full.scenarios
    assert (deep.examples, deep.scenarios, deep.steps) == (full.examples, full.scenarios, 8)
    assert deep.timed
    assert not full.timed
    assert not quick.timed
    with pytest.raises(ValueError, match="known profiles are quick, full, deep"):
        profiles.profile("thorough")


def test_fuzz_minutes_come_from_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CRM_FUZZ_MINUTES", raising=False)
    assert profiles.fuzz_minutes(None) == profiles.DEFAULT_FUZZ_MINUTES
    monkeypatch.setenv("CRM_FUZZ_MINUTES", "2.5")
    assert profiles.fuzz_minutes(None) == 2.5
    assert profiles.fuzz_minutes(60) == 60
    for bad in ("0", "-1", "soon", "inf"):
        with pytest.raises(ValueError, match="expected a positive number"):
            profiles.fuzz_minutes(bad)


class FakeClock:
    """time.monotonic for `fuzz`, moved by the rounds themselves: no wall time involved."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(budget, "time", fake)
    return fake


def test_rounds_run_while_one_more_as_long_as_the_longest_still_fits(clock: FakeClock) -> None:
    ran: list[int] = []

    def ten_seconds(number: int) -> None:
        ran.append(number)
        clock.now += 10

    assert budget.in_rounds(ten_seconds, seconds=35) == 3  # the 4th would end at 40
    assert ran == [0, 1, 2]
    assert budget.in_rounds(ten_seconds, seconds=0) == 1  # always one


def test_a_failing_round_ends_the_test_and_says_which(clock: FakeClock) -> None:
    def fails_second(number: int) -> None:
        clock.now += 1
        if number == 1:
            raise AssertionError("HDR-001")

    with pytest.raises(AssertionError, match="HDR-001") as raised:
        budget.in_rounds(fails_second, seconds=100)
    assert "in round 2" in " ".join(raised.value.__notes__)


def test_a_timed_test_gets_the_next_seed_and_generated_cases_only_after_round_one(
    clock: FakeClock,
) -> None:
    from hypothesis import Phase
    from hypothesis import settings as hypothesis_settings

    seen: list[tuple[int, bool]] = []

    def built(**fixtures: Any) -> None:
        phases = built._hypothesis_internal_use_settings.phases  # type: ignore[attr-defined]  # hypothesis's own attribute
        seen.append((built._hypothesis_internal_use_seed, Phase.explicit in phases))  # type: ignore[attr-defined]  # hypothesis's own attribute
        assert fixtures == {"api": "client"}
        clock.now += 10

    built._hypothesis_internal_use_seed = 7  # type: ignore[attr-defined]  # hypothesis's own attribute
    built._hypothesis_internal_use_settings = hypothesis_settings(max_examples=3)  # type: ignore[attr-defined]  # hypothesis's own attribute
    rounds: list[int] = []
    budget.timed(built, seconds=25, rounds=rounds)(api="client")
    assert seen == [(7, True), (8, False)]
    assert rounds == [2]


def test_a_replay_runs_exactly_the_rounds_given_whatever_the_time(clock: FakeClock) -> None:
    ran: list[int] = []

    def ten_seconds(number: int) -> None:
        ran.append(number)
        clock.now += 10

    assert budget.in_rounds(ten_seconds, seconds=0, exactly=3) == 3  # time would allow one
    assert budget.in_rounds(ten_seconds, seconds=1000, exactly=1) == 1  # and here a hundred
    assert ran == [0, 1, 2, 0]


def test_a_timed_test_keeps_the_rounds_it_started_the_failing_one_included(
    clock: FakeClock,
) -> None:
    from hypothesis import settings as hypothesis_settings

    def built(**fixtures: Any) -> None:
        clock.now += 1
        if built._hypothesis_internal_use_seed == 9:  # type: ignore[attr-defined]  # hypothesis's own attribute
            raise AssertionError("round 3 failed")

    built._hypothesis_internal_use_seed = 7  # type: ignore[attr-defined]  # hypothesis's own attribute
    built._hypothesis_internal_use_settings = hypothesis_settings(max_examples=3)  # type: ignore[attr-defined]  # hypothesis's own attribute
    rounds: list[int] = []
    with pytest.raises(AssertionError, match="round 3 failed"):
        budget.timed(built, seconds=100, rounds=rounds)()
    assert rounds == [3]  # a replay runs three rounds and meets the failure again


def test_replayed_rounds_come_from_the_earlier_runs_outcome_records(tmp_path: Any) -> None:
    from crm_conformance.core.verdicts.outcomes import (
        OUTCOMES_FILE,
        Outcome,
        OutcomeRecord,
        append_record,
    )

    for nodeid, rounds in (("suites/test_fuzz.py::t[GET /v1/tags]", 4), ("suites/x.py::y", None)):
        record = OutcomeRecord(nodeid, Outcome.PASSED, [], [], rounds=rounds)
        append_record(tmp_path / OUTCOMES_FILE, record)

    def request(nodeid: str, run_dir: Any) -> Any:
        options = {"crm_fuzz_rounds": run_dir}
        return SimpleNamespace(
            config=SimpleNamespace(getoption=lambda name, default=None: options.get(name)),
            node=SimpleNamespace(nodeid=nodeid),
        )

    assert (
        plugin_fuzz.replayed_rounds(request("suites/test_fuzz.py::t[GET /v1/tags]", tmp_path)) == 4
    )
    assert (
        plugin_fuzz.replayed_rounds(request("suites/test_fuzz.py::t[GET /v1/users]", tmp_path)) == 1
    )
    assert (
        plugin_fuzz.replayed_rounds(request("suites/test_fuzz.py::t[GET /v1/tags]", None)) is None
    )


def test_the_fingerprint_of_sent_requests_ignores_the_host_only() -> None:
    from crm_conformance.core.transport.exchanges import Exchange

    def sent(url: str, body: str | None = None) -> Exchange:
        return Exchange("GET", url, {}, body, 200, {}, None, 0.1)

    here = seeding.sent_digest([sent("http://127.0.0.1:5000/v1/tags?limit=3")])
    assert here == seeding.sent_digest([sent("http://127.0.0.1:6111/v1/tags?limit=3")])
    assert here != seeding.sent_digest([sent("http://127.0.0.1:5000/v1/tags?limit=4")])
    assert here != seeding.sent_digest([sent("http://127.0.0.1:5000/v1/tags?limit=3", "{}")])


def test_the_fuzz_minutes_are_shared_by_the_fuzz_tests_selected() -> None:
    from types import SimpleNamespace

    def item(marker: str | None) -> SimpleNamespace:
        return SimpleNamespace(
            get_closest_marker=lambda name: marker if name == "generated" else None
        )

    items = [item("examples"), item("steps")] * 2 + [item(None)]
    request = SimpleNamespace(
        config=SimpleNamespace(getoption=lambda name, default=None: 2.0),
        session=SimpleNamespace(items=items),
    )
    assert plugin_fuzz.time_share(request) == 2.0 * 60 / 4


def test_open_methods_follow_what_the_document_leaves_open() -> None:
    assert overlay.open_methods("/v1/contacts") == {"get", "post"}
    assert overlay.open_methods("/v1/contacts/{contact_id}") == {"put", "patch", "delete"}
    assert overlay.open_methods("/v1/pipelines") == frozenset()  # "no endpoints" for writes
    assert overlay.open_methods("/v1/conversations/{conversation_id}/close") == frozenset()


def test_declared_open_methods_are_marked_and_left_out_of_generation() -> None:
    raw: dict[str, Any] = {"paths": {"/v1/notes": {"post": {"responses": {}}}}}
    overlay.declare_open_methods(raw)
    assert raw["paths"]["/v1/notes"]["get"][overlay.NOT_SHOWN] is True
    assert overlay.NOT_SHOWN not in raw["paths"]["/v1/notes"]["post"]
    labels = {result.ok().label for result in loader.load().get_all_operations()}
    assert "POST /v1/contacts" not in labels
    assert "GET /v1/contacts" in labels


def test_a_literal_path_beside_a_record_path_shares_its_open_methods() -> None:
    """A router may send PUT /v1/contacts/search to PUT /v1/contacts/{contact_id}."""
    raw: dict[str, Any] = {
        "paths": {
            "/v1/contacts/{contact_id}": {"get": {"responses": {}}},
            "/v1/contacts/search": {"post": {"responses": {}}},
            "/v1/conversations/{conversation_id}/close": {"post": {"responses": {}}},
        }
    }
    overlay.declare_open_methods(raw)
    assert set(raw["paths"]["/v1/contacts/search"]) == {"post", "put", "patch", "delete"}
    assert set(raw["paths"]["/v1/conversations/{conversation_id}/close"]) == {"post"}


def test_what_may_be_left_out_may_also_be_null_and_shared_schemas_stay() -> None:
    raw = json.loads(json.dumps(SPEC))
    raw["paths"]["/v1/notes"]["post"]["requestBody"]["required"] = False
    body = raw["paths"]["/v1/notes"]["post"]["requestBody"]["content"]["application/json"]
    body["schema"]["properties"]["tag"] = {"type": "string"}
    overlay.absent_may_be_null(raw)
    optional, inner = body["schema"]["anyOf"]
    assert inner == {"type": "null"}
    assert optional["properties"]["text"] == {"type": "string"}  # required: unchanged
    assert optional["properties"]["tag"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_upsert_bodies_that_could_match_a_record_stay_on_the_embedded_server() -> None:
    schema = loader.load()
    operation = schema["/v1/contacts/upsert"]["POST"]
    matching = operation.Case(body={"phone": "+15550100"}, media_type="application/json")
    harmless = operation.Case(body={"name": "x"}, media_type="application/json")
    assert not guard.sends_to(matching, embedded=False)
    assert guard.sends_to(matching, embedded=True)
    assert guard.sends_to(harmless, embedded=False)


def test_only_the_embedded_reference_server_counts_as_embedded() -> None:
    from crm_conformance.core.model.target import Target

    assert guard.is_embedded(Target("http://x", sources={"base_url": "embedded reference server"}))
    assert not guard.is_embedded(Target("http://x", sources={"base_url": "target file t.toml"}))


class _Replayed:
    """A state machine whose replay diverged after it saw a real failure."""

    first_failure: Exception | None = AssertionError("HDR-001 on the first run")

    @classmethod
    def run(cls, settings: Any) -> None:
        raise FlakyStrategyDefinition("Inconsistent data generation!")


def test_a_diverging_replay_reports_the_failure_seen_first() -> None:
    with pytest.raises(AssertionError, match="HDR-001"):
        seeding.run_replay_safe(_Replayed, None)
    _Replayed.first_failure = None
    with pytest.raises(FlakyStrategyDefinition):
        seeding.run_replay_safe(_Replayed, None)


def test_the_fuzz_tests_name_no_opt_in_requirement() -> None:
    """An opt-in rule (Retry-After on 429) must not keep them from any target."""
    catalogue = load_catalogue()
    classes = {catalogue.class_of(req) for req in checking.requirement_ids()}
    assert classes
    assert not classes & catalogue.opt_in_classes


def _failure_kinds(kind: type[Any]) -> set[str]:
    found = {str(getattr(kind, "code", "")), *getattr(kind, "checks", ())}
    sub: type[Any]
    for sub in kind.__subclasses__():
        found |= _failure_kinds(sub)
    return found


def test_schemathesis_checks_are_attributed_by_names_schemathesis_uses() -> None:
    import schemathesis.openapi.checks  # noqa: F401  # defines the OpenAPI failure kinds
    from schemathesis.core.failures import Failure

    assert set(checking.SCHEMATHESIS_CHECKS) <= _failure_kinds(Failure)
    catalogue = load_catalogue()
    tables = [
        *fuzz_charges.BY_CHECK.values(),
        *(ids for _, ids in fuzz_charges.ANSWERS),
        *fuzz_charges.HEADERS.values(),
    ]
    assert all(r in catalogue for ids in tables for r in ids)


def _kinds(kind: type[Any]) -> list[type[Any]]:
    return [kind, *(k for sub in kind.__subclasses__() for k in _kinds(sub))]


UNRUN = frozenset({"max_response_time", "allow_header_conformance"})
"""schemathesis checks the fuzz layer never runs (off by default, or off in `settings`)."""


@pytest.mark.parametrize("label", ["GET /v1/contacts", "POST /v1/deals", "GET /v1/me"])
def test_every_failure_a_run_check_raises_lands_on_a_requirement(label: str) -> None:
    """No failure kind of an OpenAPI check the layer runs is charged to every id of its
    test: each has its requirement (`fuzz_charges.requirements_of`)."""
    import schemathesis.openapi.checks  # noqa: F401  # defines the OpenAPI failure kinds
    from schemathesis.core.failures import CustomFailure, Failure

    catalogue = load_catalogue()
    for kind in _kinds(Failure):
        if kind is Failure or kind is CustomFailure or "graphql" in kind.__module__:
            continue
        if set(kind.checks) <= UNRUN:
            continue
        failure: Any = Exception.__new__(kind)  # the kind as raised, without its arguments
        failure.operation = label
        ids = fuzz_charges.requirements_of(failure, status=200)
        assert ids, (kind.__name__, label)
        assert all(i in catalogue for i in ids)


def test_a_refused_demand_is_charged_to_the_place_the_case_broke() -> None:
    """negative_data_rejection: a coverage case says where it broke the request."""
    from schemathesis.core.parameters import ParameterLocation

    def case(method: str, location: ParameterLocation, parameter: str, path: str) -> Any:
        data = SimpleNamespace(parameter_location=location, parameter=parameter, location=path)
        return SimpleNamespace(
            method=method, meta=SimpleNamespace(phase=SimpleNamespace(data=data))
        )

    query = case("GET", ParameterLocation.QUERY, "limit", "/maximum")
    assert fuzz_charges.demands_of("GET /v1/contacts", query) == ("PAG-008",)
    title = case("POST", ParameterLocation.BODY, "application/json", "/properties/title/maxLength")
    assert fuzz_charges.demands_of("POST /v1/activities", title) == ("ACT-004",)
    nested = "/anyOf/0/properties/filter/anyOf/0/properties/conditions/items/anyOf/1/type"
    join = case("POST", ParameterLocation.BODY, "application/json", nested)
    assert fuzz_charges.demands_of("POST /v1/contacts/search", join) == ("SRCH-004",)
    undeclared = case("DELETE", ParameterLocation.QUERY, "", "")
    assert fuzz_charges.demands_of("GET /v1/contacts", undeclared) == ("ERR-013",)
    demands = load_catalogue().negative_demands
    every = {
        i for place, ids in demands.items() if place.startswith("GET /v1/contacts ") for i in ids
    }
    assert set(fuzz_charges.demands_of("GET /v1/contacts")) == every  # nothing said: all


@pytest.mark.parametrize(
    ("where", "keywords", "status", "ids"),
    [
        (
            ["error", "type"],
            ["properties", "error", "properties", "type", "enum"],
            404,
            ("ERR-003",),
        ),
        ([], ["required"], 404, ("ERR-001",)),
        (["meta", "has_more"], ["properties", "meta", "required"], 200, ("PAG-001",)),
        (["data", "0", "updated_at"], ["properties", "updated_at", "type"], 200, ("IDN-003",)),
        (["data", "0", "id"], ["properties", "id", "pattern"], 200, ("IDN-001",)),
        (["data", "0", "object"], ["properties", "object", "const"], 200, ("IDN-002",)),
        (["data", "0", "status"], ["properties", "status", "enum"], 200, ("CON-003",)),
    ],
)
def test_a_body_breaking_the_schema_is_charged_where_it_broke(
    where: list[str], keywords: list[str], status: int, ids: tuple[str, ...]
) -> None:
    failure = SimpleNamespace(
        code="ST108", operation="GET /v1/contacts", instance_path=where, schema_path=keywords
    )
    assert fuzz_charges.requirements_of(failure, status=status) == ids  # type: ignore[arg-type]  # a stand-in value


def test_a_gateway_answer_is_not_the_services() -> None:
    def answer(status: int, body: bytes) -> httpx.Response:
        return httpx.Response(status, content=body, request=httpx.Request("GET", "http://t/v1/x"))

    envelope = b'{"error": {"type": "api_error", "code": "internal_error", "message": "m"}}'
    assert fuzz_charges.is_gateway_answer(answer(502, b"<html>Bad Gateway</html>"))
    assert fuzz_charges.is_gateway_answer(answer(503, envelope))
    assert not fuzz_charges.is_gateway_answer(answer(502, envelope))
    assert not fuzz_charges.is_gateway_answer(answer(500, b"oops"))


def _coverage_cases(test: Any) -> list[tuple[Any, ...]]:
    """The explicit cases of a built test, as comparable values."""
    return [
        (
            *(case.method, case.path, case.path_parameters, case.query, case.headers),
            *(case.cookies, repr(case.body), case.media_type),
            repr(case.meta.phase) if case.meta else None,
        )
        for case in (example.kwargs["case"] for example in test.hypothesis_explicit_examples)
    ]


def test_coverage_cases_built_when_a_test_runs_are_schemathesis_own() -> None:
    """`add_coverage_cases` rebuilds what schemathesis's test builder attaches at
    collection, case for case and in order, for every operation of the spec; it calls
    schemathesis's internals, and this pins them."""
    from types import SimpleNamespace

    from schemathesis.generation.feedback import FeedbackSources
    from schemathesis.pytest._test_builder import build_operation_test

    def test_operation(case: Any) -> None:
        """Stands for the suite's test."""

    def built(schema: Any, operation: Any) -> Any:
        return build_operation_test(
            config=schema.config,
            operation=operation,
            test_func=test_operation,
            given_kwargs={},
            feedback=FeedbackSources(),
        )

    eager, deferred = loader.load(seed=7), loader.load(seed=7, coverage_when_run=True)
    compared = 0
    for at_collection, when_run in zip(
        eager.get_all_operations(), deferred.get_all_operations(), strict=True
    ):
        expected = built(eager, at_collection.ok())
        test = built(deferred, when_run.ok())
        assert len(getattr(test, "hypothesis_explicit_examples", ())) < len(
            expected.hypothesis_explicit_examples
        )
        item = SimpleNamespace(obj=test, test_function=test_operation)
        loader.add_coverage_cases(item, deferred)
        loader.add_coverage_cases(item, deferred)  # a second call adds nothing
        assert _coverage_cases(test) == _coverage_cases(expected), at_collection.ok().label
        compared += len(expected.hypothesis_explicit_examples)
    assert compared > 500
