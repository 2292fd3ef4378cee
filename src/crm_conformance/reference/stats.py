"""Campaign stats: the window rules and the counts of the document's Campaign stats table.

Pure functions over participant histories, so every rule of the table (inclusive start,
exclusive end, 30-day default, `enrolled` ignoring the window, automated replies kept
apart, every `not_contacted` reason listed with zeros, rates as fractions or null) is
tested without a server. The route only loads participants and renders the result.

All counts share one definition of "contacted in the window" (the campaign message was
delivered at or after `window_start` and before `window_end`); `replied`,
`replied_automated` and `converted` are subsets of it, which is what keeps `replied`
from ever exceeding `contacted`.
"""

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

DEFAULT_WINDOW = timedelta(days=30)
"""The document's default: "the 30 days ending now"."""

NOT_CONTACTED_REASONS = (
    "meta_account",
    "invalid_phone",
    "opted_out",
    "channel_unavailable",
    "duplicate",
    "other",
)
"""Why a participant was not messaged, in the fixed order `not_contacted` lists them.

`meta_account` is the document's example (the number belongs to an account the messaging
platform will not deliver to); the rest are this server's choices.
"""


class WindowError(ValueError):
    """A stats window the document refuses: `code` is `validation_failed` (a bad or
    offset-less timestamp, with `param` naming it) or `invalid_window` (empty or reversed).
    Both answer 400: they are query parameters."""

    def __init__(self, code: str, message: str, param: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.param = param


@dataclass(frozen=True)
class Window:
    """`[start, end)`: start inclusive, end exclusive, both aware."""

    start: datetime
    end: datetime

    def holds(self, instant: datetime | None) -> bool:
        """Whether `instant` falls inside the window (None never does)."""
        return instant is not None and self.start <= instant < self.end


@dataclass(frozen=True)
class Participant:
    """One contact's history in a campaign (what the stats are computed from)."""

    contact_id: str | None
    enrolled_at: datetime
    contacted_at: datetime | None = None
    replied_at: datetime | None = None
    reply_automated: bool = False
    converted_at: datetime | None = None
    not_contacted_reason: str | None = None
    status_changed_at: datetime | None = None

    @property
    def last_status_change(self) -> datetime:
        """When its status last changed: as recorded, else its latest event."""
        if self.status_changed_at is not None:
            return self.status_changed_at
        events = (self.converted_at, self.replied_at, self.contacted_at, self.enrolled_at)
        return max(e for e in events if e is not None)


@dataclass(frozen=True)
class CampaignStats:
    """Every field of the Campaign stats table but `object` and `campaign_id`."""

    window: Window
    contacted: int
    replied: int
    replied_automated: int
    converted: int
    enrolled: int
    not_contacted: tuple[tuple[str, int], ...]

    @property
    def reply_rate(self) -> float | None:
        """`replied / contacted` as a fraction; null when nobody was contacted."""
        return None if self.contacted == 0 else self.replied / self.contacted

    @property
    def conversion_rate(self) -> float | None:
        """`converted / contacted` as a fraction; null when nobody was contacted."""
        return None if self.contacted == 0 else self.converted / self.contacted

    def render(self, campaign_id: str, timestamp: Callable[[datetime], str]) -> dict[str, Any]:
        """The response body; `timestamp` formats instants the way the rest of the API does."""
        return {
            "object": "campaign_stats",
            "campaign_id": campaign_id,
            "window_start": timestamp(self.window.start),
            "window_end": timestamp(self.window.end),
            "contacted": self.contacted,
            "replied": self.replied,
            "replied_automated": self.replied_automated,
            "converted": self.converted,
            "enrolled": self.enrolled,
            "not_contacted": [{"reason": r, "count": n} for r, n in self.not_contacted],
            "reply_rate": self.reply_rate,
            "conversion_rate": self.conversion_rate,
        }


def parse_window(start: str | None, end: str | None, *, now: datetime) -> Window:
    """The window of the `window_start` / `window_end` query parameters.

    `window_end` defaults to now and `window_start` to 30 days before the end, so with
    neither given the window is "the 30 days ending now". Both must carry a timezone
    offset: the document requires it of `window_start`, and an instant without one is
    ambiguous, so `window_end` follows the same rule rather than guessing a zone.
    """
    end_at = now if end is None else _instant(end, "window_end")
    if start is None:
        try:
            start_at = end_at - DEFAULT_WINDOW
        except OverflowError:
            raise WindowError(
                "validation_failed",
                "window_end is too early to take the default 30-day window before it",
                "window_end",
            ) from None
    else:
        start_at = _instant(start, "window_start")
    if start_at >= end_at:
        raise WindowError(
            "invalid_window",
            f"the window is {'empty' if start_at == end_at else 'reversed'}: "
            "window_start must be before window_end",
            "window_start",
        )
    return Window(start_at, end_at)


def compute(
    participants: Iterable[Participant], window: Window, *, by_contact: bool = True
) -> CampaignStats:
    """Counts of the Campaign stats table for `participants` over `window`; `converted`
    counts distinct contacts (each participant when not `by_contact`: fault
    `converted_counts_participants`)."""
    everyone = list(participants)
    contacted = [p for p in everyone if window.holds(p.contacted_at)]
    replies = [p for p in contacted if _answered(p.replied_at, p.contacted_at, window)]
    converted_contacts = {
        (p.contact_id if by_contact else None) or f"participant-{index}"
        for index, p in enumerate(contacted)
        if _answered(p.converted_at, p.contacted_at, window)
    }
    reasons = Counter(
        _known_reason(p.not_contacted_reason)
        for p in everyone
        if p.not_contacted_reason is not None and window.holds(p.last_status_change)
    )
    return CampaignStats(
        window=window,
        contacted=len(contacted),
        replied=sum(1 for p in replies if not p.reply_automated),
        replied_automated=sum(1 for p in replies if p.reply_automated),
        converted=len(converted_contacts),
        enrolled=len(everyone),
        not_contacted=tuple((reason, reasons[reason]) for reason in NOT_CONTACTED_REASONS),
    )


def _answered(event: datetime | None, contacted: datetime | None, window: Window) -> bool:
    """An event following the campaign message, no later than the window's end."""
    return event is not None and contacted is not None and contacted <= event < window.end


def _known_reason(reason: str) -> str:
    """Reasons outside the fixed list count as `other`, so the list stays fixed."""
    return reason if reason in NOT_CONTACTED_REASONS else "other"


def _instant(text: str, param: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise WindowError(
            "validation_failed", f"{param} must be an ISO 8601 date-time, got {text!r}", param
        ) from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise WindowError(
            "validation_failed",
            f"{param} needs a timezone offset (for example 2026-01-01T00:00:00Z), got {text!r}",
            param,
        )
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise WindowError(
            "validation_failed", f"{param} is out of range: {text!r}", param
        ) from None
