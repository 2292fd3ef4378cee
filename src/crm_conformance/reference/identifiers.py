"""Identifiers: a kind prefix, an underscore and 32 lowercase hex characters."""

import re
import secrets

PREFIXES = {
    "conversation": "conv",
    "channel": "chn",
    "contact": "con",
    "organization": "org",
    "user": "usr",
    "agent": "agt",
    "deal": "deal",
    "pipeline": "pipe",
    "stage": "stg",
    "lost_reason": "lrsn",
    "tag": "tag",
    "activity": "act",
    "campaign": "camp",
    "audience": "aud",
    "note": "note",
    "field": "fld",
    "template": "tmpl",
    "token": "tok",
    "success_event": "sev",
    "success_event_type": "sevt",
    "participant": "cpt",
    "webhook_endpoint": "whe",
}

_HEX = re.compile(r"[0-9a-f]{32}")


def new_id(kind: str) -> str:
    """A fresh identifier for a record of `kind`."""
    return f"{PREFIXES[kind]}_{secrets.token_hex(16)}"


def is_id(value: object, kind: str) -> bool:
    """Whether `value` is a well-formed identifier of `kind`."""
    if not isinstance(value, str):
        return False
    prefix, _, rest = value.partition("_")
    return prefix == PREFIXES[kind] and _HEX.fullmatch(rest) is not None


def kind_of(value: str, kinds: tuple[str, ...]) -> str | None:
    """Which of `kinds` the well-formed id `value` is, or None."""
    return next((kind for kind in kinds if is_id(value, kind)), None)
