"""The rules that hold on every response, in one registry.

Each check is a plain function `fn(response) -> None` taking an `httpx.Response` (the
request is `response.request`) and raising `ConformanceFailure` naming its
requirement. Hand-written suites call them (`run_checks(response)` or one by name),
and the fuzzing layer registers the same functions as schemathesis checks, so there
is one definition of "a conformant error body". A check that does not apply to a
response (an error rule on a 200) returns quietly.

The document states many things and leaves others "not shown"; each docstring says
which sentence the check rests on and why it is no stricter than that.

One module per area (`errors`, `headers`, `identifiers`, `timestamps`, `field_types`,
`collections`),
imported here in the order their checks register, which is the order `failures` runs
them; `registry` holds the registry, `body` what the areas share.
"""

# The order the areas are imported in is the order their checks register and run.
# isort: off
from crm_conformance.core.verdicts.checks.registry import (
    Evaluated as Evaluated,
    CheckFunction as CheckFunction,
    Check as Check,
    check as check,
    registered as registered,
    get as get,
    failures as failures,
    run_checks as run_checks,
)
from crm_conformance.core.verdicts.checks.body import (
    ERROR_TYPES as ERROR_TYPES,
)
from crm_conformance.core.verdicts.checks.errors import (
    error_envelope as error_envelope,
    error_type_enum as error_type_enum,
    error_fields as error_fields,
    PINNED_TYPES as PINNED_TYPES,
    allowed_types as allowed_types,
    error_type_matches_status as error_type_matches_status,
    validation_detail as validation_detail,
    error_request_id_matches_header as error_request_id_matches_header,
)
from crm_conformance.core.verdicts.checks.headers import (
    rate_limit_headers as rate_limit_headers,
    retry_after_on_429 as retry_after_on_429,
    request_id_header as request_id_header,
    request_id_names_one_answer as request_id_names_one_answer,
    code_keeps_its_type as code_keeps_its_type,
    json_content_type as json_content_type,
)
from crm_conformance.core.verdicts.checks.identifiers import (
    OBJECT_PREFIXES as OBJECT_PREFIXES,
    FIELD_PREFIXES as FIELD_PREFIXES,
    walk_resources as walk_resources,
    PREFIX_REQUIREMENTS as PREFIX_REQUIREMENTS,
    identifier_formats as identifier_formats,
    OWNER_FIELDS as OWNER_FIELDS,
    OWNER_KINDS as OWNER_KINDS,
    owners as owners,
    ALWAYS_PRESENT as ALWAYS_PRESENT,
    DOCUMENTED_RENDERINGS as DOCUMENTED_RENDERINGS,
    renders_records as renders_records,
    always_present_fields as always_present_fields,
    E164 as E164,
    phones_in_e164 as phones_in_e164,
)
from crm_conformance.core.verdicts.checks.timestamps import (
    is_timestamp as is_timestamp,
    DATE_TIME_FIELDS as DATE_TIME_FIELDS,
    timestamps as timestamps,
)
from crm_conformance.core.verdicts.checks.field_types import (
    FIELD_ROWS as FIELD_ROWS,
    field_types as field_types,
)
from crm_conformance.core.verdicts.checks.collections import (
    COLLECTION_OBJECTS as COLLECTION_OBJECTS,
    collection_envelope as collection_envelope,
    collection_row_objects as collection_row_objects,
    has_more_matches_next as has_more_matches_next,
    limit_refused as limit_refused,
    page_within_limit as page_within_limit,
)
# isort: on
