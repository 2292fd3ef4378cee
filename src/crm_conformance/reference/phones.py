"""Phone numbers, normalized to E.164 on write (`+` and 8 to 15 digits).

Spaces, dots, dashes and parentheses are dropped and an international `00` prefix
becomes `+`. Without a country prefix the number is read as already international
(the workspace has no default country to assume).
"""

import re

_SEPARATORS = re.compile(r"[\s().\-/]")


def normalize(text: str, *, longest: int = 15) -> str | None:
    """The E.164 form of `text`, or None when it cannot be one (`longest` digits at most:
    a fault's slip may allow one more)."""
    compact = _SEPARATORS.sub("", text)
    if compact.startswith("00"):
        compact = "+" + compact[2:]
    elif not compact.startswith("+"):
        compact = "+" + compact
    return compact if re.fullmatch(rf"\+[1-9][0-9]{{7,{longest - 1}}}", compact) else None
