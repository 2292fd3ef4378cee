"""Layer 4, the steps a suite test calls: expectations, factories, pages, operations.

`crm_conformance.steps` is the suite author's surface, as `crm_conformance` is the
vendor's: the shared steps our suites and a vendor's own tests beside them import
(`from crm_conformance.steps import expect_status, RecordFactory`). Loaded on first use
from the one list under TYPE_CHECKING (`core.exports`), so importing one module of this
package (the plugin's fixtures import the factories) loads no other.
"""

from typing import TYPE_CHECKING

from crm_conformance.core.exports import lazy_exports

if TYPE_CHECKING:
    from crm_conformance.core.model.capabilities import discover as discover
    from crm_conformance.core.transport.pacing import refill_window as refill_window
    from crm_conformance.core.verdicts.checks import is_timestamp as is_timestamp
    from crm_conformance.core.verdicts.checks import run_checks as run_checks
    from crm_conformance.steps.clock import NOT_A_DATE_TIME as NOT_A_DATE_TIME
    from crm_conformance.steps.clock import instant as instant
    from crm_conformance.steps.clock import later as later
    from crm_conformance.steps.clock import lookup_since as lookup_since
    from crm_conformance.steps.clock import same_instant as same_instant
    from crm_conformance.steps.clock import settle as settle
    from crm_conformance.steps.details import detail_fields as detail_fields
    from crm_conformance.steps.details import names_path as names_path
    from crm_conformance.steps.expect import PAST_EVERY_INTEGER as PAST_EVERY_INTEGER
    from crm_conformance.steps.expect import error_of as error_of
    from crm_conformance.steps.expect import expect_enum as expect_enum
    from crm_conformance.steps.expect import expect_error as expect_error
    from crm_conformance.steps.expect import expect_error_among as expect_error_among
    from crm_conformance.steps.expect import expect_field as expect_field
    from crm_conformance.steps.expect import expect_identifier as expect_identifier
    from crm_conformance.steps.expect import expect_narrowed as expect_narrowed
    from crm_conformance.steps.expect import expect_present as expect_present
    from crm_conformance.steps.expect import expect_refusal as expect_refusal
    from crm_conformance.steps.expect import expect_refused_body as expect_refused_body
    from crm_conformance.steps.expect import expect_status as expect_status
    from crm_conformance.steps.expect import expect_success as expect_success
    from crm_conformance.steps.expect import expect_text as expect_text
    from crm_conformance.steps.expect import expect_timestamp as expect_timestamp
    from crm_conformance.steps.expect import expect_true as expect_true
    from crm_conformance.steps.expect import expect_type_or_null as expect_type_or_null
    from crm_conformance.steps.expect import expect_value as expect_value
    from crm_conformance.steps.expect import expect_written as expect_written
    from crm_conformance.steps.expect import ids_of as ids_of
    from crm_conformance.steps.expect import matches as matches
    from crm_conformance.steps.expect import strings_in as strings_in
    from crm_conformance.steps.expect import universal as universal
    from crm_conformance.steps.expect import words_in as words_in
    from crm_conformance.steps.factories import PHONE_FORMS as PHONE_FORMS
    from crm_conformance.steps.factories import RecordFactory as RecordFactory
    from crm_conformance.steps.factories import absent_id as absent_id
    from crm_conformance.steps.factories import create_fields as create_fields
    from crm_conformance.steps.factories import phone_number as phone_number
    from crm_conformance.steps.factories import spaced as spaced
    from crm_conformance.steps.factories import stamp as stamp
    from crm_conformance.steps.json_values import is_record_object as is_record_object
    from crm_conformance.steps.json_values import json_equal as json_equal
    from crm_conformance.steps.pages import PageRead as PageRead
    from crm_conformance.steps.pages import expect_each_once as expect_each_once
    from crm_conformance.steps.pages import expect_found as expect_found
    from crm_conformance.steps.pages import expect_pages as expect_pages
    from crm_conformance.steps.pages import expect_pages_until as expect_pages_until
    from crm_conformance.steps.pages import expect_walk as expect_walk
    from crm_conformance.steps.pages import first_page as first_page
    from crm_conformance.steps.pages import with_cursor as with_cursor
    from crm_conformance.steps.reads import search_word as search_word
    from crm_conformance.steps.record_parts import (
        expect_embedded_as_made as expect_embedded_as_made,
    )
    from crm_conformance.steps.record_parts import expect_organization as expect_organization
    from crm_conformance.steps.record_parts import expect_owner as expect_owner
    from crm_conformance.steps.record_parts import (
        expect_unset_custom_fields as expect_unset_custom_fields,
    )
    from crm_conformance.steps.scope_refusals import (
        expect_insufficient_scope as expect_insufficient_scope,
    )
    from crm_conformance.steps.scope_refusals import refused_for_scope as refused_for_scope
    from crm_conformance.steps.sorting import NOT_SORTABLE as NOT_SORTABLE
    from crm_conformance.steps.sorting import TWO_KEYS as TWO_KEYS
    from crm_conformance.steps.sorting import expect_sorted as expect_sorted
    from crm_conformance.steps.sorting import expect_sorted_both_ways as expect_sorted_both_ways
    from crm_conformance.steps.sorting import skip_refused_sort as skip_refused_sort
    from crm_conformance.steps.sorting import two_key_order as two_key_order
    from crm_conformance.steps.sorting import two_key_stamps as two_key_stamps
    from crm_conformance.steps.updates import Updates as Updates
    from crm_conformance.steps.workspace_records import NOTE as NOTE
    from crm_conformance.steps.workspace_records import WorkspaceRecords as WorkspaceRecords

__all__, __getattr__ = lazy_exports(__name__, __file__)
