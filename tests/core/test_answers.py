"""The memory of every answer, and the two checks that read it: an X-Request-ID names one
answer of the run, and an error code keeps one type."""

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from crm_conformance.core.transport import answers
from crm_conformance.core.verdicts import checks
from crm_conformance.core.verdicts.failure import ConformanceFailure


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    answers.forget()
    yield
    answers.forget()


def _answer(
    request_id: str, status: int = 200, error: tuple[str, str] | None = None, **headers: str
) -> httpx.Response:
    body = {"error": {"code": error[0], "type": error[1]}} if error else {}
    return httpx.Response(
        status,
        json=body,
        headers={"X-Request-ID": request_id, **headers},
        request=httpx.Request("GET", "https://api.test/v1/contacts"),
    )


def test_an_id_on_one_answer_passes_however_often_it_is_checked() -> None:
    answer = _answer("req_1")
    answers.note(answer)
    assert checks.request_id_names_one_answer(answer) is True
    assert checks.request_id_names_one_answer(answer) is True


def test_an_id_on_two_answers_fails_hdr_005() -> None:
    first, second = _answer("req_1"), _answer("req_1", 429)
    answers.note(first)
    answers.note(second)
    with pytest.raises(ConformanceFailure) as failure:
        checks.request_id_names_one_answer(second)
    assert failure.value.req_id == "HDR-005"
    assert "2 answers" in str(failure.value)


def test_a_replay_or_a_cached_copy_may_repeat_an_id() -> None:
    answers.note(_answer("req_1"))
    replay = _answer("req_1", 200, None, **{"Idempotent-Replay": "true"})
    cached = _answer("req_1", Age="3")
    for copy in (replay, cached):
        answers.note(copy)
        assert checks.request_id_names_one_answer(copy) is False
    assert answers.answers_with("req_1") == 1


def test_an_answer_the_client_never_received_is_not_judged() -> None:
    assert checks.request_id_names_one_answer(_answer("req_by_hand")) is False


def test_a_code_with_two_types_fails_err_021_naming_where() -> None:
    deal = _answer("req_1", 404, ("record_not_found", "not_found_error"))
    activity = _answer("req_2", 404, ("record_not_found", "invalid_request_error"))
    answers.note(deal)
    assert checks.code_keeps_its_type(deal) is True
    answers.note(activity)
    with pytest.raises(ConformanceFailure) as failure:
        checks.code_keeps_its_type(activity)
    assert failure.value.req_id == "ERR-021"
    assert "not_found_error on GET /v1/contacts -> 404" in str(failure.value)
    with pytest.raises(ConformanceFailure):
        checks.code_keeps_its_type(deal)  # each answer of the pair breaks it


def test_a_success_or_a_body_without_an_envelope_is_not_judged() -> None:
    assert checks.code_keeps_its_type(_answer("req_1")) is False
    page = httpx.Response(
        502, text="<html>bad gateway</html>", request=httpx.Request("GET", "https://x")
    )
    answers.note(page)
    assert checks.code_keeps_its_type(page) is False


def test_processes_sharing_a_directory_count_each_others_answers(tmp_path: Path) -> None:
    """Two workers testing one target: an id the other worker received counts, and so
    does a type the other saw a code with; a line still being written is read later."""
    peer = tmp_path / "answers-gw1.jsonl"
    peer.write_text(
        json.dumps(["req_1", None, None, "GET /v1/contacts -> 200"])
        + "\n"
        + json.dumps([None, "not_found", "invalid_request_error", "GET /v1/x -> 404"])
        + "\n"
        + '["req_2", nu'  # the peer is writing this line now
    )
    answers.share(str(tmp_path), "gw0")
    mine = _answer("req_1")
    answers.note(mine)
    with pytest.raises(ConformanceFailure) as failure:
        checks.request_id_names_one_answer(mine)
    assert "2 answers" in str(failure.value)
    assert answers.answers_with("req_2") == 0
    with peer.open("a") as more:
        more.write('ll, null, "GET /v1/y -> 200"]\n')
    assert answers.answers_with("req_2") == 1
    refused = _answer("req_3", 404, ("not_found", "api_error"))
    answers.note(refused)
    with pytest.raises(ConformanceFailure) as failure:
        checks.code_keeps_its_type(refused)
    assert failure.value.req_id == "ERR-021"
    assert "GET /v1/x -> 404" in str(failure.value)
    noted = [json.loads(line) for line in (tmp_path / "answers-gw0.jsonl").read_text().splitlines()]
    assert [line[0] for line in noted] == ["req_1", "req_3"]
    assert answers.answers_with("req_1") == 2  # its own line is never counted twice


def test_forget_stops_sharing(tmp_path: Path) -> None:
    answers.share(str(tmp_path), "gw0")
    answers.forget()
    (tmp_path / "answers-gw1.jsonl").write_text(json.dumps(["req_1", None, None, "x"]) + "\n")
    assert answers.answers_with("req_1") == 0


def _error_answer(header: str, body_request_id: str, **headers: str) -> httpx.Response:
    body = {"error": {"code": "validation_failed", "type": "invalid_request_error"}}
    body["error"]["request_id"] = body_request_id
    return httpx.Response(
        422,
        json=body,
        headers={"X-Request-ID": header, **headers},
        request=httpx.Request("POST", "https://api.test/v1/tags"),
    )


def test_a_replayed_error_may_keep_the_originals_request_id_under_its_own_header() -> None:
    """ "returns the original response": a replay under a header of its own carries the
    original's body, whose request_id names the original answer (ERR-005 not judged);
    a request_id naming no answer of the run, or on an answer no replay, still fails."""
    original = _error_answer("req_1", "req_1")
    answers.note(original)
    replay = _error_answer("req_2", "req_1", **{"Idempotent-Replay": "true"})
    answers.note(replay)
    assert checks.error_request_id_matches_header(original) is True
    assert checks.error_request_id_matches_header(replay) is False
    for broken in (
        _error_answer("req_3", "req_9", **{"Idempotent-Replay": "true"}),
        _error_answer("req_4", "req_1"),
    ):
        answers.note(broken)
        with pytest.raises(ConformanceFailure) as failure:
            checks.error_request_id_matches_header(broken)
        assert failure.value.req_id == "ERR-005"
