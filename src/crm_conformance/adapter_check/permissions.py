"""The `permissions` check of `adapter-check`: a withheld permission refuses the person's
OAuth token, and a permission given back lets it through again.

It needs `users` and `tokens` beside it (a person to withhold from, and their OAuth
token), a change to make (a contact tag: `tag_catalogue_field` in the target file) and,
for the conversation side, `conversations`; what it cannot reach it says in a note.
"""

import secrets
from collections.abc import Callable

import httpx

from crm_conformance.adapter_check.probe import Probe, error_code
from crm_conformance.core.transport.client import ApiClient

NOWHERE = "d" * 32


def check_permissions(probe: Probe) -> list[str]:
    """Each permission withheld then given back, judged on one write the person made."""
    probe.refused(
        "setPermissions",
        path={"user_id": f"usr_{NOWHERE}"},
        json={"changes": True, "conversations": True},
        status=404,
    )
    missing = sorted({"users", "tokens"} - probe.listed)
    if missing:
        return [f"not checked on the API: it needs feature {', '.join(missing)} too"]
    person = probe.call("createUser", json={"workspace": "primary", "name": probe.name("user")})
    with probe.cleanup() as undo:
        issued = probe.call(
            "createToken", json={"workspace": "primary", "kind": "oauth", "user_id": person["id"]}
        )
        probe.redactor.add(issued["token"])
        undo.append(("revokeToken", issued["id"]))
        client = probe.api.with_token(issued["token"])
        notes: list[str] = []
        selector = probe.target.conventions.get("tag_catalogue_field")
        if selector is None:
            notes.append("changes not checked: add tag_catalogue_field under [conventions]")
        else:

            def write() -> httpx.Response:
                return client.post(
                    "/v1/tags", json={"name": probe.name(secrets.token_hex(3)), selector: "contact"}
                )

            _withheld(probe, person["id"], "changes", "user_grant_denied", write, "POST /v1/tags")
        if "conversations" not in probe.listed:
            notes.append("conversations not checked: it needs feature conversations too")
        else:
            _withheld(
                probe,
                person["id"],
                "conversations",
                "conversation_access_denied",
                lambda: _close_new(probe, client),
                "closing a conversation",
            )
    return notes


def _close_new(probe: Probe, client: ApiClient) -> httpx.Response:
    made = probe.call("createConversation", json={"workspace": "primary", "status": "active"})
    return client.post(f"/v1/conversations/{made['id']}/close")


def _withheld(
    probe: Probe,
    user_id: str,
    permission: str,
    code: str,
    write: Callable[[], httpx.Response],
    what: str,
) -> None:
    """`write` passes, is refused with 403 `code` once `permission` is withheld, and
    passes again once it is given back."""
    path = {"user_id": user_id}
    every = {"changes": True, "conversations": True}
    before = write()
    if not before.is_success:
        raise probe.broken(
            f"{what} by a new person's OAuth token answered {before.status_code} with every "
            "permission: the check needs a write they may make"
        )
    probe.call("setPermissions", path=path, json={**every, permission: False})
    refused = write()
    if refused.status_code != 403 or error_code(refused) != code:
        raise probe.broken(
            f"with {permission} withheld, {what} by the person's OAuth token answered "
            f"{refused.status_code} {error_code(refused)}; expected 403 {code}"
        )
    probe.call("setPermissions", path=path, json=every)
    after = write()
    if not after.is_success:
        raise probe.broken(
            f"with {permission} given back, {what} by the person's OAuth token answered "
            f"{after.status_code} {error_code(after)}"
        )
