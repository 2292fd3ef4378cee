"""The scope refusal, judged rule by rule wherever a suite meets it.

"A call without the needed scope answers 403 `insufficient_scope`; `param` names the
first missing scope and the message names the missing scopes." A test that sends a call
without a scope (the scope matrix, the handoff, the deletion feed) charges each part of
the answer to its own sentence: a success to the guard of the call (the scope guards
nothing), another answer to the refusal's rule, a wrong `param` or message to theirs.
The details of a refusal that never came are not judged.
"""

import httpx

from crm_conformance.steps.expect import (
    error_of,
    expect_error,
    expect_refusal,
    expect_text,
    expect_true,
)

REFUSAL = "SCOPE-021"
"""A call without the needed scope answers 403 `insufficient_scope`."""
REFUSAL_ROW = "SCOPE-028"
"""The 403 row of the error table: `insufficient_scope` | scope missing."""
FIRST_MISSING = "SCOPE-022"
"""`param` names the first missing scope."""
NAMED = "SCOPE-023"
"""The message names the missing scopes."""


def refused_for_scope(response: httpx.Response) -> bool:
    """Whether the answer is the scope refusal, 403 `insufficient_scope`."""
    return response.status_code == 403 and error_of(response).get("code") == "insufficient_scope"


def expect_insufficient_scope(
    response: httpx.Response, missing: str, guard: str, *, first: bool = True
) -> None:
    """Refused for want of `missing`: a success fails `guard`, another answer the
    refusal's rules; then the message names `missing`, and `param` does where `first`
    (the token lacks no other scope the call may need before it)."""
    expect_true(
        response,
        guard,
        not response.is_success,
        expected=f"the call refused to a token without {missing}",
        got=f"{response.status_code} {response.text[:200]}",
    )
    expect_refusal(response, REFUSAL, status=403, code="insufficient_scope")
    expect_refusal(response, REFUSAL_ROW, status=403, code="insufficient_scope")
    if not refused_for_scope(response):
        return  # charged above to the refusal's rules
    error = error_of(response)
    if first:
        expect_error(response, FIRST_MISSING, status=403, code="insufficient_scope", param=missing)
    why = "error.message names the missing scope"
    expect_text(response, NAMED, error, "message", containing=missing, why=why)
