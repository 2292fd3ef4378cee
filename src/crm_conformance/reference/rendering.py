"""What an answer looks like on the wire: a reply rendered as JSON (or no content), the
changes the server's variants and faults make to every body, and the error envelope.

Routing decides which handler answers and with what reply; this module only renders
it, so the shapes a variant or a fault gives every answer live in one place.
"""

import json
import re
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Protocol

from starlette.datastructures import QueryParams
from starlette.responses import Response

from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.clock import parse_instant
from crm_conformance.reference.identifiers import RENDERED_PREFIX_FAULTS, rendered_with_prefix
from crm_conformance.reference.owners import OWNER_FAULTS, owners_rendered
from crm_conformance.reference.reply import EncodedJson, Reply, compact
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Record


def stored(row: Record, kind: str, *keys: str, **computed: Any) -> dict[str, Any]:
    """The object of kind `kind` that shows `row` as stored: its id, `object`, then `keys`
    in order, then `computed` (fields derived at read time). The shape of every resource
    whose fields are its stored values, so that each is declared by its names alone."""
    return {"id": row["id"], "object": kind, **{key: row[key] for key in keys}, **computed}


class Answered(Protocol):
    """What rendering reads of the call it answers (`routing.Call` has it)."""

    settings: ServerSettings
    narrowed: bool
    query: QueryParams
    method: str
    raw_body: bytes


def render(reply: Reply, call: Answered) -> Response:
    """The HTTP response of a reply (JSON, or no content)."""
    if reply.body is None:
        return Response(status_code=reply.status, headers=reply.headers)
    body = reply.body
    shapers = _body_shapers(call)
    if shapers and isinstance(body, EncodedJson):
        body = body.decoded()
    for shape in shapers:
        body = shape(body)
    return json_response(body, reply.status, reply.headers, call.settings)


def _body_shapers(call: Answered) -> list[Callable[[Any], Any]]:
    """What the call's variants and faults change in every answer's body, in order."""
    settings = call.settings
    shapers: list[Callable[[Any], Any]] = []
    if settings.has_variant("extra_response_fields") and not call.narrowed:
        shapers.append(_with_livemode)
    if settings.has_fault("custom_fields_omit_unset"):
        shapers.append(_without_unset_custom_fields)
    for kind in ("deal", "organization"):
        if settings.has_fault(f"{kind}_custom_fields_omit_unset"):
            shapers.append(partial(_without_unset_custom_fields, kind=kind))
    if settings.has_fault("contact_updated_at_epoch"):
        shapers.append(_with_epoch_updated_at)
    for fault, (right, wrong) in RENDERED_PREFIX_FAULTS.items():
        if settings.has_fault(fault):
            shapers.append(partial(rendered_with_prefix, right=right, wrong=wrong))
    for fault, change in OWNER_FAULTS.items():
        if settings.has_fault(fault):
            shapers.append(partial(owners_rendered, change=change))
    if settings.has_fault("contact_tags_without_color"):
        shapers.append(_contact_tags_without_color)
    if settings.has_variant("omit_null_optional_fields") and not call.narrowed:
        shapers.append(_without_null_optional_fields)
    if settings.has_variant("offset_timestamps"):
        shapers.append(_with_offset_timestamps)
    if settings.has_variant("user_roles_beyond_examples"):
        shapers.append(_with_other_roles)
    if settings.has_variant("owner_null_when_unowned") and not call.narrowed:
        shapers.append(
            partial(_with_null, field="owner", objects=("contact", "deal", "organization"))
        )
    if (
        settings.has_variant("organization_null_when_unlinked")
        and not call.narrowed
        and "organization" in _expanded(call)
    ):
        shapers.append(partial(_with_null, field="organization", objects=("contact", "deal")))
    return shapers


def _with_other_roles(value: Any) -> Any:
    """The `user_roles_beyond_examples` variant: members are `sales_rep`s (roles beyond
    the example `admin` are not shown)."""
    if isinstance(value, dict):
        changed = {k: _with_other_roles(v) for k, v in value.items()}
        if value.get("object") == "user" and value.get("role") == "member":
            changed["role"] = "sales_rep"
        return changed
    if isinstance(value, list):
        return [_with_other_roles(item) for item in value]
    return value


def _expanded(call: Answered) -> set[str]:
    """The relationships the request asked to expand (query, or a search body)."""
    raw = call.query.get("expand")
    if raw is None and call.method == "POST" and call.raw_body.strip():
        try:
            body = json.loads(call.raw_body)
        except ValueError:
            body = None
        raw = body.get("expand") if isinstance(body, dict) else None
    return {name.strip() for name in raw.split(",")} if isinstance(raw, str) else set()


def _with_null(value: Any, field: str, objects: tuple[str, ...]) -> Any:
    """`field: null` on every object of those kinds that leaves it out."""
    if isinstance(value, dict):
        filled = {k: _with_null(v, field, objects) for k, v in value.items()}
        if value.get("object") in objects and field not in filled:
            filled[field] = None
        return filled
    if isinstance(value, list):
        return [_with_null(item, field, objects) for item in value]
    return value


def json_response(
    body: Any,
    status: int,
    headers: Mapping[str, str],
    settings: ServerSettings,
    *,
    media_type: str = "application/json",
) -> Response:
    """A JSON answer: compact `application/json` unless a variant shapes it otherwise."""
    charset = "; charset=utf-8" if settings.has_variant("charset_utf8") else ""
    if settings.has_variant("pretty_json"):
        text = json.dumps(body.decoded() if isinstance(body, EncodedJson) else body, indent=2)
    else:
        text = body.text if isinstance(body, EncodedJson) else compact(body)
    return Response(
        text,
        status_code=status,
        headers=dict(headers),
        media_type=media_type + charset,
    )


DOCUMENTED_ALWAYS_PRESENT = {
    "contact": ("id", "object", "status", "visibility", "created_at", "updated_at"),
    "deal": (
        "id", "object", "pipeline_id", "stage_id", "title", "visibility", "created_at",
        "updated_at",
    ),
}  # fmt: skip
"""The document's "Always present" lists of a contact and a deal."""

_ALWAYS_PRESENT = {
    "contact": frozenset(DOCUMENTED_ALWAYS_PRESENT["contact"]),
    "deal": frozenset(DOCUMENTED_ALWAYS_PRESENT["deal"]) | {"probability"},
}
"""Fields a contact or deal always carries, plus deal `probability`, whose null has a
meaning (the stage default)."""


def _without_null_optional_fields(value: Any) -> Any:
    if isinstance(value, dict):
        kept = _ALWAYS_PRESENT.get(value.get("object", ""))
        return {
            k: _without_null_optional_fields(v)
            for k, v in value.items()
            if kept is None or k in kept or v is not None
        }
    if isinstance(value, list):
        return [_without_null_optional_fields(item) for item in value]
    return value


_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def _with_offset_timestamps(value: Any) -> Any:
    """`2026-01-02T03:04:05.000006Z` as `2026-01-02T03:04:05.000006+00:00`: the same instant."""
    if isinstance(value, str) and _STAMP.fullmatch(value):
        return value[:-1] + "+00:00"
    if isinstance(value, dict):
        return {k: _with_offset_timestamps(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_offset_timestamps(item) for item in value]
    return value


def _with_livemode(value: Any) -> Any:
    if isinstance(value, dict):
        extra = {"livemode": False} if "object" in value else {}
        return {**{k: _with_livemode(v) for k, v in value.items()}, **extra}
    if isinstance(value, list):
        return [_with_livemode(item) for item in value]
    return value


def _without_unset_custom_fields(value: Any, kind: str | None = None) -> Any:
    """Faults: unset custom fields left out (of every object, or of `kind`'s only)."""
    if isinstance(value, dict):
        own = kind is None or value.get("object") == kind
        return {
            k: {f: v for f, v in item.items() if v is not None}
            if k == "custom_fields" and isinstance(item, dict) and own
            else _without_unset_custom_fields(item, kind)
            for k, item in value.items()
        }
    if isinstance(value, list):
        return [_without_unset_custom_fields(item, kind) for item in value]
    return value


def _with_epoch_updated_at(value: Any) -> Any:
    """The fault `contact_updated_at_epoch`: a contact's updated_at in Unix seconds."""
    if isinstance(value, dict):
        changed = {k: _with_epoch_updated_at(v) for k, v in value.items()}
        stamp = value.get("updated_at") if value.get("object") == "contact" else None
        instant = parse_instant(stamp) if isinstance(stamp, str) else None
        if instant is not None:
            changed["updated_at"] = int(instant.timestamp())
        return changed
    if isinstance(value, list):
        return [_with_epoch_updated_at(item) for item in value]
    return value


def _contact_tags_without_color(value: Any) -> Any:
    """The fault `contact_tags_without_color`: the tags a contact embeds lose `color`."""
    if isinstance(value, dict):
        changed = {k: _contact_tags_without_color(v) for k, v in value.items()}
        if value.get("object") == "contact" and isinstance(value.get("tags"), list):
            changed["tags"] = [
                {k: v for k, v in tag.items() if k != "color"} if isinstance(tag, dict) else tag
                for tag in value["tags"]
            ]
        return changed
    if isinstance(value, list):
        return [_contact_tags_without_color(item) for item in value]
    return value


def error_response(error: ApiError, request_id: str, settings: ServerSettings) -> Response:
    """The envelope of `error` as a response."""
    error, body = error_envelope(error, request_id, settings)
    problem = settings.has_variant("problem_json_errors")
    media_type = "application/problem+json" if problem else "application/json"
    return json_response(body, error.status, error.headers, settings, media_type=media_type)


def error_envelope(
    error: ApiError, request_id: str, settings: ServerSettings
) -> tuple[ApiError, dict[str, Any]]:
    """The error as answered (a fault or variant may recast it) and its envelope."""
    if (
        settings.has_fault("query_errors_answer_422")
        and error.status == 400
        and error.code == "validation_failed"
    ):
        error = ApiError(422, error.code, error.message, param=error.param, detail=error.detail)
    if settings.has_variant("unknown_keys_bad_request") and _only_unknown_keys(error):
        error = ApiError(400, "bad_request", "The body has keys this operation does not take.")
    body = error.body(None if settings.has_fault("missing_request_id_on_errors") else request_id)
    if settings.has_fault("param_names_the_location") and error.code == "validation_failed":
        body["error"]["param"] = "body" if error.status == 422 else "query"
    if settings.has_fault("error_type_wrong") and error.status == 404:
        body["error"]["type"] = "api_error"
    if settings.has_fault("validation_typed_validation_error") and error.status == 422:
        body["error"]["type"] = "validation_error"  # a type of its own for field problems
    if settings.has_fault("validation_message_null") and error.code == "validation_failed":
        body["error"]["message"] = None  # "the detail items carry the messages"
    detail = body["error"]["detail"]
    if settings.has_fault("detail_lists_first_problem") and detail:
        body["error"]["detail"] = detail[:1]  # validation stops at the first bad field
    if settings.has_fault("detail_field_last_key") and detail:
        for item in body["error"]["detail"]:
            item["field"] = item["field"].rsplit(".", 1)[-1]  # the key, not its path
    if settings.has_variant("forbidden_typed_authentication") and error.status == 403:
        body["error"]["type"] = "authentication_error"  # one type for every token refusal
    if settings.has_variant("coarse_error_types") and error.status in (401, 403, 404, 409):
        body["error"]["type"] = "invalid_request_error"  # Stripe-style: one type for 4xx
    if settings.has_variant("reworded_messages"):
        body["error"]["message"] = f"Request refused ({error.code}): {error.message}"
        body["error"]["documentation_url"] = f"https://docs.example.test/errors/{error.code}"
    if settings.has_variant("pydantic_detail_codes") and body["error"]["detail"]:
        for item in body["error"]["detail"]:
            item["code"] = PYDANTIC_CODES.get(item["code"], f"value_error.{item['code']}")
    if settings.has_variant("empty_detail_array") and body["error"]["detail"] is None:
        body["error"]["detail"] = []
    return error, body


PYDANTIC_CODES = {
    "missing": "missing",
    "too_long": "string_too_long",
    "too_short": "string_too_short",
    "type": "type_error",
    "enum": "enum",
    "pattern": "string_pattern_mismatch",
    "unknown_field": "extra_forbidden",
}
"""The `pydantic_detail_codes` variant: field-level codes as pydantic names them ("The
full list of field-level codes: not shown"); others become `value_error.<code>`."""


def _only_unknown_keys(error: ApiError) -> bool:
    """Whether `error` refuses a body for its unknown keys alone."""
    return (
        error.status == 422
        and bool(error.detail)
        and all(problem.code == "unknown_field" for problem in error.detail or ())
    )
