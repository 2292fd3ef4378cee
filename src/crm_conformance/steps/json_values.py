"""Equality of JSON values as a typed client reads them.

Python's `==` says `True == 1` and `37 == 37.0`, but a client does not: a Go struct's
`bool` refuses `1`, its `int` refuses `37.0`. So a value the suite expects as a boolean
must come as a boolean, and one it expects as an integer must not come as a fraction
(`37.0`). The other way is lenient: an amount the suite computed as `1.0` may come as
`1`, which is how JavaScript writes it.
"""

from collections.abc import Mapping
from typing import Any


def json_equal(got: Any, expected: Any) -> bool:
    """Whether `got` (read from an answer) is `expected` as a typed client reads JSON."""
    if isinstance(got, bool) or isinstance(expected, bool):
        return type(got) is type(expected) and got == expected
    if isinstance(expected, int) and isinstance(got, float):
        return False
    if isinstance(expected, Mapping) and isinstance(got, Mapping):
        return got.keys() == expected.keys() and all(
            json_equal(got[key], expected[key]) for key in expected
        )
    if isinstance(expected, (list, tuple)) and type(got) is type(expected):
        return len(got) == len(expected) and all(map(json_equal, got, expected))
    return bool(got == expected)


def is_record_object(value: Any, record_id: str) -> bool:
    """Whether `value` is the object of the record `record_id` (a JSON object with that
    id), as an expand embeds it: null, the bare id or an absent member are not."""
    return isinstance(value, Mapping) and value.get("id") == record_id
