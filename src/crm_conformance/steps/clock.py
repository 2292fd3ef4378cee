"""The target's clock as the suites read it: instants of its stamps, which of two is
later, and waiting until a change made now is stamped later than a given one."""

import re
import time
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

NOT_A_DATE_TIME = {
    "word": "yesterday",
    "february-30": "2026-02-30T10:00:00Z",
    "impossible-date": "2026-13-40T25:61:00Z",
}
"""Values no reading of ISO 8601 takes, for a date-time a request sends: a word, a day
February does not have (a lenient parser rolls it over to March), and one whose every
part is out of range."""


def instant(value: Any) -> datetime:
    """The instant an ISO 8601 date-time string names, so stamps in any offset compare
    as instants (ValueError when `value` is not one)."""
    return datetime.fromisoformat(str(value).replace("z", "Z"))


def lookup_since(first: Any, *others: Any) -> str:
    """An `updated_since` a second before the earliest of the stamps, for a read that
    finds records by their own changes: it needs the rows from that instant on, and must
    not stand on the filter's edge. "At or after" is SYNC-001's own point; a server that
    reads it as "after" fails that rule, not every rule whose test looked a record up (an
    OAuth person's view, a list row compared with its retrieve).

    Stamps that are no date-time (the `timestamps` check fails them) leave the first sent
    as the target wrote it."""
    try:
        earliest = min(instant(value) for value in (first, *others))
    except ValueError:
        return str(first)
    return (earliest - timedelta(seconds=1)).isoformat()


def later(after: Any, before: Any) -> bool:
    """Whether both are date-times and `after` names a later instant than `before`."""
    try:
        return instant(after) > instant(before)
    except ValueError:
        return False


def same_instant(left: Any, right: Any) -> bool:
    """Whether both are date-times naming one instant to within a second: a store may
    keep fewer digits than an answer rendered before storing, or write `Z` for
    `+00:00`."""
    try:
        return abs((instant(left) - instant(right)).total_seconds()) < 1
    except ValueError:
        return False


_FRACTION = re.compile(r"T\d\d:\d\d:\d\d[.,](\d+)")


def settle(stamp: Any, *, clock: httpx.Response | None = None) -> None:
    """Wait until a change made now is stamped later than `stamp` on the target's clock,
    by the finest precision `stamp` shows: a fraction with a non-zero digit says the clock
    ticks at least that finely (a millisecond stamp needs a millisecond or two), while
    whole seconds, or a fraction of zeros, may be all it keeps (a second and a bit).

    `clock`, an answer the target gave just now, spares the wait when its `Date` (whole
    seconds) is already that far past `stamp`: a record the adapter stamped an hour ago."""
    found = _FRACTION.search(stamp) if isinstance(stamp, str) else None
    digits = found.group(1) if found else ""
    wait = 1.1 if not digits.strip("0") else 1.5 * 10 ** -len(digits)
    if clock is not None and _past(clock, stamp, wait + 1):
        return
    time.sleep(wait)


def _past(answer: httpx.Response, stamp: Any, seconds: float) -> bool:
    """Whether the `Date` of `answer` is at least `seconds` past `stamp`."""
    try:
        now = parsedate_to_datetime(answer.headers["date"])
        return (now - instant(stamp)).total_seconds() >= seconds
    except (KeyError, TypeError, ValueError):
        return False
