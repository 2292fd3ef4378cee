"""Identifiers and objects: id prefixes and formats, owners, the "Always present" fields."""

import functools
import json
import re
from typing import Any

import httpx

from crm_conformance.core.verdicts.checks.body import (
    NO_BODY,
    api_path,
    failed,
    first_five,
    parsed_json,
    shorten,
)
from crm_conformance.core.verdicts.checks.registry import Evaluated, check

OBJECT_PREFIXES: dict[str, tuple[str, ...]] = {
    "conversation": ("conv_",),
    "contact": ("con_",),
    "organization": ("org_",),
    "deal": ("deal_",),
    "activity": ("act_",),
    "tag": ("tag_",),
    "user": ("usr_",),
    "audience": ("aud_",),
    "campaign": ("camp_",),
    "owner": ("usr_", "agt_"),
}
"""`id` prefix of each documented `object` (identifier table; Owner: usr_ or agt_)."""

FIELD_PREFIXES: dict[str, tuple[str, ...]] = {
    "contact_id": ("con_",),
    "organization_id": ("org_",),
    "owner_id": ("usr_",),
    "assignee_id": ("usr_",),
    "pipeline_id": ("pipe_",),
    "stage_id": ("stg_",),
    "lost_reason_id": ("lrsn_",),
    "channel_id": ("chn_",),
    "campaign_id": ("camp_",),
    "record_id": ("con_", "org_", "deal_"),
}
"""`*_id` fields the resource tables type with a prefix."""

_DOCUMENTED_OBJECTS = frozenset(OBJECT_PREFIXES) | {"campaign_stats"}
_HEX32 = re.compile(r"^[0-9a-f]{32}$")


def walk_resources(value: Any) -> list[dict[str, Any]]:
    """Every object carrying a documented `object` value, however deeply embedded, in
    document order.

    `custom_fields` is not entered: its keys are the workspace's own, so a custom field
    called `partner_id` says nothing about identifier formats.
    """
    found: list[dict[str, Any]] = []
    _walk(value, found)
    return found


def _walk(value: Any, found: list[dict[str, Any]]) -> None:
    if isinstance(value, dict):
        kind = value.get("object")
        if isinstance(kind, str) and kind in _DOCUMENTED_OBJECTS:  # a list is no kind
            found.append(value)
        for key, item in value.items():
            if key != "custom_fields" and isinstance(item, dict | list):
                _walk(item, found)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list):
                _walk(item, found)


def resources_of(response: httpx.Response) -> list[dict[str, Any]]:
    """`walk_resources` of the answer's body, walked once for every check that reads it
    (four of them run on each answer); read, never changed."""
    return _resources(response.content) if response.content else []


@functools.lru_cache(maxsize=4)
def _resources(content: bytes) -> list[dict[str, Any]]:
    body = parsed_json(content)
    return [] if body is NO_BODY else walk_resources(body)


PREFIX_REQUIREMENTS: dict[str, str] = {
    "conv_": "IDN-004",
    "chn_": "IDN-005",
    "con_": "IDN-006",
    "org_": "IDN-007",
    "usr_": "IDN-008",
    "deal_": "IDN-010",
    "pipe_": "IDN-011",
    "stg_": "IDN-012",
    "lrsn_": "IDN-013",
    "tag_": "IDN-014",
    "act_": "IDN-015",
    "camp_": "IDN-016",
    "aud_": "IDN-017",
}
"""The identifier table's row of each prefix (`agt_`'s, IDN-009, no test can reach): an
id whose form is right but whose prefix is another kind's breaks that row."""


def _id_problem(where: str, value: Any, prefixes: tuple[str, ...]) -> tuple[str, str] | None:
    """None for a well-formed id of one of `prefixes`; else the requirement it breaks
    (its kind's row when only the prefix is wrong, the format's otherwise) and why."""
    if isinstance(value, str):
        for prefix in prefixes:
            if value.startswith(prefix) and _HEX32.match(value[len(prefix) :]):
                return None
    why = f"{where} = {shorten(value)} (expected {' or '.join(prefixes)} + 32 lowercase hex)"
    head, underscore, tail = value.partition("_") if isinstance(value, str) else ("", "", "")
    wrong_prefix = bool(underscore and head and _HEX32.match(tail))
    if wrong_prefix and len(prefixes) == 1 and prefixes[0] in PREFIX_REQUIREMENTS:
        return PREFIX_REQUIREMENTS[prefixes[0]], why
    return "IDN-001", why


@check("IDN-001", *sorted(set(PREFIX_REQUIREMENTS.values())))
def identifier_formats(response: httpx.Response) -> Evaluated:
    """Conventions: an identifier is "Prefix, underscore, 32 lowercase hex characters",
    with the prefix of its kind (identifier table).

    Checked on the `id` of every documented resource in a 2xx body (Owner: `usr_` for
    `kind: user`, `agt_` for `kind: agent`) and on the prefixed `*_id` fields of those
    resources. Null `*_id` values are allowed (e.g. a conversation's `contact_id`).
    Resources whose fields are "not shown" (pipelines, deleted records, ...) are skipped.
    """
    if not 200 <= response.status_code < 300:
        return False
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    for resource in resources_of(response):
        kind = resource["object"]
        values: list[tuple[str, Any, tuple[str, ...]]] = []
        if kind in OBJECT_PREFIXES and "id" in resource:
            prefixes = OBJECT_PREFIXES[kind]
            if kind == "owner" and resource.get("kind") in ("user", "agent"):
                prefixes = ("usr_",) if resource["kind"] == "user" else ("agt_",)
            values.append((f"{kind}.id", resource["id"], prefixes))
        values += [
            (f"{kind}.{field}", resource[field], prefixes)
            for field, prefixes in FIELD_PREFIXES.items()
            if resource.get(field) is not None
        ]
        for where, value, prefixes in values:
            problem = _id_problem(where, value, prefixes)
            if problem:
                problems.append(problem)
            seen |= _rows_read(value, prefixes)
    if problems:
        # Charged to the first problem's rule: a kind's prefix row when only the prefix
        # is wrong (a deal id reading `dl_...` breaks "deal | `deal_`"), else the format.
        raise failed(
            problems[0][0],
            response,
            expected="identifiers of the form <prefix>_<32 lowercase hex> with their kind's prefix",
            got=first_five([why for _, why in problems]),
        )
    return frozenset(seen)


def _rows_read(value: Any, prefixes: tuple[str, ...]) -> set[str]:
    """The identifier rules a well-formed `value` verified: the format (IDN-001) and, for
    an id of one kind, that kind's prefix row; nothing for a value that is no id."""
    if not isinstance(value, str):
        return set()
    prefix = next((p for p in prefixes if value.startswith(p)), None)
    if prefix is None:
        return set()
    row = PREFIX_REQUIREMENTS.get(prefix)
    return {"IDN-001", row} if row and len(prefixes) == 1 else {"IDN-001"}


OWNER_FIELDS: dict[str, tuple[str, ...]] = {
    "contact": ("owner",),
    "organization": ("owner",),
    "deal": ("owner",),
    "activity": ("assignee", "created_by"),
    "conversation": ("handler",),
}
"""The fields each resource types Owner (or Owner or null), by the resource's `object`."""

OWNER_KINDS: dict[str, tuple[str, ...]] = {"user": ("usr_",), "agent": ("agt_",)}
"""Owner `kind` -> the prefix of its `id` ("`usr_...` for a teammate, `agt_...` for an agent")."""


def _owner_problems(where: str, owner: Any) -> list[tuple[str, str]]:
    """(requirement, problem) for each way `owner` is not an Owner `{id, kind, name, object}`."""
    if not isinstance(owner, dict):
        return [("IDN-021", f"{where} = {shorten(owner)} (not an Owner object)")]
    problems = []
    if owner.get("object") != "owner":
        problems.append(("IDN-021", f"{where}.object = {shorten(owner.get('object'))}"))
    kind = owner.get("kind")
    if kind not in OWNER_KINDS:
        problems.append(("IDN-019", f"{where}.kind = {shorten(kind)} (not user or agent)"))
    prefixes = OWNER_KINDS.get(str(kind), ("usr_", "agt_"))
    id_problem = _id_problem(f"{where}.id", owner.get("id"), prefixes)
    if id_problem:
        problems.append(("IDN-018", id_problem[1]))
    if owner.get("name") is not None and not isinstance(owner["name"], str):
        problems.append(("IDN-020", f"{where}.name = {shorten(owner['name'])} (not a string)"))
    return problems


@check("IDN-021", "IDN-019", "IDN-018", "IDN-020")
def owners(response: httpx.Response) -> Evaluated:
    """The Owner table: every field a resource types Owner (`OWNER_FIELDS`) holds, where
    present and not null, `object: owner`, a `kind` of `user` or `agent`, an `id` of that
    kind's prefix, and a `name` that is a string or null (absent is read as null).

    Checked in every 2xx body, wherever the resource is embedded; the failure names the
    requirement of the first problem found.
    """
    if not 200 <= response.status_code < 300:
        return False
    present = [
        (f"{resource['object']}.{field}", resource[field])
        for resource in resources_of(response)
        for field in OWNER_FIELDS.get(resource["object"], ())
        if resource.get(field) is not None
    ]
    problems = [problem for where, owner in present for problem in _owner_problems(where, owner)]
    if problems:
        raise failed(
            problems[0][0],
            response,
            expected="Owner objects {id: usr_/agt_ id, kind: user or agent, name, object: owner}",
            got=first_five([text for _, text in problems]),
        )
    return bool(present)


ALWAYS_PRESENT: dict[str, tuple[str, tuple[str, ...]]] = {
    "contact": ("CON-003", ("id", "object", "status", "visibility", "created_at", "updated_at")),
    "deal": (
        "DEAL-002",
        (
            "id",
            "object",
            "pipeline_id",
            "stage_id",
            "title",
            "visibility",
            "created_at",
            "updated_at",
        ),
    ),
}
"""Resource `object` -> (requirement, the fields its "Always present: ..." sentence lists)."""


DOCUMENTED_RENDERINGS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (method, re.compile(pattern))
    for method, pattern in (
        ("GET", r"/v1/contacts"),
        ("GET", r"/v1/contacts/[^/]+"),
        ("POST", r"/v1/contacts/search"),
        ("POST", r"/v1/deals"),
    )
)
"""Operations whose answer the document shows as a Contact or Deal (or a collection of
Contact). Other answers may carry an `object` of `contact` or `deal` in a shape the
document does not show (a deletion feed item `{id, object, deleted}`, an upsert result),
where "Always present" says nothing."""


def renders_records(request: httpx.Request) -> bool:
    """Whether the document shows the answer to `request` as Contacts or a Deal."""
    path = api_path(request)
    return any(
        request.method == method and pattern.fullmatch(path)
        for method, pattern in DOCUMENTED_RENDERINGS
    )


def _request_param(request: httpx.Request, name: str) -> Any:
    """A query parameter of the request, or else a key of its JSON body (search)."""
    if name in request.url.params:
        return request.url.params.get(name)
    if request.content:
        try:
            body = json.loads(request.content)
        except ValueError:
            return None
        return body.get(name) if isinstance(body, dict) else None
    return None


@check("CON-003", "DEAL-002")
def always_present_fields(response: httpx.Response) -> Evaluated:
    """Contact and Deal: "Always present: `id`, `object`, `status`, ...".

    Keys, not values: a present key may hold null where the type allows it. Only on the
    answers the document shows as Contacts or a Deal (`renders_records`). Skipped when
    the request sent `fields`, which narrows a read to `id`, `object` and the names given
    (and may carry `object` and `id` alone), an empty list of names included: "field
    names to return" read as none but the two always included is a legal reading of
    `fields=` (blind set G's). The spec's schemas cannot see the request, so this rule
    lives here and not in `required`.
    """
    if (
        not 200 <= response.status_code < 300
        or not renders_records(response.request)
        or _request_param(response.request, "fields") is not None
    ):
        return False
    seen: set[str] = set()
    for resource in resources_of(response):
        rule = ALWAYS_PRESENT.get(resource["object"])
        if rule is None:
            continue
        req_id, names = rule
        seen.add(req_id)
        missing = [name for name in names if name not in resource]
        if missing:
            raise failed(
                req_id,
                response,
                expected=f"every {resource['object']} carries {', '.join(names)}",
                got=f"{resource['object']} {shorten(resource.get('id'))} lacks "
                f"{', '.join(missing)}",
            )
    return frozenset(seen)


E164 = re.compile(r"\+[1-9][0-9]{1,14}")
"""E.164 as written: `+`, a country code that does not start with 0, at most 15 digits."""


@check("CON-009")
def phones_in_e164(response: httpx.Response) -> Evaluated:
    """Contact: `phone` is "E.164, normalized on write", so a phone a contact shows,
    wherever it is rendered (a write's answer, a read, a list, a search, a contact inside
    another answer), is in E.164: a write that took `+4420…` with spaces, or words, or a
    16th digit, stored something no E.164 number is. Null, and an empty string, are no
    phone: what a write of "" does is the target's (`DOUBTFUL` in the field rules)."""
    if not 200 <= response.status_code < 300:
        return False
    seen = False
    for resource in resources_of(response):
        phone = resource.get("phone") if resource["object"] == "contact" else None
        if phone is None or phone == "":
            continue
        seen = True
        if not isinstance(phone, str) or not E164.fullmatch(phone):
            raise failed(
                "CON-009",
                response,
                expected="a contact's phone in E.164 (+, at most 15 digits, the first not 0)",
                got=f"contact {shorten(resource.get('id'))} phone {shorten(phone)}",
            )
    return seen
