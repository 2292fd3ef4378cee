"""Phone numbers, normalized to E.164 on write (`+` and 8 to 15 digits).

Spaces, dots, dashes and parentheses are dropped and an international `00` prefix
becomes `+`. Without a country prefix the number is read as already international
(the workspace has no default country to assume).
"""

import re

from crm_conformance.reference.settings import ServerSettings

_SEPARATORS = re.compile(r"[\s().\-/]")


def written(text: str | None, settings: ServerSettings) -> str | None:
    """The phone a write stores for `text` (None when there is none to store): every
    write path reads it here, so a fault that allows 16 digits slips on all of them."""
    if text is None:
        return None
    return normalize(text, longest=16 if settings.has_fault("phone_sixteen_digits_taken") else 15)


def normalize(text: str, *, longest: int = 15) -> str | None:
    """The E.164 form of `text`, or None when it cannot be one (`longest` digits at most)."""
    compact = _SEPARATORS.sub("", text)
    if compact.startswith("00"):
        compact = "+" + compact[2:]
    elif not compact.startswith("+"):
        compact = "+" + compact
    return compact if re.fullmatch(rf"\+[1-9][0-9]{{7,{longest - 1}}}", compact) else None
