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
)

VARIANTS: dict[str, Variant] = {variant.name: variant for variant in _VARIANTS}
