"""Expectations on the parts of a record other records show: its Owner, the organization
embedded in it, its custom fields. Each names the table the document gives the part,
so that every read path that renders it is held to the one shape."""

from collections.abc import Collection, Mapping
from typing import Any

import httpx

from crm_conformance.core.verdicts.evidence import checks_predicate, checks_requirement
from crm_conformance.steps.expect import (
    expect_identifier,
    expect_true,
    expect_type_or_null,
    expect_value,
)


@checks_predicate
def expect_unset_custom_fields(
    response: httpx.Response | None,
    req_id: str,
    record: Mapping[str, Any],
    keys: Collection[str],
) -> None:
    """ "Every custom field defined for that resource in the workspace appears; an unset
    one is null": `record` (made with none set) has `custom_fields`, an object holding
    each of `keys` as null."""
    custom = record.get("custom_fields")
    wrong = (
        {key: custom.get(key, "(absent)") for key in keys if custom.get(key, "") is not None}
        if isinstance(custom, Mapping)
        else custom
    )
    expect_true(
        response,
        req_id,
        isinstance(custom, Mapping) and not wrong,
        expected=f"custom_fields with every field ({', '.join(keys)}) present and null",
        got=f"custom_fields = {custom!r}" if not isinstance(custom, Mapping) else f"{wrong!r}",
    )


@checks_predicate
def expect_owner(
    response: httpx.Response | None,
    req_id: str,
    record: Mapping[str, Any],
    field: str,
    user_id: str,
    *,
    kind_req: str = "IDN-019",
    object_req: str = "IDN-021",
) -> None:
    """`record[field]` is the Owner of teammate `user_id`: `{id, kind: user, name, object:
    owner}` (the Owner table); a failure of its kind or object names `kind_req` or
    `object_req`, of its `usr_` id IDN-018, of `name` (string or null) IDN-020."""
    owner = record.get(field)
    expect_true(
        response,
        req_id,
        isinstance(owner, Mapping) and owner.get("id") == user_id,
        expected=f"{field} an Owner with id {user_id}",
        got=f"{field} = {owner!r}",
    )
    assert isinstance(owner, Mapping)
    expect_identifier(response, "IDN-018", owner, "id", "usr_")
    expect_value(response, object_req, f"{field}.object", got=owner.get("object"), expected="owner")
    expect_value(response, kind_req, f"{field}.kind", got=owner.get("kind"), expected="user")
    expect_type_or_null(response, "IDN-020", owner, "name", str, "a string")


@checks_requirement
def expect_organization(
    response: httpx.Response,
    req_id: str,
    record: Mapping[str, Any],
    organization_id: str | None,
) -> dict[str, Any] | None:
    """ "`organization`: present only when `organization` is in `expand`": with an id
    (the request expanded it), the embedded organization record of that id; with None
    (it did not), no organization object (absent, or null)."""
    embedded = record.get("organization")
    if organization_id is None:
        expect_true(
            response,
            req_id,
            embedded is None,
            expected="no organization object without expand=organization",
            got=f"organization = {embedded!r}",
        )
        return None
    expect_true(
        response,
        req_id,
        isinstance(embedded, Mapping)
        and embedded.get("id") == organization_id
        and embedded.get("object") == "organization",
        expected=f"organization the record {organization_id} (object organization) when expanded",
        got=f"organization = {embedded!r}",
    )
    assert isinstance(embedded, dict)
    return embedded


def expect_embedded_as_made(
    response: httpx.Response | None,
    req_id: str,
    embedded: Mapping[str, Any],
    organization: Mapping[str, Any],
) -> None:
    """The organization "as embedded in a contact or deal" shows the fields of its list
    that do not change when a record is linked, as it was rendered when made (a target
    may normalize a website, so the made rendering is the reference)."""
    for name in ("name", "visibility", "website", "external_id"):
        got, made = embedded.get(name), organization.get(name)
        expect_value(response, req_id, f"organization.{name}", got=got, expected=made)
