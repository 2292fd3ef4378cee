"""Operations the document leaves out that another server may well offer.

Each route here exists only under its variant: the OAuth token refresh ("The OAuth
authorization and refresh flow: not shown") and webhook endpoints ("Outbound event
notifications (webhooks) or any event kinds: not shown"). A server offering them is as
conforming as one that does not, so the suite must pass with them mounted.
"""

import secrets
from typing import Any

from crm_conformance.reference.api_errors import ApiError
from crm_conformance.reference.listing import ListSpec
from crm_conformance.reference.rendering import stored
from crm_conformance.reference.reply import Reply
from crm_conformance.reference.request_body import BodyFields
from crm_conformance.reference.routing import Call, RouteTable
from crm_conformance.reference.storage import Record

routes = RouteTable()

WEBHOOKS = ListSpec(
    name="webhook_endpoints",
    fields=frozenset({"url", "events", "created_at"}),
    sortable=False,
    default_sort=("created_at",),
    order_keys={"created_at": lambda r: r["created_at"]},
)


@routes.post("/v1/oauth/token", variant="oauth_token_endpoint")
def refresh_token(call: Call) -> Reply:
    """`grant_type=refresh_token` with a `refresh_token`: this server keeps no refresh
    tokens, so every one it is given is unknown (400 `invalid_request`, as OAuth says)."""
    fields = BodyFields(call.json(), allowed=("grant_type", "refresh_token"))
    fields.string("grant_type", required=True, choices=("refresh_token",))
    fields.string("refresh_token", required=True, min_length=1)
    fields.check()
    raise ApiError(400, "bad_request", "The refresh token is unknown or expired.")


def _render_webhook(row: Record) -> dict[str, Any]:
    return stored(
        row,
        "webhook_endpoint",
        "url",
        "events",
        secret_hint=row["secret"][:4],
        created_at=row["created_at"],
    )


@routes.get("/v1/webhook-endpoints", variant="webhook_endpoints")
def list_webhooks(call: Call) -> Reply:
    params = call.list_params(WEBHOOKS)
    with call.transaction() as tx:
        rows = tx.all(call.workspace, "webhook_endpoint")
    return call.list_reply(WEBHOOKS, rows, params, {}, _render_webhook)


@routes.post("/v1/webhook-endpoints", variant="webhook_endpoints")
def create_webhook(call: Call) -> Reply:
    """`{url, events}`: where to send which event kinds (the kinds are this server's)."""
    fields = BodyFields(call.json(), allowed=("url", "events"))
    url = fields.string("url", required=True, pattern=r"https://\S+")
    events = fields.list_of_strings("events") or ["record.deleted"]
    fields.check()
    with call.transaction() as tx:
        row = tx.insert(
            call.workspace,
            "webhook_endpoint",
            {"url": url, "events": events, "secret": secrets.token_hex(16)},
        )
    return call.created(_render_webhook(row))
