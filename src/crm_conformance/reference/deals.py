"""Deals: opportunities in a pipeline stage.

Create follows the document's Deal table: `pipeline_id` and `stage_id` must belong
together, `contact_id` or `organization_id` is required, `value` is a number in the
body and a string in answers, `probability` null inherits the stage default, a lost
deal needs `lost_reason_id` (`lost_justification` stays optional free text), and
`stage_changed_at` records the last move between stages. The 404s for unknown ids in
the body name the field in `param`.
"""

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from starlette.datastructures import QueryParams

from crm_conformance.reference import (
    activities,
    contacts,
    deal_value,
    external_ids,
    field_definitions,
    identifiers,
    organizations,
    owners,
    pipelines,
    tags,
    visibility,
)
from crm_conformance.reference.api_errors import ApiError, not_found
from crm_conformance.reference.listing import ListSpec
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

STATUSES = ("open", "won", "lost")
SCORES = ("cold", "warm", "hot")
FIELDS = (
    "pipeline_id", "stage_id", "title", "visibility", "created_at", "updated_at",
    "contact_id", "organization_id", "organization", "owner_id", "owner", "value",
    "probability", "score", "status", "lost_reason_id", "lost_reason",
    "lost_justification", "expected_close_date", "stage_changed_at", "external_id",
    "custom_fields", "tags",
)  # fmt: skip
WRITABLE = (
    "pipeline_id", "stage_id", "title", "contact_id", "organization_id", "owner_id",
    "value", "probability", "score", "status", "lost_reason_id", "lost_justification",
    "expected_close_date", "external_id", "custom_fields", "tags", "visibility",
)  # fmt: skip
MAX_TITLE = 255

routes = RouteTable()

SPEC = ListSpec(
    name="deals",
    fields=frozenset(FIELDS),
    sort_keys={
        "created_at": lambda r: r["created_at"],
        "updated_at": lambda r: r["updated_at"],
        "title": lambda r: r["title"].casefold(),
        "value": lambda r: float(r["value"]) if r.get("value") is not None else None,
        "probability": lambda r: r.get("probability"),  # the list resolves a null (`deal_list`)
        "expected_close_date": lambda r: r.get("expected_close_date"),
        "stage_changed_at": lambda r: r.get("stage_changed_at"),
    },
    expands=frozenset({"organization", "contact", "pipeline", "stage", "activities"}),
)


def render(
    tx: Transaction,
    workspace: str,
    record: Record,
    expand: tuple[str, ...] = (),
    *,
    reason_whatever_status: bool = False,
) -> dict[str, Any]:
    probability = record.get("probability")
    if probability is None:
        found = pipelines.stage_of(tx, workspace, record["stage_id"])
        probability = found[1]["default_probability"] if found else None
    lost_reason = None
    if (record["status"] == "lost" or reason_whatever_status) and record.get("lost_reason_id"):
        reason = tx.get(workspace, "lost_reason", record["lost_reason_id"])
        lost_reason = reason["name"] if reason else None
    lost_reason = record.get("named_reason", lost_reason)
    rendered: dict[str, Any] = {
        "id": record["id"],
        "object": "deal",
        "pipeline_id": record["pipeline_id"],
        "stage_id": record["stage_id"],
        "title": record["title"],
        "visibility": record["visibility"],
        "created_at": record["created_at"],
        "updated_at": record["updated_at"],
        "contact_id": record.get("contact_id"),
        "organization_id": record.get("organization_id"),
        "owner_id": record.get("owner_id"),
        "value": record.get("value"),
        "probability": probability,
        "score": record.get("score"),
        "status": record["status"],
        "lost_reason_id": record.get("lost_reason_id"),
        "lost_reason": lost_reason,
        "lost_justification": record.get("lost_justification"),
        "expected_close_date": record.get("expected_close_date"),
        "stage_changed_at": record["stage_changed_at"],
        "external_id": record.get("external_id"),
        "custom_fields": field_definitions.render_values(
            tx, workspace, "deal", record.get("custom_fields")
        ),
        "tags": tags.render_many(tx, workspace, record.get("tags")),
    }
    owners.put_owner(rendered, tx, workspace, record.get("owner_id"))
    if "organization" in expand:
        organizations.put_embedded(rendered, tx, workspace, record.get("organization_id"))
    if "contact" in expand:
        contact_id = record.get("contact_id")
        contact = tx.get(workspace, "contact", contact_id) if contact_id else None
        if contact is not None:
            rendered["contact"] = contacts.render(tx, workspace, contact)
    _put_relationships(rendered, tx, workspace, record, expand)
    return rendered


def _put_relationships(
    rendered: dict[str, Any],
    tx: Transaction,
    workspace: str,
    record: Record,
    expand: Sequence[str],
) -> None:
    """The relationships beyond the document's `organization` and `contact` this server
    expands on a deal (the `expand` convention names all five, so the bound "at most 4"
    can be sent with names all on the resource): its pipeline, its stage and its
    activities. Looked up only when asked for: every deal answer renders here."""
    wanted = {"pipeline", "stage"} & set(expand)
    placed = pipelines.stage_of(tx, workspace, record["stage_id"]) if wanted else None
    if "pipeline" in expand and placed is not None:
        rendered["pipeline"] = pipelines.render(placed[0])
    if "stage" in expand and placed is not None:
        rendered["stage"] = dict(placed[1])
    if "activities" in expand:
        rendered["activities"] = [
            activities.render(tx, workspace, row)
            for row in tx.all(workspace, "activity")
            if row.get("record_id") == record["id"]
        ]


def read_changes(call: Call, tx: Transaction, body: Any, current: Record | None) -> dict[str, Any]:
    """The validated changes of a create (current None) or update body."""
    creating = current is None
    fields = BodyFields(body, allowed=WRITABLE)
    changes: dict[str, Any] = {}
    inferred = creating and call.settings.has_fault("deal_pipeline_id_inferred")
    pipeline_id = fields.identifier("pipeline_id", "pipeline", required=creating and not inferred)
    first_stage = creating and call.settings.has_fault("deal_stage_defaults_to_first")
    stage_id = fields.identifier("stage_id", "stage", required=creating and not first_stage)
    if creating and (inferred or first_stage):
        pipeline_id, stage_id = _fill_placement(tx, call.workspace, pipeline_id, stage_id)
    if creating or fields.has("title"):
        empty = call.settings.has_fault("deal_empty_title_accepted") or (
            not creating and call.settings.has_fault("deal_empty_title_on_update")
        )
        shortest = 0 if empty else 1
        uncapped = not creating and call.settings.has_fault("deal_title_capped_on_create_only")
        changes["title"] = fields.string(
            "title", required=True, min_length=shortest, max_length=None if uncapped else MAX_TITLE
        )
    if call.settings.has_fault("deal_ids_case_folded"):  # a case-insensitive collation
        fields.body = {
            k: v.lower() if k.endswith("_id") and isinstance(v, str) else v
            for k, v in fields.body.items()
        }
    any_record = call.settings.has_fault("deal_contact_id_any_record")
    contact_id = fields.identifier(
        "contact_id", activities.RECORD_KINDS if any_record else "contact"
    )
    organization_id = fields.identifier("organization_id", "organization")
    if fields.has("owner_id"):
        changes["owner_id"] = owners.user_field(tx, call.workspace, fields, "owner_id")
        if creating and call.settings.has_fault("deal_owner_id_ignored"):
            del changes["owner_id"]
    deal_value.take_spelled_numbers(call.settings, fields)
    if fields.has("value"):
        changes["value"] = deal_value.read(call.settings, fields, creating)
    if fields.has("probability"):
        lowest = None if call.settings.has_fault("deal_probability_unbounded_below") else 0
        highest: int | None = 100
        if call.settings.has_fault("deal_probability_limit_off_by_one"):
            highest = 101
        if not creating and call.settings.has_fault("deal_probability_unbounded_on_update"):
            lowest = highest = None
        raw = fields.body.get("probability")
        if isinstance(raw, int) and call.settings.has_fault("probability_read_as_int32"):
            fields.body["probability"] = (raw + 2**31) % 2**32 - 2**31
        if (
            isinstance(raw, str)
            and raw.isdigit()
            and call.settings.has_fault("probability_string_cast_to_null")
        ):
            fields.body["probability"] = None  # a failed cast, silently NULL
        changes["probability"] = fields.integer("probability", minimum=lowest, maximum=highest)
        if changes["probability"] is not None and call.settings.has_fault(
            "deal_probability_as_float"
        ):
            changes["probability"] = float(changes["probability"])
        if changes["probability"] is None and call.settings.has_fault("probability_not_inherited"):
            changes["probability"] = 0
        kept = not creating and call.settings.has_fault("deal_update_null_probability_kept")
        if changes["probability"] is None and kept:
            del changes["probability"]  # the partial update reads null as "not sent"
    if fields.has("score"):
        unchecked = call.settings.has_fault("deal_score_unchecked")
        changes["score"] = fields.string("score", choices=None if unchecked else SCORES)
    if creating or fields.has("status"):
        unchecked = call.settings.has_fault("deal_status_unchecked")
        changes["status"] = (
            fields.string("status", nullable=False, choices=None if unchecked else STATUSES)
            or (current or {}).get("status")
            or "open"
        )
    lost_reason_id = fields.identifier("lost_reason_id", "lost_reason")
    if lost_reason_id and tx.get(call.workspace, "lost_reason", lost_reason_id) is None:
        fields.problem("lost_reason_id", "is not a lost reason of this workspace", "not_found")
    if not creating and call.settings.has_fault("lost_reason_named_on_create_only"):
        changes["named_reason"] = None  # the name was copied onto the deal when created
    if lost_reason_id and call.settings.has_fault("lost_reason_shows_its_id"):
        changes["named_reason"] = lost_reason_id  # the join's column, not the name's
    if fields.has("lost_justification"):
        justification = fields.string("lost_justification", max_length=5000)
        if not call.settings.has_fault("lost_justification_dropped"):
            changes["lost_justification"] = justification
    if fields.has("expected_close_date"):
        lenient = call.settings.has_fault("deal_close_date_rolls_over")
        naive = not creating and call.settings.has_fault("close_date_offset_optional_on_update")
        changes["expected_close_date"] = fields.instant(
            "expected_close_date", lenient=lenient, naive=naive
        )
        if changes["expected_close_date"] and call.settings.has_fault(
            "expected_close_date_as_date"
        ):
            changes["expected_close_date"] = changes["expected_close_date"][:10]
    if fields.has("external_id"):
        emptied = fields.body.get("external_id") == ""
        if emptied and call.settings.has_fault("deal_empty_external_id_clears"):
            changes["external_id"] = None
        else:
            changes["external_id"] = external_ids.read(fields, call.settings, updating=not creating)
    if creating or fields.has("visibility"):
        changes["visibility"] = (
            fields.string("visibility", nullable=False, choices=visibility.VISIBILITIES)
            or (current or {}).get("visibility")
            or ("everyone" if call.settings.has_fault("deal_visibility_default_everyone") else None)
            or visibility.DEFAULT
        )
        if call.settings.has_fault("deal_visibility_subteams_as_team"):  # a 3-value column
            changes["visibility"] = changes["visibility"].replace("team_and_subteams", "team")
    if fields.has("tags"):
        changes["tags"] = tags.read_ids(tx, call.workspace, "deal", fields) or []
    if fields.has("custom_fields"):
        changes["custom_fields"] = field_definitions.read_values(
            tx, call.workspace, "deal", fields, (current or {}).get("custom_fields")
        )
    merged = {**(current or {}), **changes}
    if fields.has("contact_id"):
        merged["contact_id"] = contact_id
    if fields.has("organization_id"):
        merged["organization_id"] = organization_id
    if fields.has("lost_reason_id"):
        merged["lost_reason_id"] = lost_reason_id
    linked = (
        ("contact_id" in merged or "organization_id" in merged)
        if call.settings.has_fault("deal_link_counted_when_null")
        else merged.get("contact_id") or merged.get("organization_id")
    )
    if not fields.problems and not linked:
        fields.problem("contact_id", "give contact_id or organization_id (or both)", "missing")
    if creating and not merged.get("contact_id") and call.settings.has_fault("deal_needs_contact"):
        fields.problem("contact_id", "is required", "missing")
    if (
        merged.get("status") == "lost"
        and not merged.get("lost_reason_id")
        and not call.settings.has_fault("lost_deal_needs_no_reason")
    ):
        fields.problem("lost_reason_id", "is required when the deal is lost", "missing")
    if (
        merged.get("status") == "lost"
        and not merged.get("lost_justification")
        and call.settings.has_variant("lost_needs_justification")
    ):
        fields.problem("lost_justification", "is required when the deal is lost", "missing")
    if creating and call.settings.has_fault("deal_validation_stops_at_first"):
        del fields.problems[1:]  # the hand-written validator returns on its first problem
    fields.check()

    _place(call, tx, current, changes, pipeline_id, stage_id)
    for name, kind in (("contact_id", "contact"), ("organization_id", "organization")):
        if fields.has(name):
            changes[name] = merged[name]
            if merged[name] is not None:
                places = [call.workspace]
                if kind == "contact" and call.settings.has_fault("deal_contact_any_workspace"):
                    places = tx.workspaces()  # looked up by the id alone
                if kind == "contact" and any_record:
                    kind = identifiers.kind_of(merged[name], activities.RECORD_KINDS) or kind
                record = next(
                    (found for place in places if (found := tx.get(place, kind, merged[name]))),
                    None,
                )
                ever = call.settings.has_fault("deal_links_deleted_records")
                if record is None and ever and tx.was_deleted(call.workspace, merged[name]):
                    continue  # the id was checked against every id ever issued
                unchecked = call.settings.has_fault("deal_update_links_unchecked")
                if record is None and not creating and unchecked:
                    continue  # the update's partial write stores the id as given
                hidden = record is not None and not call.sees(record)
                if hidden and call.settings.has_fault("deal_body_visibility_unchecked"):
                    hidden = False  # the body's ids are looked up, not checked for the person
                if record is None or hidden:
                    param = (
                        None if call.settings.has_fault("record_not_found_without_param") else name
                    )
                    raise ApiError(404, "record_not_found", f"No such {kind}.", param=param)
    if fields.has("lost_reason_id"):
        changes["lost_reason_id"] = lost_reason_id
    if creating and call.user_id is not None and "owner_id" not in changes:
        changes["owner_id"] = call.user_id
    if not creating and call.settings.has_fault("stage_changed_at_stamped_on_every_update"):
        changes["stage_changed_at"] = call.now()
    unchecked = not creating and call.settings.has_fault("deal_update_external_id_unchecked")
    everywhere = call.settings.has_fault("deal_external_id_unique_across_workspaces")
    if not call.settings.has_fault("deal_external_id_not_unique") and not unchecked:
        for place in tx.workspaces() if everywhere else [call.workspace]:
            external_ids.ensure_unique(
                tx,
                place,
                "deal",
                changes.get("external_id"),
                current["id"] if current else None,
            )
    if call.settings.has_fault("external_id_unique_across_resources"):
        for kind in ("contact", "organization"):
            external_ids.ensure_unique(tx, call.workspace, kind, changes.get("external_id"))
    return changes


def _fill_placement(
    tx: Transaction, workspace: str, pipeline_id: str | None, stage_id: str | None
) -> tuple[str | None, str | None]:
    """The faults `deal_pipeline_id_inferred` and `deal_stage_defaults_to_first`: a missing
    pipeline is the stage's, a missing stage the pipeline's first."""
    if pipeline_id is None and stage_id is not None:
        found = pipelines.stage_of(tx, workspace, stage_id)
        pipeline_id = found[0]["id"] if found else None
    if stage_id is None and pipeline_id is not None:
        pipeline = tx.get(workspace, "pipeline", pipeline_id)
        stage_id = pipeline["stages"][0]["id"] if pipeline and pipeline["stages"] else None
    return pipeline_id, stage_id


def _place(
    call: Call,
    tx: Transaction,
    current: Record | None,
    changes: dict[str, Any],
    pipeline_id: str | None,
    stage_id: str | None,
) -> None:
    """Check the pipeline and stage; a move between stages stamps `stage_changed_at`."""
    if pipeline_id is None and stage_id is None:
        return
    pipeline_id = pipeline_id or (current or {}).get("pipeline_id")
    stage_id = stage_id or (current or {}).get("stage_id")
    assert pipeline_id is not None
    assert stage_id is not None
    places = [call.workspace]
    if call.settings.has_fault("stage_any_workspace"):
        places = tx.workspaces()  # stage ids are unique everywhere, so looked up alone
    found = next(
        (hit for place in places if (hit := pipelines.stage_of(tx, place, stage_id))), None
    )
    known = tx.get(call.workspace, "pipeline", pipeline_id) is not None
    if not known and found and call.settings.has_fault("unknown_pipeline_takes_the_stages"):
        pipeline_id, known = found[0]["id"], True
    if not known and current and call.settings.has_fault("deal_move_unknown_pipeline_ignored"):
        pipeline_id, known = current["pipeline_id"], True  # the update's own shortcut
    if found is None and current and call.settings.has_fault("deal_move_unknown_stage_stored"):
        changes |= {"pipeline_id": pipeline_id, "stage_id": stage_id}  # never looked up
        return
    if not known and not call.settings.has_variant("stage_checked_first"):
        raise ApiError(404, "pipeline_not_found", "No such pipeline.", param="pipeline_id")
    if found is None:
        if call.settings.has_fault("unknown_stage_validation_failed"):
            raise ApiError(422, "validation_failed", "stage_id is invalid.", param="stage_id")
        raise ApiError(404, "stage_not_found", "No such stage.", param="stage_id")
    unchecked = call.settings.has_fault("stage_pipeline_unchecked") or (
        current is not None and call.settings.has_fault("update_stage_pipeline_unchecked")
    )
    if found[0]["id"] != pipeline_id and not unchecked:
        if call.settings.has_fault("stage_of_other_pipeline_validation_failed"):
            raise ApiError(422, "validation_failed", "stage_id is invalid.", param="stage_id")
        if current is None and call.settings.has_variant("stage_of_other_pipeline_not_found"):
            raise ApiError(
                404, "stage_not_found", "No such stage in the pipeline.", param="stage_id"
            )
        raise ApiError(
            422,
            "stage_not_in_pipeline",
            f"Stage {stage_id} belongs to pipeline {found[0]['id']}, not {pipeline_id}.",
            param="stage_id",
        )
    if current is None and call.settings.has_fault("deal_created_in_first_stage"):
        pipeline = tx.get(call.workspace, "pipeline", pipeline_id)
        stage_id = pipeline["stages"][0]["id"] if pipeline else stage_id
    changes["pipeline_id"] = pipeline_id
    changes["stage_id"] = stage_id
    if (
        current is None
        and changes.get("probability") is None
        and call.settings.has_fault("probability_inherited_at_create")
    ):
        stage = pipelines.stage_of(tx, call.workspace, stage_id)
        changes["probability"] = stage[1].get("default_probability") if stage else None
    moved = current is None or current["stage_id"] != stage_id
    moved = moved or call.settings.has_fault("stage_named_again_stamps_a_move")
    across = current is not None and current["pipeline_id"] != pipeline_id
    kept = across and call.settings.has_fault("pipeline_move_keeps_stage_changed_at")
    if (
        moved
        and not kept
        and (current is None or not call.settings.has_fault("stage_change_keeps_stage_changed_at"))
    ):
        changes["stage_changed_at"] = call.now()
        if call.settings.has_fault("stage_changed_at_epoch"):
            changes["stage_changed_at"] = int(datetime.fromisoformat(call.now()).timestamp())
    final = found[1].get("default_probability") == 100
    if current is not None and final and call.settings.has_variant("deal_won_at_final_stage"):
        changes.setdefault("status", "won")


def _visible(call: Call, tx: Transaction, deal_id: str) -> Record:
    record = tx.get(call.workspace, "deal", deal_id)
    if record is None or not call.sees(record):
        raise not_found("deal")
    return record


@routes.post(
    "/v1/deals",
    scopes=("deals:write",),
    entity="deals",
    variant_scopes=(("deal_create_guarded_by_contacts_write", ("contacts:write",)),),
)
def create_deal(call: Call) -> Reply:
    expand, fields = call.retrieve_params(SPEC)
    if call.settings.has_fault("deal_organization_always_embedded"):
        expand = (*expand, "organization")
    with call.transaction() as tx:
        record = tx.insert(call.workspace, "deal", read_changes(call, tx, call.json(), None))
        rendered = _created_rendering(call, shown(call, tx, record, expand))
        return call.created(call.narrow(rendered, fields))


def _created_rendering(call: Call, rendered: dict[str, Any]) -> dict[str, Any]:
    """The create answer: the faults of its serializer, each where one field is rendered."""
    if call.settings.has_fault("deal_contact_id_unprefixed") and rendered.get("contact_id"):
        rendered["contact_id"] = rendered["contact_id"].partition("_")[2]
    if call.settings.has_fault("lost_reason_id_not_rendered"):
        rendered["lost_reason_id"] = None
    if call.settings.has_fault("lost_reason_name_null"):
        rendered["lost_reason"] = None
    if call.settings.has_fault("deal_owner_not_rendered"):
        rendered.pop("owner", None)
    if call.settings.has_fault("deal_custom_fields_as_pairs"):
        pairs = (rendered.get("custom_fields") or {}).items()
        rendered["custom_fields"] = [{"key": key, "value": value} for key, value in pairs]
    if call.settings.has_fault("deal_tags_as_collection"):
        rendered["tags"] = {"data": rendered.get("tags") or [], "has_more": False}
    return rendered


def shown(
    call: Call, tx: Transaction, record: Record, expand: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The Deal as this server's reads show it (variant `lost_reason_kept_when_reopened`:
    the reason's name by the stored id, whatever the status)."""
    kept = call.settings.has_variant("lost_reason_kept_when_reopened")
    rendered = render(tx, call.workspace, record, expand, reason_whatever_status=kept)
    embedded = rendered.get("organization")
    if isinstance(embedded, dict) and call.settings.has_fault("deal_embeds_organization_short"):
        rendered["organization"] = {k: embedded[k] for k in ("id", "object", "name")}
    return rendered


@routes.get("/v1/deals/{deal_id}", scopes=("deals:read",))
def get_deal(call: Call) -> Reply:
    deal_id = call.path_id("deal_id", "deal")
    if call.settings.has_fault("deal_retrieve_names_unchecked"):
        call = replace(call, query=QueryParams())  # the retrieve reads no query at all
    expand, fields = call.retrieve_params(SPEC)
    with call.transaction() as tx:
        record = _visible(call, tx, deal_id)
        if call.settings.has_fault("deal_expand_ignored_on_retrieve"):
            expand = ()
        rendered = shown(call, tx, record, expand)
        return Reply(200, call.narrow(rendered, fields))


@routes.patch(
    "/v1/deals/{deal_id}",
    scopes=("deals:write",),
    entity="deals",
    variant_scopes=(("deal_update_unguarded", ()),),
)
def update_deal(call: Call) -> Reply:
    deal_id = call.path_id("deal_id", "deal")
    with call.transaction() as tx:
        unchecked = call.settings.has_fault("deleted_deal_update_answers_200")
        gone = unchecked and tx.get(call.workspace, "deal", deal_id) is None
        if gone and tx.was_deleted(call.workspace, deal_id):  # UPDATE of no row, as done
            return Reply(200, {"id": deal_id, "object": "deal"})
        current = _visible(call, tx, deal_id)
        body = call.json()
        record = tx.update(
            call.workspace, "deal", {**current, **read_changes(call, tx, body, current)}
        )
        rendered = shown(call, tx, record)
        if call.settings.has_fault("deal_update_answer_echoes_value") and "value" in body:
            rendered["value"] = body["value"]  # the answer built from the body sent
        return Reply(200, rendered)


@routes.delete("/v1/deals/{deal_id}", scopes=("deals:write",), entity="deals")
def delete_deal(call: Call) -> Reply:
    deal_id = call.path_id("deal_id", "deal")
    with call.transaction() as tx:
        if call.settings.has_fault("deal_delete_any_workspace"):  # looked up by id alone
            owner = next((ws for ws in tx.workspaces() if tx.get(ws, "deal", deal_id)), None)
            if owner is not None and tx.delete(owner, "deal", deal_id):
                return Reply(204)
        _visible(call, tx, deal_id)
        if call.settings.has_fault("api_deleted_deal_still_served"):
            tx.note_deletion(call.workspace, "deal", deal_id)  # a flag no read honours
        else:
            tx.delete(call.workspace, "deal", deal_id)
    return Reply(204)
