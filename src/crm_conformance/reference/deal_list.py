"""The deal list (`GET /v1/deals`, the target file's `lists.deal_path`): filters by
the deal's links and `updated_since`, sorts by the values deals read, with its own
serializer's faults."""

from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any

from crm_conformance.reference.deals import SPEC, shown
from crm_conformance.reference.listing import ListSpec, parse_since
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.routing import Call, RouteTable

routes = RouteTable()


@routes.get("/v1/deals", scopes=("deals:read",), replaced_by=("no_unshown_lists",))
def list_deals(call: Call) -> Reply:
    filters = ("pipeline_id", "stage_id", "status", "contact_id", "organization_id", "owner_id")
    params = call.list_params(SPEC, filters=(*filters, "updated_since"))
    chosen = {name: call.query.getlist(name) for name in filters if call.query.getlist(name)}
    since_stamp = parse_since(
        "updated_since",
        call.single("updated_since"),
        naive_as_utc=call.settings.has_fault("deal_list_reads_naive_since_as_utc"),
    )
    if call.settings.has_fault("deals_list_ignores_updated_since"):
        since_stamp = None  # validated, then never applied
    stamp_of = (
        "created_at"
        if call.settings.has_fault("deal_list_since_reads_created_at")
        else "updated_at"
    )
    with call.transaction() as tx:
        rows = [
            row
            for row in tx.all(call.workspace, "deal")
            if call.sees(row)
            and all(row.get(name) in values for name, values in chosen.items())
            and (since_stamp is None or _since(call, row[stamp_of], since_stamp))
        ]
        return call.list_reply(
            _ordered_as_read(call, lambda: tx.all(call.workspace, "pipeline")),
            rows,
            params,
            {"filters": chosen, "updated_since": since_stamp},
            lambda r: _listed(call, shown(call, tx, r, params.expand)),
        )


def _since(call: Call, stamp: str, since: str) -> bool:
    """ "At or after": under `deal_list_updated_since_exclusive`, strictly after."""
    if call.settings.has_fault("deal_list_updated_since_exclusive"):
        return stamp > since
    return stamp >= since


def _ordered_as_read(call: Call, pipelines: Callable[[], list[Any]]) -> ListSpec:
    """The deal list's keys ordering by the values a deal reads: `probability` a null
    stored value resolved to its stage's default ("null means the deal inherits its
    stage default"), which a row stores nowhere else. The stages are read only when a
    sort names `probability`."""

    @cache
    def defaults() -> dict[str, Any]:
        return {
            stage["id"]: stage["default_probability"]
            for pipeline in pipelines()
            for stage in pipeline["stages"]
        }

    keys = dict(SPEC.sort_keys)
    if not call.settings.has_fault("deal_sort_probability_stored_only"):
        keys["probability"] = lambda r: (
            r["probability"] if r.get("probability") is not None else defaults().get(r["stage_id"])
        )
    if call.settings.has_fault("deal_sort_value_as_text"):  # ORDER BY the rendered column
        keys["value"] = lambda r: r.get("value")  # the stored "100.00" before "9.00"
    return replace(SPEC, sort_keys=keys)


def _listed(call: Call, rendered: dict[str, Any]) -> dict[str, Any]:
    """A deal as the list renders it (the list's own serializer)."""
    if call.settings.has_fault("deals_list_drops_lost_reason"):
        rendered.pop("lost_reason", None)  # a join the list query left out
    if call.settings.has_fault("deal_list_tags_without_color"):
        rendered["tags"] = [  # the list's tag join selects id and name only
            {k: v for k, v in tag.items() if k != "color"} for tag in rendered.get("tags") or ()
        ]
    return rendered
