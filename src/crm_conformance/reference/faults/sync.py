"""Faults of sync: bugs whose first requirement is of the `sync` class (Change detection with
updated_since and the deletion feed)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "organization_delete_unnoted",
        ("SYNC-004", "SYNC-006"),
        "the API's organization delete removes the row without noting it in the deletion "
        "feed (only the bulk cleanup path writes the feed)",
    ),
    Fault(
        "unknown_entity_lists_nothing",
        ("SYNC-010",),
        "the deletion feed answers an empty page to a resource name it does not have",
    ),
    Fault(
        "deletion_feed_misses_adapter_deletes",
        ("SYNC-004", "SYNC-006"),
        "a record deleted through the adapter is removed without a tombstone in the feed",
    ),
    Fault(
        "updated_since_exclusive",
        ("SYNC-001",),
        "updated_since keeps records changed strictly after the instant, losing the edge",
    ),
    Fault(
        "deal_list_updated_since_exclusive",
        ("SYNC-001",),
        "the deal list's updated_since keeps deals changed strictly after the instant "
        "(the contact list's is at or after)",
    ),
    Fault(
        "naive_updated_since_as_utc",
        ("SYNC-002",),
        "an updated_since without a timezone offset is read as UTC instead of refused",
    ),
    Fault(
        "updated_at_sort_descending",
        ("SYNC-003",),
        "sort=updated_at lists contacts latest change first",
    ),
    Fault(
        "updated_since_reads_created_at",
        ("SYNC-001", "SYNC-005"),
        "updated_since compares the creation time, so a later change of an older record is lost",
    ),
    Fault(
        "deletion_feed_skips_activities",
        ("SYNC-004", "SYNC-007"),
        "deleted activities leave no tombstone: the feed lists contacts, organizations, deals",
    ),
    Fault(
        "activity_update_keeps_updated_at",
        ("SYNC-005",),
        "an activity update leaves updated_at as it was, so listing with updated_since "
        "misses the change",
    ),
    Fault(
        "won_contact_keeps_updated_at",
        ("SYNC-005",),
        "closing as won marks the contact won without stamping the change: its updated_at "
        "stays, so updated_since misses it",
    ),
    Fault(
        "deals_list_ignores_updated_since",
        ("SYNC-001", "SYNC-005"),
        "the deal list validates updated_since and never applies it: every deal is listed",
    ),
    Fault(
        "deals_list_drops_lost_reason",
        ("SYNC-005", "DEAL-020"),
        "the deal list's serializer leaves out lost_reason, which the retrieve shows",
    ),
    Fault(
        "deal_list_reads_naive_since_as_utc",
        ("SYNC-002",),
        "the deal list reads an updated_since without a timezone offset as UTC instead of "
        "refusing it (the contact list refuses it)",
    ),
    Fault(
        "deal_list_since_reads_created_at",
        ("SYNC-005",),
        "the deal list's updated_since compares created_at: an older deal changed since is "
        "left out (the contact list compares updated_at)",
    ),
    Fault(
        "since_fraction_read_as_microseconds",
        ("SYNC-001",),
        "the contact list's updated_since reads '.5' as five microseconds, not half a second "
        "(a hand parser counting the fraction's digits as microseconds)",
    ),
    Fault(
        "custom_fields_change_keeps_updated_at",
        ("SYNC-005",),
        "a contact update that changes only custom fields (kept in a table of their own) "
        "does not move the contact's updated_at",
    ),
    Fault(
        "fields_unknown_resource_lists_none",
        ("SYNC-010",),
        "GET /v1/fields given a resource name no resource has filters by it: 200 with no "
        "field, where the name is refused",
    ),
    Fault(
        "api_deleted_deal_still_served",
        ("SYNC-006", "ERR-012"),
        "the deal delete of the API only notes the deletion in the feed (the adapter's "
        "delete removes the row): the retrieve and the list still serve the deal",
    ),
    Fault(
        "deleted_records_still_served",
        ("SYNC-006", "ERR-012"),
        "a deleted contact is only noted in the deletion feed: its row stays, and the "
        "retrieve, the list and search still serve it",
    ),
    Fault(
        "unfiltered_contact_page_cached",
        ("SYNC-006",),
        "an unfiltered page of the contact list is served from a 30-second cache no write "
        "evicts: a contact deleted just after it was read stays listed",
    ),
    Fault(
        "tag_change_unstamped",
        ("SYNC-005",),
        "an organization update that changes its tags alone leaves updated_at as it was",
    ),
    Fault(
        "agent_plan_unstamped",
        ("SYNC-005",),
        "canceling or completing the AI agent's resume plan leaves its updated_at as it was "
        "(the plan is written unstamped)",
    ),
    Fault(
        "deleted_organization_still_embedded",
        ("SYNC-006",),
        "an organization deleted through the API is kept as a copy that embedding reads: "
        "contacts and deals that named it still embed it with expand=organization",
    ),
)
