"""Faults of oauth tokens: bugs whose first requirement is of the `oauth` class (Person-bound
OAuth access tokens: visibility, expiry and permission refusals)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "note_delete_by_anyone",
        ("OAUTH-014",),
        "the author check guards a note's change but not its delete, so another person deletes it",
    ),
    Fault(
        "expired_oauth_unauthorized",
        ("OAUTH-006",),
        "an expired OAuth token answers unauthorized instead of token_expired",
    ),
    Fault(
        "private_visible_to_oauth",
        ("OAUTH-004",),
        "an OAuth token sees other people's private records (visibility checks the kind only)",
    ),
    Fault(
        "expired_oauth_unauthorized_on_writes",
        ("OAUTH-006",),
        "an expired OAuth token answers token_expired on reads but unauthorized on writes "
        "(the write path authenticates with its own, older check)",
    ),
    Fault(
        "oauth_sees_only_own_records",
        ("OAUTH-002", "OAUTH-003", "OAUTH-005"),
        "an OAuth token sees only the records its person owns, not company-wide ones",
    ),
    Fault(
        "invisible_body_id_forbidden",
        ("OAUTH-007",),
        "an activity on a record invisible to the OAuth token answers 403 forbidden instead "
        "of 404 record_not_found",
    ),
    Fault(
        "oauth_tokens_prefixed_oauth",
        ("OAUTH-001",),
        "OAuth access tokens are issued with the prefix oauth_ instead of oat_",
    ),
    Fault(
        "search_ignores_visibility",
        ("OAUTH-004",),
        "contact search serves every contact of the workspace to an OAuth token, another "
        "person's private ones included",
    ),
    Fault(
        "deal_body_visibility_unchecked",
        ("OAUTH-007",),
        "a deal create takes a contact_id invisible to the OAuth person instead of "
        "answering 404 record_not_found",
    ),
    Fault(
        "organization_retrieve_ignores_visibility",
        ("OAUTH-004",),
        "the organization retrieve serves any organization of the workspace to an OAuth "
        "token, another person's private one included",
    ),
    Fault(
        "organization_list_ignores_visibility",
        ("OAUTH-004",),
        "the organization list shows an OAuth token every organization, another person's "
        "private ones too (the retrieve checks what the person sees)",
    ),
    Fault(
        "user_grant_checked_on_posts_only",
        ("OAUTH-008", "OAUTH-009"),
        "a person whose permission to change records is withheld is refused creates only: "
        "their OAuth token's updates and deletes go through",
    ),
    Fault(
        "user_grant_as_scope",
        ("OAUTH-009",),
        "a change refused for the person's withheld permission answers 403 "
        "insufficient_scope, not user_grant_denied",
    ),
    Fault(
        "conversation_access_on_moves_only",
        ("OAUTH-008", "OAUTH-010"),
        "a person who may act on no conversation is refused the handoff, assign and resume "
        "moves, but may still close one",
    ),
    Fault(
        "activity_sees_any_company",
        ("OAUTH-007",),
        "an activity's record_id naming another person's private organization or deal is "
        "taken from an OAuth token (only a contact's visibility is checked)",
    ),
    Fault(
        "external_id_lookup_blind",
        ("OAUTH-004", "OAUTH-002"),
        "the contact list filtered by external_id reads an index that skips visibility: an "
        "OAuth token is shown another person's private contact",
    ),
    Fault(
        "expand_ignores_visibility",
        ("OAUTH-004", "OAUTH-002"),
        "expand=organization embeds the organization whatever its visibility: an OAuth "
        "token's person is shown another person's private organization inside their own "
        "contact or deal",
    ),
    Fault(
        "team_records_seen_by_all",
        ("OAUTH-002",),
        "visibility team and team_and_subteams hide nothing: an OAuth token's person in no "
        "team is shown another person's team records",
    ),
    Fault(
        "ownerless_private_seen_by_all",
        ("OAUTH-004",),
        "a private record with no owner is shown to every person's OAuth token (a check "
        "of the owner that passes when there is none)",
    ),
)
