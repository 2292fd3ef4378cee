"""The methods a path takes: the description's, and the target file's on any template
that routes the path."""

from crm_conformance.steps import methods

CONTACT = "/v1/contacts/con_" + "a" * 32
NAMED = {
    "updates.contact_method": "patch",
    "updates.contact_path": "/v1/contacts/{contact_id}",
    "deletes.contact_path": "/v1/contacts/{contact_id}",
    "activities.cancel_method": "DELETE",
    "activities.cancel_path": "/v1/activities/{activity_id}/cancel",
    "success_events.retrieve_path": "/v1/success-events/{event_id}",
    "lists.deal_path": "/v1/deals?archived=false",
}


def test_a_record_path_takes_its_retrieve_and_the_named_update_and_delete() -> None:
    assert methods.taken(CONTACT, NAMED) == {"GET", "PATCH", "DELETE"}
    assert methods.not_taken(CONTACT, NAMED) == ["POST", "PUT"]


def test_without_conventions_only_the_description_counts() -> None:
    assert methods.not_taken(CONTACT, {}) == ["POST", "PUT", "PATCH", "DELETE"]


def test_a_path_an_id_template_shadows_takes_that_templates_methods_too() -> None:
    """`/v1/contacts/search` is `/v1/contacts/{contact_id}` to a router."""
    assert methods.taken("/v1/contacts/search", NAMED) == {"POST", "GET", "PATCH", "DELETE"}


def test_a_named_method_and_a_path_with_a_query_are_read() -> None:
    cancel = "/v1/activities/act_" + "b" * 32 + "/cancel"
    assert methods.taken(cancel, NAMED) == {"DELETE"}
    assert methods.taken("/v1/deals", NAMED) >= {"GET", "POST"}
    assert methods.taken("/v1/success-events/sev_1", NAMED) == {"GET"}


def test_delete_is_tried_last() -> None:
    close = "/v1/conversations/conv_" + "c" * 32 + "/close"
    assert methods.not_taken(close, NAMED) == ["GET", "PUT", "PATCH", "DELETE"]
