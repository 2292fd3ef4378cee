"""Contacts: "Resources and their fields › Contact" (and the organization as embedded
in it), "Endpoints › Contacts" and the custom-fields and collection conventions.

Contact create and update bodies are "not shown", so contacts and organizations are
made by the provisioning adapter (`factory.contact(...)`), which renders them as the
API does; the rules checked on them are the Contact table's: `name` derived from
first and last name, `phone` E.164 "normalized on write", `owner` present whenever
there is an owner, `organization` present only when expanded, `company_name` kept
and linked to an organization, every custom field present (null when unset). The
list's filters are `test_contact_filters.py`'s; its order, created-since and the
100-value cap are the query-parameter and pagination suites' (`test_pagination.py`,
`test_query_parameters.py`).
"""

import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from crm_conformance import AdapterClient, ApiClient
from crm_conformance.core.model import conventions
from crm_conformance.steps import (
    PHONE_FORMS,
    RecordFactory,
    Updates,
    create_fields,
    expect_embedded_as_made,
    expect_enum,
    expect_error,
    expect_error_among,
    expect_field,
    expect_identifier,
    expect_narrowed,
    expect_organization,
    expect_owner,
    expect_status,
    expect_success,
    expect_text,
    expect_true,
    expect_type_or_null,
    expect_unset_custom_fields,
    expect_value,
    ids_of,
    matches,
    phone_number,
    spaced,
    strings_in,
)

CONTACTS = "/v1/contacts"
STATUSES = ("open", "on_hold", "won", "lost")
SCORES = ("cold", "warm", "hot")
VISIBILITIES = ("private", "team", "team_and_subteams", "company")
CHANNEL_KEYS = ("identifier", "platform", "status", "username")
E164 = r"\+[1-9][0-9]{1,14}"


# --- the contact record ------------------------------------------------------------


@pytest.mark.req("CON-003", "CON-004", "CON-005", "CON-006", "CON-008", "CON-010", "CON-020")
@pytest.mark.req("IDN-003", "IDN-006")
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
    names = {"first_name": "Ada", "last_name": factory.unique("Lovelace")}
    made = factory.contact(**names, **sent)
    response = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(response, "CON-003")
    # "Always present" (CON-003) and ISO 8601 timestamps (IDN-003) are universal checks,
    # applied by expect_success.
    expect_value(response, "CON-003", "object", got=contact["object"], expected="contact")
    expect_identifier(response, "IDN-006", contact, "id", "con_")
    expect_enum(response, "CON-004", contact, "status", STATUSES)
    expect_enum(response, "CON-005", contact, "visibility", VISIBILITIES)
    expect_enum(response, "CON-020", contact, "score", SCORES)
    for name, value in sent.items():
        req_id = {"email": "CON-008", "score": "CON-020"}.get(name, "CON-010")
        expect_value(response, req_id, name, got=contact.get(name), expected=value)
    for name, value in names.items():
        expect_value(response, "CON-006", name, got=contact.get(name), expected=value)


ENUM_VALUES = {
    **{("status", value): "CON-004" for value in STATUSES},
    **{("visibility", value): "CON-005" for value in VISIBILITIES},
}
"""Every value of the contact's two always-present enums, and the id each is checked for."""


@pytest.mark.req("CON-004", "CON-005")
@pytest.mark.parametrize(
    ("field", "value"), sorted(ENUM_VALUES), ids=[f"{f}={v}" for f, v in sorted(ENUM_VALUES)]
)
def test_every_status_and_visibility_reads_back_as_written(
    api: ApiClient, factory: RecordFactory, field: str, value: str
) -> None:
    """Each enum value, not only the default one: a contact made with it reads back with
    that value, spelt as the document spells it. A workspace token sees private records
    too. A lost contact is given a lost reason, which some servers require."""
    extra = {"lost_reason": "Price"} if value == "lost" else {}
    made = factory.contact(**{field: value}, **extra)
    response = api.get(f"{CONTACTS}/{made['id']}")
    req_id = ENUM_VALUES[field, value]
    contact = expect_success(response, req_id)
    expect_value(response, req_id, field, got=contact.get(field), expected=value)


@pytest.mark.req("CON-022", "CON-023")
def test_channels_and_tags_render_as_documented(api: ApiClient, factory: RecordFactory) -> None:
    """The adapter takes `tags` as tag ids and `channels` in their rendered form; a Tag
    embedded in a contact is the Tag, colour and all."""
    tag = factory.tag(kind="contact", color="#1a2b3c")
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
    shown = ("id", "object", "name", "color")
    expect_true(
        response,
        "CON-023",
        isinstance(tags, list)
        and all(isinstance(t, dict) for t in tags)
        and [tuple(t.get(k) for k in shown) for t in tags] == [tuple(tag.get(k) for k in shown)],
        expected=f"tags [the Tag {tag['id']} named {tag['name']!r}, color {tag.get('color')!r}]",
        got=f"tags = {tags!r}",
    )


@pytest.mark.req("CON-007")
def test_name_is_derived_from_first_and_last_name(api: ApiClient, factory: RecordFactory) -> None:
    """A display name made of the two names keeps them two words (in either order, with
    any separator of spaces or a comma): "AdaLovelace" displays neither."""
    made = factory.contact(first_name="Ada", last_name=factory.unique("Lovelace"))
    response = api.get(f"{CONTACTS}/{made['id']}")
    name = expect_success(response, "CON-007").get("name")
    words = re.split(r"[\s,]+", name) if isinstance(name, str) else []
    expect_true(
        response,
        "CON-007",
        "Ada" in words and made["last_name"] in words,
        expected=f"name made of first_name 'Ada' and last_name {made['last_name']!r}, two words",
        got=f"name = {name!r}",
    )


@pytest.mark.req("CON-009")
@pytest.mark.parametrize("form", sorted(PHONE_FORMS))
def test_a_phone_is_normalized_to_e164_on_write(
    api: ApiClient, factory: RecordFactory, form: str
) -> None:
    """Through the adapter's write (the public writes: `test_field_rules`)."""
    phone = phone_number()
    written = PHONE_FORMS[form](phone)
    made = factory.contact(phone=written)
    response = api.get(f"{CONTACTS}/{made['id']}")
    got = expect_success(response, "CON-009").get("phone")
    expect_true(
        response,
        "CON-009",
        matches(E164, got) and got == phone,
        expected=f"phone {phone!r} (E.164 of {written!r})",
        got=f"phone = {got!r}",
    )


@pytest.mark.req("CON-017", "CON-018", "IDN-018", "IDN-019", "IDN-020", "IDN-021")
def test_a_contact_with_an_owner_always_renders_the_owner(
    api: ApiClient, adapter: AdapterClient, factory: RecordFactory
) -> None:
    users = adapter.fixture_ids("users")
    made = factory.contact(owner_id=users[0])
    for response in (
        api.get(f"{CONTACTS}/{made['id']}"),
        api.get(f"{CONTACTS}/{made['id']}", params={"expand": "organization"}),
    ):
        contact = expect_success(response, "CON-018")
        expect_field(response, "CON-017", contact, "owner_id", expected=users[0])
        expect_owner(response, "CON-018", contact, "owner", users[0])


@pytest.mark.req("CON-019", "QRY-007")
@pytest.mark.parametrize("read", ["list", "retrieve", "search"])
def test_owner_is_not_an_expand_target(api: ApiClient, factory: RecordFactory, read: str) -> None:
    """On every read of contacts that takes `expand` (search "accepts the same `expand`",
    in its body, where the problem may read as 422: the code is what the table pins);
    the retrieve names a contact that exists, so the refusal cannot be a 404. `owner`
    is a field of the contact though no relationship to expand, so `validation_failed`
    ("Query ... problems answer 400 with the same code") says it as well as
    `unknown_expand` ("an expand name not on the resource"). Taken, it fails CON-019;
    refused otherwise, the refusal's rule (QRY-007)."""
    codes = ("unknown_expand", "validation_failed")
    if read == "search":
        response = api.post(f"{CONTACTS}/search", json={"expand": "owner", "limit": 1})
    elif read == "list":
        response = api.get(CONTACTS, params={"expand": "owner", "limit": 1})
    else:
        response = api.get(f"{CONTACTS}/{factory.contact()['id']}", params={"expand": "owner"})
    expect_true(
        response,
        "CON-019",
        not response.is_success,
        expected="expand=owner refused: owner is not an expand target",
        got=f"{response.status_code} {response.text[:200]}",
    )
    if response.is_success:
        return  # charged above
    statuses = {400: codes, 422: codes} if read == "search" else {400: codes}
    expect_error_among(response, "QRY-007", statuses)


@pytest.mark.req("CON-015", "CON-016", "CON-026", "CON-040", "IDN-007")
def test_the_organization_is_embedded_only_when_expanded(
    api: ApiClient, factory: RecordFactory
) -> None:
    organization = factory.organization(
        website="https://example.com/", external_id=factory.unique("org-ext")
    )
    made = factory.contact(organization_id=organization["id"])
    plain = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(plain, "CON-016")
    expect_field(plain, "CON-015", contact, "organization_id", expected=organization["id"])
    expect_organization(plain, "CON-016", contact, None)
    expanded = api.get(f"{CONTACTS}/{made['id']}", params={"expand": "organization"})
    embedded = expect_organization(
        expanded, "CON-016", expect_success(expanded, "CON-040"), organization["id"]
    )
    assert embedded is not None
    expect_identifier(expanded, "IDN-007", embedded, "id", "org_")
    expect_embedded_as_made(expanded, "CON-026", embedded, organization)


@pytest.mark.req("CON-038", "CON-040", "QRY-011")
def test_a_contact_is_retrieved_with_chosen_fields(api: ApiClient, factory: RecordFactory) -> None:
    """The retrieve answers the contact; with `fields`, what it names, and `object` and
    `id`, which `fields` always includes (QRY-011's, wherever they are missing)."""
    made = factory.contact()
    whole = api.get(f"{CONTACTS}/{made['id']}")
    expect_field(whole, "CON-038", expect_success(whole, "CON-038"), "id", expected=made["id"])
    response = api.get(f"{CONTACTS}/{made['id']}", params={"fields": "first_name"})
    contact = expect_success(response, "CON-040")
    expect_field(response, "QRY-011", contact, "id", expected=made["id"])
    expect_field(response, "CON-040", contact, "first_name", expected=made["first_name"])
    expect_field(response, "QRY-011", contact, "object", expected="contact")
    expect_narrowed(response, "CON-040", contact, ("first_name",))


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
    keys = adapter.fixture_ids("contact_custom_fields")
    made = factory.contact()
    response = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(response, "CON-025")
    expect_type_or_null(response, "CON-024", contact, "custom_fields", dict, "an object")
    expect_unset_custom_fields(response, "CON-025", contact, keys)


@pytest.mark.req("CON-025")
def test_every_custom_field_of_an_embedded_organization_appears(
    api: ApiClient, adapter: AdapterClient, factory: RecordFactory
) -> None:
    """The convention holds for each resource: the organization a contact embeds (with
    expand=organization) carries every organization custom field, null when unset."""
    keys = adapter.fixture_ids("organization_custom_fields")
    organization = factory.organization()
    made = factory.contact(organization_id=organization["id"])
    response = api.get(f"{CONTACTS}/{made['id']}", params={"expand": "organization"})
    embedded = expect_success(response, "CON-025").get("organization")
    expect_true(
        response,
        "CON-025",
        isinstance(embedded, dict),
        expected=f"organization {organization['id']} embedded",
        got=f"organization = {embedded!r}",
    )
    assert isinstance(embedded, dict)
    expect_unset_custom_fields(response, "CON-025", embedded, keys)


@pytest.mark.req("CON-021")
def test_a_lost_contact_names_its_lost_reason(api: ApiClient, factory: RecordFactory) -> None:
    made = factory.contact(status="lost", lost_reason="Price")
    response = api.get(f"{CONTACTS}/{made['id']}")
    contact = expect_success(response, "CON-021")
    expect_field(response, "CON-021", contact, "status", expected="lost")
    expect_text(response, "CON-021", contact, "lost_reason", why="the name of the reason")


@pytest.mark.req("CON-042")
def test_field_definitions_are_listed(api: ApiClient, convention: conventions.Lookup) -> None:
    """The query is the target's (`fields_query`): its shape is not shown, and a
    required parameter is as legal as none."""
    query = conventions.query(convention, "fields_query")
    expect_status(api.get("/v1/fields", params=query), "CON-042", 200)


CUSTOM_FIELD_FIXTURES = {
    "contact": "contact_custom_fields",
    "organization": "organization_custom_fields",
    "deal": "deal_custom_fields",
}


@pytest.mark.req("CON-049", "CON-042")
def test_field_definitions_include_the_custom_fields(
    api: ApiClient, adapter: AdapterClient, convention: conventions.Lookup
) -> None:
    """ "field definitions (built-in and custom)": each custom field the adapter's
    fixtures name, of each resource the target's `fields_query` names (every resource
    when it names none), appears in the answer. Its shape is not shown, so a key is
    looked for as a string anywhere in it, on every page where the answer is a
    collection whose `links.next` leads on."""
    query = conventions.query(convention, "fields_query")
    fixtures = adapter.fixtures()
    keys = {kind: getattr(fixtures, name) for kind, name in CUSTOM_FIELD_FIXTURES.items()}
    named = [kind for kind in keys if any(kind in value for _, value in query)]
    wanted = sorted({key for kind in named or keys for key in keys[kind]})
    if not wanted:
        pytest.skip("the adapter's fixtures name no custom field of the resources asked for")
    response = api.get("/v1/fields", params=query)
    seen = strings_in(expect_status(response, "CON-042", 200))
    for cursor in _next_cursors(api, query, response):
        seen |= strings_in(cursor)
    missing = [key for key in wanted if key not in seen]
    expect_true(
        response,
        "CON-049",
        not missing,
        expected=f"the custom fields {', '.join(wanted)} among the field definitions",
        got=f"not found: {', '.join(missing)}",
    )


def _next_cursors(
    api: ApiClient, query: list[tuple[str, str]], first: httpx.Response, pages: int = 20
) -> Iterator[Any]:
    """The later pages of a collection answer (its `links.next`), up to `pages`."""
    body = first.json()
    for _ in range(pages):
        links = body.get("links") if isinstance(body, dict) else None
        cursor = links.get("next") if isinstance(links, dict) else None
        if not isinstance(cursor, str) or not cursor:
            return
        response = api.get("/v1/fields", params=[*query, ("cursor", cursor)])
        body = expect_status(response, "CON-042", 200)
        yield body


# --- company_name --------------------------------------------------------------------


WRITES_OF_COMPANY_NAME = ("create", "update", "adapter")
"""How a contact gets its `company_name`: the target's create and update (API writes,
where the rule lives), and the adapter's record (the vendor's fixture tool, not the
API)."""


@dataclass(frozen=True)
class CompanyNames:
    """Gives a new contact a `company_name` each way `WRITES_OF_COMPANY_NAME` names."""

    api: ApiClient
    factory: RecordFactory
    updates: Updates
    convention: conventions.Lookup

    def given(
        self, how: str, name: str, expand: bool = False
    ) -> tuple[httpx.Response, dict[str, Any]]:
        """A contact with no organization given `company_name` `name` (`how`), as
        retrieved."""
        if how == "adapter":
            made = self.factory.contact(company_name=name)
        elif how == "create":
            fields = {**create_fields("contact", self.factory.unique), "company_name": name}
            made = {"id": self.updates.created("contact", fields, "CON-013")}
        else:
            made = self.factory.contact()
            written = self.updates.send("contact", made["id"], {"company_name": name})
            expect_success(written, "CON-013")
        response = self.api.get(
            f"{CONTACTS}/{made['id']}", params={"expand": "organization"} if expand else None
        )
        return response, expect_success(response, "CON-013")


@pytest.fixture
def company_names(
    api: ApiClient, factory: RecordFactory, updates: Updates, convention: conventions.Lookup
) -> CompanyNames:
    return CompanyNames(api, factory, updates, convention)


def linked_by(how: str, response: httpx.Response, linked: bool, **shown: Any) -> None:
    """CON-013 on a contact `how` gave a company name: an API write that does not link
    it fails; an adapter record that is not linked says nothing of the API (the adapter
    is the vendor's fixture tool), so that point is not applicable."""
    if how == "adapter" and not linked:
        pytest.skip(
            f"the adapter's contact is not linked ({shown}): the adapter is not the API; "
            "the update's point checks the API's write"
        )
    expect_true(
        response,
        "CON-013",
        linked,
        expected="the contact linked to the organization of its company_name",
        got=", ".join(f"{k} = {v!r}" for k, v in shown.items()),
    )


@pytest.mark.req("CON-012", "CON-013")
@pytest.mark.parametrize("how", WRITES_OF_COMPANY_NAME)
def test_company_name_links_to_the_organization_of_that_name(
    company_names: CompanyNames, how: str
) -> None:
    organization = company_names.factory.organization()
    response, contact = company_names.given(how, organization["name"])
    expect_field(response, "CON-012", contact, "company_name", expected=organization["name"])
    linked = contact.get("organization_id")
    linked_by(how, response, linked == organization["id"], organization_id=linked)


@pytest.mark.req("CON-012", "CON-013")
@pytest.mark.parametrize("how", WRITES_OF_COMPANY_NAME)
def test_company_name_matching_no_organization_links_a_new_one(
    company_names: CompanyNames, how: str
) -> None:
    company = company_names.factory.unique("Company")
    response, contact = company_names.given(how, company, expand=True)
    expect_field(response, "CON-012", contact, "company_name", expected=company)
    embedded = contact.get("organization")
    name = embedded.get("name") if isinstance(embedded, dict) else None
    linked_by(
        how,
        response,
        isinstance(contact.get("organization_id"), str)
        and isinstance(name, str)
        and name.strip().casefold() == company.casefold(),
        organization_id=contact.get("organization_id"),
        organization=embedded,
    )


@pytest.mark.req("CON-013", "TEN-001")
@pytest.mark.parametrize("how", WRITES_OF_COMPANY_NAME)
def test_company_name_never_links_another_workspaces_organization(
    company_names: CompanyNames, how: str
) -> None:
    """The organization "of that name" is one of the token's workspace ("The workspace is
    implied by the bearer token"): a name only the second workspace's organization has
    matches none here, so a new one is linked, never theirs."""
    company = company_names.factory.unique("Company")
    theirs = company_names.factory.adapter.create_record(
        kind="organization", fields={"name": company}, workspace="secondary"
    )
    response, contact = company_names.given(how, company)
    linked = contact.get("organization_id")
    expect_true(
        response,
        "TEN-001",
        linked != theirs["id"],
        expected=f"a contact of this workspace not linked to {theirs['id']} of the other",
        got=f"organization_id = {linked!r}",
    )
    linked_by(how, response, isinstance(linked, str), organization_id=linked)


# --- the list ------------------------------------------------------------------------


@pytest.mark.req("CON-001")
def test_contacts_are_listed_as_a_collection_of_contact(
    api: ApiClient, factory: RecordFactory
) -> None:
    """A contact is made first, so the page has at least one item to judge."""
    factory.contact()
    response = api.get(CONTACTS, params={"limit": 5})
    page = expect_status(response, "CON-001", 200)
    kinds = {row.get("object") for row in page["data"]}
    expect_true(
        response,
        "CON-001",
        bool(kinds) and kinds <= {"contact"},
        expected="at least one item, every item an object 'contact'",
        got=f"objects {sorted(map(str, kinds))}",
    )


# --- a phone names one contact ---------------------------------------------------------


@pytest.mark.req("CON-045")
@pytest.mark.parametrize("written", ["as read", "with spaces"])
def test_a_contact_created_with_the_phone_of_another_answers_contact_already_exists(
    updates: Updates, factory: RecordFactory, written: str
) -> None:
    """ "`contact_already_exists` | contact with this phone exists", at the target's
    create (`[conventions.creates]`; its body is not shown, so a contact it makes with a
    phone of its own comes first, the control). The phone is sent as the contact reads
    it, and with spaces: "E.164, normalized on write" makes both the one number."""
    phone = phone_number()
    updates.created(
        "contact", {**create_fields("contact", factory.unique), "phone": phone}, "CON-045"
    )
    sent = phone if written == "as read" else spaced(phone)
    again = {**create_fields("contact", factory.unique), "phone": sent}
    response = updates.create("contact", again)
    expect_error(response, "CON-045", status=409, code="contact_already_exists")


@pytest.mark.req("CON-045")
@pytest.mark.parametrize("written", ["as read", "with spaces"])
def test_an_update_to_the_phone_of_another_contact_answers_contact_already_exists(
    updates: Updates, written: str
) -> None:
    """ "contact with this phone exists" holds for a change as for a create: the target's
    update (`[conventions.updates]`) giving a contact another's phone is refused, and the
    contact keeps its own."""
    taken = str(updates.made("contact", phone=phone_number())["phone"])
    own = phone_number()
    contact_id = str(updates.made("contact", phone=own)["id"])
    sent = taken if written == "as read" else spaced(taken)
    response = updates.send("contact", contact_id, {"phone": sent})
    expect_error(response, "CON-045", status=409, code="contact_already_exists")
    now = updates.read("contact", contact_id, "CON-045")
    expect_field(response, "CON-045", now, "phone", expected=own, why="kept")


# --- upsert conflicts ----------------------------------------------------------------


def upsert(
    api: ApiClient, convention: conventions.Lookup, factory: RecordFactory, **values: str
) -> httpx.Response:
    """POST the target's upsert body (`upsert.body`) with `external_id` and `phone` as
    given. Skips when the body names neither, or when the target refuses it as invalid
    and refuses a control upsert (the same body with a new external_id and phone) too:
    the upsert's shape is not shown. Where the control is made, the body is right, and
    the refusal goes to the caller's check: a conflict answered as invalid input."""
    missing = {"external_id", "phone"} - conventions.placeholders(convention("upsert.body"))
    if missing:
        pytest.skip(f"the target file's upsert.body has no {', '.join(sorted(missing))} to fill")
    body = conventions.body(
        convention, "upsert.body", first_name=factory.unique("upsert"), **values
    )
    response = api.post("/v1/contacts/upsert", json=body)
    error = response.json().get("error") if response.status_code in (400, 422) else None
    if isinstance(error, dict) and error.get("code") == "validation_failed":
        fresh = {"external_id": factory.unique("ext"), "phone": phone_number()}
        control = conventions.body(
            convention, "upsert.body", first_name=factory.unique("upsert"), **fresh
        )
        if not api.post("/v1/contacts/upsert", json=control).is_success:
            pytest.skip(
                f"the upsert body is not shown, and the target refused {body!r} and a control "
                "with a new external_id and phone as invalid"
            )
    return response


WRITTEN: dict[str, Callable[[str], str]] = {"as read": str, "with spaces": spaced}
"""How an upsert writes a contact's phone: as the contact reads it, or spaced ("E.164,
normalized on write" makes both the one number, so both match the contact)."""


@pytest.mark.req("CON-043")
@pytest.mark.parametrize("written", WRITTEN)
def test_an_upsert_whose_phone_matches_a_contact_with_another_external_id_conflicts(
    api: ApiClient, factory: RecordFactory, convention: conventions.Lookup, written: str
) -> None:
    """The phone names a contact that has another external id: `external_id_conflict`
    ("the matched contact has another external id"); the external id sent names no one,
    so no other rule applies."""
    matched = factory.contact(phone=phone_number(), external_id=factory.unique("ext"))
    phone = WRITTEN[written](str(matched["phone"]))
    response = upsert(api, convention, factory, external_id=factory.unique("ext"), phone=phone)
    expect_error(response, "CON-043", status=409, code="external_id_conflict")


@pytest.mark.req("CON-043")
@pytest.mark.parametrize("written", WRITTEN)
def test_an_upsert_whose_external_id_and_phone_name_two_contacts_conflicts(
    api: ApiClient, factory: RecordFactory, convention: conventions.Lookup, written: str
) -> None:
    """ "upsert `external_id` and phone name different contacts": `external_id_conflict`,
    and neither contact is changed into the other."""
    by_external_id = factory.contact(external_id=factory.unique("ext"))
    by_phone = factory.contact(phone=phone_number())
    response = upsert(
        api,
        convention,
        factory,
        external_id=by_external_id["external_id"],
        phone=WRITTEN[written](str(by_phone["phone"])),
    )
    expect_error(response, "CON-043", status=409, code="external_id_conflict")


@pytest.mark.req("CON-044", "CON-045")
def test_an_upsert_naming_a_contacts_external_id_and_its_phone_spaced_updates_it(
    api: ApiClient, factory: RecordFactory, convention: conventions.Lookup
) -> None:
    """The external id and the phone, written with spaces, name one contact: no conflict
    ("E.164, normalized on write"; never `phone_mismatch`, the phone is the contact's),
    and the upsert "updates" that contact: the external id still names it alone."""
    matched = factory.contact(phone=phone_number(), external_id=factory.unique("ext"))
    response = upsert(
        api,
        convention,
        factory,
        external_id=str(matched["external_id"]),
        phone=spaced(str(matched["phone"])),
    )
    expect_success(response, "CON-044")
    name = convention("contact_filters.external_id")
    listed = api.get(CONTACTS, params={name: str(matched["external_id"])})
    rows = expect_status(listed, "CON-045", 200).get("data") or []
    expect_value(
        listed,
        "CON-045",
        "contacts with the external id",
        got=ids_of(rows),
        expected=[matched["id"]],
    )


@pytest.mark.req("CON-044")
def test_an_upsert_never_changes_a_phone(
    api: ApiClient, factory: RecordFactory, convention: conventions.Lookup
) -> None:
    """The external id names a contact with another phone: `phone_mismatch`, and the
    contact keeps its phone ("upsert never changes a phone")."""
    matched = factory.contact(phone=phone_number(), external_id=factory.unique("ext"))
    response = upsert(
        api, convention, factory, external_id=matched["external_id"], phone=phone_number()
    )
    expect_error(response, "CON-044", status=409, code="phone_mismatch")
    after = expect_success(api.get(f"{CONTACTS}/{matched['id']}"), "CON-044")
    expect_value(
        response,
        "CON-044",
        "phone after the upsert",
        got=after.get("phone"),
        expected=matched["phone"],
    )
