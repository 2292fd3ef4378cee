"""Timestamps: every date-time field an ISO 8601 date-time."""

from datetime import datetime
from typing import Any

import httpx

from crm_conformance.core.verdicts.checks.body import (
    failed,
    first_five,
    shorten,
)
from crm_conformance.core.verdicts.checks.identifiers import resources_of
from crm_conformance.core.verdicts.checks.registry import Evaluated, check


def is_timestamp(value: Any) -> bool:
    """Whether `value` is an ISO 8601 date-time string (a date alone is not one)."""
    if not isinstance(value, str) or "T" not in value.upper():
        return False
    try:
        datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        return False
    return True


DATE_TIME_FIELDS: dict[str, tuple[str, ...]] = {
    "contact": ("created_at", "updated_at"),
    "organization": ("created_at", "updated_at"),
    "deal": ("created_at", "updated_at", "expected_close_date", "stage_changed_at"),
    "activity": ("due_at", "created_at", "updated_at"),
    "conversation": ("last_message_at", "created_at", "updated_at"),
    "user": ("created_at",),
    "audience": ("created_at", "updated_at"),
    "campaign": ("created_at", "updated_at"),
    "campaign_stats": ("window_start", "window_end"),
}
"""The fields each resource table types `date-time`, by the resource's `object`."""


@check("IDN-003")
def timestamps(response: httpx.Response) -> Evaluated:
    """ "Timestamps are ISO 8601 date-time strings": every date-time field of every
    documented resource in a 2xx body, wherever it is embedded.

    Null (or absent) passes: several of these fields are "or null" (`last_message_at`),
    and presence is a rule of its own. Only the fields the resource tables type
    `date-time` are read, so an undocumented field of a documented object says nothing.
    """
    if not 200 <= response.status_code < 300:
        return False
    present = [
        (resource, field)
        for resource in resources_of(response)
        for field in DATE_TIME_FIELDS.get(resource["object"], ())
        if resource.get(field) is not None
    ]
    problems = [
        f"{resource['object']}.{field} = {shorten(resource[field])}"
        for resource, field in present
        if not is_timestamp(resource[field])
    ]
    if problems:
        raise failed(
            "IDN-003",
            response,
            expected="ISO 8601 date-time strings in every date-time field",
            got=first_five(problems),
        )
    return bool(present)
