"""Faults of rate limits: bugs whose first requirement is of the `rate-limits` class (Provoking
429s to check the rate-limit answers; opt-in because it spends the target's allowance)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "retry_after_missing_on_429",
        ("HDR-002",),
        "a refused request gets 429 and the rate-limit headers but no Retry-After",
    ),
    Fault(
        "rate_limit_per_workspace",
        ("RATE-001",),
        "the limiter counts requests per workspace, so one busy token throttles the others",
    ),
    Fault(
        "rate_limit_never_refills",
        ("RATE-003",),
        "a window is renewed only by an allowed request, so a spent token stays refused",
    ),
    Fault(
        "rate_limit_code_too_many_requests",
        ("RATE-002",),
        "a request over the allowance answers 429 with code too_many_requests instead of "
        "rate_limit_exceeded",
    ),
    Fault(
        "retry_after_missing_on_posts",
        ("HDR-002",),
        "a 429 to a POST has no Retry-After (the GET path's limiter middleware sets it)",
    ),
)
