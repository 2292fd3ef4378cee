"""Identifiers: a kind prefix, an underscore and 32 lowercase hex characters."""

import re
import secrets
from typing import Any

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


UPPERCASE_HEX = "<the same prefix, the hex in upper case>"
"""The rendered prefix of a fault that keeps the prefix and upper-cases the hex digits."""

RENDERED_PREFIX_FAULTS: dict[str, tuple[str, str]] = {
    "conversation_ids_rendered_cnv": ("conv_", "cnv_"),
    "channel_ids_rendered_chan": ("chn_", "chan_"),
    "contact_ids_rendered_cont": ("con_", "cont_"),
    "organization_ids_rendered_acct": ("org_", "acct_"),
    "user_ids_rendered_user": ("usr_", "user_"),
    "deal_ids_rendered_dl": ("deal_", "dl_"),
    "pipeline_ids_rendered_pipeline": ("pipe_", "pipeline_"),
    "stage_ids_rendered_stage": ("stg_", "stage_"),
    "lost_reason_ids_rendered_lr": ("lrsn_", "lr_"),
    "tag_ids_rendered_tg": ("tag_", "tg_"),
    "activity_ids_rendered_actv": ("act_", "actv_"),
    "campaign_ids_rendered_cmp": ("camp_", "cmp_"),
    "audience_ids_rendered_audience": ("aud_", "audience_"),
    "user_ids_rendered_uppercase_hex": ("usr_", UPPERCASE_HEX),
}
"""Faults of the response encoder's own prefix table (fault name -> (the identifier
table's prefix, the one rendered instead, or `UPPERCASE_HEX`)): ids are stored and read
with the right prefix, but every answer spells one kind's ids with a prefix of its own,
or its hex digits in upper case (`format(n, "032X")`)."""


def rendered_with_prefix(value: Any, right: str, wrong: str) -> Any:
    """`value` with every identifier `right` + 32 hex, wherever it is, spelt `wrong` + hex
    (or, for `UPPERCASE_HEX`, `right` + the hex in upper case)."""
    if isinstance(value, str):
        rest = value[len(right) :]
        if value.startswith(right) and _HEX.fullmatch(rest):
            return right + rest.upper() if wrong == UPPERCASE_HEX else wrong + rest
        return value
    if isinstance(value, dict):
        return {key: rendered_with_prefix(item, right, wrong) for key, item in value.items()}
    if isinstance(value, list):
        return [rendered_with_prefix(item, right, wrong) for item in value]
    return value
