"""Lists: the collection envelope, `limit`, keyset cursors, `sort`, `expand` and `fields`.

Paging is keyset paging over a total order: the requested sort keys, then the id as a
tie-break. A cursor names the last row served by its key values, so the next page is
"every row after that one in the order", whatever was inserted, changed or deleted in
between: no row is repeated or skipped because of another row's change.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from crm_conformance.adapter_kit import Problem
from crm_conformance.reference import cursors
from crm_conformance.reference.api_errors import ApiError, bad_query, validation_failed
from crm_conformance.reference.clock import parse_instant, stamp
from crm_conformance.reference.reply import compact
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Record

MAX_LIMIT = 200
MAX_EXPAND = 4
DEFAULT_LIMIT = 50
LIST_PARAMETERS = ("limit", "cursor", "sort", "expand", "fields")

SortKey = Callable[[Record], Any]


@dataclass(frozen=True)
class ListSpec:
    """What a collection allows: its fields, sort keys, default order and expansions."""

    name: str
    """The resource name used in messages and cursor digests, e.g. "contacts"."""
    fields: frozenset[str]
    """Names `fields` may select (`id` and `object` are always returned)."""
    sort_keys: Mapping[str, SortKey] = field(default_factory=dict)
    """Keys `sort` accepts, each reading a sortable value from a stored record."""
    default_sort: tuple[str, ...] = ("-created_at",)
    expands: frozenset[str] = frozenset()
    sortable: bool = True
    """False for collections with one fixed order: any `sort` is `unsupported_sort`."""
    order_keys: Mapping[str, SortKey] = field(default_factory=dict)
    """Keys of the fixed order of an unsortable collection (used by `default_sort`)."""


@dataclass(frozen=True)
class ListParams:
    """The validated common parameters of one list request."""

    limit: int
    cursor: str | None
    sort: tuple[tuple[str, bool], ...]
    """(key, descending) pairs."""
    expand: tuple[str, ...]
    fields: tuple[str, ...] | None


@dataclass(frozen=True)
class Page:
    rows: list[Record]
    has_more: bool
    next_cursor: str | None
    limit: int


def default_limit(settings: ServerSettings) -> int:
    if settings.has_variant("default_page_size_20"):
        return 20
    return 100 if settings.has_variant("default_page_size_100") else DEFAULT_LIMIT


PAGE_SIZES = (1, 10, 20, 25, 50, 100, 200)
"""The page sizes of the `limit_in_fixed_page_sizes` fault."""


def parse_limit(raw: Any, *, settings: ServerSettings, in_body: bool) -> int:
    """`limit` from the query (text, 400) or a body (integer, 422)."""
    if raw is None:
        return default_limit(settings)
    value: int | None = None
    if in_body:
        if isinstance(raw, float) and raw.is_integer():
            raw = int(raw)
        value = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    elif isinstance(raw, str) and raw.isascii() and raw.lstrip("-").isdigit() and len(raw) < 10:
        value = int(raw)
    elif settings.has_fault("limit_read_by_leading_digits") and (
        digits := re.match(r"-?[0-9]{1,9}", str(raw))
    ):
        value = int(digits.group())  # parseInt("12abc") is 12
    elif isinstance(raw, str) and raw.isascii() and raw.lstrip("-").isdigit():
        value = _int32(int(raw)) if settings.has_fault("limit_read_as_int32") else None
    if in_body and value is not None and settings.has_fault("limit_read_as_int32"):
        value = _int32(value)
    maximum = MAX_LIMIT - 1 if settings.has_fault("limit_200_rejected") else MAX_LIMIT
    if value not in PAGE_SIZES and settings.has_fault("limit_in_fixed_page_sizes"):
        value = None  # the page-size menu of the UI, enforced on the API
    if value is None or not 1 <= value <= maximum:
        problem = Problem("limit", f"must be an integer from 1 to {MAX_LIMIT}", "range")
        raise validation_failed([problem], status=422 if in_body else 400)
    return value


def _int32(value: int) -> int:
    """`value` as a signed 32-bit integer holds it (the `limit_read_as_int32` fault)."""
    return (value + 2**31) % 2**32 - 2**31


def parse_sort(
    spec: ListSpec, raw: str | None, settings: ServerSettings, *, in_body: bool = False
) -> tuple[tuple[str, bool], ...]:
    """`sort`: comma-separated keys, `-` for descending."""
    default = _default_order(spec)
    if not raw:
        return default
    if not spec.sortable:
        raise ApiError(
            400, "unsupported_sort", f"The {spec.name} list has one fixed order.", param="sort"
        )
    keys: list[tuple[str, bool]] = []
    for part in raw.split(","):
        name = part.strip()
        descending = name.startswith("-")
        name = name[1:] if descending else name
        if name not in spec.sort_keys:
            if settings.has_fault("unknown_sort_key_ignored") or (
                keys and settings.has_fault("later_sort_keys_unchecked")
            ):
                continue
            raise ApiError(
                400,
                "unknown_sort_field",
                f"Cannot sort {spec.name} by {name!r}; sortable keys: "
                f"{', '.join(sorted(spec.sort_keys))}.",
                param="sort",
            )
        if name in (key for key, _ in keys):
            raise ApiError(
                400, "unsupported_sort", f"Sort key {name!r} is named twice.", param="sort"
            )
        text_key = not name.endswith("_at")
        if text_key and (
            settings.has_fault("sort_direction_ignored_on_text_keys")
            or (in_body and settings.has_fault("search_sort_direction_ignored_on_text_keys"))
        ):
            descending = False  # the `-` was wired for the stamps only
        keys.append((name, descending))
    if (
        settings.has_fault("sort_second_key_ignored")
        or (in_body and settings.has_fault("search_sort_second_key_ignored"))
        or (spec.name == "deals" and settings.has_fault("deal_sort_second_key_ignored"))
    ):
        keys = keys[:1]
    return tuple(keys) or default


def _default_order(spec: ListSpec) -> tuple[tuple[str, bool], ...]:
    """The (key, descending) pairs of the list's default order."""
    return tuple((key.lstrip("-"), key.startswith("-")) for key in spec.default_sort)


def parse_expand(
    spec: ListSpec, raw: str | None, settings: ServerSettings | None = None
) -> tuple[str, ...]:
    """`expand`: at most four relationship names of this resource."""
    if not raw:
        return ()
    sent = [name.strip() for name in raw.split(",")]
    if len(sent) > MAX_EXPAND and settings and settings.has_fault("expand_limit_as_unknown"):
        raise ApiError(400, "unknown_expand", "Too many relationships to expand.", param="expand")
    names = tuple(dict.fromkeys(sent))
    too_many = len(names) > MAX_EXPAND or (
        len(names) == MAX_EXPAND
        and settings is not None
        and settings.has_fault("expand_cap_reached_at_four")
    )
    if spec.name == "deals" and settings and settings.has_fault("deal_expand_counts_names_sent"):
        too_many = len(sent) >= MAX_EXPAND
    if settings and settings.has_fault("expand_limit_spared_for_known_names"):
        too_many = too_many and not set(names) <= spec.expands
    if too_many and settings is not None and settings.has_fault("expand_limit_answers_422"):
        problem = Problem("expand", f"at most {MAX_EXPAND} relationships", "max_items")
        raise validation_failed([problem])
    if too_many:
        raise ApiError(
            400,
            "expand_limit_exceeded",
            f"At most {MAX_EXPAND} relationships can be expanded; {len(names)} were named.",
            param="expand",
        )
    if settings is not None and settings.has_fault("unknown_expand_ignored"):
        names = tuple(name for name in names if name in spec.expands)
    for name in names:
        if name not in spec.expands:
            offered = ", ".join(sorted(spec.expands)) or "none"
            generic = settings is not None and settings.has_fault("unknown_expand_bad_request")
            raise ApiError(
                400,
                "bad_request" if generic else "unknown_expand",
                f"{name!r} cannot be expanded on {spec.name} (expandable: {offered}).",
                param="expand",
            )
    return names


def parse_fields(
    spec: ListSpec, raw: str | None, settings: ServerSettings | None = None
) -> tuple[str, ...] | None:
    """`fields`: names of the resource's fields; None when not narrowed."""
    if not raw:
        return None
    names = tuple(dict.fromkeys(name.strip() for name in raw.split(",")))
    if settings is not None and settings.has_fault("unknown_fields_ignored"):
        return tuple(n for n in names if n in spec.fields or n in ("id", "object")) or None
    later = settings is not None and settings.has_fault("later_fields_unchecked")
    for index, name in enumerate(names):
        if later and index:
            return tuple(n for n in names if n in spec.fields or n in ("id", "object"))
        if name not in spec.fields and name not in ("id", "object"):
            raise ApiError(
                400, "unknown_field", f"{name!r} is not a field of {spec.name}.", param="fields"
            )
    return names


def parse_params(
    spec: ListSpec, values: Mapping[str, Any], *, settings: ServerSettings, in_body: bool = False
) -> ListParams:
    """The common parameters, from a query (text) or a search body."""
    texts: dict[str, str | None] = {}
    for name in ("cursor", "sort", "expand", "fields"):
        raw = values.get(name)
        if raw is not None and not isinstance(raw, str):
            raise validation_failed([Problem(name, "must be a string", "type")])
        texts[name] = raw or None  # an empty value reads as an absent one
    if values.get("cursor") == "" and settings.has_variant("empty_cursor_rejected"):
        raise cursors.invalid_cursor("An empty cursor is no cursor this server issued.")
    if settings.has_fault("corrupt_cursor_restarts") and "." not in (texts["cursor"] or "."):
        texts["cursor"] = None  # not payload.signature: read as no cursor at all
    fields = parse_fields(spec, texts["fields"], settings)
    limit = values.get("limit")
    if settings.has_fault("contact_limit_clamped") and spec.name == "contacts" and not in_body:
        limit = _clamped(limit)
    return ListParams(
        limit=parse_limit(limit, settings=settings, in_body=in_body),
        cursor=texts["cursor"],
        sort=parse_sort(spec, texts["sort"], settings, in_body=in_body),
        expand=parse_expand(spec, texts["expand"], settings),
        fields=None if settings.has_fault("fields_ignored") else fields,
    )


def _clamped(raw: Any) -> Any:
    """The `contact_limit_clamped` fault: an integer `limit` out of range is pulled into
    1 to 200 (`min(max(limit, 1), 200)`) instead of refused."""
    if isinstance(raw, str) and raw.lstrip("-").isdigit() and len(raw) < 10:
        return str(min(max(int(raw), 1), MAX_LIMIT))
    return raw


def parse_since(name: str, raw: str | None, *, naive_as_utc: bool = False) -> str | None:
    """An "at or after" filter (`updated_since`, `created_since`): a date-time with a
    timezone offset, returned in the stored form for comparison (`naive_as_utc`: a
    fault's reading of one without an offset as UTC)."""
    if raw is None:
        return None
    instant = parse_instant(raw, require_offset=not naive_as_utc)
    if instant is None:
        raise bad_query(name, "must be an ISO 8601 date-time with a timezone offset", "datetime")
    return stamp(instant)


def _compare(left: Any, right: Any) -> int:
    if left == right:
        return 0
    if left is None:
        return 1
    if right is None:
        return -1
    if type(left) is not type(right) and not (
        isinstance(left, int | float) and isinstance(right, int | float)
    ):
        left, right = str(left), str(right)
    return -1 if left < right else 1


def _order(
    sort: Sequence[tuple[str, bool]], *, tie_break: bool = True
) -> Callable[[list[Any], list[Any]], int]:
    """Compares two key vectors (sort values then id); nulls last in ascending order.
    Without `tie_break` (the `sort_without_tie_breaker` fault) the id is not compared."""

    def compare(left: list[Any], right: list[Any]) -> int:
        for index, (_, descending) in enumerate(sort):
            result = _compare(left[index], right[index])
            if result:
                return -result if descending else result
        return _compare(left[-1], right[-1]) if tie_break else 0

    return compare


def _sorted(
    keyed: list[tuple[list[Any], Record]], sort: Sequence[tuple[str, bool]]
) -> list[tuple[list[Any], Record]]:
    """`keyed` in the order of `_order`: one stable sort per key, the last key first, so
    equal values keep the order of the keys after them (then the id, ascending). A
    key function, not a comparison function: a page of a large list sorts every row."""
    keyed.sort(key=lambda pair: pair[0][-1])
    for index in reversed(range(len(sort))):
        keyed.sort(key=lambda pair: _ascending(pair[0][index]), reverse=sort[index][1])
    return keyed


def _ascending(value: Any) -> tuple[bool, Any]:
    """A sort key putting nulls last (first when reversed), as `_compare` does."""
    return (value is None, 0 if value is None else value)


def paginate(
    spec: ListSpec,
    rows: Sequence[Record],
    params: ListParams,
    *,
    settings: ServerSettings,
    identity: Mapping[str, Any],
) -> Page:
    """One page of `rows` (already filtered) in the total order of `params.sort`.

    `identity` must hold everything besides the sort that decides the rows (workspace,
    filters, search body): a cursor is valid only with the same identity and sort.
    """
    getters = {**spec.sort_keys, **spec.order_keys}
    bound = {} if settings.has_fault("cursor_not_bound_to_query") else identity
    named = "" if settings.has_fault("cursor_omits_its_list") else spec.name
    unsorted = ("search" in identity and settings.has_fault("search_cursor_not_bound_to_sort")) or (
        spec.name == "deals" and settings.has_fault("deal_cursor_not_bound_to_sort")
    )
    digest = cursors.query_digest({"list": named, "sort": () if unsorted else params.sort, **bound})

    def vector(row: Record) -> list[Any]:
        return [getters[key](row) for key, _ in params.sort] + [row["id"]]

    named_sort = params.sort != _default_order(spec)
    untied = (
        spec.name == "activities" and settings.has_fault("activity_cursor_on_sort_key_alone")
    ) or (
        named_sort
        and "search" in identity
        and settings.has_fault("search_cursor_on_sort_key_alone")
    )
    compare = _order(
        params.sort,
        tie_break=not ((named_sort and settings.has_fault("sort_without_tie_breaker")) or untied),
    )
    keyed = _sorted([(vector(row), row) for row in rows], params.sort)
    offset_cursors = settings.has_fault("cursor_repeats_row_on_insert") or (
        spec.name == "deals" and settings.has_fault("deal_pages_by_offset")
    )
    hex_form = settings.has_variant("hex_cursors")
    start = 0
    if params.cursor is not None:
        as_text = settings.has_fault("cursor_signature_compared_as_text")
        position = cursors.decode(
            settings.secret, params.cursor, digest, hex_form=hex_form, as_text=as_text
        )
        if offset_cursors:
            start = _offset(position)
        else:
            after = position.get("after")
            if not isinstance(after, list) or len(after) != len(params.sort) + 1:
                raise cursors.invalid_cursor("The cursor is corrupt.")
            start = next(
                (i for i, (key, _) in enumerate(keyed) if compare(key, after) > 0), len(keyed)
            )
            if named_sort and (
                settings.has_fault("keyset_drops_null_keys")
                or (spec.name == "deals" and settings.has_fault("deal_keyset_drops_null_keys"))
            ):
                keyed = keyed[:start] + _without_nulls(keyed[start:], after)
            if spec.name == "campaigns" and settings.has_fault("campaign_pages_overlap"):
                start = max(0, start - 1)  # the campaign query's `>=` where `>` belongs
            if spec.name == "organizations" and settings.has_fault("organization_pages_skip"):
                start += 1  # the organization query's `OFFSET 1` after its `>` cursor
    window = keyed[start : start + params.limit + 1]
    page = window[: params.limit]
    full_means_more = (
        (spec.name == "tags" and settings.has_fault("tag_pages_claim_more_when_full"))
        or (spec.name == "users" and settings.has_fault("user_pages_claim_more_when_full"))
        or ("search" in identity and settings.has_fault("search_pages_claim_more_when_full"))
    )
    if settings.has_fault("has_more_wrong_on_last_page") or full_means_more:
        has_more = len(page) == params.limit
    else:
        has_more = len(window) > params.limit
    next_cursor = "" if settings.has_fault("next_cursor_empty_on_last_page") else None
    if has_more and page:
        position = {"offset": start + len(page)} if offset_cursors else {"after": page[-1][0]}
        next_cursor = cursors.encode(settings.secret, position, digest, hex_form=hex_form)
    shown_limit = (
        default_limit(settings)
        if settings.has_fault("meta_limit_reports_default")
        else params.limit
    )
    if settings.has_fault("has_more_as_integer"):
        has_more = int(has_more)  # type: ignore[assignment]  # SQLite's boolean, unconverted
    return Page([row for _, row in page], has_more, next_cursor, shown_limit)


def _without_nulls(
    keyed: list[tuple[list[Any], Record]], after: list[Any]
) -> list[tuple[list[Any], Record]]:
    """The rows a keyset `(k1, k2, ...) > (?, ?, ...)` in SQL keeps: none whose value of a
    key is NULL where the cursor's is set (the faults of that name)."""
    return [
        (key, row)
        for key, row in keyed
        if not any(
            value is None and bound is not None for value, bound in zip(key, after, strict=True)
        )
    ]


def _offset(position: Mapping[str, Any]) -> int:
    offset = position.get("offset")
    if not isinstance(offset, int) or offset < 0:
        raise cursors.invalid_cursor("The cursor is corrupt.")
    return offset


def collection(page: Page, data: list[dict[str, Any]]) -> dict[str, Any]:
    """The collection envelope `{data, meta: {has_more, limit}, links: {next}}`."""
    return {
        "data": data,
        "meta": {"has_more": page.has_more, "limit": page.limit},
        "links": {"next": page.next_cursor},
    }


def encoded_collection(page: Page, data: str) -> str:
    """`collection` as `reply.compact` encodes it, given `data`, its rows so encoded (a
    JSON array): the same text, the rows put in place instead of encoded again."""
    envelope = compact(collection(page, []))
    empty = '{"data":[]'  # `collection` puts data first
    assert envelope.startswith(empty)
    return '{"data":' + data + envelope[len(empty) :]


def project(rendered: dict[str, Any], fields: Sequence[str] | None) -> dict[str, Any]:
    """Narrow a rendered resource to `fields`, keeping `id` and `object`."""
    if fields is None:
        return rendered
    keep = {"id", "object", *fields}
    return {name: value for name, value in rendered.items() if name in keep}
