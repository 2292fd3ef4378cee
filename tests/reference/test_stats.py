"""Campaign stats: each rule of the document's Campaign stats table, without a server."""

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crm_conformance.reference.stats import (
    NOT_CONTACTED_REASONS,
    Participant,
    Window,
    WindowError,
    compute,
    parse_window,
)

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
START = datetime(2026, 2, 1, tzinfo=UTC)
END = datetime(2026, 2, 2, tzinfo=UTC)
WINDOW = Window(START, END)
BEFORE = START - timedelta(days=3)
INSIDE = START + timedelta(hours=1)


def messaged(at: datetime = INSIDE, **more: object) -> Participant:
    return Participant(contact_id=None, enrolled_at=BEFORE, contacted_at=at, **more)  # type: ignore[arg-type]  # options passed through as the callee's


# --- the window --------------------------------------------------------------------------


def test_default_window_is_the_30_days_ending_now() -> None:
    assert parse_window(None, None, now=NOW) == Window(NOW - timedelta(days=30), NOW)


def test_end_defaults_to_now_and_start_to_30_days_before_a_given_end() -> None:
    assert parse_window("2026-02-01T00:00:00Z", None, now=NOW).end == NOW
    assert parse_window(None, "2026-02-10T00:00:00+00:00", now=NOW).start == datetime(
        2026, 1, 11, tzinfo=UTC
    )


def test_offsets_are_honoured_and_normalised_to_utc() -> None:
    window = parse_window("2026-02-01T02:00:00+02:00", "2026-02-02T00:00:00Z", now=NOW)
    assert window == Window(START, END)
    assert window.start.tzinfo is UTC


@pytest.mark.parametrize("param", ["window_start", "window_end"])
@pytest.mark.parametrize(
    "value", ["2026-02-01T00:00:00", "2026-02-01", "yesterday", "", "2026-13-01T00:00:00Z"]
)
def test_a_timestamp_without_offset_or_unreadable_is_validation_failed(
    param: str, value: str
) -> None:
    other = "2026-01-01T00:00:00Z" if param == "window_end" else "2026-03-01T00:00:00Z"
    args = {"window_start": other, "window_end": other, param: value}
    with pytest.raises(WindowError) as caught:
        parse_window(args["window_start"], args["window_end"], now=NOW)
    assert (caught.value.code, caught.value.param) == ("validation_failed", param)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        ("2026-02-01T00:00:00Z", "2026-02-01T00:00:00Z"),
        ("2026-02-02T00:00:00Z", "2026-02-01T00:00:00Z"),
        ("2026-02-01T01:00:00+01:00", "2026-02-01T00:00:00Z"),
    ],
    ids=["empty", "reversed", "empty-across-offsets"],
)
def test_an_empty_or_reversed_window_is_invalid_window(start: str, end: str) -> None:
    with pytest.raises(WindowError) as caught:
        parse_window(start, end, now=NOW)
    assert caught.value.code == "invalid_window"


def test_extreme_instants_are_validation_errors_not_crashes() -> None:
    with pytest.raises(WindowError) as caught:
        parse_window(None, "0001-01-02T00:00:00Z", now=NOW)
    assert caught.value.code == "validation_failed"
    with pytest.raises(WindowError) as caught:
        parse_window("0001-01-01T00:00:00+05:00", None, now=NOW)
    assert caught.value.code == "validation_failed"


# --- the counts --------------------------------------------------------------------------


def test_start_is_inclusive_and_end_exclusive() -> None:
    stats = compute(
        [messaged(START), messaged(END), messaged(END - timedelta(microseconds=1))], WINDOW
    )
    assert stats.contacted == 2


def test_contacted_needs_a_delivered_message_in_the_window() -> None:
    stats = compute(
        [messaged(), messaged(BEFORE), Participant(contact_id=None, enrolled_at=INSIDE)], WINDOW
    )
    assert stats.contacted == 1


def test_automated_replies_are_counted_apart_and_never_as_replied() -> None:
    reply = INSIDE + timedelta(minutes=5)
    stats = compute(
        [messaged(replied_at=reply), messaged(replied_at=reply, reply_automated=True), messaged()],
        WINDOW,
    )
    assert (stats.contacted, stats.replied, stats.replied_automated) == (3, 1, 1)


def test_replies_count_only_for_participants_contacted_in_the_window() -> None:
    late_reply = Participant(
        contact_id=None, enrolled_at=BEFORE, contacted_at=BEFORE, replied_at=INSIDE
    )
    stats = compute([late_reply], WINDOW)
    assert (stats.contacted, stats.replied) == (0, 0)
    assert stats.reply_rate is None


def test_replies_after_the_window_end_are_not_counted() -> None:
    stats = compute([messaged(replied_at=END)], WINDOW)
    assert (stats.contacted, stats.replied) == (1, 0)


def test_converted_counts_distinct_contacts_marked_won_after_the_message() -> None:
    won = INSIDE + timedelta(hours=1)
    same_contact = [
        Participant(contact_id="con_a", enrolled_at=BEFORE, contacted_at=INSIDE, converted_at=won),
        Participant(contact_id="con_a", enrolled_at=BEFORE, contacted_at=INSIDE, converted_at=won),
    ]
    won_before_message = messaged(converted_at=INSIDE - timedelta(minutes=1))
    stats = compute([*same_contact, won_before_message, messaged(converted_at=won)], WINDOW)
    assert (stats.contacted, stats.converted) == (4, 2)


def test_enrolled_covers_the_whole_campaign_not_the_window() -> None:
    people = [
        messaged(BEFORE),
        Participant(contact_id=None, enrolled_at=END + timedelta(days=1)),
        Participant(contact_id=None, enrolled_at=BEFORE, not_contacted_reason="opted_out"),
    ]
    assert compute(people, WINDOW).enrolled == 3
    assert compute([], WINDOW).enrolled == 0


def test_not_contacted_lists_every_reason_in_fixed_order_with_zeros() -> None:
    people = [
        Participant(
            contact_id=None,
            enrolled_at=BEFORE,
            not_contacted_reason="opted_out",
            status_changed_at=INSIDE,
        ),
        Participant(
            contact_id=None,
            enrolled_at=BEFORE,
            not_contacted_reason="opted_out",
            status_changed_at=INSIDE,
        ),
        Participant(contact_id=None, enrolled_at=INSIDE, not_contacted_reason="meta_account"),
        Participant(
            contact_id=None,
            enrolled_at=BEFORE,
            not_contacted_reason="meta_account",
            status_changed_at=BEFORE,
        ),
        Participant(contact_id=None, enrolled_at=INSIDE, not_contacted_reason="carrier_blocked"),
    ]
    listed = compute(people, WINDOW).not_contacted
    assert [reason for reason, _ in listed] == list(NOT_CONTACTED_REASONS)
    assert dict(listed) == {
        "meta_account": 1,
        "invalid_phone": 0,
        "opted_out": 2,
        "channel_unavailable": 0,
        "duplicate": 0,
        "other": 1,
    }
    assert [reason for reason, _ in compute([], WINDOW).not_contacted] == list(
        NOT_CONTACTED_REASONS
    )


def test_rates_are_fractions_or_null() -> None:
    reply = INSIDE + timedelta(minutes=1)
    stats = compute(
        [messaged(replied_at=reply, converted_at=reply), messaged(), messaged(), messaged()], WINDOW
    )
    assert (stats.reply_rate, stats.conversion_rate) == (0.25, 0.25)
    empty = compute([Participant(contact_id=None, enrolled_at=INSIDE)], WINDOW)
    assert (empty.reply_rate, empty.conversion_rate) == (None, None)


def test_render_gives_every_field_of_the_table() -> None:
    body = compute([messaged()], WINDOW).render("camp_x", lambda t: t.isoformat())
    assert body == {
        "object": "campaign_stats",
        "campaign_id": "camp_x",
        "window_start": START.isoformat(),
        "window_end": END.isoformat(),
        "contacted": 1,
        "replied": 0,
        "replied_automated": 0,
        "converted": 0,
        "enrolled": 1,
        "not_contacted": [{"reason": r, "count": 0} for r in NOT_CONTACTED_REASONS],
        "reply_rate": 0.0,
        "conversion_rate": 0.0,
    }


instants = st.datetimes(
    min_value=datetime(2026, 1, 25), max_value=datetime(2026, 2, 8), timezones=st.just(UTC)
)
participants = st.builds(
    Participant,
    contact_id=st.sampled_from([None, "con_a", "con_b"]),
    enrolled_at=instants,
    contacted_at=st.none() | instants,
    replied_at=st.none() | instants,
    reply_automated=st.booleans(),
    converted_at=st.none() | instants,
    not_contacted_reason=st.none() | st.sampled_from([*NOT_CONTACTED_REASONS, "other_kind"]),
    status_changed_at=st.none() | instants,
)


@given(st.lists(participants, max_size=30))
def test_counts_are_consistent_whatever_the_history(people: list[Participant]) -> None:
    stats = compute(people, WINDOW)
    assert 0 <= stats.replied + stats.replied_automated <= stats.contacted <= stats.enrolled
    assert 0 <= stats.converted <= stats.contacted
    for rate in (stats.reply_rate, stats.conversion_rate):
        assert rate is None if stats.contacted == 0 else 0 <= rate <= 1  # type: ignore[operator]  # the narrowed type mypy cannot follow
    assert sum(n for _, n in stats.not_contacted) <= stats.enrolled
