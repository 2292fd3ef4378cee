"""Tags: one catalogue per record kind (contact, organization, deal).

The body field choosing the catalogue is not shown in the document; this server calls
it `kind` (the target file's `conventions.tag_catalogue_field`). A name is unique
within its catalogue, compared without regard to case; a tag applies only to records
of its catalogue's kind.
"""

from typing import Any

from crm_conformance.reference import idempotency
from crm_conformance.reference.api_errors import ApiError, bad_query, not_found
from crm_conformance.reference.identifiers import is_id
from crm_conformance.reference.listing import ListSpec
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

CATALOGUE_FIELD = "kind"
CATALOGUES = ("contact", "organization", "deal")
DEFAULT_COLOR = "#808080"
COLOR_PATTERN = r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})"
MAX_NAME = 100

routes = RouteTable()

SPEC = ListSpec(
    name="tags",
    fields=frozenset({"name", "color", CATALOGUE_FIELD, "created_at", "updated_at"}),
    sort_keys={
        "name": lambda r: r["name"].casefold(),
        "created_at": lambda r: r["created_at"],
        "updated_at": lambda r: r["updated_at"],
    },
    default_sort=("name",),
)


def _default_color(call: Call) -> str | None:
    """Grey, or under `tag_color_null_default` none: the UI paints a tag without one grey."""
    return None if call.settings.has_variant("tag_color_null_default") else DEFAULT_COLOR


def render(tag: Record) -> dict[str, Any]:
    return {
        "id": tag["id"],
        "object": "tag",
        "name": tag["name"],
        "color": tag["color"],
        CATALOGUE_FIELD: tag["catalogue"],
        "created_at": tag["created_at"],
        "updated_at": tag["updated_at"],
    }


APPLIED_COPY = "applied_tag"
"""Where the fault `deleted_tag_kept_on_records` keeps a deleted tag, as applied."""


def render_many(tx: Transaction, workspace: str, ids: list[str] | None) -> list[dict[str, Any]]:
    """The Tag objects of `ids`, skipping any deleted since they were applied."""
    if not ids:  # most rows of a page: no generator to build
        return []
    # a tag deleted under the fault `deleted_tag_kept_on_records` is read from its copy
    tags = (
        tx.get(workspace, "tag", tag_id) or tx.get(workspace, APPLIED_COPY, tag_id)
        for tag_id in ids
    )
    # a tag renamed under the fault `tag_rename_stale_on_records` embeds its first name
    return [{**render(tag), "name": tag.get("applied_name", tag["name"])} for tag in tags if tag]


def read_ids(
    tx: Transaction,
    workspace: str,
    catalogue: str,
    fields: BodyFields,
    *,
    checked: bool = True,
    also: str | None = None,
    anywhere: bool = False,
) -> list[str] | None:
    """The `tags` of a write body: ids of tags in the catalogue of `catalogue` (of any
    catalogue when not `checked`: fault `organization_tags_any_catalogue`; of `also`'s
    too: fault `contact_takes_deal_tags`; of any workspace when `anywhere`: fault
    `contact_tags_any_workspace`)."""
    values = fields.list_of_strings("tags")
    if values is None:
        return None
    for index, tag_id in enumerate(values):
        tag = tx.get(workspace, "tag", tag_id)
        if tag is None and anywhere:
            tag = next((t for ws in tx.workspaces() if (t := tx.get(ws, "tag", tag_id))), None)
        if tag is None:
            fields.problem(f"tags.{index}", "is not a tag of this workspace", "not_found")
        elif checked and tag["catalogue"] not in (catalogue, also):
            fields.problem(
                f"tags.{index}",
                f"belongs to the {tag['catalogue']} catalogue, not {catalogue}",
                "wrong_catalogue",
            )
    return list(dict.fromkeys(values))


def _name(call: Call, fields: BodyFields, *, required: bool, bounded: bool) -> str | None:
    """A tag name of 1 to 100 characters, not blank (`bounded` False: the fault
    `tag_update_name_unbounded`, no length check)."""
    off_by_one = call.settings.has_fault("tag_name_limit_off_by_one")
    empty_ok = call.settings.has_fault("tag_empty_name_accepted")
    maximum = MAX_NAME + 1 if off_by_one else MAX_NAME
    name = fields.string(
        "name",
        required=required,
        nullable=False,
        min_length=0 if empty_ok or not bounded else 1,
        max_length=maximum if bounded else None,
    )
    if name and not name.strip():
        fields.problem("name", "must not be blank", "blank")
    if name and len(name.encode()) > MAX_NAME and call.settings.has_fault("tag_name_in_bytes"):
        fields.problem("name", f"must be at most {MAX_NAME} bytes", "string_too_long")
    in_units = required and call.settings.has_fault("tag_name_in_units_on_create")
    if name and in_units and len(name.encode("utf-16-le")) // 2 > MAX_NAME:
        fields.problem("name", f"must be at most {MAX_NAME} characters", "string_too_long")
    return name


def _color(fields: BodyFields, *, required: bool, checked: bool) -> str | None:
    """A colour of `#` and 3 or 6 hex digits (`checked` False: a fault's, any text)."""
    return fields.string(
        "color", required=required, nullable=False, pattern=COLOR_PATTERN if checked else None
    )


def _refuse_taken(
    call: Call,
    tx: Transaction,
    catalogue: str | None,
    name: str,
    *,
    other_than: str = "",
    colour: str | None = None,
) -> None:
    """409 `tag_already_exists`, naming the tag, when a tag of `catalogue` (of any when
    None: a fault's reading) other than `other_than` has `name`, in any case. `colour`,
    a create's, matters under the fault `tag_unique_with_colour` only."""
    scope = {"catalogue": catalogue} if catalogue else {}
    with_colour = colour is not None and call.settings.has_fault("tag_unique_with_colour")
    for existing in tx.find(call.workspace, "tag", **scope):
        if with_colour and existing.get("color") != colour:
            continue  # a unique index over (catalogue, name, color)
        if existing["name"].casefold() == name.casefold() and existing["id"] != other_than:
            named = (
                "" if call.settings.has_fault("tag_conflict_without_id") else f" ({existing['id']})"
            )
            raise ApiError(
                409,
                "already_exists"
                if call.settings.has_fault("tag_duplicate_already_exists")
                else "tag_already_exists",
                f"The {existing['catalogue']} catalogue already has a tag named "
                f"{existing['name']!r}{named}.",
                param="name",
            )


@routes.post(
    "/v1/tags",
    scopes=("tags:write",),
    entity="tags",
    variant_scopes=(("tag_create_guarded_by_tags_read", ("tags:read",)),),
)
def create_tag(call: Call) -> Reply:
    selector = (
        "record_kind"
        if call.settings.has_variant("tag_catalogue_field_record_kind")
        else CATALOGUE_FIELD
    )
    fields = BodyFields(call.json(), allowed=("name", selector, "color"))
    unnamed = call.settings.has_fault("tag_name_defaults") and not fields.has("name")
    name = "New tag" if unnamed else _name(call, fields, required=True, bounded=True)
    kinds: tuple[str, ...] = CATALOGUES
    if call.settings.has_fault("tag_organization_catalogue_missing"):
        kinds = ("contact", "deal")
    catalogue = fields.string(selector, required=True, choices=kinds)
    unchecked = call.settings.has_fault("tag_color_unchecked")
    color = _color(
        fields, required=call.settings.has_fault("tag_color_required"), checked=not unchecked
    )
    fields.check()
    assert name is not None
    assert catalogue is not None
    with call.transaction() as tx:
        same_catalogue = not call.settings.has_fault("tag_names_unique_across_catalogues")
        unchecked = catalogue == "deal" and call.settings.has_fault("deal_tag_names_unchecked")
        color = color or _default_color(call)
        if not unchecked:
            _refuse_taken(call, tx, catalogue if same_catalogue else None, name, colour=color)
        tag = tx.insert(
            call.workspace, "tag", {"name": name, "catalogue": catalogue, "color": color}
        )
    rendered = render(tag)
    if call.settings.has_fault("tag_id_label_prefix"):
        rendered["id"] = "label_" + rendered["id"].partition("_")[2]
    if call.settings.has_fault("tag_object_label"):
        rendered["object"] = "label"
    return call.created(rendered)


@routes.get("/v1/tags", scopes=("tags:read",), replaced_by=("no_unshown_lists",))
def list_tags(call: Call) -> Reply:
    """Tags by name; `kind` filters to one catalogue."""
    params = call.list_params(SPEC, filters=(CATALOGUE_FIELD,))
    catalogue = call.single(CATALOGUE_FIELD)
    if catalogue is not None and catalogue not in CATALOGUES:
        raise bad_query(CATALOGUE_FIELD, f"must be one of {', '.join(CATALOGUES)}", "enum")
    with call.transaction() as tx:
        rows = tx.all(call.workspace, "tag")
    rows = [row for row in rows if catalogue is None or row["catalogue"] == catalogue]
    reply = call.list_reply(SPEC, rows, params, {CATALOGUE_FIELD: catalogue}, render)
    if params.fields is not None and call.settings.has_fault("tags_list_fields_drop_id"):
        for row in reply.body["data"]:
            row.pop("id", None)  # the projection keeps only the names asked for
    if call.settings.has_fault("tags_list_limit_as_string"):
        reply.body["meta"]["limit"] = str(params.limit)  # echoed from the raw query
    return reply


@routes.get("/v1/tags/{tag_id}", scopes=("tags:read",))
def get_tag(call: Call) -> Reply:
    raw = call.path_params["tag_id"]
    if call.settings.has_fault("tag_retrieve_any_case") and is_id(raw.lower(), "tag"):
        tag_id = raw.lower()  # the store's collation compares ids case-blind
    else:
        tag_id = call.path_id("tag_id", "tag")
    _, fields = call.retrieve_params(SPEC)
    with call.transaction() as tx:
        tag = tx.get(call.workspace, "tag", tag_id)
    if tag is None:
        raise not_found("tag")
    return Reply(200, call.narrow(render(tag), fields))


@routes.patch(
    "/v1/tags/{tag_id}",
    scopes=("tags:write",),
    entity="tags",
    variant_scopes=(("tag_update_needs_tags_read", ("tags:read",)),),
)
def update_tag(call: Call) -> Reply:
    """A new name or colour, held to the rules of a tag's fields: the name 1 to 100
    characters and unique in its catalogue, the colour of the pattern."""
    tag_id = call.path_id("tag_id", "tag")
    fields = BodyFields(call.json(), allowed=("name", "color"))
    name = _name(
        call,
        fields,
        required=False,
        bounded=not call.settings.has_fault("tag_update_name_unbounded"),
    )
    color = _color(
        fields,
        required=False,
        checked=not call.settings.has_fault("tag_update_color_unchecked"),
    )
    fields.check()
    with call.transaction() as tx:
        tag = tx.get(call.workspace, "tag", tag_id)
        workspace = call.workspace
        if tag is None and call.settings.has_fault("tag_update_any_workspace"):
            found = ((ws, tx.get(ws, "tag", tag_id)) for ws in tx.workspaces())
            workspace, tag = next(((ws, t) for ws, t in found if t), (workspace, None))
        if tag is None:
            raise not_found("tag")
        changes: dict[str, Any] = {}
        if name is not None:
            if not call.settings.has_fault("tag_rename_unchecked"):
                across = call.settings.has_fault("tag_rename_checked_across_catalogues")
                scope = None if across else tag["catalogue"]
                _refuse_taken(call, tx, scope, name, other_than=tag_id)
            changes["name"] = name
            if call.settings.has_fault("tag_rename_stale_on_records"):
                changes["applied_name"] = tag.get("applied_name", tag["name"])
        if color is not None:
            changes["color"] = color
        tag = tx.update(workspace, "tag", {**tag, **changes})
        if call.settings.has_fault("tag_replay_follows_the_tag"):
            idempotency.follow(tx, render(tag))
    return Reply(200, render(tag))


@routes.delete(
    "/v1/tags/{tag_id}",
    scopes=("tags:write",),
    entity="tags",
    variant_scopes=(("tag_delete_unguarded", ()),),
)
def delete_tag(call: Call) -> Reply:
    tag_id = call.path_id("tag_id", "tag")
    with call.transaction() as tx:
        tag = tx.get(call.workspace, "tag", tag_id)
        if not tx.delete(call.workspace, "tag", tag_id):
            raise not_found("tag")
        if tag and call.settings.has_fault("deleted_tag_kept_on_records"):
            tx.insert(call.workspace, APPLIED_COPY, tag, id=tag_id)
    return Reply(204)
