"""Meta: token introspection (`GET /v1/me`) and workspace capabilities
(`GET /v1/capabilities`).

Both shapes are not shown in the document. The choice here, which the harness's
`capabilities.discover` reads: `/v1/me` answers `{object: token, kind, scopes,
user_id}` (the scopes the token holds, sorted; the person for an OAuth token, null
for a workspace token), and `/v1/capabilities` answers `{object: capabilities,
entities: {<entity>: {local_write: bool}}}` for every entity a workspace can mirror,
so a client learns which writes the workspace policy refuses before trying them.
Any valid token may read both (their scopes are not shown).
"""

from crm_conformance.reference import policy
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.scopes import ALL_SCOPES

routes = RouteTable()

OPERATION_SCOPES = frozenset(
    {
        *("contacts:read", "contacts:write", "deals:write", "activities:write", "tags:write"),
        *("conversations:write", "campaigns:read", "campaigns:write", "fields:read"),
        *("pipelines:read", "success_events:read"),
    }
)
"""The scopes an operation of the document names (the fault me_lists_only_operation_scopes)."""


@routes.get("/v1/me")
def me(call: Call) -> Reply:
    call.allow_query(())
    assert call.principal is not None
    scopes = sorted(
        ALL_SCOPES if call.settings.has_fault("me_lists_all_scopes") else call.principal.scopes
    )
    if call.settings.has_fault("me_scopes_dotted"):  # the display form of the admin UI
        scopes = [scope.replace(":", ".") for scope in scopes]
    if call.settings.has_fault("me_lists_only_operation_scopes"):
        scopes = [scope for scope in scopes if scope in OPERATION_SCOPES]
    if call.settings.has_variant("me_scope_string"):
        return Reply(
            200,
            {
                "active": True,
                "scope": " ".join(scopes),
                "token_type": call.principal.kind,
                "sub": call.principal.user_id,
            },
        )
    return Reply(
        200,
        {
            "object": "token",
            "kind": call.principal.kind,
            "scopes": scopes,
            "user_id": call.principal.user_id,
        },
    )


@routes.get("/v1/capabilities")
def capabilities(call: Call) -> Reply:
    call.allow_query(())
    with call.transaction() as tx:
        entities = {
            entity: {
                "local_write": call.settings.has_fault("capabilities_ignore_policy")
                or policy.local_write(tx, call.workspace, entity)
            }
            for entity in policy.ENTITIES
        }
    if call.settings.has_fault("capabilities_report_wrong_entity"):
        names = list(entities)
        entities = {names[(i + 1) % len(names)]: entities[n] for i, n in enumerate(names)}
    if call.settings.has_variant("capabilities_as_list"):
        rows = [{"entity": name, **entry} for name, entry in entities.items()]
        return Reply(200, {"data": rows})
    return Reply(200, {"object": "capabilities", "entities": entities})
