"""Legal variants: other choices where the document is silent.

The suite must pass against every variant; a test that fails one asserts something the
document does not say. Same mechanism as faults (`serve --variant NAME`,
`settings.has_variant(name)`).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """A named alternative behaviour the document allows."""

    name: str
    summary: str


_VARIANTS = (
    Variant("create_returns_200", "create operations answer 200 instead of 201"),
    Variant("default_page_size_20", "lists default to 20 rows per page instead of 50"),
    Variant(
        "extra_response_fields",
        "resources carry an undocumented `livemode` field unless `fields` narrows them",
    ),
    Variant("uuid_request_ids", "X-Request-ID values are UUIDs instead of req_ + hex"),
    Variant("default_page_size_100", "lists default to 100 rows per page instead of 50"),
    Variant("hex_cursors", "cursors are hex (payload.signature) instead of base64url"),
    Variant(
        "reworded_messages",
        "error messages are worded otherwise and documentation_url names a page per code",
    ),
    Variant("empty_detail_array", "`detail` is [] instead of null on errors without items"),
    Variant("charset_utf8", "JSON answers say `application/json; charset=utf-8`"),
    Variant("pretty_json", "JSON bodies are indented instead of compact"),
    Variant("added_latency", "every routed answer is 5 to 20 ms slower"),
    Variant(
        "omit_null_optional_fields",
        "contacts and deals leave out null fields outside their always-present list "
        "(deal probability, whose null means the stage default, stays)",
    ),
    Variant(
        "offset_timestamps",
        "timestamps end in +00:00 instead of Z (the same instants, another ISO 8601 form)",
    ),
    Variant(
        "coarse_error_types",
        "401, 403, 404 and 409 errors typed invalid_request_error, as Stripe-style APIs do "
        "(the mapping of types to statuses is not shown)",
    ),
    Variant("small_rate_limit", "1000 requests per token per 10-second window"),
    Variant(
        "rate_limit_300_per_minute",
        "each token may make 300 requests per 60-second fixed window (Reset rounded up), "
        "a production-like allowance; a whole run takes its requests ÷ 5 seconds",
    ),
    Variant(
        "sliding_rate_limit",
        "each token may make 300 requests in any 120 seconds (a sliding log): Reset is the "
        "seconds until the oldest counted request leaves the window, rounded down, and "
        "Retry-After the same wait rounded up; a whole run takes its requests ÷ 2.5 seconds",
    ),
    Variant(
        "occasional_429",
        "every 50th request of a valid token's window answers 429 with Retry-After: 1 "
        "(Remaining 0, Reset 1)",
    ),
)

VARIANTS: dict[str, Variant] = {variant.name: variant for variant in _VARIANTS}
