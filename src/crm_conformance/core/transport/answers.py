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
counted.

The run is every process testing one target: with `-n N` the workers `share` a
directory, each appending what it notes to a file of its own and reading the others'
new lines before it judges, so an answer is compared with every answer noted before it
in any worker (of two answers with one id, the later one's check sees the earlier).
Processes that each test a server of their own (the embedded reference) do not share.
"""

import json
import threading
from collections import Counter
from pathlib import Path
from typing import IO, Any

import httpx

_lock = threading.Lock()
_ids: Counter[str] = Counter()
_types: dict[str, dict[str, str]] = {}
_PREFIX = "answers-"
_shared: dict[str, Any] = {}
"""While shared: `directory`, `own` (this process's file, open for appending) and
`read` (how far each peer's file has been read)."""


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
    counted = request_id if request_id and not repeated_legally(response) else None
    error = error_of(response)
    where = f"{response.request.method} {response.request.url.path} -> {response.status_code}"
    if counted is None and error is None:
        return
    with _lock:
        _remember(counted, error, where)
        own: IO[str] | None = _shared.get("own")
        if own is not None:
            own.write(json.dumps([counted, *(error or (None, None)), where]) + "\n")
            own.flush()


def _remember(request_id: str | None, error: tuple[str, str] | None, where: str) -> None:
    if request_id:
        _ids[request_id] += 1
    if error is not None:
        code, kind = error
        _types.setdefault(code, {}).setdefault(kind, where)


def share(directory: str, me: str) -> None:
    """Note into `directory` as `me`, and count what the other processes testing the same
    target note there (their files in it)."""
    with _lock:
        _stop_sharing()
        path = Path(directory) / f"{_PREFIX}{me}.jsonl"
        _shared.update(directory=Path(directory), own=path.open("a", encoding="utf-8"), read={})
        _shared["read"][path.name] = None  # never read back: noted already


def _catch_up() -> None:
    """Count the lines the other processes appended since the last look (whole lines
    only: a line still being written is read next time)."""
    directory: Path | None = _shared.get("directory")
    if directory is None:
        return
    read: dict[str, int | None] = _shared["read"]
    for peer in sorted(directory.glob(f"{_PREFIX}*.jsonl")):
        offset = read.setdefault(peer.name, 0)
        if offset is None:
            continue
        with peer.open("rb") as lines:
            lines.seek(offset)
            chunk = lines.read()
        complete = chunk[: chunk.rfind(b"\n") + 1]
        read[peer.name] = offset + len(complete)
        for line in complete.decode("utf-8").splitlines():
            request_id, code, kind, where = json.loads(line)
            _remember(request_id, (code, kind) if code is not None else None, where)


def _stop_sharing() -> None:
    own: IO[str] | None = _shared.get("own")
    if own is not None:
        own.close()
    _shared.clear()


def answers_with(request_id: str) -> int:
    """How many answers of the run carried `request_id` (replays and cached copies
    aside)."""
    with _lock:
        _catch_up()
        return _ids[request_id]


def types_of(code: str) -> dict[str, str]:
    """Every error type the run saw `code` with, each with where it was first seen."""
    with _lock:
        _catch_up()
        return dict(_types.get(code, {}))


def forget() -> None:
    """Start over (a fresh run in the same process, and tests of this module): nothing
    remembered, nothing shared."""
    with _lock:
        _ids.clear()
        _types.clear()
        _stop_sharing()
