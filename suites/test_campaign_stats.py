"""Campaign stats: every count of the document's table, over a window of known bounds.

The adapter makes a campaign whose participants' events carry explicit timestamps
(`factory.campaign(participants=...)`), so each test knows what
`GET /v1/campaigns/{campaign_id}/stats` must count. Only unambiguous histories are
built: events of a participant follow each other, a participant is either messaged or
has a reason it was not, and nothing falls on a bound unless the bound is the point.

The one definition the counts follow ("All counts follow one definition, so `replied`
never exceeds `contacted`"): a participant is contacted in the window when its message
was delivered at or after `window_start` and before `window_end`; `replied`,
`replied_automated` and `converted` count among those only.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from crm_conformance import AdapterError, ApiClient
from crm_conformance.core.model import document
from crm_conformance.steps import (
    RecordFactory,
    expect_error,
    expect_field,
    expect_present,
    expect_status,
    expect_true,
    expect_value,
    instant,
    is_timestamp,
    stamp,
)

COUNTS = ("contacted", "replied", "replied_automated", "converted", "enrolled")
WINDOW_DAYS = document.default_window_days()
"""The default window's length in days ("30 days ending now")."""
DAY_LENGTH_SHIFT = timedelta(hours=1, seconds=1)
"""How far "30 days" may be from 30 times 24 hours: calendar days counted in a time zone
that changes to or from daylight saving time inside the window are an hour longer or
shorter (the zone is not shown)."""
DOCUMENTED_REASON = "meta_account"
"""The one `not_contacted` reason the document names ("beyond the example `meta_account`:
not shown"); the only one a test can give a participant."""
CLOCK_SKEW = timedelta(minutes=10)
"""How far the target's "now" may be from ours when a default is checked."""
RATE_TOLERANCE = 0.005
"""How far a rate may be from the exact fraction: `replied / contacted` "a fraction"
does not say to how many places, so a rate rounded to two decimals still is one. A
percentage (25 for 0.25) or another ratio is far outside it."""


@dataclass(frozen=True)
class Window:
    """`[start, end)` of a stats request, on whole seconds in the past."""

    start: datetime
    end: datetime

    @classmethod
    def recent(cls) -> "Window":
        start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=10)
        return cls(start, start + timedelta(days=5))

    @property
    def params(self) -> dict[str, str]:
        return {"window_start": stamp(self.start), "window_end": stamp(self.end)}


def participant(window: Window, **events: datetime | str | bool) -> dict[str, Any]:
    """Adapter participant fields: enrolled two days before the window unless given."""
    fields: dict[str, Any] = {"enrolled_at": stamp(window.start - timedelta(days=2))}
    for name, value in events.items():
        fields[name] = stamp(value) if isinstance(value, datetime) else value
    return fields


def get_stats(
    api: ApiClient, campaign_id: str, params: Mapping[str, str] | None = None
) -> httpx.Response:
    return api.get(f"/v1/campaigns/{campaign_id}/stats", params=dict(params or {}))


def stats_of(response: httpx.Response, req_id: str, campaign_id: str) -> dict[str, Any]:
    """The Campaign stats of a 200 answer, with the table's types checked."""
    body = expect_status(response, req_id, 200)
    expect_true(
        response, req_id, isinstance(body, dict), expected="a JSON object", got=repr(body)[:200]
    )
    expect_field(response, "STAT-001", body, "object", expected="campaign_stats")
    expect_field(response, "STAT-002", body, "campaign_id", expected=campaign_id)
    expect_present(response, "STAT-001", body, (*COUNTS, "not_contacted"))
    for field in ("window_start", "window_end"):
        expect_present(response, "STAT-003", body, (field,))
        expect_true(
            response,
            "STAT-003",
            is_timestamp(body[field]),
            expected=f"{field} a date-time",
            got=f"{field} = {body[field]!r}",
        )
    for field in COUNTS:
        value = body.get(field)
        expect_true(
            response,
            "STAT-021",
            isinstance(value, int) and not isinstance(value, bool) and value >= 0,
            expected=f"{field} an integer >= 0",
            got=f"{field} = {value!r}",
        )
    items = body.get("not_contacted")
    expect_true(
        response,
        "STAT-014",
        isinstance(items, list)
        and all(
            isinstance(i, dict)
            and isinstance(i.get("reason"), str)
            and isinstance(i.get("count"), int)
            and not isinstance(i.get("count"), bool)
            for i in items
        ),
        expected="not_contacted a list of {reason: string, count: integer}",
        got=f"not_contacted = {items!r}"[:300],
    )
    return dict(body)


@dataclass(frozen=True)
class Expected:
    """What the table says the stats of a campaign are."""

    contacted: int
    replied: int
    replied_automated: int
    converted: int
    enrolled: int
    not_contacted: int
    """Participants not contacted (all with `meta_account`) whose status changed in the window."""


COUNT_REQS = {
    "contacted": "STAT-009",
    "replied": "STAT-010",
    "replied_automated": "STAT-011",
    "converted": "STAT-012",
    "enrolled": "STAT-013",
}


def expect_counts(response: httpx.Response, body: Mapping[str, Any], expected: Expected) -> None:
    """Every count, both rates and `not_contacted` agree with `expected`."""
    expect_true(
        response,
        "STAT-020",
        body["replied"] <= body["contacted"],
        expected="replied <= contacted",
        got=f"replied = {body['replied']}, contacted = {body['contacted']}",
    )
    for field, req_id in COUNT_REQS.items():
        expect_value(response, req_id, field, got=body[field], expected=getattr(expected, field))
    reasons = {item["reason"]: item["count"] for item in body["not_contacted"]}
    expect_value(
        response,
        "STAT-016",
        f"not_contacted count of {DOCUMENTED_REASON}",
        got=reasons.get(DOCUMENTED_REASON),
        expected=expected.not_contacted,
    )
    expect_value(
        response,
        "STAT-016",
        "sum of the not_contacted counts",
        got=sum(reasons.values()),
        expected=expected.not_contacted,
    )
    for field, numerator, req_id in (
        ("reply_rate", expected.replied, "STAT-017"),
        ("conversion_rate", expected.converted, "STAT-019"),
    ):
        expect_rate(response, body, field, numerator, expected.contacted, req_id)


def expect_rate(
    response: httpx.Response,
    body: Mapping[str, Any],
    field: str,
    numerator: int,
    contacted: int,
    req_id: str,
) -> None:
    """`field` is `numerator / contacted` as a fraction (within RATE_TOLERANCE), or null
    (or left out, as null fields may be) when nobody was contacted."""
    value = body.get(field)
    if contacted == 0:
        expect_true(
            response,
            "STAT-018" if field == "reply_rate" else "STAT-019",
            value is None,
            expected=f"{field} null when nobody was contacted",
            got=f"{field} = {value!r}",
        )
        return
    wanted = numerator / contacted
    expect_true(
        response,
        req_id,
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and abs(value - wanted) <= RATE_TOLERANCE,
        expected=f"{field} = {numerator}/{contacted} = {wanted:.4f} (a fraction, to two places)",
        got=f"{field} = {value!r}",
    )


@pytest.fixture
def campaigns(factory: RecordFactory) -> RecordFactory:
    """The factory, once the adapter is known to make campaigns with participants."""
    return factory.requiring("campaigns")


# --- the response ---------------------------------------------------------------------


@pytest.mark.req("STAT-001", "STAT-002", "STAT-003", "STAT-014", "STAT-021")
def test_stats_have_the_documented_fields(api: ApiClient, campaigns: RecordFactory) -> None:
    window = Window.recent()
    campaign = campaigns.campaign(
        participants=[participant(window, contacted_at=window.start + timedelta(hours=1))]
    )
    response = get_stats(api, campaign["id"], window.params)
    body = stats_of(response, "STAT-001", campaign["id"])
    for field, requested in (("window_start", window.start), ("window_end", window.end)):
        expect_value(response, "STAT-003", field, got=instant(body[field]), expected=requested)


# --- the counts -----------------------------------------------------------------------


def known_campaign(window: Window) -> tuple[list[dict[str, Any]], Expected]:
    """One participant of every kind the table tells apart, and what they count as."""
    inside = window.start + timedelta(days=1)
    minute = timedelta(minutes=1)
    participants = [
        participant(window, contacted_at=inside, replied_at=inside + minute),
        participant(window, contacted_at=inside, replied_at=inside + minute, reply_automated=True),
        participant(window, contacted_at=inside, converted_at=inside + 2 * minute),
        participant(window, contacted_at=inside),
        # messaged before the window, replied and converted inside it: not "contacted"
        participant(
            window,
            contacted_at=window.start - minute,
            replied_at=window.start + minute,
            converted_at=window.start + 2 * minute,
        ),
        participant(window, not_contacted_reason=DOCUMENTED_REASON, status_changed_at=inside),
        participant(
            window,
            not_contacted_reason=DOCUMENTED_REASON,
            status_changed_at=window.start - timedelta(hours=1),
        ),
        participant(window),
    ]
    expected = Expected(
        contacted=4,
        replied=1,
        replied_automated=1,
        converted=1,
        enrolled=8,
        not_contacted=1,
    )
    return participants, expected


@pytest.mark.req(
    "STAT-009", "STAT-010", "STAT-011", "STAT-012", "STAT-013", "STAT-016", "STAT-017",
    "STAT-019", "STAT-020",
)  # fmt: skip
def test_every_count_of_a_known_campaign(api: ApiClient, campaigns: RecordFactory) -> None:
    window = Window.recent()
    participants, expected = known_campaign(window)
    campaign = campaigns.campaign(participants=participants)
    response = get_stats(api, campaign["id"], window.params)
    expect_counts(response, stats_of(response, "STAT-009", campaign["id"]), expected)


@pytest.mark.req("STAT-010", "STAT-011", "STAT-017")
def test_automated_replies_are_counted_apart(api: ApiClient, campaigns: RecordFactory) -> None:
    window = Window.recent()
    sent = window.start + timedelta(days=1)
    replied = sent + timedelta(minutes=5)
    participants = [
        participant(window, contacted_at=sent, replied_at=replied, reply_automated=True),
        participant(window, contacted_at=sent, replied_at=replied, reply_automated=True),
        participant(window, contacted_at=sent, replied_at=replied),
        participant(window, contacted_at=sent),
    ]
    campaign = campaigns.campaign(participants=participants)
    response = get_stats(api, campaign["id"], window.params)
    body = stats_of(response, "STAT-010", campaign["id"])
    expect_value(response, "STAT-010", "replied", got=body["replied"], expected=1)
    expect_value(
        response, "STAT-011", "replied_automated", got=body["replied_automated"], expected=2
    )
    expect_rate(response, body, "reply_rate", 1, 4, "STAT-017")


@pytest.mark.req("STAT-017", "STAT-019")
def test_rates_that_do_not_end_are_fractions_too(api: ApiClient, campaigns: RecordFactory) -> None:
    """One reply and two conversions of three messaged: 1/3 and 2/3, in any rounding a
    fraction can be written with (a server may round to a few places)."""
    window = Window.recent()
    sent = window.start + timedelta(days=1)
    later = sent + timedelta(minutes=5)
    participants = [
        participant(window, contacted_at=sent, replied_at=later),
        participant(window, contacted_at=sent, converted_at=later),
        participant(window, contacted_at=sent, converted_at=later),
    ]
    campaign = campaigns.campaign(participants=participants)
    response = get_stats(api, campaign["id"], window.params)
    body = stats_of(response, "STAT-017", campaign["id"])
    expect_rate(response, body, "reply_rate", 1, 3, "STAT-017")
    expect_rate(response, body, "conversion_rate", 2, 3, "STAT-019")


@pytest.mark.req("STAT-012")
def test_converted_counts_each_contact_once(api: ApiClient, campaigns: RecordFactory) -> None:
    """`converted` counts "distinct messaged contacts", where `contacted` counts
    participants: one contact in the campaign twice, messaged and won after each message,
    converts once. An adapter that never puts a contact in a campaign twice cannot make
    the case, and the test is not applicable."""
    window = Window.recent()
    sent = window.start + timedelta(days=1)
    contact_id = str(campaigns.contact()["id"])
    twice = [
        participant(window, contact_id=contact_id, contacted_at=sent, converted_at=sent + gap)
        for gap in (timedelta(minutes=5), timedelta(minutes=9))
    ]
    try:
        campaign = campaigns.campaign(participants=twice)
    except AdapterError as refused:
        pytest.skip(f"the adapter does not put one contact in a campaign twice: {refused}")
    response = get_stats(api, campaign["id"], window.params)
    body = stats_of(response, "STAT-012", campaign["id"])
    expect_field(response, "STAT-012", body, "converted", expected=1, why="one contact, twice")


@pytest.mark.req("STAT-018", "STAT-019", "STAT-009")
@pytest.mark.parametrize("who", ["nobody enrolled", "nobody messaged", "messaged after the window"])
def test_rates_are_null_when_nobody_was_contacted(
    api: ApiClient, campaigns: RecordFactory, who: str
) -> None:
    window = Window.recent()
    participants = {
        "nobody enrolled": [],
        "nobody messaged": [
            participant(
                window, not_contacted_reason=DOCUMENTED_REASON, status_changed_at=window.start
            )
        ],
        "messaged after the window": [
            participant(window, contacted_at=window.end, replied_at=window.end + timedelta(hours=1))
        ],
    }[who]
    campaign = campaigns.campaign(participants=participants)
    response = get_stats(api, campaign["id"], window.params)
    body = stats_of(response, "STAT-018", campaign["id"])
    expect_value(response, "STAT-009", "contacted", got=body["contacted"], expected=0)
    for field in ("reply_rate", "conversion_rate"):
        expect_rate(response, body, field, 0, 0, "STAT-018")


@pytest.mark.req("STAT-013")
def test_enrolled_covers_the_whole_campaign(api: ApiClient, campaigns: RecordFactory) -> None:
    window = Window.recent()
    participants = [
        participant(window, contacted_at=window.start + timedelta(days=1)),
        participant(window, enrolled_at=window.end + timedelta(days=1)),
        participant(window, not_contacted_reason=DOCUMENTED_REASON),
    ]
    campaign = campaigns.campaign(participants=participants)
    for days in (100, 0):  # long before anyone was added, and the window itself
        before = Window(window.start - timedelta(days=days), window.end - timedelta(days=days))
        response = get_stats(api, campaign["id"], before.params)
        body = stats_of(response, "STAT-013", campaign["id"])
        expect_value(
            response, "STAT-013", "enrolled", got=body["enrolled"], expected=len(participants)
        )


# --- the window -----------------------------------------------------------------------


OFFSETS = {
    "UTC": timedelta(0),
    "+05:30": timedelta(hours=5, minutes=30),
    "-07:00": -timedelta(hours=7),
}
"""The offsets a window's two instants are written with: "timezone offset required", so
an offset is part of the instant, whichever it is."""


@pytest.mark.req("STAT-004", "STAT-006", "STAT-005")
@pytest.mark.parametrize("offset", OFFSETS)
def test_window_start_is_inclusive_and_window_end_exclusive(
    api: ApiClient, campaigns: RecordFactory, offset: str
) -> None:
    """The counts at both bounds of the window, its instants written in UTC or with
    another offset: the same instants count the same participants (an offset dropped,
    or read the wrong way, moves the window by hours)."""
    window = Window.recent()
    second = timedelta(seconds=1)
    participants = [
        participant(window, contacted_at=window.start),
        participant(window, contacted_at=window.end),
        participant(window, contacted_at=window.start - second),
        participant(window, contacted_at=window.end - second),
        participant(window, not_contacted_reason=DOCUMENTED_REASON, status_changed_at=window.start),
        participant(window, not_contacted_reason=DOCUMENTED_REASON, status_changed_at=window.end),
    ]
    campaign = campaigns.campaign(participants=participants)
    zone = timezone(OFFSETS[offset])
    params = {
        "window_start": window.start.astimezone(zone).isoformat(),
        "window_end": window.end.astimezone(zone).isoformat(),
    }
    response = get_stats(api, campaign["id"], params)
    body = stats_of(response, "STAT-004", campaign["id"])
    reasons = {item["reason"]: item["count"] for item in body["not_contacted"]}
    for what, got, wanted in (
        (
            "contacted (messaged at window_start and a second before window_end)",
            body["contacted"],
            2,
        ),
        (
            f"not_contacted {DOCUMENTED_REASON} (changed at window_start)",
            reasons.get(DOCUMENTED_REASON),
            1,
        ),
    ):
        # fewer: the start was left out; more: the end was let in (in UTC; with another
        # offset, the UTC point having passed, the offset was not read)
        bound = "STAT-004" if got is None or got < wanted else "STAT-006"
        bound = bound if offset == "UTC" else "STAT-005"
        expect_value(response, bound, what, got=got, expected=wanted)


@pytest.mark.req("STAT-005")
@pytest.mark.parametrize("value", ["{date}T00:00:00", "{date}T00:00:00.000"])
def test_window_start_needs_a_timezone_offset(
    api: ApiClient,
    campaigns: RecordFactory,
    value: str,
    observe: Callable[[str, Any], None],
) -> None:
    window = Window.recent()
    campaign = campaigns.campaign()
    start = value.format(date=window.start.date().isoformat())
    response = get_stats(
        api, campaign["id"], {"window_start": start, "window_end": stamp(window.end)}
    )
    expect_status(response, "STAT-005", 400)
    observe("offsetless_window_start_error_code", response.json().get("error", {}).get("code"))


@pytest.mark.req("STAT-008")
@pytest.mark.parametrize(
    "shape", ["empty", "reversed", "reversed by a second", "reversed against the default end"]
)
def test_an_empty_or_reversed_window_is_refused(
    api: ApiClient, campaigns: RecordFactory, shape: str
) -> None:
    """Both ends sent, or only `window_start`, a day from now, while `window_end` is left
    to its default, now: a reversed window whichever end the caller sent. There a
    start in the future may also read as a query value refused (`validation_failed`)."""
    window = Window.recent()
    campaign = campaigns.campaign()
    codes: tuple[str, ...] = ("invalid_window",)
    if shape == "reversed against the default end":
        params = {"window_start": stamp(datetime.now(UTC) + timedelta(days=1))}
        codes = ("invalid_window", "validation_failed")
    else:
        end = {
            "empty": window.start,
            "reversed": window.start - timedelta(days=1),
            "reversed by a second": window.start - timedelta(seconds=1),
        }[shape]
        params = {"window_start": stamp(window.start), "window_end": stamp(end)}
    expect_error(get_stats(api, campaign["id"], params), "STAT-008", status=400, code=codes)


@pytest.mark.req("STAT-007", "STAT-023", "STAT-006")
def test_the_default_window_is_the_30_days_ending_now(
    api: ApiClient, campaigns: RecordFactory
) -> None:
    now = datetime.now(UTC)
    day = timedelta(days=1)
    enrolled = now - (WINDOW_DAYS + 10) * day
    participants = [
        {"enrolled_at": stamp(enrolled), "contacted_at": stamp(now - (WINDOW_DAYS - 1) * day)},
        {"enrolled_at": stamp(enrolled), "contacted_at": stamp(now - (WINDOW_DAYS + 1) * day)},
    ]
    campaign = campaigns.campaign(participants=participants)
    response = get_stats(api, campaign["id"])
    body = stats_of(response, "STAT-007", campaign["id"])
    start, end = instant(body["window_start"]), instant(body["window_end"])
    expect_true(
        response,
        "STAT-006",
        abs(end - now) <= CLOCK_SKEW,
        expected=f"window_end now (about {stamp(now)})",
        got=f"window_end = {body['window_end']!r}",
    )
    expect_true(
        response,
        "STAT-007",
        abs((end - start) - WINDOW_DAYS * day) <= DAY_LENGTH_SHIFT,
        expected=f"window_start {WINDOW_DAYS} days before window_end",
        got=f"window_start = {body['window_start']!r}, window_end = {body['window_end']!r}",
    )
    expect_value(
        response,
        "STAT-007",
        f"contacted ({WINDOW_DAYS - 1} and {WINDOW_DAYS + 1} days ago)",
        got=body["contacted"],
        expected=1,
    )
    expect_true(  # the Limits table's row says the same window: held, as the rules above
        response,
        "STAT-023",
        abs(end - now) <= CLOCK_SKEW and abs((end - start) - WINDOW_DAYS * day) <= DAY_LENGTH_SHIFT,
        expected=f"the {WINDOW_DAYS} days ending now",
        got=f"window_start = {body['window_start']!r}, window_end = {body['window_end']!r}",
    )


@pytest.mark.req("STAT-006", "STAT-009")
def test_window_end_defaults_to_now(api: ApiClient, campaigns: RecordFactory) -> None:
    now = datetime.now(UTC)
    campaign = campaigns.campaign(
        participants=[
            {
                "enrolled_at": stamp(now - timedelta(days=3)),
                "contacted_at": stamp(now - timedelta(hours=1)),
            }
        ]
    )
    response = get_stats(api, campaign["id"], {"window_start": stamp(now - timedelta(days=2))})
    body = stats_of(response, "STAT-006", campaign["id"])
    expect_true(
        response,
        "STAT-006",
        abs(instant(body["window_end"]) - now) <= CLOCK_SKEW,
        expected=f"window_end now (about {stamp(now)})",
        got=f"window_end = {body['window_end']!r}",
    )
    expect_value(response, "STAT-009", "contacted (an hour ago)", got=body["contacted"], expected=1)


# --- not_contacted ----------------------------------------------------------------------


def reason_order(body: Mapping[str, Any]) -> list[str]:
    return [item["reason"] for item in body["not_contacted"]]


@pytest.mark.req("STAT-015")
def test_not_contacted_lists_every_reason_in_a_fixed_order(
    api: ApiClient, campaigns: RecordFactory, observe: Callable[[str, Any], None]
) -> None:
    window = Window.recent()
    participants, _ = known_campaign(window)
    busy = campaigns.campaign(participants=participants)
    empty = campaigns.campaign(participants=[])
    asked = [
        (busy["id"], window),
        (busy["id"], Window(window.end, window.end + timedelta(days=1))),
        (empty["id"], window),
        (busy["id"], window),
    ]
    orders = []
    for campaign_id, asked_window in asked:
        response = get_stats(api, campaign_id, asked_window.params)
        body = stats_of(response, "STAT-015", campaign_id)
        orders.append(reason_order(body))
        expect_true(
            response,
            "STAT-015",
            DOCUMENTED_REASON in orders[-1],
            expected=f"{DOCUMENTED_REASON} listed, with a zero count when none",
            got=f"not_contacted = {body['not_contacted']!r}"[:300],
        )
        expect_value(
            response,
            "STAT-015",
            "not_contacted reasons in order",
            got=orders[-1],
            expected=orders[0],
        )
    observe("not_contacted_reasons", orders[0])


# --- one definition for every count (property-based) ------------------------------------

POSITIONS = ("before", "at_start", "inside", "at_end", "after")
KINDS = ("contacted", "not_contacted", "added_after")
REPLIES = ("none", "person", "automated")
IN_WINDOW = frozenset({"at_start", "inside"})


@dataclass(frozen=True)
class History:
    """A generated participant: what happened to it and where its events fall."""

    kind: str
    position: str
    reply: str
    converted: bool

    def at(self, window: Window) -> datetime:
        """Its main event: messaged, or its status changed (not contacted)."""
        return {
            "before": window.start - timedelta(seconds=30),
            "at_start": window.start,
            "inside": window.start + timedelta(days=1),
            "at_end": window.end,
            "after": window.end + timedelta(hours=1),
        }[self.position]

    def fields(self, window: Window) -> dict[str, Any]:
        """Adapter fields; a reply and a conversion follow the message by a minute or two,
        so a participant messaged just before the window replies inside it."""
        if self.kind == "added_after":
            return participant(window, enrolled_at=window.end + timedelta(days=1))
        if self.kind == "not_contacted":
            return participant(
                window, not_contacted_reason=DOCUMENTED_REASON, status_changed_at=self.at(window)
            )
        sent = self.at(window)
        events: dict[str, datetime | bool] = {"contacted_at": sent}
        if self.reply != "none":
            events["replied_at"] = sent + timedelta(minutes=1)
            events["reply_automated"] = self.reply == "automated"
        if self.converted:
            events["converted_at"] = sent + timedelta(minutes=2)
        return participant(window, **events)


def expected_of(histories: Sequence[History]) -> Expected:
    contacted = [h for h in histories if h.kind == "contacted" and h.position in IN_WINDOW]
    return Expected(
        contacted=len(contacted),
        replied=sum(1 for h in contacted if h.reply == "person"),
        replied_automated=sum(1 for h in contacted if h.reply == "automated"),
        converted=sum(1 for h in contacted if h.converted),
        enrolled=len(histories),
        not_contacted=sum(
            1 for h in histories if h.kind == "not_contacted" and h.position in IN_WINDOW
        ),
    )


HISTORIES = st.lists(
    st.builds(
        History,
        kind=st.sampled_from(KINDS),
        position=st.sampled_from(POSITIONS),
        reply=st.sampled_from(REPLIES),
        converted=st.booleans(),
    ),
    max_size=8,
)


@pytest.mark.req(
    "STAT-004", "STAT-006", "STAT-009", "STAT-010", "STAT-011", "STAT-012", "STAT-013",
    "STAT-016", "STAT-017", "STAT-018", "STAT-019", "STAT-020",
)  # fmt: skip
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(histories=HISTORIES)
@example(
    histories=[
        History("contacted", "inside", "person", converted=True),
        History("contacted", "at_start", "automated", converted=False),
        History("contacted", "at_end", "person", converted=True),
        History("contacted", "before", "person", converted=True),
        History("not_contacted", "at_start", "none", converted=False),
        History("not_contacted", "at_end", "none", converted=False),
        History("added_after", "after", "none", converted=False),
    ]
)
def test_every_count_follows_one_definition(
    api: ApiClient, campaigns: RecordFactory, histories: list[History]
) -> None:
    window = Window.recent()
    campaign = campaigns.campaign(participants=[h.fields(window) for h in histories])
    response = get_stats(api, campaign["id"], window.params)
    expect_counts(response, stats_of(response, "STAT-009", campaign["id"]), expected_of(histories))
