"""Contacts: "Resources and their fields › Contact" (and the organization as embedded
in it), "Endpoints › Contacts" and the custom-fields and collection conventions.

Contact create and update bodies are "not shown", so contacts and organizations are
made by the provisioning adapter (`factory.contact(...)`), which renders them as the
API does; the rules checked on them are the Contact table's: `name` derived from
first and last name, `phone` E.164 "normalized on write", `owner` present whenever
there is an owner, `organization` present only when expanded, `company_name` kept
and linked to an organization, every custom field present (null when unset). Each
row of the list's filter table is checked to OR its repeated values and AND with
another filter; the filters' query names are "not shown" and come from the target
file's `[conventions.contact_filters]`. The list's order, created-since and the
100-value cap are the query-parameter and pagination suites' (`test_pagination.py`,
`test_query_parameters.py`).
"""

import secrets
from collections.abc import Callable
from typing import Any, cast

import pytest

from crm_conformance import (
    AdapterClient,
    ApiClient,
    RecordFactory,
    expect_enum,
    expect_error,
    expect_pages,
    expect_status,
    expect_success,
    expect_true,
    expect_type_or_null,
    expect_value,
    matches,
)

CONTACTS = "/v1/contacts"
STATUSES = ("open", "on_hold", "won", "lost")
SCORES = ("cold", "warm", "hot")
VISIBILITIES = ("private", "team", "team_and_subteams", "company")
CHANNEL_KEYS = ("identifier", "platform", "status", "username")
E164 = r"\+[1-9][0-9]{1,14}"


# --- the contact record ------------------------------------------------------------


@pytest.mark.req("CON-003", "CON-004", "CON-005", "CON-006", "CON-008", "CON-010", "CON-020")
@pytest.mark.req("IDN-006")
def test_a_contact_renders_its_fields_with_their_types(
    api: ApiClient, factory: RecordFactory, unique: Callable[[str], str]
) -> None:
    sent = {
        "email": f"{secrets.token_hex(6)}@example.com",
        "address": "1 Main Street",
        "city": "Springfield",
        "state": "IL",
        "job_title": "Buyer",
        "score": "warm",
    }
    made = factory.contact(**sent)
    response = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(response, "CON-003")
    # "Always present" (CON-003) is a universal check, applied by expect_success.
    expect_value(response, "CON-003", "object", contact["object"], "contact")
    expect_enum(response, "CON-004", contact, "status", STATUSES)
    expect_enum(response, "CON-005", contact, "visibility", VISIBILITIES)
    expect_enum(response, "CON-020", contact, "score", SCORES)
    for name, value in sent.items():
        req_id = {"email": "CON-008", "score": "CON-020"}.get(name, "CON-010")
        expect_value(response, req_id, name, contact.get(name), value)
    for name in ("first_name", "last_name"):
        expect_value(response, "CON-006", name, contact.get(name), made[name])


@pytest.mark.req("CON-022", "CON-023")
def test_channels_and_tags_render_as_documented(api: ApiClient, factory: RecordFactory) -> None:
    """The adapter takes `tags` as tag ids and `channels` in their rendered form."""
    tag = factory.tag(kind="contact")
    channel = {
        "identifier": "ada.example",
        "platform": "instagram",
        "status": "active",
        "username": "ada",
    }
    made = factory.contact(tags=[tag["id"]], channels=[channel])
    response = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(response, "CON-022")
    channels = contact.get("channels")
    expect_true(
        response,
        "CON-022",
        isinstance(channels, list)
        and len(channels) == 1
        and isinstance(channels[0], dict)
        and all(isinstance(channels[0].get(key), str) for key in CHANNEL_KEYS),
        expected=f"channels one item of {', '.join(CHANNEL_KEYS)} strings",
        got=f"channels = {channels!r}",
    )
    tags = contact.get("tags")
    expect_true(
        response,
        "CON-023",
        isinstance(tags, list)
        and all(isinstance(t, dict) for t in tags)
        and [(t.get("id"), t.get("object"), t.get("name")) for t in tags]
        == [(tag["id"], "tag", tag["name"])],
        expected=f"tags [the Tag {tag['id']} named {tag['name']!r}]",
        got=f"tags = {tags!r}",
    )


@pytest.mark.req("CON-007")
def test_name_is_derived_from_first_and_last_name(api: ApiClient, factory: RecordFactory) -> None:
    made = factory.contact(first_name="Ada", last_name=factory.unique("Lovelace"))
    response = api.get(f"{CONTACTS}/{made['id']}")
    name = expect_success(response, "CON-007").get("name")
    expect_true(
        response,
        "CON-007",
        isinstance(name, str) and "Ada" in name and made["last_name"] in name,
        expected=f"name made of first_name 'Ada' and last_name {made['last_name']!r}",
        got=f"name = {name!r}",
    )


PHONE_FORMS = {
    "spaces": "+44 20 {a} {b}",
    "dashes": "+44-20-{a}-{b}",
    "parentheses": "+44 (20) {a}-{b}",
    "dots": "+44.20.{a}.{b}",
}
"""One number written the ways people write it; E.164 is `+4420` and the 8 digits."""


@pytest.mark.req("CON-009")
@pytest.mark.parametrize("form", sorted(PHONE_FORMS))
def test_a_phone_is_normalized_to_e164_on_write(
    api: ApiClient, factory: RecordFactory, form: str
) -> None:
    # A London 020 7xxx xxxx number (valid, so strict validators accept it), random
    # because phones are unique per workspace.
    digits = f"7{secrets.randbelow(10**7):07d}"
    written = PHONE_FORMS[form].format(a=digits[:4], b=digits[4:])
    made = factory.contact(phone=written)
    response = api.get(f"{CONTACTS}/{made['id']}")
    phone = expect_success(response, "CON-009").get("phone")
    expect_true(
        response,
        "CON-009",
        matches(E164, phone) and phone == f"+4420{digits}",
        expected=f"phone '+4420{digits}' (E.164 of {written!r})",
        got=f"phone = {phone!r}",
    )


@pytest.mark.req("CON-017", "CON-018", "IDN-018", "IDN-019", "IDN-020", "IDN-021")
def test_a_contact_with_an_owner_always_renders_the_owner(
    api: ApiClient, adapter: AdapterClient, factory: RecordFactory
) -> None:
    users = adapter.fixtures().users
    if not users:
        pytest.skip("the adapter's fixtures list no user")
    made = factory.contact(owner_id=users[0])
    for response in (
        api.get(f"{CONTACTS}/{made['id']}"),
        api.get(f"{CONTACTS}/{made['id']}", params={"expand": "organization"}),
    ):
        contact = expect_success(response, "CON-018")
        expect_value(response, "CON-017", "owner_id", contact.get("owner_id"), users[0])
        owner = contact.get("owner")
        expect_true(
            response,
            "CON-018",
            isinstance(owner, dict)
            and owner.get("id") == users[0]
            and owner.get("object") == "owner"
            and owner.get("kind") == "user",
            expected=f"owner an Owner {{id: {users[0]}, kind: user, object: owner}}",
            got=f"owner = {owner!r}",
        )
        expect_type_or_null(
            response, "IDN-020", cast(dict[str, Any], owner), "name", str, "a string"
        )


@pytest.mark.req("CON-019")
def test_owner_is_not_an_expand_target(api: ApiClient) -> None:
    response = api.get(CONTACTS, params={"expand": "owner", "limit": 1})
    expect_error(response, "CON-019", status=400, code="unknown_expand")


@pytest.mark.req("CON-015", "CON-016", "CON-026", "CON-040", "IDN-007")
def test_the_organization_is_embedded_only_when_expanded(
    api: ApiClient, factory: RecordFactory
) -> None:
    organization = factory.organization()
    made = factory.contact(organization_id=organization["id"])
    plain = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(plain, "CON-016")
    expect_value(
        plain, "CON-015", "organization_id", contact.get("organization_id"), organization["id"]
    )
    expect_true(
        plain,
        "CON-016",
        contact.get("organization") is None,
        expected="no organization object without expand=organization",
        got=f"organization = {contact.get('organization')!r}",
    )
    expanded = api.get(f"{CONTACTS}/{made['id']}", params={"expand": "organization"})
    embedded = expect_success(expanded, "CON-040").get("organization")
    expect_true(
        expanded,
        "CON-016",
        isinstance(embedded, dict) and embedded.get("id") == organization["id"],
        expected=f"organization the record {organization['id']} with expand=organization",
        got=f"organization = {embedded!r}",
    )
    assert isinstance(embedded, dict)
    expect_value(expanded, "CON-026", "organization.object", embedded.get("object"), "organization")
    expect_value(
        expanded, "CON-026", "organization.name", embedded.get("name"), organization["name"]
    )


@pytest.mark.req("CON-038", "CON-040")
def test_a_contact_is_retrieved_with_chosen_fields(api: ApiClient, factory: RecordFactory) -> None:
    made = factory.contact()
    response = api.get(f"{CONTACTS}/{made['id']}", params={"fields": "first_name"})
    contact = expect_success(response, "CON-040")
    expect_value(response, "CON-038", "id", contact.get("id"), made["id"])
    expect_value(response, "CON-040", "first_name", contact.get("first_name"), made["first_name"])
    expect_value(response, "CON-040", "object", contact.get("object"), "contact")


@pytest.mark.req("CON-039")
@pytest.mark.parametrize("path_id", ["not-a-contact-id", f"org_{'a' * 32}", "con_123"])
def test_a_path_id_not_matching_the_contact_pattern_answers_400(
    api: ApiClient, path_id: str
) -> None:
    expect_status(api.get(f"{CONTACTS}/{path_id}"), "CON-039", 400)


@pytest.mark.req("CON-024", "CON-025")
def test_every_custom_field_appears_and_an_unset_one_is_null(
    api: ApiClient, adapter: AdapterClient, factory: RecordFactory
) -> None:
    keys = adapter.fixtures().contact_custom_fields
    if not keys:
        pytest.skip("the adapter's fixtures list no contact custom field")
    made = factory.contact()
    response = api.get(f"{CONTACTS}/{made['id']}")
    custom = expect_success(response, "CON-025").get("custom_fields")
    expect_true(
        response,
        "CON-024",
        isinstance(custom, dict),
        expected="custom_fields an object keyed by field key",
        got=f"custom_fields = {custom!r}",
    )
    assert isinstance(custom, dict)
    wrong = {key: custom.get(key, "(absent)") for key in keys if custom.get(key, "") is not None}
    expect_true(
        response,
        "CON-025",
        not wrong,
        expected=f"every contact custom field ({', '.join(keys)}) present and null when unset",
        got=f"{wrong!r}",
    )


@pytest.mark.req("CON-021")
def test_a_lost_contact_names_its_lost_reason(api: ApiClient, factory: RecordFactory) -> None:
    made = factory.contact(status="lost", lost_reason="Price")
    response = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(response, "CON-021")
    expect_value(response, "CON-021", "status", contact.get("status"), "lost")
    expect_true(
        response,
        "CON-021",
        isinstance(contact.get("lost_reason"), str) and bool(contact["lost_reason"]),
        expected="lost_reason the name of the reason",
        got=f"lost_reason = {contact.get('lost_reason')!r}",
    )


@pytest.mark.req("CON-042")
def test_field_definitions_are_listed(api: ApiClient) -> None:
    expect_status(api.get("/v1/fields"), "CON-042", 200)


# --- company_name --------------------------------------------------------------------


@pytest.mark.req("CON-012", "CON-013")
def test_company_name_links_to_the_organization_of_that_name(
    api: ApiClient, factory: RecordFactory
) -> None:
    organization = factory.organization()
    made = factory.contact(company_name=organization["name"])
    response = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(response, "CON-013")
    expect_value(
        response, "CON-012", "company_name", contact.get("company_name"), organization["name"]
    )
    expect_value(
        response, "CON-013", "organization_id", contact.get("organization_id"), organization["id"]
    )


@pytest.mark.req("CON-012", "CON-013")
def test_company_name_matching_no_organization_links_a_new_one(
    api: ApiClient, factory: RecordFactory
) -> None:
    company = factory.unique("Company")
    made = factory.contact(company_name=company)
    response = api.get(f"{CONTACTS}/{made['id']}", params={"expand": "organization"})
    contact = expect_success(response, "CON-013")
    expect_value(response, "CON-012", "company_name", contact.get("company_name"), company)
    embedded = contact.get("organization")
    name = embedded.get("name") if isinstance(embedded, dict) else None
    expect_true(
        response,
        "CON-013",
        isinstance(contact.get("organization_id"), str)
        and isinstance(name, str)
        and name.strip().casefold() == company.casefold(),
        expected=f"the contact linked to a new organization named {company!r}",
        got=f"organization_id = {contact.get('organization_id')!r}, organization = {embedded!r}",
    )


# --- the list ------------------------------------------------------------------------


@pytest.mark.req("CON-001")
def test_contacts_are_listed_as_a_collection_of_contact(api: ApiClient) -> None:
    response = api.get(CONTACTS, params={"limit": 5})
    page = expect_status(response, "CON-001", 200)
    kinds = {row.get("object") for row in page["data"]}
    expect_true(
        response,
        "CON-001",
        kinds <= {"contact"},
        expected="every item an object 'contact'",
        got=f"objects {sorted(map(str, kinds))}",
    )


def _two_values(name: str, factory: RecordFactory, adapter: AdapterClient) -> tuple[Any, Any]:
    """Two distinct values of the contact field `name`, each naming no other record."""
    if name == "status":
        return "open", "on_hold"
    if name == "score":
        return "cold", "hot"
    if name == "email":
        return (f"{secrets.token_hex(6)}@example.com", f"{secrets.token_hex(6)}@example.com")
    if name == "external_id":
        return factory.unique("ext"), factory.unique("ext")
    if name == "organization_id":
        return factory.organization()["id"], factory.organization()["id"]
    users = adapter.fixtures().users
    if len(users) < 2:
        pytest.skip("the adapter's fixtures list fewer than two users")
    return users[0], users[1]


FILTERS = {
    "status": "CON-027",
    "score": "CON-028",
    "email": "CON-029",
    "owner_id": "CON-030",
    "organization_id": "CON-031",
    "external_id": "CON-032",
}
"""The repeatable filters of the contact list (the table's rows) and their ids."""


@pytest.mark.req("CON-027", "CON-028", "CON-029", "CON-030", "CON-031", "CON-032")
@pytest.mark.req("CON-034", "CON-035")
@pytest.mark.parametrize("field", sorted(FILTERS))
def test_a_filter_ors_repeated_values_and_ands_with_other_filters(
    api: ApiClient,
    adapter: AdapterClient,
    factory: RecordFactory,
    convention: Callable[[str], str],
    field: str,
) -> None:
    """Two contacts, one per value. Narrowed to the pair by `external_id` (unless that is
    the filter under test), both values find both (OR) and one value finds one (AND)."""
    param = convention(f"contact_filters.{field}")
    by_external_id = convention("contact_filters.external_id")
    values = _two_values(field, factory, adapter)
    made = [factory.contact(**{"external_id": factory.unique("ext"), field: v}) for v in values]
    narrow = {} if field == "external_id" else {by_external_id: [m["external_id"] for m in made]}
    req_id = FILTERS[field]
    for values_sent, wanted, rule in (
        (list(values), {made[0]["id"], made[1]["id"]}, "CON-034"),
        ([values[0]], {made[0]["id"]}, "CON-035" if narrow else req_id),
    ):
        query = {**narrow, param: values_sent}
        found = {row.get("id") for row in expect_pages(api, CONTACTS, req_id, query)}
        expect_true(
            None,
            rule,
            found == wanted,
            expected=f"{query} finds exactly {sorted(wanted)}",
            got=f"found {sorted(map(str, found))}",
        )
