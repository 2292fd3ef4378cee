"""Pipelines and their stages; `GET /v1/pipelines` lists the valid (pipeline, stage) pairs."""

from typing import Any

from crm_conformance.reference.api_errors import not_found
from crm_conformance.reference.listing import ListSpec
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record, Transaction

routes = RouteTable()

SPEC = ListSpec(
    name="pipelines",
    fields=frozenset({"name", "stages", "created_at", "updated_at"}),
    sortable=False,
    default_sort=("position",),
    order_keys={"position": lambda r: r["position"]},
)


def render(row: Record) -> dict[str, Any]:
    return {
        "id": row["id"],
        "object": "pipeline",
        "name": row["name"],
        "stages": [dict(stage) for stage in row["stages"]],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


def stage_of(tx: Transaction, workspace: str, stage_id: str) -> tuple[Record, Record] | None:
    """The (pipeline, stage) holding `stage_id`, or None."""
    for pipeline in tx.all(workspace, "pipeline"):
        for stage in pipeline["stages"]:
            if stage["id"] == stage_id:
                return pipeline, stage
    return None


@routes.get(
    "/v1/pipelines", scopes=("pipelines:read",), variant_scopes=(("pipelines_unguarded", ()),)
)
def list_pipelines(call: Call) -> Reply:
    if call.settings.has_fault("pipelines_listed_under_deals"):
        raise not_found("route")
    params = call.list_params(SPEC)
    with call.transaction() as tx:
        rows = tx.all(call.workspace, "pipeline")
    if call.settings.has_variant("pipelines_as_plain_list"):
        return Reply(200, {"pipelines": [render(row) for row in rows]})
    return call.list_reply(SPEC, rows, params, {}, render)
