"""Conventions: what the target chose where the document says "not shown" and a test
needs a name, a path, a value or a body.

The target file's `[conventions]` table gives them (the reference server writes its own
with `crm-conformance serve --target-out`; `examples/target.toml` documents every key).
A test that needs one the file does not give is skipped with the key to add; it never
guesses. `KEYS` is the one list of what the suites read, each with what it means and
what it holds, so the example file and the reference's target file can be checked
against it.

Values are strings. Three kinds are read here rather than as plain names:

- a *path* holds `{name}` placeholders filled with ids (`fill_path`);
- a *body* is JSON text whose members may be `"{name}"` placeholders, each replaced by a
  value of any JSON type, or left out when the value is `OMIT` (`fill_body`);
- a *query* is `name=value&...` text, never sent with an empty value (`query_pairs`).
"""

import json
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

Lookup = Callable[[str], str]
"""`convention(key)`: the target's value, or a skip naming the key to add."""

OMIT: Any = object()
"""A body placeholder's value meaning "leave this member out"."""


@dataclass(frozen=True)
class Key:
    """A convention the suites read: its key and what it holds."""

    key: str
    holds: str


UPDATED = ("contact", "organization", "deal", "activity", "tag")
"""The resources whose update operation the target file may name ("Update ... operations
of other resources: not shown"): the records, and a tag (its name and colour)."""

CREATED = ("contact", "organization")
"""The resources whose create the target file may name: "Contact create and update
bodies: not shown", and an organization's fields "outside its embedded form: not shown"
(the creates of deals, activities and tags are shown)."""

DELETED = UPDATED
"""The resources whose delete the target file may name ("Update, delete and retrieve
operations of other resources: not shown"; "`write` covers create, update and delete"):
the records and a tag. A delete is a `DELETE` at the record's own path, as the document's
other operations name their method and path."""

RETRIEVED = ("organization", "deal", "activity", "tag", "conversation", "campaign")
"""The resources whose retrieve the target file may name (the contact's is shown):
"Update, delete and retrieve operations of other resources: not shown"."""

LISTED = ("organization", "deal", "activity", "tag", "conversation", "campaign")
"""The resources whose list the target file may name. The document shows the lists of
contacts, users and audiences only, yet "Changes to records are read by listing each
resource with the `updated_since` filter", and the common query parameters are those "of
reads": a list the target offers is held to them."""

SYNCED = ("organization", "deal", "activity")
"""The listed resources that are records (the deletion feed's resources besides
contacts): their lists take `updated_since`."""

KEYS: tuple[Key, ...] = (
    Key("tag_catalogue_field", "the body field of POST /v1/tags that picks the catalogue"),
    Key("created_since_param", 'the query name of the contact list\'s "created since" filter'),
    *(
        Key(f"contact_filters.{name}", f"the query name of the contact list's {name} filter")
        for name in ("status", "score", "email", "owner_id", "organization_id", "external_id")
    ),
    Key("deleted_records_entity_param", "the query name choosing the resource the feed lists"),
    *(
        Key(
            f"deleted_records_values.{resource}",
            f"the value of that parameter naming {resource}",
        )
        for resource in ("contacts", "organizations", "deals", "activities")
    ),
    Key("fields_query", "the query GET /v1/fields needs (name=value&...)"),
    Key("upsert.body", "a JSON body of POST /v1/contacts/upsert, with {external_id} {phone}"),
    *(
        Key(f"conversation_moves.{move}_{part}", f"the {part} of the {move} operation")
        for move in ("handoff", "assign", "resume")
        for part in ("path", "body")
    ),
    Key("campaigns.resume_path", "the path resuming a campaign, with {campaign_id}"),
    *(
        Key(f"expand.{kind}", f"every relationship expand takes on a {kind}, comma-separated")
        for kind in ("contact", "deal")
    ),
    Key("activities.cancel_method", "the HTTP method canceling an activity"),
    Key("activities.cancel_path", "the path canceling an activity, with {activity_id}"),
    Key("activities.cancel_body", "its JSON body (null: none)"),
    Key("success_events.create_path", "the path recording a success event"),
    Key("success_events.create_body", "its JSON body, with {code} and {value}"),
    Key("success_events.reverse_path", "the path reversing an event, with {event_id}"),
    Key("success_events.retrieve_path", "the event's own path (its retrieve), with {event_id}"),
    *(
        Key(f"updates.{resource}_{part}", f"the {holds} of the {resource} update")
        for resource in UPDATED
        for part, holds in (
            ("method", "HTTP method (PATCH, PUT or POST)"),
            ("path", f"path, with {{{resource}_id}},"),
            ("body", "JSON body, with {changes} standing for the changed fields,"),
        )
    ),
    *(
        Key(f"creates.{resource}_{part}", f"the {holds} of the {resource} create (a POST)")
        for resource in CREATED
        for part, holds in (
            ("path", "path"),
            ("body", "JSON body, with {fields} standing for the record's fields,"),
        )
    ),
    *(
        Key(
            f"retrieve.{resource}_path", f"the path retrieving a {resource}, with {{{resource}_id}}"
        )
        for resource in RETRIEVED
    ),
    *(
        Key(
            f"deletes.{resource}_path",
            f"the path deleting a {resource} (DELETE), with {{{resource}_id}}",
        )
        for resource in DELETED
    ),
    *(Key(f"lists.{resource}_path", f"the path listing {resource} rows") for resource in LISTED),
    Key("notes.create_path", "the path creating a note (a POST)"),
    Key("notes.create_body", "its JSON body, with {record_id} (a contact's) and {text}"),
    Key("notes.update_method", "the HTTP method changing a note's text (PATCH, PUT or POST)"),
    Key("notes.update_path", "the path changing a note, with {note_id}"),
    Key("notes.update_body", "its JSON body, with {text}"),
    Key("notes.delete_path", "the path deleting a note (DELETE), with {note_id}"),
    Key("notes.retrieve_path", "the path retrieving a note, with {note_id}"),
    Key("notes.list_path", "the path listing notes"),
)
"""Every convention the suites read. Paths hold `{conversation_id}`, `{campaign_id}`,
`{event_id}` or a record's id (`{contact_id}`, ...); the assign body holds
`{assignee_id}`, an update body `{changes}`."""

UPDATE_METHODS = ("PATCH", "PUT", "POST")
"""The methods an update convention may name."""

_PLACEHOLDER = re.compile(r"^\{([a-z_]+)\}$")


class ConventionError(ValueError):
    """Raised when a convention's value cannot be used as the kind it is read as."""


def path(convention: Lookup, key: str, /, **ids: str) -> str:
    """The path convention `key` with its placeholders filled (see `fill_path`)."""
    return fill_path(convention(key), key, **ids)


def body(convention: Lookup, key: str, /, **values: Any) -> Any:
    """The body convention `key` with its placeholders filled (see `fill_body`)."""
    return fill_body(convention(key), key, **values)


def query(convention: Lookup, key: str) -> list[tuple[str, str]]:
    """The query convention `key` as pairs (see `query_pairs`)."""
    return query_pairs(convention(key), key)


def deletion_feed(convention: Lookup, resource: str) -> dict[str, str]:
    """The query of `GET /v1/deleted-records` listing `resource` (the scope table's name:
    `contacts`, `deals`, ...); both the parameter and its value are the target's."""
    name = convention("deleted_records_entity_param")
    return {name: convention(f"deleted_records_values.{resource}")}


@dataclass(frozen=True)
class Operation:
    """One request a convention describes: its method, filled path and filled body."""

    method: str
    path: str
    body: Any


def update(
    convention: Lookup, resource: str, record_id: str, changes: Mapping[str, Any]
) -> Operation:
    """The target's update of `resource` (one of `UPDATED`) `record_id` with `changes`
    (documented field names and values): `updates.<resource>_method`, `_path` with
    `{<resource>_id}` and `_body`, whose `"{changes}"` placeholder stands for the changed
    fields, so a server wrapping them (`{"data": "{changes}"}`) says so."""
    key = f"updates.{resource}"
    method = convention(f"{key}_method").upper()
    if method not in UPDATE_METHODS:
        raise ConventionError(
            f"conventions {key}_method = {method!r}: one of {', '.join(UPDATE_METHODS)}"
        )
    text = convention(f"{key}_body")
    if "changes" not in placeholders(text):
        raise ConventionError(
            f'conventions {key}_body = {text!r}: JSON holding "{{changes}}" where the '
            "changed fields go (the body is only them: '\"{changes}\"')"
        )
    filled = fill_path(convention(f"{key}_path"), f"{key}_path", **{f"{resource}_id": record_id})
    return Operation(method, filled, fill_body(text, f"{key}_body", changes=dict(changes)))


CANCEL_METHODS = (*UPDATE_METHODS, "DELETE")
"""The methods the activity cancel convention may name."""


def cancel(convention: Lookup, activity_id: str) -> Operation:
    """The target's cancel of activity `activity_id` ("it can be read and canceled", of the
    AI agent's resume plan; how is not shown): `activities.cancel_method`, `_path` with
    `{activity_id}` and `_body` (JSON, `null` for none)."""
    method = convention("activities.cancel_method").upper()
    if method not in CANCEL_METHODS:
        raise ConventionError(
            f"conventions activities.cancel_method = {method!r}: one of "
            + ", ".join(CANCEL_METHODS)
        )
    filled = path(convention, "activities.cancel_path", activity_id=activity_id)
    return Operation(method, filled, body(convention, "activities.cancel_body"))


def note_create(convention: Lookup, record_id: str, text: str) -> Operation:
    """The target's create of a note with `text` on the record `record_id` (a contact's):
    a POST to `notes.create_path`, whose `_body` may hold `"{record_id}"` and
    `"{text}"` (a note's fields are not shown)."""
    filled = body(convention, "notes.create_body", record_id=record_id, text=text)
    return Operation("POST", path(convention, "notes.create_path"), filled)


def note_update(convention: Lookup, note_id: str, text: str) -> Operation:
    """The target's change of note `note_id` to `text`: `notes.update_method`, `_path`
    with `{note_id}` and `_body` holding `"{text}"`."""
    method = convention("notes.update_method").upper()
    if method not in UPDATE_METHODS:
        raise ConventionError(
            f"conventions notes.update_method = {method!r}: one of {', '.join(UPDATE_METHODS)}"
        )
    filled = path(convention, "notes.update_path", note_id=note_id)
    return Operation(method, filled, body(convention, "notes.update_body", text=text))


def create(convention: Lookup, resource: str, fields: Mapping[str, Any]) -> Operation:
    """The target's create of `resource` (one of `CREATED`) with `fields` (documented
    field names and values): a POST to `creates.<resource>_path`, whose `_body` holds a
    `"{fields}"` placeholder standing for the fields, as an update's holds `{changes}`."""
    key = f"creates.{resource}"
    text = convention(f"{key}_body")
    if "fields" not in placeholders(text):
        raise ConventionError(
            f'conventions {key}_body = {text!r}: JSON holding "{{fields}}" where the '
            "record's fields go (the body is only them: '\"{fields}\"')"
        )
    filled = fill_path(convention(f"{key}_path"), f"{key}_path")
    return Operation("POST", filled, fill_body(text, f"{key}_body", fields=dict(fields)))


def fill_path(template: str, key: str, /, **ids: str) -> str:
    """`template` with each `{name}` replaced by `ids[name]`; every placeholder given."""
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    missing = sorted(names - ids.keys())
    if missing or not template.startswith("/"):
        raise ConventionError(
            f"conventions {key} = {template!r}: a path starting with / whose placeholders "
            f"are among {', '.join('{' + n + '}' for n in sorted(ids))}"
        )
    return template.format(**ids)


def fill_body(text: str, key: str, /, **values: Any) -> Any:
    """The JSON of `text` with each string member `"{name}"` replaced by `values[name]`
    (any JSON value; a member whose value is `OMIT` is left out)."""
    try:
        template = json.loads(text)
    except ValueError:
        raise ConventionError(f"conventions {key} = {text!r} is not JSON") from None

    def fill(node: Any) -> Any:
        if isinstance(node, dict):
            filled = {name: fill(item) for name, item in node.items()}
            return {name: item for name, item in filled.items() if item is not OMIT}
        if isinstance(node, list):
            return [item for item in map(fill, node) if item is not OMIT]
        match = _PLACEHOLDER.match(node) if isinstance(node, str) else None
        if match is None:
            return node
        if match.group(1) not in values:
            raise ConventionError(
                f"conventions {key}: placeholder {node} is not one of "
                f"{', '.join('{' + n + '}' for n in sorted(values))}"
            )
        return values[match.group(1)]

    return fill(template)


def placeholders(text: str) -> frozenset[str]:
    """The `{name}` placeholders a body template holds (empty when `text` is not JSON)."""
    try:
        template = json.loads(text)
    except ValueError:
        return frozenset()
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for item in node.values():
                walk(item)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, str) and (match := _PLACEHOLDER.match(node)):
            found.add(match.group(1))

    walk(template)
    return frozenset(found)


def query_pairs(text: str, key: str) -> list[tuple[str, str]]:
    """`name=value&...` as pairs; an empty value is refused ("never send a parameter with
    an empty value": a server may read `name=` as a value it must validate)."""
    pairs = parse_qsl(text, keep_blank_values=True)
    if not pairs or any(not name or not value for name, value in pairs):
        raise ConventionError(
            f"conventions {key} = {text!r}: give name=value pairs joined by &, none empty"
        )
    return pairs
