"""Phone numbers, normalized to E.164 on write (`+` and 8 to 15 digits).

Spaces, dots, dashes and parentheses are dropped and an international `00` prefix
becomes `+`. Without a country prefix the number is read as already international
(the workspace has no default country to assume).
"""

import re

_SEPARATORS = re.compile(r"[\s().\-/]")
_E164 = re.compile(r"\+[1-9][0-9]{7,14}")


def normalize(text: str) -> str | None:
    """The E.164 form of `text`, or None when it cannot be one."""
    compact = _SEPARATORS.sub("", text)
    if compact.startswith("00"):
        compact = "+" + compact[2:]
    elif not compact.startswith("+"):
        compact = "+" + compact
    return compact if _E164.fullmatch(compact) else None
