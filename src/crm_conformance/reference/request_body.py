"""Reading JSON bodies and validating their fields, gathering every problem at once.

A body that is not JSON answers 400 `bad_request`; a JSON body with invalid fields
answers 422 `validation_failed` with one `detail` item per field, so a client fixes
them all in one round. Unknown keys are refused everywhere, so a misspelt field fails
instead of being ignored.
"""

import json
import math
import re
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from crm_conformance.adapter_kit import Problem
from crm_conformance.reference.api_errors import ApiError, validation_failed
from crm_conformance.reference.clock import parse_instant, stamp
from crm_conformance.reference.identifiers import is_id

MAX_BODY_BYTES = 1_000_000


JSON_WHITESPACE = b" \t\n\r"
"""Whitespace as JSON has it (RFC 8259): `bytes.strip()` would also take a vertical tab or
a form feed for nothing, and accept a body of them as an empty one."""


def parse_json(raw: bytes) -> Any:
    """The JSON value of a body (None when empty); 400 bad_request when it is not JSON."""
    if len(raw) > MAX_BODY_BYTES:
        raise ApiError(400, "bad_request", f"The body exceeds {MAX_BODY_BYTES} bytes.")
    if not raw.strip(JSON_WHITESPACE):
        return None
    try:
        return json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        raise ApiError(400, "bad_request", "The body is not valid JSON.") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class BodyFields:
    """The fields of one JSON object body (or nested object), checked one by one.

    Getters return the value or None (absent or null) and note a problem when the value
    is invalid; `has(name)` tells absent from null, which updates need. Call `check()`
    once every field has been read.
    """

    def __init__(self, body: Any, *, allowed: Iterable[str], path: str = "") -> None:
        self.problems: list[Problem] = []
        self._path = path
        if body is None:
            body = {}
        if not isinstance(body, dict):
            self.problems.append(Problem(path or "body", "must be a JSON object", "type"))
            body = {}
        self.body: dict[str, Any] = body
        allowed_names = set(allowed)
        for name in body:
            if name not in allowed_names:
                self.problems.append(Problem(self.field(name), "unknown field", "unknown_field"))

    def field(self, name: str) -> str:
        """The dotted path of a field of this object."""
        return f"{self._path}.{name}" if self._path else name

    def has(self, name: str) -> bool:
        return name in self.body

    def problem(self, name: str, message: str, code: str | None = "invalid") -> None:
        self.problems.append(Problem(self.field(name), message, code))

    def check(self) -> None:
        """Raise 422 validation_failed listing every problem found."""
        if self.problems:
            raise validation_failed(self.problems)

    def _value(self, name: str, required: bool, nullable: bool) -> Any:
        if name not in self.body:
            if required:
                self.problem(name, "is required", "missing")
            return None
        value = self.body[name]
        if value is None and (required or not nullable):
            self.problem(name, "must not be null", "null")
        return value

    def string(
        self,
        name: str,
        *,
        required: bool = False,
        nullable: bool = True,
        min_length: int = 0,
        max_length: int | None = None,
        choices: Iterable[str] | None = None,
        pattern: str | None = None,
    ) -> str | None:
        value = self._value(name, required, nullable)
        if value is None:
            return None
        if not isinstance(value, str):
            self.problem(name, "must be a string", "type")
            return None
        options = tuple(choices) if choices is not None else None
        if options is not None and value not in options:
            self.problem(name, f"must be one of {', '.join(options)}", "enum")
        elif len(value) < min_length:
            self.problem(name, f"must have at least {min_length} character(s)", "too_short")
        elif max_length is not None and len(value) > max_length:
            self.problem(name, f"must have at most {max_length} characters", "too_long")
        elif pattern is not None and re.fullmatch(pattern, value) is None:
            self.problem(name, f"must match {pattern}", "pattern")
        else:
            return value
        return None

    def identifier(
        self, name: str, kind: str | tuple[str, ...], *, required: bool = False
    ) -> str | None:
        """An id of `kind` (or of one of several kinds)."""
        value = self._value(name, required, True)
        if value is None:
            return None
        kinds = (kind,) if isinstance(kind, str) else kind
        if not any(is_id(value, k) for k in kinds):
            self.problem(name, "is not a well-formed identifier of the expected kind", "pattern")
            return None
        return str(value)

    def integer(
        self,
        name: str,
        *,
        required: bool = False,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        value = self._value(name, required, True)
        if value is None:
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            self.problem(name, "must be an integer", "type")
            return None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            self.problem(name, f"must be between {minimum} and {maximum}", "range")
            return None
        return value

    def number(
        self, name: str, *, minimum: float | None = None, bounded: bool = True
    ) -> float | int | None:
        """A finite number below 10^15 (the store's bound; `bounded=False` for a fault
        that lets any number through to a store that cannot hold it)."""
        value = self._value(name, False, True)
        if value is None:
            return None
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)
            or (bounded and abs(value) >= 1e15)
        ):
            self.problem(name, "must be a finite number below 10^15", "type")
            return None
        if minimum is not None and value < minimum:
            self.problem(name, f"must be at least {minimum}", "range")
            return None
        return value

    def boolean(self, name: str) -> bool | None:
        value = self._value(name, False, True)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.problem(name, "must be a boolean", "type")
            return None
        return value

    def instant(
        self, name: str, *, required: bool = False, lenient: bool = False, naive: bool = False
    ) -> str | None:
        """A date-time with a timezone offset, returned in the stored form (`lenient`: a
        fault's parser, which rolls a day past the month's end over, as JavaScript's
        `Date` does; `naive`: a fault's, which reads a date-time without offset as UTC)."""
        value = self._value(name, required, True)
        if value is None:
            return None
        parsed = parse_instant(value, require_offset=not naive) if isinstance(value, str) else None
        if parsed is None and lenient and isinstance(value, str):
            parsed = _rolled_over(value)
        if parsed is None:
            self.problem(name, "must be an ISO 8601 date-time with a timezone offset", "datetime")
            return None
        return stamp(parsed)

    def list_of_strings(self, name: str, *, max_items: int = 100) -> list[str] | None:
        value = self._value(name, False, True)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.problem(name, "must be an array of strings", "type")
            return None
        if len(value) > max_items:
            self.problem(name, f"must have at most {max_items} items", "too_long")
            return None
        return list(value)

    def object(self, name: str) -> dict[str, Any] | None:
        value = self._value(name, False, True)
        if value is None:
            return None
        if not isinstance(value, dict):
            self.problem(name, "must be an object", "type")
            return None
        return value


def _rolled_over(text: str) -> datetime | None:
    """`text` read with its day counted from the month's first (30 February is 2 March)."""
    found = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})(T.+)", text)
    if not found or not 1 <= int(found[2]) <= 12 or not 1 <= int(found[3]) <= 31:
        return None
    clock = parse_instant("2000-01-01" + found[4])
    if clock is None:
        return None
    day = datetime(int(found[1]), int(found[2]), 1, tzinfo=clock.tzinfo)
    return day + timedelta(
        days=int(found[3]) - 1, hours=clock.hour, minutes=clock.minute, seconds=clock.second
    )
