"""The plugin, run by pytester against tiny fake targets on 127.0.0.1 (never the reference)."""

import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

# httpx maps httpcore's exceptions by class, and pytester drops modules first imported inside
# an in-process run: imported here, httpcore is not re-imported (with new classes) per run.
# The same for PyYAML, whose C loader keeps the classes of its first import.
import httpcore  # noqa: F401  # kept imported across in-process runs (above)
import httpx
import pytest
import yaml  # noqa: F401  # kept imported across in-process runs (above)
from support.fake_target import TOKEN, conformant, error_body, rate_headers, serve

from crm_conformance.core.verdicts.outcomes import cause_for, read_records
from crm_conformance.plugin import session
from crm_conformance.plugin.state import BREAKER_THRESHOLD, RunState

pytest_plugins = ["pytester"]


def suite(pytester: pytest.Pytester, source: str, name: str = "test_area") -> None:
    (pytester.path / "suites").mkdir(exist_ok=True)
    (pytester.path / "suites" / f"{name}.py").write_text(source)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("suites", "-p", "no:cacheprovider", "-rA", *args)


def test_a_suite_test_without_req_fails_collection(pytester: pytest.Pytester) -> None:
    suite(pytester, "import pytest\n\ndef test_unmarked():\n    pass\n")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*test_unmarked: no @pytest.mark.req(...)*"])


def test_malformed_and_unknown_ids_fail_collection(pytester: pytest.Pytester) -> None:
    suite(
        pytester,
        "import pytest\n\n"
        "@pytest.mark.req('PAG-004')\ndef test_known():\n    pass\n\n"
        "@pytest.mark.req('PAG-999')\ndef test_unknown():\n    pass\n",
    )
    suite(
        pytester,
        "import pytest\n\n"
        "class TestGroup:\n    @pytest.mark.req('pag4')\n    def test_bad(self):\n        pass\n",
        name="test_other",
    )
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*test_unknown: requirement id 'PAG-999' is not in the catalogue*",
            "*test_bad: requirement id 'pag4' is not of the form AREA-NNN*",
        ]
    )


CLASSY = """
import pytest

@pytest.mark.req("PAG-001")
def test_pages():
    pass

@pytest.mark.req("DEAL-001", "ERR-001")
def test_deals():
    pass

@pytest.mark.req("HDR-001")
def test_headers():
    pass
"""


def test_classes_select_tests_and_core_always_runs(pytester: pytest.Pytester) -> None:
    suite(pytester, CLASSY)
    result = run(pytester, "--classes", "deals", "--junitxml=out.xml")
    result.assert_outcomes(passed=2, deselected=1)
    cases = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    properties = {
        case.get("name"): [(p.get("name"), p.get("value")) for p in case.iter("property")]
        for case in cases
    }
    assert properties["test_deals"] == [
        ("requirement", "DEAL-001"),
        ("requirement", "ERR-001"),
        ("class", "deals"),
        ("class", "core"),
    ]


OPT_IN = """
import pytest

@pytest.mark.req("RATE-001")
def test_throttled():
    pass

@pytest.mark.req("PAG-001")
def test_pages():
    pass
"""


@pytest.mark.parametrize(
    ("classes", "outcomes"),
    [
        ((), {"passed": 1, "skipped": 1}),
        (("--classes", "pagination"), {"passed": 1, "deselected": 1}),
        (("--classes", "rate-limits"), {"passed": 1, "deselected": 1}),
        (("--classes", "all"), {"passed": 2}),
    ],
)
def test_an_opt_in_class_runs_against_a_target_only_when_claimed(
    pytester: pytest.Pytester, base_url: str, classes: tuple[str, ...], outcomes: dict[str, int]
) -> None:
    suite(pytester, OPT_IN)
    result = run(pytester, "--base-url", base_url, *classes)
    result.assert_outcomes(**outcomes)
    if "skipped" in outcomes:
        result.stdout.fnmatch_lines(
            ["*opt-in class rate-limits is not claimed: add it to --classes*"]
        )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--classes", "nope"], "--classes='nope': unknown class 'nope'; expected*"),
        (["--request-budget", "lots"], "*--request-budget='lots': expected a positive integer*"),
        (["--run-id", "a b"], "*--run-id='a b': expected 1 to 40 letters*"),
        (["--target", "absent.toml"], "*target file absent.toml: no such file*"),
    ],
)
def test_bad_options_are_usage_errors_naming_the_flag(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    suite(pytester, CLASSY)
    result = run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}"])


def test_selecting_no_test_is_an_error_not_a_silent_pass(pytester: pytest.Pytester) -> None:
    suite(pytester, '@__import__("pytest").mark.req("PAG-001")\ndef test_pages():\n    pass\n')
    result = run(pytester, "--classes", "oauth")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--classes core,oauth selects none of the 1 conformance tests*"])


def test_a_target_file_error_names_the_key(pytester: pytest.Pytester) -> None:
    suite(pytester, CLASSY)
    pytester.path.joinpath("t.toml").write_text(
        'base_url = "http://h"\n[tokens.admin]\nvalue="x"\n'
    )
    result = run(pytester, "--target", "t.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown token role 'tokens.admin'*"])


USES_API = """
import pytest
from crm_conformance.core.verdicts.checks import run_checks
from crm_conformance.core.verdicts.failure import ConformanceFailure

@pytest.mark.req("PAG-001")
def test_contacts_conform(api):
    run_checks(api.get("/v1/contacts"))

@pytest.mark.req("PAG-004")
def test_target_breaks_it(api):
    response = api.get("/v1/contacts", params={"limit": 2})
    raise ConformanceFailure("PAG-004", expected="links.next null", got="a cursor",
                             response=response)

@pytest.mark.req("AUTH-001")
def test_plain_assert_leaks_nothing(api):
    assert api.token == "something else"

@pytest.mark.req("HDR-001")
def test_observes(api, observe, run_prefix, unique):
    observe("default_page_size", api.get("/v1/contacts").json()["meta"]["limit"])
    assert unique("x").startswith(run_prefix) and unique("x") != unique("x")
"""


def test_failures_print_the_fixed_format_and_never_a_token(
    pytester: pytest.Pytester, base_url: str
) -> None:
    suite(pytester, USES_API)
    result = run(pytester, "--base-url", base_url, "--junitxml=out.xml")
    # the plain assert is no check's failure: a suite error, charged to no requirement
    result.assert_outcomes(passed=2, failed=1, errors=1)
    output = result.stdout.str()
    assert "SUITE ERROR suites/test_area.py::test_plain_assert_leaks_nothing" in output
    assert TOKEN not in output
    assert TOKEN not in (pytester.path / "out.xml").read_text()
    result.stdout.fnmatch_lines(
        [
            "PAG-004  *",  # the catalogue title follows the id
            "  Request:  GET /v1/contacts?limit=2  -> 200",
            "  Expected: links.next null",
            "Reproduce with:",
            f"  curl '{base_url}/v1/contacts?limit=2' -H \"Authorization: Bearer $TOKEN\"",
        ]
    )
    assert "raise ConformanceFailure" not in output  # no traceback for our failure type
    assert "[Filtered]" in output  # the plain assert's token, filtered
    root = ET.parse(pytester.path / "out.xml").getroot()
    observed = [
        p.get("value") or "" for p in root.iter("property") if p.get("name") == "observation"
    ]
    assert observed
    assert "default_page_size" in observed[0]


SKIPS = """
import pytest

@pytest.mark.req("TEN-001")
def test_tenancy(other_api):
    pass

@pytest.mark.req("CAMP-001")
def test_campaigns(adapter):
    pass

@pytest.mark.req("TAG-001")
def test_tags(factory):
    factory.tag()

@pytest.mark.req("CON-001")
def test_filters(convention):
    convention("contact_filters.status")
"""


def test_missing_preconditions_skip_saying_what_to_add(
    pytester: pytest.Pytester, base_url: str
) -> None:
    suite(pytester, SKIPS)
    result = run(pytester, "--base-url", base_url)
    result.assert_outcomes(skipped=4)
    result.stdout.fnmatch_lines_random(
        [
            "*add [[]tokens.other_workspace[]]*",
            "*add adapter_url to the target file*",
            "*tag_catalogue_field*",
            '*add status = "..." under [[]conventions.contact_filters[]]*',
        ]
    )


def test_an_unreachable_target_is_one_message_and_an_exit_status_of_its_own(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, USES_API)
    with serve(mode="drop") as url:
        result = run(pytester, "--base-url", url)
    assert result.ret == session.EXIT_UNREACHABLE
    assert result.ret not in tuple(pytest.ExitCode)  # never one of pytest's own 0-5
    result.stdout.fnmatch_lines(["*target unreachable: GET */v1/me failed*"])
    assert "test_contacts_conform" not in result.stdout.str()


def test_an_html_target_is_one_message(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, USES_API)
    html = httpx.Response(200, text="<html></html>", headers={"Content-Type": "text/html"})
    with serve(lambda request: html) as url:
        result = run(pytester, "--base-url", url)
    assert result.ret == session.EXIT_UNREACHABLE
    result.stdout.fnmatch_lines(["*Content-Type 'text/html', not a JSON body*API root*"])


def as_text_plain(request: httpx.Request) -> httpx.Response:
    """A conforming answer whose JSON body is labelled text/plain."""
    answer = conformant(request)
    headers = {**answer.headers, "Content-Type": "text/plain; charset=utf-8"}
    return httpx.Response(answer.status_code, content=answer.content, headers=headers)


LISTS = """
import pytest
from crm_conformance.steps import expect_status

@pytest.mark.req("PAG-001")
def test_lists(api):
    expect_status(api.get("/v1/contacts"), "PAG-001", 200)
"""


def test_json_labelled_text_plain_is_a_failed_core_requirement_and_the_run_goes_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, LISTS)
    with serve(as_text_plain) as url:
        result = run(pytester, "--base-url", url, "--crm-outcomes", "out.jsonl")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["HDR-004  Sends JSON request and response bodies"])
    [record] = read_records(pytester.path / "out.jsonl")
    assert record.failed_requirements == ["HDR-004"]
    assert record.requirements == ["PAG-001", "HDR-004"]


SKIPPED_AFTER_WORK = """
import pytest

@pytest.mark.req("PAG-001")
def test_reads(api):
    api.get("/v1/contacts")
    api.get("/v1/contacts")

@pytest.mark.req("PAG-001")
@pytest.mark.skip(reason="not claimed")
def test_skipped_before_setup(api):
    api.get("/v1/contacts")
"""


def test_a_test_skipped_before_setup_records_no_request_of_the_tests_before_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unclaimed opt-in class's tests are skipped by marker, before the plugin's own
    setup: their records must not take the earlier tests' requests as theirs."""
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, SKIPPED_AFTER_WORK)
    with serve(conformant) as url:
        result = run(
            pytester, "--base-url", url, "--crm-outcomes", "out.jsonl", "-p", "no:randomly"
        )
    result.assert_outcomes(passed=1, skipped=1)
    requests = {
        r.nodeid.rsplit("::", 1)[1]: r.requests for r in read_records(pytester.path / "out.jsonl")
    }
    assert requests == {"test_reads": 2, "test_skipped_before_setup": 0}


def reading(*paths: str) -> str:
    """A suite of twelve tests, each reading the next of `paths` in turn."""
    body = "\n@pytest.mark.req('HDR-001')\ndef test_{n}(api):\n    api.get({path!r})\n"
    return "import pytest\n" + "".join(
        body.format(n=n, path=paths[n % len(paths)]) for n in range(12)
    )


def crash(request: httpx.Request) -> httpx.Response:
    """A server fault, whatever is asked."""
    body = error_body("api_error", "internal_error", request_id="r")
    return httpx.Response(500, json=body, headers=rate_headers("r"))


def test_a_crashing_target_stops_the_run_with_one_breaker_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A target that is down fails every read: four lists in turn open the breaker."""
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, reading("/v1/contacts", "/v1/users", "/v1/audiences", "/v1/deals"))
    with serve(crash) as url:
        result = run(pytester, "--base-url", url)
    result.assert_outcomes(passed=BREAKER_THRESHOLD, errors=1)
    result.stdout.fnmatch_lines(["*circuit breaker open after 8 consecutive*"])


def test_one_crashing_operation_never_stops_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list answering 500 to every read is that list's failure, met test after test;
    the target is up, so every test runs."""
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, reading("/v1/organizations"))
    with serve(crash) as url:
        result = run(pytester, "--base-url", url)
    result.assert_outcomes(passed=12)
    assert "circuit breaker" not in result.stdout.str()


ADAPTER_FAILS = """
import pytest

@pytest.mark.req("CON-001")
def test_needs_a_contact(factory):
    factory.contact()
"""


def test_an_adapter_failure_is_an_error_not_a_failure(pytester: pytest.Pytester) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/_adapter/v1/health"):
            return httpx.Response(200, json={"ok": True, "features": ["records"]})
        if request.url.path.startswith("/_adapter"):
            return httpx.Response(500, text="adapter broke")
        return conformant(request)

    suite(pytester, ADAPTER_FAILS)
    with serve(answer) as url:
        pytester.path.joinpath("t.toml").write_text(
            f'base_url = "{url}"\nadapter_url = "{url}/_adapter"\n'
            f'[tokens.full]\nvalue = "{TOKEN}"\n'
        )
        result = run(pytester, "--target", "t.toml", "--junitxml=out.xml")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*adapter error (a setup problem, not a target failure): adapter POST /v1/records "
            "answered 500: adapter broke*"
        ]
    )
    root = ET.parse(pytester.path / "out.xml").getroot()
    outcome = [p.get("value") for p in root.iter("property") if p.get("name") == "crm_outcome"]
    assert outcome == ["error"]


def test_an_unmarked_suite_test_fails_collection_under_xdist(pytester: pytest.Pytester) -> None:
    suite(pytester, "def test_unmarked():\n    pass\n")
    result = run(pytester, "-n", "2")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*no @pytest.mark.req(...)*"])


WAITING_LAST = """
import pytest

@pytest.mark.req("HDR-001")
def test_first():
    pass

@pytest.mark.req("HDR-001")
def test_second():
    pass

@pytest.mark.req("HDR-001")
@pytest.mark.waits
def test_sleeps_out_a_window():
    pass
"""


def _ran(result: pytest.RunResult) -> list[str]:
    return [line.split("::")[-1].split()[0] for line in result.outlines if "PASSED" in line]


def test_under_xdist_a_test_that_waits_runs_first(pytester: pytest.Pytester) -> None:
    """Its worker sleeps while the others work, instead of alone at the end of the run;
    without xdist the order is the modules'."""
    suite(pytester, WAITING_LAST)
    under_xdist = run(pytester, "-n", "1", "-v")
    assert under_xdist.ret == 0
    assert _ran(under_xdist)[0] == "test_sleeps_out_a_window"
    alone = run(pytester, "-p", "no:xdist", "-v")
    assert [n for n in _ran(alone) if n.startswith("test_")][:3] == [
        "test_first",
        "test_second",
        "test_sleeps_out_a_window",
    ]


LONG_LAST = """
import pytest

@pytest.mark.req("HDR-001")
@pytest.mark.parametrize("n", range(6))
def test_short(n):
    pass

@pytest.mark.req("HDR-001")
@pytest.mark.generated("steps")
def test_stateful_run():
    pass

@pytest.mark.req("HDR-001")
@pytest.mark.generated("examples")
def test_fuzz_operation():
    pass
"""


def test_under_xdist_each_worker_starts_with_a_long_test(pytester: pytest.Pytester) -> None:
    """In the full profile the two long tests, last in the module, are dealt one to each
    worker's block, so neither starts last while the other worker idles."""
    suite(pytester, LONG_LAST)
    result = run(pytester, "-n", "2", "--dist", "worksteal", "--profile", "full", "-v")
    assert result.ret == 0
    first: dict[str, str] = {}
    for line in result.outlines:
        if line.startswith("[gw") and "PASSED" in line:
            first.setdefault(line.split("]")[0], line.split("::")[-1].strip())
    assert sorted(first.values()) == ["test_fuzz_operation", "test_stateful_run"]


DEFAULT_TARGET = """
import pytest

@pytest.mark.req("HDR-001")
def test_one(target, api):
    assert target.sources["base_url"] == "{origin}"
    assert api.get("/v1/contacts").status_code == 200

@pytest.mark.req("HDR-001")
def test_two(api):
    assert api.get("/v1/contacts").status_code == 200
"""


def fake_reference(monkeypatch: pytest.MonkeyPatch, url: str) -> list[str]:
    """Make the plugin's embedded server the fake one; returns a list growing per start."""
    from crm_conformance.core.model.target import target_from_data

    starts: list[str] = []

    def start(state: RunState) -> object:
        starts.append(url)
        return target_from_data(
            {"base_url": url, "tokens": {"full": {"value": TOKEN}}}, origin="fake reference"
        )

    monkeypatch.setattr(session, "start_reference", start)
    return starts


def test_without_a_target_the_embedded_server_is_started_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite(pytester, DEFAULT_TARGET.format(origin="fake reference"))
    with serve() as url:
        starts = fake_reference(monkeypatch, url)
        result = run(pytester)
    result.assert_outcomes(passed=2)
    assert len(starts) == 1


def test_under_xdist_requirements_reach_junit(pytester: pytest.Pytester) -> None:
    suite(pytester, DEFAULT_TARGET.format(origin="target file t.toml"))
    suite(pytester, CLASSY, name="test_classy")
    with serve() as url:
        pytester.path.joinpath("t.toml").write_text(
            f'base_url = "{url}"\n[tokens.full]\nvalue = "{TOKEN}"\n'
        )
        result = run(pytester, "-n", "2", "--target", "t.toml", "--junitxml=out.xml")
    result.assert_outcomes(passed=5)
    root = ET.parse(pytester.path / "out.xml").getroot()
    names = sorted(
        p.get("value") or "" for p in root.iter("property") if p.get("name") == "requirement"
    )
    assert names == ["DEAL-001", "ERR-001", "HDR-001", "HDR-001", "HDR-001", "PAG-001"]


def test_a_refused_precondition_blocks_the_test(pytester: pytest.Pytester) -> None:
    suite(
        pytester,
        '@__import__("pytest").mark.req("TAG-001")\ndef test_t(factory):\n    factory.tag()\n',
    )
    with serve() as url:  # answers 404 to POST /v1/tags
        pytester.path.joinpath("t.toml").write_text(
            f'base_url = "{url}"\n[tokens.full]\nvalue = "{TOKEN}"\n'
            '[conventions]\ntag_catalogue_field = "kind"\n'
        )
        result = run(pytester, "--target", "t.toml", "-v")
    result.stdout.fnmatch_lines(
        ["*test_t BLOCKED*", "*blocked: could not make test data: POST /v1/tags answered 404*"]
    )
    assert TOKEN not in result.stdout.str()


def test_a_hanging_target_is_one_transport_error_per_test(pytester: pytest.Pytester) -> None:
    def hang_on_lists(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/contacts":
            time.sleep(4.0)
        return conformant(request)

    suite(pytester, USES_API.split('@pytest.mark.req("PAG-004")')[0])
    with serve(hang_on_lists) as url:
        pytester.path.joinpath("t.toml").write_text(
            f'base_url = "{url}"\ntimeout = 1.0\n[tokens.full]\nvalue = "{TOKEN}"\n'
        )
        result = run(pytester, "--target", "t.toml")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        # The answer that never ends breaks the exchange's whole deadline (bounds.py).
        ["*transport error talking to the target*GET /v1/contacts did not end within 1 s*"]
    )


def test_an_embedded_server_that_cannot_start_stops_the_run_with_one_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(state: RunState) -> object:
        raise RuntimeError("port in use")

    monkeypatch.setattr(session, "start_reference", fail)
    suite(pytester, reading("/v1/contacts"))
    result = run(pytester)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*embedded reference server could not start (RuntimeError: port in use)*"]
    )


UNIVERSAL_FAILURE = """
import pytest
from crm_conformance.core.verdicts.failure import ConformanceFailure

@pytest.mark.req("AUTH-001")
def test_a_universal_check_fails(api):
    raise ConformanceFailure("HDR-003", expected="X-Request-ID", got="none")
"""


def test_a_failed_universal_check_lands_on_its_own_requirement(
    pytester: pytest.Pytester, base_url: str
) -> None:
    suite(pytester, UNIVERSAL_FAILURE)
    result = run(pytester, "--base-url", base_url, "--junitxml=out.xml")
    result.assert_outcomes(failed=1)
    root = ET.parse(pytester.path / "out.xml").getroot()
    named = [p.get("value") for p in root.iter("property") if p.get("name") == "requirement"]
    assert named == ["AUTH-001", "HDR-003"]
    charged = [p.get("value") for p in root.iter("property") if p.get("name") == "crm_failed"]
    assert charged == ["HDR-003"]  # AUTH-001 is neither verified nor broken by this test


MIXED = """
import pytest

@pytest.mark.req("PAG-001", "RATE-001")
def test_pages_and_a_throttle_rule():
    pass
"""


def test_an_opt_in_id_never_keeps_a_test_of_other_classes_from_running(
    pytester: pytest.Pytester, base_url: str
) -> None:
    suite(pytester, MIXED)
    result = run(pytester, "--base-url", base_url, "--crm-outcomes", "out.jsonl")
    result.assert_outcomes(passed=1)
    [record] = read_records(pytester.path / "out.jsonl")
    assert record.requirements == ["PAG-001"]  # the unclaimed opt-in id is not credited
    result = run(
        pytester, "--base-url", base_url, "--classes", "all", "--crm-outcomes", "all.jsonl"
    )
    [record] = read_records(pytester.path / "all.jsonl")
    assert record.requirements == ["PAG-001", "RATE-001"]


SPENT_ALLOWANCE = """
import os
from pathlib import Path

import pytest

@pytest.mark.req("HDR-001")
@pytest.mark.parametrize("n", [1, 2])
def test_spends(api, n):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    Path(f"ledger-{worker}").write_text(str(api.pacer.ledger.directory))
    for _ in range(2):
        assert api.get("/v1/contacts").status_code == 200
"""


def test_workers_share_one_pacing_ledger_and_each_wait_reaches_junit(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A target whose every answer says the window is spent (Remaining 0, Reset 0): each
    test's second request waits (Reset and the slack for rounding, about a second)."""

    def spent(request: httpx.Request) -> httpx.Response:
        response = conformant(request)
        response.headers["X-RateLimit-Remaining"] = "0"
        response.headers["X-RateLimit-Reset"] = "0"
        return response

    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, SPENT_ALLOWANCE)
    with serve(spent) as url:
        result = run(pytester, "--base-url", url, "-n", "2", "--junitxml=out.xml")
    result.assert_outcomes(passed=2)
    directories = {path.read_text() for path in pytester.path.glob("ledger-gw*")}
    assert len(directories) == 1  # both workers, one ledger
    assert not any(Path(directory).exists() for directory in directories)  # removed at the end
    root = ET.parse(pytester.path / "out.xml").getroot()
    waits = [
        p.get("value") or "" for p in root.iter("property") if p.get("name") == "crm_rate_wait"
    ]
    assert len(waits) == 2
    assert all("'429s': 0" in wait for wait in waits)


GATEWAY = """
import pytest
from crm_conformance.steps import expect_status

@pytest.mark.req("PAG-001")
def test_lists(api):
    expect_status(api.get("/v1/contacts"), "PAG-001", 200)

@pytest.mark.req("HDR-003")
def test_me(api):
    expect_status(api.get("/v1/me"), "HDR-003", 200)
"""


def behind_a_gateway(pages: dict[str, int]) -> Callable[[httpx.Request], httpx.Response]:
    """A conforming server behind a gateway answering its HTML 502 page to a path the
    number of times `pages` says, then passing the requests on."""

    def handle(request: httpx.Request) -> httpx.Response:
        if pages.get(request.url.path, 0) > 0:
            pages[request.url.path] -= 1
            return httpx.Response(502, text="<html>502 Bad Gateway</html>")
        return conformant(request)

    return handle


def test_a_gateway_page_on_a_read_is_retried_and_the_test_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, GATEWAY)
    with serve(behind_a_gateway({"/v1/contacts": 1})) as url:
        result = run(pytester, "--base-url", url, "--crm-outcomes", "out.jsonl")
    result.assert_outcomes(passed=2)
    records = {r.nodeid.rsplit("::", 1)[1]: r for r in read_records(pytester.path / "out.jsonl")}
    assert records["test_lists"].faults == {"retried": {"502": 1}, "given_up": {}}
    assert records["test_me"].faults == {}


def test_spent_retries_are_an_error_the_verdict_calls_target_unavailable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crm_conformance.core.model.catalogue import load_catalogue
    from crm_conformance.reporting.summary import RunInfo, build_summary
    from crm_conformance.run.verdict import EXIT_FAILED, exit_code

    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, GATEWAY)
    with serve(behind_a_gateway({"/v1/contacts": 100})) as url:
        result = run(pytester, "--base-url", url, "--crm-outcomes", "out.jsonl")
    result.assert_outcomes(passed=1, errors=1)
    records = list(read_records(pytester.path / "out.jsonl"))
    [stuck] = [r for r in records if r.outcome == "error"]
    assert stuck.cause.startswith("target unavailable: GET /v1/contacts met 502 ×4 in 4 tries")
    info = RunInfo("0", None, {"base_url": url}, None, "quick", "s", "f")
    summary = build_summary(records, info, load_catalogue())
    assert (
        "NOTHING FAILED, BUT 1 TEST COULD NOT RUN: the target was unavailable (502 ×4)"
        in (summary["headline"])
    )
    assert summary["unavailable"] == {"tests": 1, "faults": {"502": 4}}
    assert summary["retried"] == {"502": 3}
    assert exit_code(result.ret, records, "", pytester.path / "log")[0] == EXIT_FAILED


FOREIGN_FAILURE = """
import pytest

@pytest.mark.req("PAG-001", "HDR-001")
def test_fuzzed(api):
    api.get("/v1/contacts")
    error = AssertionError("Response violates schema")
    error.crm_requirements = ("PAG-001",)
    error.crm_request = "GET /v1/contacts -> 200"
    error.add_note("\\nReproduce with:\\n\\n    curl -H 'Authorization: Bearer {token}' http://x/")
    raise error


@pytest.mark.req("HDR-001")
def test_passes(api):
    api.get("/v1/contacts")
"""
"""A failure as schemathesis raises one: charged where it was caught, its curl line a note."""


def test_a_failure_keeps_its_report_and_curl_line_redacted_for_the_requirements_page(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CRM_TOKEN_FULL", TOKEN)
    suite(pytester, FOREIGN_FAILURE.format(token=TOKEN))
    with serve(conformant) as url:
        result = run(pytester, "--base-url", url, "--crm-outcomes", "out.jsonl")
    result.assert_outcomes(failed=1, passed=1)
    failed, passed = read_records(pytester.path / "out.jsonl")
    assert failed.details.splitlines()[0] == (
        "PAG-001: Response violates schema (GET /v1/contacts -> 200)"
    )
    assert "Reproduce with:" in failed.details
    assert "curl -H 'Authorization: Bearer" in failed.details
    assert TOKEN not in failed.details
    assert passed.details == ""
    assert TOKEN not in (pytester.path / "out.jsonl").read_text()


CHECKED = """
import pytest
from crm_conformance.steps import expect_status, expect_true, expect_value

@pytest.mark.req("PAG-001", "PAG-004")
def test_two_rules_broken(api):
    response = api.get("/v1/contacts")
    expect_value(response, "PAG-001", "x", got=1, expected=2)
    expect_true(response, "PAG-004", False, expected="held", got="broken")

@pytest.mark.req("PAG-001")
def test_broken_then_a_consequence(api):
    expect_true(None, "PAG-001", False, expected="a dict", got="a list")
    {}["missing"]

@pytest.mark.req("PAG-001")
def test_broken_then_skipped(api):
    expect_true(None, "PAG-001", False, expected="held", got="broken")
    pytest.skip("nothing more to check")

@pytest.mark.req("PAG-001", "HDR-001")
def test_a_suite_error(api):
    expect_status(api.get("/v1/contacts"), "PAG-001", 200)
    {}["the suite's own slip"]
"""


def test_each_broken_rule_is_charged_and_a_harness_exception_is_a_suite_error(
    pytester: pytest.Pytester, base_url: str
) -> None:
    """Predicate checks go on past a failure, so a test fails every rule it finds broken;
    an exception after one is its consequence, a skip after one hides nothing; an
    exception no check raised is a suite error, charged to none, its check's pass kept."""
    suite(pytester, CHECKED)
    result = run(pytester, "--base-url", base_url, "--crm-outcomes", "out.jsonl")
    result.assert_outcomes(failed=3, errors=1)
    records = {r.nodeid.rsplit("::", 1)[1]: r for r in read_records(pytester.path / "out.jsonl")}
    both = records["test_two_rules_broken"]
    assert (both.outcome, sorted(both.failed_requirements)) == ("failed", ["PAG-001", "PAG-004"])
    # each rule's own message, never the test's first failure's for both
    assert "broken" in cause_for(both.cause, "PAG-004")
    assert "broken" not in cause_for(both.cause, "PAG-001")
    for name in ("test_broken_then_a_consequence", "test_broken_then_skipped"):
        assert (records[name].outcome, records[name].failed_requirements) == (
            "failed",
            ["PAG-001"],
        )
    slip = records["test_a_suite_error"]
    assert slip.outcome == "suite_error"
    assert slip.failed_requirements == []
    assert slip.cause.startswith("suite error")
    assert slip.charged == frozenset()
    assert "PAG-001" in slip.checked  # the check that ran before the slip still verified
    assert "SUITE ERROR suites/test_area.py::test_a_suite_error" in result.stdout.str()


WAIVED = """
import pytest
from crm_conformance.steps import expect_true

@pytest.mark.req("PAG-001", "PAG-004")
def test_waived(api):
    expect_true(None, "PAG-001", False, expected="held", got="\\x1b[31mred")
    expect_true(None, "PAG-004", False, expected="held", got="broken")
"""


def test_a_waived_failure_keeps_each_cause_on_its_own_line_and_inert(
    pytester: pytest.Pytester, base_url: str
) -> None:
    """A waived test's failed checks are told in JUnit as a failed one's: a line each,
    with its own ids, and the target's text shown, never obeyed (an escape stays
    visible as text, as `inert` shows it everywhere else)."""
    suite(pytester, WAIVED)
    waivers = pytester.path / "waivers.yaml"
    waivers.write_text("- {id: PAG-001, reason: known}\n- {id: PAG-004, reason: known}\n")
    result = run(pytester, "--base-url", base_url, "--waivers", str(waivers), "--junitxml=out.xml")
    result.assert_outcomes(xfailed=1)
    tree = ET.parse(pytester.path / "out.xml")
    causes = [p.get("value") or "" for p in tree.iter("property") if p.get("name") == "crm_cause"]
    assert len(causes) == 1
    assert cause_for(causes[0], "PAG-001").endswith("got \\x1b[31mred")
    assert cause_for(causes[0], "PAG-004").endswith("got broken")
