"""The operations the matrices send: every operation the description has is one they
can build, and each group stands for itself with a read and a write where it has them."""

from crm_conformance.core.model import document
from crm_conformance.steps import operations


def test_every_described_operation_has_a_call() -> None:
    described = {operation.operation_id for operation in document.operations()}
    named = {operation.operation_id for operation in operations.NAMED}
    assert described | named == set(operations.BUILDERS)
    assert not described & named


def test_the_named_operations_are_each_kinds_create_update_delete_retrieve_and_list() -> None:
    """A create, an update and a delete per kind the target file can name, guarded by its
    row's write scope, a retrieve per kind it reads back and a list per kind it lists, by
    the read scope."""
    by_id = {operation.operation_id: operation for operation in operations.NAMED}
    assert by_id["createOrganization"].scopes == ("organizations:write",)
    assert not by_id["createContact"].reads
    assert by_id["updateActivity"].scopes == ("activities:write",)
    assert not by_id["updateDeal"].reads
    assert by_id["getOrganization"].reads
    assert by_id["getOrganization"].group == "organizations"
    assert by_id["listDeals"].scopes == ("deals:read",)
    assert by_id["listDeals"].reads
    assert by_id["reverseSuccessEvent"].scopes == ("success_events:write",)
    assert by_id["getSuccessEvent"].reads
    assert by_id["updateTag"].scopes == ("tags:write",)
    assert by_id["cancelActivity"].scopes == ("activities:write",)
    assert not by_id["cancelActivity"].reads
    assert by_id["deleteTag"].scopes == ("tags:write",)
    assert not by_id["deleteContact"].reads
    assert by_id["updateNote"].scopes == ("notes:write",)
    assert by_id["listNotes"].reads
    assert len(by_id) == 33


def test_reads_are_read_scopes_or_gets() -> None:
    by_id = {operation.operation_id: operation for operation in document.operations()}
    assert by_id["searchContacts"].reads  # a POST, guarded by contacts:read
    assert by_id["listUsers"].reads  # scope not shown: a GET
    assert not by_id["closeConversation"].reads  # scope not shown: a POST
    assert not by_id["upsertContact"].reads
