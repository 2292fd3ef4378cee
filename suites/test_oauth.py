"""OAuth visibility: a token acting for a person sees what that person sees, no more.

Conventions (Visibility): `private` is "owner only", `company` is "everyone"; "A
workspace token sees every record; an OAuth token sees what the authorizing person
sees." Authentication 8: a workspace token "reads the whole workspace". The adapter
makes two people with no team (spec/adapter.yaml: such a person sees only what they
own and `company` records) and three contacts: one private to the first person, one
private to the second, one company-wide of the second. The first person's OAuth
token and the workspace token then retrieve and list them.

How an invisible record answers on retrieve is not shown (only the body-id rule,
404 `record_not_found`, is), so a retrieve must not succeed and its status is observed.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from crm_conformance import ApiClient
from crm_conformance.core.model import conventions
from crm_conformance.steps import (
    RecordFactory,
    Updates,
    WorkspaceRecords,
    error_of,
    expect_found,
    expect_pages,
    expect_status,
    expect_true,
    first_page,
    id_inputs,
    lookup_since,
    matches,
    reads,
    search_word,
)


@dataclass(frozen=True)
class People:
    """The first person's OAuth client, and the three contacts whose visibility differs."""

    oauth: ApiClient
    own_private: str
    other_private: str
    other_company: str
    since: str
    """`updated_since` value before every contact's `updated_at` (`lookup_since`)."""
    names: dict[str, str]
    """Each contact's first name, unique to it: what search's `q` finds it by."""

    @property
    def visible(self) -> tuple[tuple[str, str], ...]:
        """The contacts the person sees, each with the rule that says so."""
        return ((self.own_private, "OAUTH-003"), (self.other_company, "OAUTH-005"))


@pytest.fixture
def people(api: ApiClient, factory: RecordFactory) -> People:
    me, other = factory.user(), factory.user()
    made = [
        factory.contact(owner_id=me["id"], visibility="private"),
        factory.contact(owner_id=other["id"], visibility="private"),
        factory.contact(owner_id=other["id"], visibility="company"),
    ]
    token = factory.token(kind="oauth", user_id=me["id"])
    return People(
        oauth=api.with_token(token.token),
        own_private=made[0]["id"],
        other_private=made[1]["id"],
        other_company=made[2]["id"],
        since=lookup_since(*(c["updated_at"] for c in made)),
        names={c["id"]: c["first_name"] for c in made},
    )


@dataclass(frozen=True)
class Persons:
    """Two persons of the workspace, `me` and `other`, and `me`'s OAuth client."""

    me: dict[str, Any]
    other: dict[str, Any]
    oauth: ApiClient


@pytest.fixture(scope="module")
def persons(api: ApiClient, module_factory: RecordFactory) -> Persons:
    """Made once per module (in each process running it): a test reads only the records
    it makes for the two, by their unique values, so what other tests made for them does
    not matter."""
    me, other = module_factory.user(), module_factory.user()
    issued = module_factory.token(kind="oauth", user_id=me["id"])
    return Persons(me, other, api.with_token(issued.token))


def _listed(client: ApiClient, since: str) -> tuple[httpx.Response, set[str]]:
    """Ids of contacts changed since `since`, and the first page's answer (to report)."""
    query = {"updated_since": since, "sort": "updated_at"}
    records = expect_pages(client, "/v1/contacts", "OAUTH-003", query)
    first = first_page(client, "/v1/contacts", query)
    return first, {str(record.get("id")) for record in records}


@pytest.mark.req("OAUTH-001")
def test_an_oauth_token_has_the_oat_prefix_and_is_accepted(
    api: ApiClient, factory: RecordFactory
) -> None:
    issued = factory.token(kind="oauth", user_id=factory.user()["id"])
    response = api.with_token(issued.token).get("/v1/contacts", params={"limit": 1})
    expect_status(response, "OAUTH-001", 200)
    expect_true(
        response,
        "OAUTH-001",
        matches(r"oat_[A-Za-z0-9_.\-]+", issued.token),
        expected="an OAuth access token of the form oat_...",
        got=f"a token starting {issued.token[:4]!r}",
    )


@pytest.mark.req("OAUTH-002", "OAUTH-003", "OAUTH-004", "OAUTH-005")
def test_a_person_retrieves_what_they_see_and_not_another_persons_private_record(
    people: People, observe: Callable[[str, Any], None]
) -> None:
    seen = {}
    for contact_id, req_id in people.visible:  # each case's own rule, then the person's view
        response = people.oauth.get(f"/v1/contacts/{contact_id}")
        seen[contact_id] = response.status_code
        expect_true(
            response,
            req_id,
            response.status_code == 200,
            expected=f"200 for {contact_id}",
            got=f"{response.status_code}",
        )
    expect_true(
        None,
        "OAUTH-003",
        all(status == 200 for status in seen.values()),
        expected="every contact the person sees retrieved (200)",
        got=f"{seen}",
    )
    hidden = people.oauth.get(f"/v1/contacts/{people.other_private}")
    expect_status(hidden, "OAUTH-004", *range(400, 500))
    observe("retrieve of a record invisible to the OAuth token", _answer(hidden))
    # each case held (its own rule, above); together they are the person's view
    expect_status(hidden, "OAUTH-002", *range(400, 500))


@pytest.mark.req("OAUTH-002", "OAUTH-003", "OAUTH-004", "OAUTH-005")
def test_a_person_lists_what_they_see_and_not_another_persons_private_record(
    people: People,
) -> None:
    response, listed = _listed(people.oauth, people.since)
    for contact_id, req_id in people.visible:
        expect_true(
            response,
            req_id,
            contact_id in listed,
            expected=f"the OAuth token's contact list includes {contact_id}",
            got="absent (listed with updated_since and sort=updated_at)",
        )
    absent = [contact_id for contact_id, _ in people.visible if contact_id not in listed]
    expect_true(  # each case's own rule above; together, what the person sees
        response,
        "OAUTH-003",
        not absent,
        expected="the OAuth token's contact list includes every contact the person sees",
        got=f"absent: {', '.join(absent)}",
    )
    if absent:  # failed above; a list that lost what the person sees shows no hiding
        return
    for req_id in ("OAUTH-004", "OAUTH-002"):  # its own rule, then the person's view
        expect_true(
            response,
            req_id,
            people.other_private not in listed,
            expected=f"another person's private contact {people.other_private} not listed",
            got="listed to the OAuth token",
        )


OWNERLESS = "private without an owner"
HIDDEN = {"private": ("OAUTH-004", "OAUTH-002"), "team": ("OAUTH-002",)}
HIDDEN["team_and_subteams"] = HIDDEN["team"]
HIDDEN[OWNERLESS] = HIDDEN["private"]
"""Each record that hides from a person with no team (the adapter's `createUser`: "sees
only records they own and records with `company` visibility"), and the rules that say
so: another person's `private` ("owner only") or team one (a team's records are their
team's, and the person is in none), and a private one nobody owns."""
HIDING = [
    pytest.param(visibility, marks=pytest.mark.req(*reqs), id=visibility)
    for visibility, reqs in HIDDEN.items()
]


def hiding(hidden: str, other_id: str) -> dict[str, Any]:
    """The fields of a record `hidden` (a key of `HIDDEN`) whose owner is `other_id`."""
    if hidden == OWNERLESS:
        return {"visibility": "private"}
    return {"visibility": hidden, "owner_id": other_id}


def own_and_hidden(
    updates: Updates, persons: Persons, kind: str, hidden: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A `kind` record the first person owns, private, and one `hidden` from them."""
    own = updates.made(kind, owner_id=persons.me["id"], visibility="private")
    return own, updates.made(kind, **hiding(hidden, persons.other["id"]))


@pytest.mark.req("OAUTH-003")
@pytest.mark.parametrize("visibility", HIDING)
@pytest.mark.parametrize("kind", ["organization", "deal"])
def test_a_person_retrieves_a_record_of_another_kind_only_when_they_see_it(
    updates: Updates, kind: str, visibility: str, persons: Persons
) -> None:
    """The person's view holds on every read, the retrieves the target names too: their
    own private organization or deal is read (200), another person's private or team
    one is not (4xx)."""
    oauth = persons.oauth
    own, hidden = own_and_hidden(updates, persons, kind, visibility)
    key = f"retrieve.{kind}_path"

    def read(record: dict[str, Any]) -> httpx.Response:
        ids = {f"{kind}_id": str(record["id"])}
        return oauth.get(conventions.path(updates.convention, key, **ids))

    expect_status(read(own), "OAUTH-003", 200)
    for req_id in HIDDEN[visibility]:
        expect_status(read(hidden), req_id, *range(400, 500))


@pytest.mark.req("OAUTH-003")
@pytest.mark.parametrize("visibility", HIDING)
@pytest.mark.parametrize("kind", ["organization", "deal"])
def test_a_person_lists_records_of_another_kind_only_when_they_see_them(
    updates: Updates, kind: str, visibility: str, persons: Persons
) -> None:
    """The person's view holds on the lists the target names too: the list of the kind
    (from the two records' `updated_at` on) holds their own private record and not
    another person's private or team one."""
    oauth = persons.oauth
    own, hidden = own_and_hidden(updates, persons, kind, visibility)
    path = conventions.path(updates.convention, f"lists.{kind}_path")
    stamps = [r.get("updated_at") for r in (own, hidden) if isinstance(r.get("updated_at"), str)]
    if len(stamps) < 2:
        pytest.skip(f"the adapter's {kind} shows no updated_at to list from")
    query = {"updated_since": lookup_since(*stamps), "sort": "updated_at"}
    listed = {str(row.get("id")) for row in expect_pages(oauth, path, "OAUTH-003", query)}
    first = first_page(oauth, path, query)
    expect_true(
        first,
        "OAUTH-003",
        str(own["id"]) in listed,
        expected=f"the person's own private {kind} {own['id']} in GET {path}",
        got="not listed",
    )
    for req_id in HIDDEN[visibility]:
        expect_true(
            first,
            req_id,
            str(hidden["id"]) not in listed,
            expected=f"another person's {visibility} {kind} {hidden['id']} not in GET {path}",
            got="listed to the OAuth token",
        )


@pytest.mark.req("OAUTH-002", "OAUTH-003", "OAUTH-004", "OAUTH-005", "SRCH-001")
def test_a_person_searches_what_they_see_and_not_another_persons_private_record(
    people: People,
) -> None:
    """Search "returns the same objects ... as the list": the person's view holds there
    too. Each contact is searched for by `q`, its unique first name."""
    found = {}
    for contact_id, name in people.names.items():
        rows, response = expect_found(people.oauth, "SRCH-001", {"q": name})
        found[contact_id] = (response, contact_id in {r.get("id") for r in rows})
    for contact_id, req_id in people.visible:
        response, listed = found[contact_id]
        expect_true(
            response,
            req_id,
            listed,
            expected=f"search by the OAuth token finds {contact_id} (q its first name)",
            got=response.text[:300],
        )
    response, leaked = found[people.other_private]
    for req_id in ("OAUTH-004", "OAUTH-002"):
        expect_true(
            response,
            req_id,
            not leaked,
            expected=f"another person's private contact {people.other_private} not found",
            got="found by the OAuth token's search",
        )


CONTACT_READS = reads.contact_reads(id_filters=True)


@pytest.mark.parametrize(
    ("name", "hidden"),
    [
        pytest.param(name, hidden.values[0], marks=hidden.marks, id=f"{name}-{hidden.id}")
        for hidden in HIDING
        for name in CONTACT_READS
        if not (hidden.values[0] == OWNERLESS and name.endswith("owner_id"))
    ],
)
def test_no_read_shows_a_person_another_persons_private_contact(
    name: str,
    api: ApiClient,
    factory: RecordFactory,
    convention: conventions.Lookup,
    hidden: str,
    persons: Persons,
) -> None:
    """ "sees only what that person can see", on every read that can find a contact:
    the list under each filter the target names (owner and organization too) and each
    date-time query, search by `q` on name, email and phone and by a condition. The
    other person's private contact has every field those match set; the workspace
    token's same read finds it (else the read proves nothing here, not applicable)."""
    other, oauth = persons.other, persons.oauth
    organization_id = factory.organization()["id"]
    fields = reads.findable(
        factory.unique("oauth"), owner_id=other["id"], organization_id=organization_id
    )
    unowned = {name: value for name, value in fields.items() if name != "owner_id"}
    contact = factory.contact(**unowned, **hiding(hidden, other["id"]))
    read = CONTACT_READS[name](convention, contact)
    shown, answer = reads.seen(oauth, read, HIDDEN[hidden][0])
    for req_id in HIDDEN[hidden]:
        expect_true(
            answer,
            req_id,
            read.marker not in shown,
            expected=f"another person's {hidden} contact {read.marker} not shown by "
            f"{read.method} {read.path} to the OAuth token of a person in no team",
            got="shown",
        )
    if read.marker not in reads.seen(api, read, "OAUTH-004")[0]:
        pytest.skip(f"the workspace token's same read does not find {read.marker} either")


def _expanded_reads(
    convention: conventions.Lookup, contact: dict[str, Any], deal: dict[str, Any], word: str
) -> dict[str, Callable[[ApiClient], list[httpx.Response]]]:
    """Each read that can embed an organization (`expand=organization`), shown or named
    by the target, of a record the person sees: each its answers, every page of a list."""
    expand = {"expand": "organization"}
    external = {convention("contact_filters.external_id"): str(contact["external_id"])}
    since = {"updated_since": lookup_since(deal["updated_at"]), "limit": "200"}

    def pages(path: str, query: dict[str, str]) -> Callable[[ApiClient], list[httpx.Response]]:
        def read(client: ApiClient) -> list[httpx.Response]:
            answers = [client.get(path, params={**query, **expand})]
            while len(answers) < 20 and answers[-1].status_code == 200:
                cursor = (answers[-1].json().get("links") or {}).get("next")
                if not isinstance(cursor, str):
                    break
                answers.append(client.get(path, params={**query, **expand, "cursor": cursor}))
            return answers

        return read

    def deal_path(key: str) -> str:
        return conventions.path(convention, key, deal_id=str(deal["id"]))

    return {
        "list contacts": pages("/v1/contacts", external),
        "retrieve contact": lambda c: [c.get(f"/v1/contacts/{contact['id']}", params=expand)],
        "search contacts": lambda c: [c.post("/v1/contacts/search", json={"q": word, **expand})],
        "list deals": lambda c: pages(deal_path("lists.deal_path"), since)(c),
        "retrieve deal": lambda c: [c.get(deal_path("retrieve.deal_path"), params=expand)],
    }


def _embeds(response: httpx.Response, marker: str) -> bool:
    """Whether an `organization` object anywhere in the answer carries `marker` (not the
    rest of the record: `company_name`, "legacy alias of organization", may legally read
    the linked organization's name)."""
    try:
        found = [response.json()]
    except ValueError:
        return False
    while found:
        value = found.pop()
        if isinstance(value, dict):
            embedded = value.get("organization")
            if isinstance(embedded, dict) and marker in str(embedded):
                return True
            found.extend(v for k, v in value.items() if k != "organization")
        elif isinstance(value, list):
            found.extend(value)
    return False


@pytest.mark.req("OAUTH-004", "OAUTH-002")
@pytest.mark.parametrize(
    "read", ["list contacts", "retrieve contact", "search contacts", "list deals", "retrieve deal"]
)
def test_no_expand_shows_a_person_another_persons_private_organization(
    read: str, api: ApiClient, factory: RecordFactory, updates: Updates, persons: Persons
) -> None:
    """ "sees only what that person can see", inside a record they see: the person's own
    private contact and deal name another person's private organization, and no read
    with `expand=organization` shows that organization to the person's OAuth token (its
    name, unique, is in no `organization` object of the answers; what stands in its
    place, null or the id alone or a refusal, is not shown). The workspace token's same
    read shows it, else the read embeds nothing here and the point is not applicable."""
    me, other, oauth = persons.me, persons.other, persons.oauth
    marker = search_word(factory.unique("hidden"))
    hidden = updates.made("organization", owner_id=other["id"], visibility="private", name=marker)
    word = search_word(factory.unique("seen"))
    contact = updates.made(
        "contact",
        owner_id=me["id"],
        visibility="private",
        organization_id=hidden["id"],
        last_name=word,
        external_id=factory.unique("ext"),
    )
    deal = updates.made(
        "deal",
        owner_id=me["id"],
        visibility="private",
        contact_id=contact["id"],
        organization_id=hidden["id"],
    )
    reads_of = _expanded_reads(updates.convention, contact, deal, word)[read]
    answers = reads_of(oauth)
    leaked = next((a for a in answers if _embeds(a, marker)), None)
    for req_id in ("OAUTH-004", "OAUTH-002"):
        expect_true(
            leaked,
            req_id,
            leaked is None,
            expected=f"another person's private organization {hidden['id']} ({marker}) not "
            f"shown by {read} with expand=organization to the person's OAuth token",
            got="embedded in the answer",
        )
    if not any(_embeds(a, marker) for a in reads_of(api)):
        pytest.skip(f"the workspace token's {read} with expand=organization does not embed it")


@pytest.mark.req("AUTH-015", "AUTH-016")
def test_a_workspace_token_sees_every_record(api: ApiClient, people: People) -> None:
    everyone = (people.own_private, people.other_private, people.other_company)
    statuses = {}
    for contact_id in everyone:  # every record, whatever its visibility
        answer = api.get(f"/v1/contacts/{contact_id}")
        statuses[contact_id] = answer.status_code
        expect_true(
            answer,
            "AUTH-016",
            answer.status_code == 200,
            expected=f"200 for {contact_id} to the workspace token",
            got=f"{answer.status_code}",
        )
    expect_true(  # then the whole workspace, read by retrieve
        None,
        "AUTH-015",
        all(status == 200 for status in statuses.values()),
        expected="every contact retrieved by the workspace token, private ones included",
        got=f"{statuses}",
    )
    response, listed = _listed(api, people.since)
    missing = [contact_id for contact_id in everyone if contact_id not in listed]
    expect_true(
        response,
        "AUTH-015",
        not missing,
        expected="the workspace token lists every contact, private ones included",
        got=f"not listed: {', '.join(missing)}",
    )


PRIVATE_OF: dict[str, Callable[[RecordFactory, str], dict[str, Any]]] = {
    "con": lambda factory, owner: factory.contact(owner_id=owner, visibility="private"),
    "org": lambda factory, owner: factory.organization(owner_id=owner, visibility="private"),
    "deal": lambda factory, owner: factory.deal(owner_id=owner, visibility="private"),
}
"""A private record of each kind a body names, owned by the given person."""


@pytest.mark.req("OAUTH-007", "OAUTH-004")
@pytest.mark.parametrize("point", id_inputs.body_record_points(), ids=str)
def test_a_body_record_id_invisible_to_the_token_answers_record_not_found(
    point: id_inputs.Point,
    factory: RecordFactory,
    here: WorkspaceRecords,
    convention: conventions.Lookup,
    persons: Persons,
) -> None:
    """ "contact, organization or deal id in the body missing or invisible to the token;
    `param` names the field", on every write whose body names one (the shown creates,
    the target's creates and updates): the person's OAuth token writes with their own
    private record (the control: which writes a person may make is not shown), then with
    another person's, which it cannot see."""
    me, other, oauth = persons.me, persons.other, persons.oauth
    id_inputs.expect_body_id_not_found(
        id_inputs.sender(point, here, convention),
        oauth,
        point,
        control_id=str(PRIVATE_OF[point.prefix](factory, me["id"])["id"]),
        refused_id=str(PRIVATE_OF[point.prefix](factory, other["id"])["id"]),
        req_id="OAUTH-007",
        skip_why=f"the person may not make it with their own {point.prefix}_ record "
        "(which writes a person may make is not shown)",
    )


def _answer(response: httpx.Response) -> dict[str, Any]:
    """Status, type and code of an error answer, for observations."""
    error = error_of(response)
    return {"status": response.status_code, "type": error.get("type"), "code": error.get("code")}
