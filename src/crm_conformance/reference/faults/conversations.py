"""Faults of conversations: bugs whose first requirement is of the `conversations` class
(Conversation records, closing a conversation, and the refusals of handoff, assign and
resume)."""

from crm_conformance.reference.faults.fault import Fault

FAULTS = (
    Fault(
        "message_send_operation",
        ("CONV-043",),
        "POST /v1/conversations/{conversation_id}/messages sends a message (201), though "
        "no public operation may",
    ),
    Fault(
        "conversation_resume_missing",
        ("CONV-034", "CONV-037", "CONV-038"),
        "the conversation resume operation the target file names is not served (404)",
    ),
    Fault(
        "handler_kept_after_close",
        ("CONV-032", "CONV-008"),
        "closing a conversation keeps its handler instead of setting it to null",
    ),
    Fault(
        "close_won_not_marking_contact",
        ("CONV-027", "CONV-028"),
        "closing as won leaves the contact's status unchanged",
    ),
    Fault(
        "closed_conversation_closes_again",
        ("CONV-033",),
        "closing a closed conversation answers 200 with it instead of 409 conversation_closed",
    ),
    Fault(
        "won_reason_without_won_accepted",
        ("CONV-023",),
        "won_reason is accepted (and ignored) with an outcome other than won",
    ),
    Fault(
        "close_keeps_updated_at",
        ("CONV-013",),
        "closing a conversation does not change its updated_at",
    ),
    Fault(
        "close_unknown_keys_ignored",
        ("CONV-019",),
        "unknown keys of a close body are ignored instead of refused",
    ),
    Fault(
        "resolved_close_reopens_contact",
        ("CONV-030",),
        "closing as resolved sets the contact's status back to open",
    ),
    Fault(
        "assignee_unchecked",
        ("CONV-040",),
        "assign takes any usr_ id without checking it is a teammate of the workspace",
    ),
    Fault(
        "resume_with_ai_accepted",
        ("CONV-037",),
        "resuming a conversation the AI agent already handles answers 200 unchanged",
    ),
    Fault(
        "close_renders_chat_id",
        ("CONV-001", "IDN-001", "IDN-004", "CONV-015"),
        "the close answer renders the conversation's id with the legacy chat_ prefix",
    ),
    Fault(
        "close_renders_object_thread",
        ("CONV-002", "IDN-002"),
        "the close answer renders the conversation's object as thread",
    ),
    Fault(
        "closed_status_named_after_outcome",
        ("CONV-003", "CONV-024"),
        "the close answer's status is the outcome (resolved, won, spam), not closed",
    ),
    Fault(
        "close_renders_channel_label",
        ("CONV-004",),
        "the close answer renders the channel's display label (Chatapp Api), not its enum value",
    ),
    Fault(
        "close_renders_channel_id_unprefixed",
        ("CONV-005", "IDN-001", "IDN-005"),
        "the close answer renders channel_id without its chn_ prefix",
    ),
    Fault(
        "close_detaches_contact",
        ("CONV-006",),
        "closing detaches the contact: the closed conversation's contact_id reads null",
    ),
    Fault(
        "needs_human_false_once_closed",
        ("CONV-009", "CONV-032"),
        "closing sets needs_human to false, not null",
    ),
    Fault(
        "close_renders_queue_object",
        ("CONV-011",),
        "the close answer embeds the queue it was closed from as an object ({name}) in queue_name",
    ),
    Fault(
        "close_renders_last_message_at_epoch",
        ("CONV-012", "IDN-003"),
        "the close answer renders last_message_at as Unix seconds (an integer)",
    ),
    Fault(
        "close_not_stored",
        ("CONV-014", "CONV-033", "CONV-041"),
        "the close answers the closed conversation but never stores it: it stays open "
        "(closing it again succeeds, the contact's next message lands in it)",
    ),
    Fault(
        "close_answers_204",
        ("CONV-015",),
        "the close answers 204 No Content instead of 200 with the Conversation",
    ),
    Fault(
        "close_path_id_unchecked",
        ("CONV-016",),
        "the close does not check the path id's conv_ pattern: a malformed id answers 404",
    ),
    Fault(
        "unknown_conversation_has_no_contact",
        ("CONV-017",),
        "closing an unknown conversation answers 409 conversation_has_no_contact, not 404",
    ),
    Fault(
        "close_null_body_refused",
        ("CONV-018",),
        "a close with a JSON null body is refused (422 validation_failed)",
    ),
    Fault(
        "close_unreadable_body_as_absent",
        ("ERR-009",),
        "the close reads its optional body leniently: a body that is not JSON is taken as "
        "no body, and the conversation is closed as resolved",
    ),
    Fault(
        "close_clears_holder_in_answer_only",
        ("CONV-008", "CONV-009"),
        "the close answers the conversation with handler and needs_human null, but stores "
        "it with the handler and needs_human it had: every later read shows them",
    ),
    Fault(
        "spam_outcome_refused",
        ("CONV-020",),
        "the close refuses outcome spam (422 validation_failed): only resolved and won pass",
    ),
    Fault(
        "won_reason_list_outdated",
        ("CONV-021",),
        "the close refuses won_reason service_completed (the list predates it)",
    ),
    Fault(
        "waiting_conversation_not_closable",
        ("CONV-024",),
        "closing a waiting (queued) conversation answers 409 conflict",
    ),
    Fault(
        "close_without_contact_allowed",
        ("CONV-025",),
        "a conversation without a contact closes (200) instead of 409 conversation_has_no_contact",
    ),
    Fault(
        "deleted_contact_not_checked",
        ("CONV-025", "CONV-026"),
        "close checks only that contact_id is set: a conversation whose contact is gone closes",
    ),
    Fault(
        "handoff_holder_unchecked",
        ("CONV-035",),
        "a handoff of a conversation a teammate or the queue holds is accepted (queued again)",
    ),
    Fault(
        "assign_takes_from_ai",
        ("CONV-036",),
        "assign takes a conversation straight from the AI agent, not 409 conversation_with_ai",
    ),
    Fault(
        "spam_close_keeps_handler",
        ("CONV-008", "CONV-032"),
        "closing as spam leaves the handler in place (resolved and won clear it)",
    ),
    Fault(
        "handoff_keeps_updated_at",
        ("CONV-013",),
        "a handoff changes the handler and status but not updated_at (the queue writes the "
        "row without touching it), though close stamps it",
    ),
    Fault(
        "assign_clears_needs_human",
        ("CONV-010",),
        'assigning a teammate sets needs_human false (read as "a teammate has it, nobody '
        'needs to be asked for"), though the document says true once a teammate is assigned',
    ),
    Fault(
        "spam_close_forgets_the_contact",
        ("CONV-029",),
        "closing as spam closes the conversation but does not mark the contact, so the AI "
        "agent takes the contact's next conversation",
    ),
    Fault(
        "agent_handler_kind_ai",
        ("CONV-007",),
        "a conversation the AI agent holds reads handler kind 'ai' (the internal name), not "
        "agent, on its retrieve",
    ),
    Fault(
        "agent_handler_id_bot_prefixed",
        ("IDN-009",),
        "the AI agent's id in a conversation's handler carries the prefix bot_, not agt_",
    ),
    Fault(
        "teammate_handler_hidden",
        ("CONV-042",),
        "an active conversation a teammate holds reads handler null on its retrieve (only the "
        "AI agent is rendered as a handler)",
    ),
    Fault(
        "handoff_keeps_the_agent",
        ("CONV-007", "CONV-035"),
        "a handoff sets needs_human but leaves the AI agent holding the conversation "
        "(handler kind agent, still active)",
    ),
    Fault(
        "conversation_list_flag_as_integer",
        ("CONV-010",),
        "the conversation list renders `needs_human` as 1 or 0, the integer column it is "
        "stored in, where the retrieve says true or false",
    ),
    Fault(
        "won_close_marks_open_contacts_only",
        ("CONV-027",),
        "closing as won moves the contact to won only from open: a contact on hold or lost "
        "keeps its status",
    ),
)
