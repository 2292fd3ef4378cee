"""A deal's `value`: "string (monetary; the workspace sets the currency)", "number in
the body". The body's number is stored as a string of two decimals, so it reads back as
the amount sent; the faults of money (float cents, 32-bit cents, a number rendered, a
string stored as sent, an unbounded amount) are slips of this one conversion."""

import math
import re
from decimal import Decimal
from typing import Any

from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.settings import ServerSettings

SPELLED = {"value": re.compile(r"\d{1,12}(\.\d{1,2})?"), "probability": re.compile(r"\d{1,3}")}
"""The numbers the `numeric_strings_taken` variant reads from a JSON string."""


def take_spelled_numbers(settings: ServerSettings, fields: BodyFields) -> None:
    """Under the `numeric_strings_taken` variant, a `value` or `probability` sent as the
    string of a number ("100", "50") is read as that number, as a lenient parser does."""
    if not settings.has_variant("numeric_strings_taken"):
        return
    for name, spelled in SPELLED.items():
        raw = fields.body.get(name)
        if isinstance(raw, str) and spelled.fullmatch(raw):
            fields.body[name] = int(raw) if name == "probability" else float(raw)


def read(settings: ServerSettings, fields: BodyFields, creating: bool = True) -> Any:
    """The body's `value` as the deal stores it; None unsets it. Under the fault
    `deal_value_sign_checked_on_create_only`, an update takes a negative amount."""
    raw = fields.body.get("value")
    if isinstance(raw, str) and settings.has_fault("deal_value_string_stored_as_sent"):
        return raw  # a text column taking whatever string the body has
    unbounded = settings.has_fault("deal_value_unbounded")  # an overflow: 500
    signless = not creating and settings.has_fault("deal_value_sign_checked_on_create_only")
    value = fields.number("value", minimum=None if signless else 0, bounded=not unbounded)
    if value is None or (not value and settings.has_fault("deal_value_zero_unsets")):
        return None
    if settings.has_fault("deal_value_in_int32_cents"):
        cents = (round(float(value) * 100) + 2**31) % 2**32 - 2**31  # a 32-bit column
        return str(Decimal(cents) / 100)
    if settings.has_fault("value_as_number"):
        return float(value)
    return money(value, settings.has_fault("money_cents_by_floor"))


def money(value: float | int, cents_by_floor: bool = False) -> str:
    """A monetary amount as a string with two decimals (the workspace sets the currency);
    under the `money_cents_by_floor` fault, cents are `floor(value * 100)` of the binary
    float, so 19.99 reads 19.98."""
    if cents_by_floor:
        return str(Decimal(math.floor(float(value) * 100)) / 100)
    return str(Decimal(str(value)).quantize(Decimal("0.01")))
