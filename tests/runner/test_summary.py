"""Verdict rules (DESIGN.md, "Conformance classes and outcomes"), from records alone, and
the run's wait for the rate allowance."""

from typing import Any

from crm_conformance.core.model.catalogue import Catalogue, ConformanceClass, Requirement
from crm_conformance.core.verdicts.outcomes import Outcome, OutcomeRecord
from crm_conformance.reporting.certificate import write_certificate
from crm_conformance.reporting.summary import (
    RunInfo,
    build_summary,
    class_verdicts,
    render_markdown,
    requirement_verdicts,
)


def requirement(req_id: str, cls: str, untestable: str | None = None) -> Requirement:
    return Requirement(req_id, f"title of {req_id}", "s", "q", cls, "api", untestable=untestable)


CATALOGUE = Catalogue(
    version=1,
    document="api-reference.md",
    classes={
        n: ConformanceClass(n, n, "", required=n == "core")
        for n in ("core", "tags", "deals", "campaigns")
    },
    requirements=(
        requirement("HDR-003", "core"),
        requirement("TAG-001", "tags"),
        requirement("TAG-002", "tags", untestable="not observable"),
        requirement("DEAL-001", "deals"),
        requirement("DEAL-002", "deals"),
        requirement("CAMP-001", "campaigns"),
        requirement("CAMP-002", "campaigns"),
    ),
)

NO_ADAPTER = "needs the provisioning adapter: add adapter_url to the target file"


def record(
    outcome: str,
    *ids: str,
    cause: str = "",
    failed: list[str] | None = None,
    checked: dict[str, list[str]] | None = None,
) -> OutcomeRecord:
    """A test's record; a passed one checked each id it names unless `checked` says."""
    if checked is None:
        checked = {i: ["expect_true"] for i in ids} if outcome == "passed" else {}
    return OutcomeRecord(
        f"suites/t.py::test_{'_'.join(ids)}_{outcome}",
        Outcome(outcome),
        list(ids),
        [],
        cause=cause,
        failed_requirements=failed if failed is not None else [],
        checked=checked,
    )


def verdicts(*records: OutcomeRecord, claimed: tuple[str, ...] | None = None) -> dict[str, Any]:
    return requirement_verdicts(list(records), CATALOGUE, claimed)


def test_a_requirement_passes_when_one_test_asserting_it_passed_and_none_failed() -> None:
    found = verdicts(record("passed", "TAG-001"), record("not_applicable", "TAG-001"))
    assert found["TAG-001"]["verdict"] == "passed"
    found = verdicts(record("passed", "TAG-001"), record("failed", "TAG-001", failed=["TAG-001"]))
    assert found["TAG-001"]["verdict"] == "failed"


def test_a_marker_gives_nothing_only_a_check_that_ran_verifies() -> None:
    unchecked = verdicts(record("passed", "TAG-001", "DEAL-002", checked={"TAG-001": ["x"]}))
    assert unchecked["TAG-001"]["verdict"] == "passed"
    assert unchecked["TAG-001"]["checks"] == ["suites/t.py::test_TAG-001_DEAL-002_passed: x"]
    assert unchecked["DEAL-002"]["verdict"] == "not_verified"
    assert "no check of it" in unchecked["DEAL-002"]["reason"]
    # a check of an id the marker does not name verifies it too: it ran
    beyond = verdicts(record("passed", "TAG-001", checked={"TAG-001": ["x"], "HDR-003": ["y"]}))
    assert beyond["HDR-003"]["verdict"] == "passed"
    # a check that passed before the test failed on another rule still verifies its rule
    partly = verdicts(
        record("failed", "TAG-001", "DEAL-002", failed=["DEAL-002"], checked={"TAG-001": ["x"]})
    )
    assert (partly["TAG-001"]["verdict"], partly["DEAL-002"]["verdict"]) == ("passed", "failed")


def test_a_point_that_could_not_run_is_listed_with_why() -> None:
    found = verdicts(record("not_applicable", "DEAL-002", cause="add contact_filters.score"))
    assert found["DEAL-002"]["verdict"] == "not_verified"
    assert found["DEAL-002"]["not_run"] == [
        "suites/t.py::test_DEAL-002_not_applicable: add contact_filters.score"
    ]


def test_a_failure_lands_only_on_the_requirement_whose_check_failed() -> None:
    found = verdicts(record("failed", "TAG-001", "HDR-003", failed=["HDR-003"]))
    assert found["HDR-003"]["verdict"] == "failed"
    assert found["TAG-001"]["verdict"] == "not_verified"
    assert found["TAG-001"]["reason"] == "its test stopped at a failure of HDR-003"


def test_each_requirement_of_a_group_shows_its_own_failure() -> None:
    """A group's cause has one line per failure (`outcomes.failure_causes`); the summary
    gives each charged requirement its own line, not the group's first."""
    cause = (
        "HDR-003: expected X-Request-ID; got none (GET /v1/tags -> 404)\n"
        "DEAL-002: Response violates schema: 'title' is a required property (GET /v1/deals -> 200)"
    )
    found = verdicts(
        record(
            "failed", "HDR-003", "DEAL-002", "TAG-001", cause=cause, failed=["HDR-003", "DEAL-002"]
        )
    )
    assert found["HDR-003"]["reason"] == cause.splitlines()[0]
    assert found["DEAL-002"]["reason"] == cause.splitlines()[1]


def test_not_verified_says_what_would_verify_it() -> None:
    found = verdicts(record("not_applicable", "CAMP-001", cause=NO_ADAPTER))
    assert found["CAMP-001"]["verdict"] == "not_verified"
    assert found["CAMP-001"]["reason"] == NO_ADAPTER
    assert found["CAMP-002"]["reason"] == "no test of this run asserts it"
    unclaimed = verdicts(claimed=("core", "tags"))
    assert unclaimed["DEAL-001"]["reason"] == "class deals not claimed: add it to --classes"


def test_blocked_and_error_are_neither_a_pass_nor_a_failure() -> None:
    found = verdicts(
        record("blocked", "DEAL-001", cause="blocked: POST /v1/deals answered 404"),
        record("error", "DEAL-002", cause="adapter error: 500"),
    )
    assert (found["DEAL-001"]["verdict"], found["DEAL-002"]["verdict"]) == ("blocked", "error")
    assert class_verdicts(found, CATALOGUE)["deals"]["verdict"] == "not_verified"


def test_a_class_passes_only_when_every_testable_requirement_passed() -> None:
    found = verdicts(
        record("passed", "HDR-003"),
        record("passed", "TAG-001"),
        record("passed", "DEAL-001"),
        record("not_applicable", "DEAL-002", cause=NO_ADAPTER),
    )
    assert found["TAG-002"]["verdict"] == "untestable"
    classes = class_verdicts(found, CATALOGUE)
    assert classes["tags"]["verdict"] == "passed"  # the untestable row neither helps nor hurts
    deals = classes["deals"]
    assert (deals["verdict"], deals["verified"], deals["testable"]) == (
        "partially_verified",
        1,
        2,
    )
    assert deals["lacks"] == [f"1 not verified: {NO_ADAPTER}"]


def test_no_class_passes_while_core_is_not_passed_in_full() -> None:
    """`--classes tags` runs only part of core: tags' own requirements passing is not a
    pass of tags, since every class builds on core."""
    found = verdicts(
        record("passed", "TAG-001"),
        record("not_applicable", "HDR-003", cause=NO_ADAPTER),
        claimed=("core", "tags"),
    )
    classes = class_verdicts(found, CATALOGUE)
    assert classes["core"]["verdict"] == "not_verified"
    tags = classes["tags"]
    assert (tags["verdict"], tags["verified"], tags["testable"]) == ("core_not_passed", 1, 1)
    assert tags["lacks"] == ["core not passed in full: not verified"]
    summary = build_summary(
        [record("passed", "TAG-001"), record("not_applicable", "HDR-003", cause=NO_ADAPTER)],
        RunInfo(
            "0", None, {"base_url": "http://t"}, 1, "quick", "s", "f", claimed=("core", "tags")
        ),
        CATALOGUE,
    )
    markdown = render_markdown(summary)
    assert "No class had every testable requirement verified and passed." in markdown
    assert "tags (its own requirements passed, core did not pass in full)" in markdown
    passed = class_verdicts(
        verdicts(record("passed", "TAG-001"), record("passed", "HDR-003")), CATALOGUE
    )
    assert (passed["core"]["verdict"], passed["tags"]["verdict"]) == ("passed", "passed")


def test_a_pass_never_verifies_an_untestable_row() -> None:
    """An absence no test can show: a test that looked and found nothing says nothing."""
    found = verdicts(record("passed", "TAG-002", checked={"TAG-002": ["expect_true"]}))
    assert found["TAG-002"]["verdict"] == "untestable"
    assert class_verdicts(found, CATALOGUE)["tags"] == class_verdicts(verdicts(), CATALOGUE)["tags"]


def test_a_test_naming_an_untestable_row_still_counts() -> None:
    found = verdicts(record("failed", "TAG-002", failed=["TAG-002"]))
    assert found["TAG-002"]["verdict"] == "failed"
    assert class_verdicts(found, CATALOGUE)["tags"]["verdict"] == "failed"


INFO = RunInfo(
    suite_version="0.1.0",
    git_hash=None,
    target={"base_url": "http://127.0.0.1:9"},
    seed=7,
    profile="quick",
    started="t0",
    finished="t1",
    certify=True,
)


def test_the_headline_never_says_more_than_was_verified() -> None:
    records = [
        record("passed", "HDR-003"),
        record("passed", "TAG-001"),
        record("not_applicable", "DEAL-001", cause=NO_ADAPTER),
    ]
    summary = build_summary(records, INFO, CATALOGUE)
    # 2 of the 6 testable requirements passed: 33 %, rounded down, never up.
    assert summary["headline"] == (
        "NOTHING FAILED: 33 % of testable requirements verified (2 of 6)"
    )
    assert render_markdown(summary).splitlines()[0] == f"# {summary['headline']}"
    failed = build_summary(
        [*records, record("failed", "DEAL-002", failed=["DEAL-002"])], INFO, CATALOGUE
    )
    assert failed["headline"].startswith("NOT CONFORMANT: 1 requirement failed; 33 %")


def test_the_certificate_claims_only_passed_classes_and_says_what_the_others_lack(
    tmp_path: Any,
) -> None:
    records = [record("passed", "HDR-003"), record("passed", "TAG-001")]
    records += [record("not_applicable", r, cause=NO_ADAPTER) for r in ("CAMP-001", "CAMP-002")]
    summary = build_summary(records, INFO, CATALOGUE)
    spec = tmp_path / "spec"
    spec.mkdir()
    certificate = write_certificate(tmp_path, summary, spec).read_text()
    assert '"classes_passed": [\n    "core",\n    "tags"\n  ]' in certificate
    assert f"2 not verified: {NO_ADAPTER}" in certificate
    assert '"headline": "NOTHING FAILED: 33 % of testable requirements verified' in certificate


def test_the_summary_says_how_long_the_run_waited_for_the_allowance() -> None:
    waited = [
        OutcomeRecord(
            "suites/t.py::a", Outcome.PASSED, ["TAG-001"], [], rate_wait={"seconds": 61.5}
        ),
        OutcomeRecord(
            "suites/t.py::b", Outcome.PASSED, ["TAG-001"], [], rate_wait={"seconds": 2, "429s": 2}
        ),
        record("passed", "DEAL-001"),
    ]
    info = RunInfo("0", None, {"base_url": "http://t"}, None, "quick", "s", "f")
    summary = build_summary(waited, info, CATALOGUE)
    assert summary["rate_limit_wait"] == {"seconds": 63.5, "429s": 2}
    assert "waited 63.5 s for the target's rate allowance (2 429s waited out)" in (
        render_markdown(summary)
    )


def test_the_summary_says_how_many_tokens_carried_the_run_and_each_ones_wait() -> None:
    def carried(name: str, waits: dict[str, float]) -> OutcomeRecord:
        wait = {"seconds": sum(waits.values()), "tokens": waits}
        return OutcomeRecord(f"suites/t.py::{name}", Outcome.PASSED, [], [], rate_wait=wait,
                             token=name)  # fmt: skip

    pooled = [
        carried("pool 1", {"pool 1": 30.0}),
        carried("pool 2", {"pool 2": 12.5, "other tokens": 4.0}),
        carried("pool 1", {"pool 1": 1.5}),
    ]
    info = RunInfo("0", None, {"base_url": "http://t"}, None, "quick", "s", "f")
    summary = build_summary(pooled, info, CATALOGUE)
    assert summary["tokens"] == {
        "carried": 2,
        "waited": {"pool 1": 31.5, "pool 2": 12.5, "other tokens": 4.0},
    }
    assert (
        "2 tokens of the token pool carried the run; each waited for its allowance: "
        "pool 1 31.5 s, pool 2 12.5 s, other tokens 4 s."
    ) in render_markdown(summary)
    alone = build_summary([record("passed", "DEAL-001")], info, CATALOGUE)
    assert "token pool" not in render_markdown(alone)  # without a pool, as before
