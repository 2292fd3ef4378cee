"""What every answer of the run said, for the rules that hold across answers, not in one.

Two sentences speak of all answers at once: `X-Request-ID` is a "unique request id",
and "Error `type` values and `code` values are stable and permanent; new codes may
appear under an existing type", so one code always comes with one type. Neither can be
judged on one answer alone, and a test sees only its own answers. So the client notes
each answer as it arrives (`note`, from `ApiClient._send`: once per answer received,
429s it retries and answers no test reads included, however often a test later
checks the same response), and the registered checks read this memory when a test
judges an answer (`checks.request_id_names_one_answer`, `checks.code_keeps_its_type`):
the answer breaks the rule if another answer of the run carries its id, or its code
came with another type.

Fair to what a real exchange may legally hold: a replay (`Idempotent-Replay: true`)
"returns the original response", which may carry the original's id, and an answer a
cache served (an `Age` header, RFC 9111) is an earlier answer again; neither is
counted. The memory is per process: with `-n N` each worker compares its own answers.
"""

import json
import threading
from collections import Counter

import httpx

_lock = threading.Lock()
_ids: Counter[str] = Counter()
_types: dict[str, dict[str, str]] = {}


def repeated_legally(response: httpx.Response) -> bool:
    """An answer that may carry an earlier answer's id: a replay, or a cache's copy."""
    replay = response.headers.get("Idempotent-Replay", "").strip().lower() == "true"
    return replay or "Age" in response.headers


def error_of(response: httpx.Response) -> tuple[str, str] | None:
    """The `(code, type)` of an error envelope, when both are strings."""
    if response.status_code < 400 or not response.content:
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    code, kind = error.get("code"), error.get("type")
    return (code, kind) if isinstance(code, str) and isinstance(kind, str) else None


def note(response: httpx.Response) -> None:
    """Remember one answer as it arrives: its request id, and its error's code and type
    with where it was first seen."""
    request_id = response.headers.get("X-Request-ID")
    error = error_of(response)
    with _lock:
        if request_id and not repeated_legally(response):
            _ids[request_id] += 1
        if error is not None:
            code, kind = error
            where = (
                f"{response.request.method} {response.request.url.path} -> {response.status_code}"
            )
            _types.setdefault(code, {}).setdefault(kind, where)


def answers_with(request_id: str) -> int:
    """How many answers of this process carried `request_id` (replays and cached copies
    aside)."""
    with _lock:
        return _ids[request_id]


def types_of(code: str) -> dict[str, str]:
    """Every error type the run saw `code` with, each with where it was first seen."""
    with _lock:
        return dict(_types.get(code, {}))


def forget() -> None:
    """Start over (a fresh run in the same process, and tests of this module)."""
    with _lock:
        _ids.clear()
        _types.clear()
