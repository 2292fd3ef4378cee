"""`POST /v1/contacts/search`: nested and/or condition groups and free text over contacts.

Conditions are `{field, operator, value}` or a nested group `{conditions, join}`.
Operators: `equals`, `not_equals`, `in`, `not_in`, `contains`, `starts_with`, `gt`,
`gte`, `lt`, `lte`, `exists`. Text compares without regard to case; date-time fields
compare as instants. Unknown body keys, fields and operators answer 422 with the
dotted path of the offending part, so a misspelt filter never returns everything.
"""

import operator as operators
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from crm_conformance.adapter_kit import Problem
from crm_conformance.reference import contacts, field_definitions
from crm_conformance.reference.api_errors import ApiError, validation_failed
from crm_conformance.reference.clock import parse_instant, stamp
from crm_conformance.reference.contact_list import SINCE_FILTERS
from crm_conformance.reference.listing import parse_params
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Record, Transaction

routes = RouteTable()

BODY_KEYS = ("filter", "q", "sort", "limit", "cursor", "expand", "fields")
MAX_DEPTH = 5
MAX_CONDITIONS = 100
MAX_VALUES = 100
OPERATORS = (
    "equals", "not_equals", "in", "not_in", "contains", "starts_with",
    "gt", "gte", "lt", "lte", "exists",
)  # fmt: skip
INSTANT_FIELDS = ("created_at", "updated_at")
PLAIN_FIELDS = (
    "first_name", "last_name", "email", "phone", "address", "city", "state", "job_title",
    "company_name", "organization_id", "owner_id", "score", "status", "lost_reason",
    "external_id", "visibility", "created_at", "updated_at",
)  # fmt: skip


def _field_getter(name: str) -> Callable[[Record], Any]:
    return lambda record: record.get(name)


SEARCH_FIELDS: dict[str, Callable[[Record], Any]] = {
    "id": lambda r: r["id"],
    "name": contacts.display_name,
    **{name: _field_getter(name) for name in PLAIN_FIELDS},
    "tags": lambda r: r.get("tags") or [],
}

Matcher = Callable[[Record], bool]


def _custom_getter(key: str) -> Callable[[Record], Any]:
    return lambda record: (record.get("custom_fields") or {}).get(key)


def _fold(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


def _compile(
    node: Any,
    path: str,
    depth: int,
    custom: set[str],
    problems: list[Problem],
    count: list[int],
    settings: ServerSettings,
) -> Matcher:
    """A matcher for one condition or group; problems are gathered, not raised."""
    count[0] += 1
    if not isinstance(node, dict):
        problems.append(Problem(path, "must be a condition or a group object", "type"))
        return lambda _: False
    if "conditions" in node or "join" in node:
        if depth > 1 and settings.has_fault("search_nested_group_ignored"):
            return lambda _: True
        return _group(node, path, depth, custom, problems, count, settings)
    fields = BodyFields(node, allowed=("field", "operator", "value"), path=path)
    name = fields.string("field", required=True)
    operator = fields.string("operator", required=True, choices=OPERATORS)
    if "value" not in node and operator != "exists":
        fields.problem("value", "is required", "missing")
    value = node.get("value")
    getter: Callable[[Record], Any] | None = None
    if name is not None:
        if name in SEARCH_FIELDS:
            getter = SEARCH_FIELDS[name]
        elif name.startswith("custom_fields.") and name.split(".", 1)[1] in custom:
            getter = _custom_getter(name.split(".", 1)[1])
        else:
            fields.problem("field", f"cannot search on {name!r}", "unknown_field")
    problems.extend(fields.problems)
    if getter is None or operator is None or fields.problems:
        return lambda _: False
    if operator == "equals" and settings.has_fault("search_equals_as_contains"):
        operator = "contains"
    if (
        operator == "equals"
        and isinstance(value, str)
        and settings.has_fault("search_equals_as_like")
    ):
        like = re.escape(value).replace("%", ".*").replace("_", ".")  # % and _ unescaped
        return lambda row: isinstance(getter(row), str) and bool(re.fullmatch(like, getter(row)))
    return _condition(getter, name in INSTANT_FIELDS, operator, value, f"{path}.value", problems)


def _group(
    node: dict[str, Any],
    path: str,
    depth: int,
    custom: set[str],
    problems: list[Problem],
    count: list[int],
    settings: ServerSettings,
) -> Matcher:
    lenient = settings.has_fault("search_group_keys_unchecked")  # a group's extra keys pass
    fields = BodyFields(node, allowed=tuple(node) if lenient else ("conditions", "join"), path=path)
    join = fields.string("join", nullable=False, choices=("and", "or")) or "and"
    if settings.has_fault("search_or_join_as_and") and join != "OR":
        join = "and"
    if depth > 1 and settings.has_fault("nested_or_group_as_and"):
        join = "and"  # only the top group's join was read
    conditions = node.get("conditions", [] if lenient else None)
    problems.extend(fields.problems)
    if depth > MAX_DEPTH:
        problems.append(Problem(path, f"groups nest at most {MAX_DEPTH} deep", "too_deep"))
        return lambda _: False
    if not isinstance(conditions, list):
        problems.append(Problem(f"{path}.conditions", "must be an array", "type"))
        return lambda _: False
    matchers = [
        _compile(item, f"{path}.conditions.{index}", depth + 1, custom, problems, count, settings)
        for index, item in enumerate(conditions)
    ]
    if count[0] > MAX_CONDITIONS:
        problems.append(Problem(path, f"at most {MAX_CONDITIONS} conditions", "too_many"))
    if join == "and":
        return lambda r: all(m(r) for m in matchers)
    return lambda r: any(m(r) for m in matchers)


def _condition(
    getter: Callable[[Record], Any],
    is_instant: bool,
    operator: str,
    value: Any,
    path: str,
    problems: list[Problem],
) -> Matcher:
    def scalar(item: Any) -> Any:
        if isinstance(item, bool) or (not isinstance(item, str | int | float) and item is not None):
            raise ValueError("must be a string, number or null")
        if is_instant and item is not None:
            instant = parse_instant(item) if isinstance(item, str) else None
            if instant is None:
                raise ValueError("must be a date-time with a timezone offset")
            return stamp(instant)
        return _fold(item)

    try:
        if operator == "exists":
            if not isinstance(value, bool):
                raise ValueError("must be a boolean")
            return lambda r: (getter(r) not in (None, "", [])) is value
        if operator in ("in", "not_in"):
            if not isinstance(value, list) or len(value) > MAX_VALUES:
                raise ValueError(f"must be an array of at most {MAX_VALUES} values")
            options = [scalar(item) for item in value]
            inside = operator == "in"
            return lambda r: (_any(getter(r), lambda v: v in options)) is inside
        wanted = scalar(value)
    except ValueError as error:
        problems.append(Problem(path, str(error), "type"))
        return lambda _: False
    if operator in ("contains", "starts_with"):
        if not isinstance(wanted, str):
            problems.append(Problem(path, "must be a string", "type"))
            return lambda _: False
        if operator == "contains":
            return lambda r: _any(getter(r), lambda v: isinstance(v, str) and wanted in v)
        return lambda r: _any(getter(r), lambda v: isinstance(v, str) and v.startswith(wanted))
    if operator == "equals":
        return lambda r: _any(getter(r), lambda v: v == wanted)
    if operator == "not_equals":
        return lambda r: not _any(getter(r), lambda v: v == wanted)
    compare: Callable[[Any, Any], Any] = {
        "gt": operators.gt,
        "gte": operators.ge,
        "lt": operators.lt,
        "lte": operators.le,
    }[operator]

    def ordered(v: Any) -> bool:
        if v is None or wanted is None or isinstance(v, str) != isinstance(wanted, str):
            return False
        return bool(compare(v, wanted))

    return lambda r: _any(getter(r), ordered)


def _any(value: Any, test: Callable[[Any], bool]) -> bool:
    """Apply `test` to a value, or to any item of a list value (tags)."""
    if isinstance(value, list):
        return any(test(_fold(item)) for item in value)
    return test(_fold(value))


def _free_text(q: str, settings: ServerSettings) -> Matcher:
    """`q`: case-insensitive text in the name or email, or digits within the phone."""
    text = q.strip().casefold()
    digits = "".join(ch for ch in q if ch.isdigit())

    def matches(record: Record) -> bool:
        stale = record.get("updated_at") != record.get("created_at")
        if stale and settings.has_fault("search_index_not_refreshed_on_update"):
            return False  # the text index is written on create and never again
        for value in (contacts.display_name(record), record.get("email")):
            if value and text in value.casefold():
                return True
        phone = record.get("phone") or ""
        if settings.has_fault("search_q_skips_phone"):
            return False
        return len(digits) >= 3 and digits in phone

    return matches


def _refuse_other_operators(node: Any, path: str) -> None:
    """The `search_equals_only` variant: `equals` is the only operator (the list beyond
    it is not shown); another answers 422 validation_failed."""
    problems: list[Problem] = []

    def walk(item: Any, where: str) -> None:
        if isinstance(item, dict):
            if "operator" in item and item["operator"] != "equals":
                problems.append(Problem(f"{where}.operator", "only equals is offered", "enum"))
            for index, child in enumerate(item.get("conditions") or ()):
                walk(child, f"{where}.conditions.{index}")

    walk(node, path)
    if problems:
        raise validation_failed(problems)


def _known_fields(names: Any) -> Any:
    """The `search_unknown_fields_ignored` fault: names not on a contact are dropped (as
    the list's query parser was never given the check)."""
    if not isinstance(names, str):
        return names
    known = [name for name in names.split(",") if name.strip() in contacts.FIELDS]
    return ",".join(known) or None


def _without_owner(names: Any) -> Any:
    """The `search_expands_owner` fault: `owner` is taken as an expand name of search
    (its owner object is always there anyway), and left out."""
    if not isinstance(names, str):
        return names
    return ",".join(name for name in names.split(",") if name.strip() != "owner") or None


def _without_null_joins(node: Any) -> Any:
    """A filter with every `join: null` left out (the `search_null_join_absent` variant
    reads a null join as an absent one, so as `and`)."""
    if isinstance(node, dict):
        return {
            key: _without_null_joins(value)
            for key, value in node.items()
            if not (key == "join" and value is None)
        }
    if isinstance(node, list):
        return [_without_null_joins(item) for item in node]
    return node


@routes.post("/v1/contacts/search", scopes=("contacts:read",))
def search_contacts(call: Call) -> Reply:
    body = call.json()
    allowed: tuple[str, ...] = BODY_KEYS
    if call.settings.has_fault("search_unknown_keys_ignored") and isinstance(body, dict):
        allowed = (*BODY_KEYS, *body)
    fields = BodyFields(body, allowed=allowed)
    q = fields.string("q", max_length=500)
    problems: list[Problem] = list(fields.problems)  # "`detail` lists each": all at once
    read = fields.body
    if call.settings.has_fault("search_sort_ignored") and isinstance(read, dict):
        read = {key: value for key, value in read.items() if key != "sort"}
    if call.settings.has_fault("search_cursor_ignored") and isinstance(read, dict):
        read = {key: value for key, value in read.items() if key != "cursor"}
    if call.settings.has_fault("search_unknown_fields_ignored") and isinstance(read, dict):
        read = {**read, "fields": _known_fields(read.get("fields"))}
    if call.settings.has_fault("search_expands_owner") and isinstance(read, dict):
        read = {**read, "expand": _without_owner(read.get("expand"))}
    try:
        params = parse_params(contacts.SPEC, read, settings=call.settings, in_body=True)
    except ApiError as error:
        if error.code != "validation_failed" or not error.detail:
            raise
        problems += error.detail
        params = parse_params(contacts.SPEC, {}, settings=call.settings, in_body=True)
    if call.settings.has_fault("search_ignores_expand"):
        params = replace(params, expand=())
    with call.transaction() as tx:
        custom = {d["key"] for d in field_definitions.definitions(tx, call.workspace, "contact")}
        matcher: Matcher = lambda _: True  # noqa: E731  # the typed default of a chain
        found = fields.body.get("filter")
        if call.settings.has_variant("search_equals_only"):
            _refuse_other_operators(found, "filter")
        if found is not None and call.settings.has_variant("search_null_join_absent"):
            found = _without_null_joins(found)
        if found is not None:
            matcher = _compile(found, "filter", 1, custom, problems, [0], call.settings)
        if problems:
            raise validation_failed(problems)
        text = _free_text(q, call.settings) if q else None
        pool = tx.all(call.workspace, "contact")
        if text is not None and call.settings.has_fault("search_q_all_workspaces"):
            # free text served from one index shared by every workspace
            pool = [row for each in tx.workspaces() for row in tx.all(each, "contact")]
        blind = call.settings.has_fault("search_ignores_visibility")  # one index for all
        rows = [
            row
            for row in pool
            if (blind or call.sees(row)) and matcher(row) and (text is None or text(row))
        ]
        if text is not None and call.settings.has_fault("search_q_joins_tags"):
            rows = [row for row in rows for _ in row.get("tags") or (None,)]  # one per tag
        identity: dict[str, Any] = {"search": {"filter": fields.body.get("filter"), "q": q}}
        if call.settings.has_fault("search_cursor_keyed_as_the_list"):
            identity = {"filters": {}, "since": dict.fromkeys(SINCE_FILTERS)}  # the list's
        return call.list_reply(
            contacts.SPEC,
            rows,
            params,
            identity,
            lambda r: _rendered(tx, call, r, params.expand, params.fields),
        )


def _rendered(
    tx: Transaction,
    call: Call,
    record: Record,
    expand: tuple[str, ...],
    fields: tuple[str, ...] | None,
) -> dict[str, Any]:
    """A contact found, rendered as the list renders it (under its fault, search's own
    projection keeps only the `fields` named, `id` too unless named)."""
    rendered = contacts.render(tx, call.workspace, record, expand, call.settings)
    if fields and "id" not in fields and call.settings.has_fault("search_fields_drop_id"):
        del rendered["id"]
    if call.settings.has_fault("search_renders_without_custom_fields"):
        del rendered["custom_fields"]
    if call.settings.has_fault("lost_reason_missing_on_search"):
        rendered["lost_reason"] = None
    return rendered
