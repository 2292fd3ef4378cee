"""Waiting out the target's clock: by the precision a stamp shows, and not at all when the
target's own `Date` is already past it."""

import time

import httpx
import pytest

from crm_conformance.steps import clock


def test_settle_waits_by_the_precision_a_stamp_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second and a bit for whole seconds or a fraction of zeros (the clock may keep no
    more), about the finest digit's step otherwise, and never less."""
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    for value in (
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05.000Z",
        "2026-01-02T03:04:05.123Z",
        "2026-01-02T03:04:05.123456+00:00",
        None,
    ):
        clock.settle(value)
    assert waits[0] == waits[1] == waits[4] == 1.1
    assert 0.001 < waits[2] <= 0.002
    assert 0 < waits[3] < 0.00001


def test_settle_waits_not_when_the_targets_clock_is_already_past_the_stamp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A record stamped an hour ago needs no wait; one stamped in this second of the
    target's `Date` does, and so does an answer without a readable `Date`."""
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    answer = httpx.Response(200, headers={"Date": "Fri, 02 Jan 2026 03:04:05 GMT"})
    clock.settle("2026-01-02T02:04:05Z", clock=answer)
    assert waits == []
    clock.settle("2026-01-02T03:04:05Z", clock=answer)
    clock.settle("2026-01-02T02:04:05Z", clock=httpx.Response(200))
    assert waits == [1.1, 1.1]


def test_a_lookup_starts_a_second_before_the_earliest_stamp_in_its_offset() -> None:
    since = clock.lookup_since("2026-03-01T10:00:00.250+02:00", "2026-03-01T09:00:00Z")
    assert clock.instant(since) == clock.instant("2026-03-01T07:59:59.250Z")


def test_a_lookup_from_a_stamp_that_is_no_date_time_sends_it_as_written() -> None:
    assert clock.lookup_since("yesterday", "2026-03-01T09:00:00Z") == "yesterday"
