"""Timestamps: one fixed ISO 8601 form, so stored strings sort as instants do."""

from datetime import UTC, datetime


def now() -> datetime:
    """The current instant in UTC."""
    return datetime.now(UTC)


def stamp(instant: datetime) -> str:
    """The stored and rendered form: UTC, microseconds, Z (2026-01-02T03:04:05.000006Z).

    Fixed width, so comparing two stamps as strings compares the instants.
    """
    return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_stamp() -> str:
    """`stamp(now())`."""
    return stamp(now())


def parse_instant(text: str, *, require_offset: bool = True) -> datetime | None:
    """An ISO 8601 date-time, or None when it does not parse or lacks a required offset.

    Without `require_offset`, a naive value is read as UTC.
    """
    if not isinstance(text, str) or not 10 <= len(text) <= 40 or "T" not in text.upper():
        return None
    try:
        instant = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None
    if instant.tzinfo is None:
        if require_offset:
            return None
        instant = instant.replace(tzinfo=UTC)
    return instant
