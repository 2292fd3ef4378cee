"""Routes: how a handler is declared and what it receives.

A resource module builds a `RouteTable` and declares handlers on it:

    routes = RouteTable()

    @routes.post("/v1/deals", scopes=("deals:write",), entity="deals")
    def create_deal(call: Call) -> Reply: ...

Handlers are plain functions: they read the request through `Call` and answer a
`Reply` or raise `ApiError`. What runs before them (the token, its scopes, the
workspace's policy, the `Idempotency-Key`) is `dispatch`'s.
"""

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from starlette.datastructures import Headers, QueryParams

from crm_conformance.adapter_kit import Problem
from crm_conformance.reference import policy
from crm_conformance.reference.api_errors import ApiError, bad_query, validation_failed
from crm_conformance.reference.clock import now_stamp
from crm_conformance.reference.identifiers import (
    is_id,
)
from crm_conformance.reference.listing import (
    LIST_PARAMETERS,
    ListParams,
    ListSpec,
    collection,
    encoded_collection,
    paginate,
    parse_expand,
    parse_fields,
    parse_params,
    project,
)
from crm_conformance.reference.rendering import DOCUMENTED_ALWAYS_PRESENT
from crm_conformance.reference.reply import EncodedJson, Reply, compact
from crm_conformance.reference.request_body import parse_json
from crm_conformance.reference.scopes import ALL_SCOPES
from crm_conformance.reference.settings import ServerSettings
from crm_conformance.reference.storage import Record, Store, Transaction
from crm_conformance.reference.tokens import Principal

SMALL_BODY_LIMIT = 64 * 1024
"""The `small_body_limit` variant's largest body ("Maximum request body size: not shown")."""

Handler = Callable[["Call"], Reply]
Precheck = Callable[["Call"], None]
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


HIDDEN = ("private", "team", "team_and_subteams")
"""The visibilities that hide a record from a person who does not own it and is in no
team (spec/adapter.yaml, createUser: "sees only records they own and records with
`company` visibility")."""


@dataclass
class Call:
    """One request as a handler sees it."""

    settings: ServerSettings
    store: Store
    method: str
    path: str
    path_params: dict[str, str]
    query: QueryParams
    headers: Headers
    raw_body: bytes
    request_id: str
    principal: Principal | None
    """None only on routes declared with `authenticated=False` (the adapter)."""
    narrowed: bool = False
    """Set when `fields` narrowed the answer (no extra fields may be added then)."""
    _json: Any = field(default=None, init=False)
    _parsed: bool = field(default=False, init=False)

    @property
    def workspace(self) -> str:
        """The workspace of the bearer token: the only tenant a request can touch."""
        assert self.principal is not None, "route declared authenticated=False"
        return self.principal.workspace

    @property
    def user_id(self) -> str | None:
        """The person an OAuth token acts for; None for a workspace token."""
        return self.principal.user_id if self.principal else None

    def as_workspace(self, workspace: str) -> "Call":
        """This call acting as a full-scope workspace token of `workspace`: lets the
        adapter (which has no token) reuse the API's validation and rendering."""
        principal = Principal(
            token_id="adapter",
            workspace=workspace,
            kind="workspace",
            user_id=None,
            scopes=frozenset(ALL_SCOPES),
            rate_limit=None,
        )
        return replace(self, principal=principal)

    def json(self) -> Any:
        """The JSON body (None when empty); 400 bad_request when it is not JSON."""
        too_big = len(self.raw_body) > SMALL_BODY_LIMIT
        if too_big and self.settings.has_variant("small_body_limit"):
            raise ApiError(413, "payload_too_large", f"The body exceeds {SMALL_BODY_LIMIT} bytes.")
        if not self._parsed and self.settings.has_fault("unparsable_body_validation_failed"):
            try:
                parse_json(self.raw_body)
            except ApiError as error:  # every body problem is a field problem
                raise validation_failed([Problem("body", error.message, "json")]) from None
        labelled = self.headers.get("content-type", "")
        if (
            ";" in labelled
            and self.method == "PATCH"
            and self.settings.has_fault("json_charset_refused_on_updates")
        ):
            raise ApiError(400, "bad_request", "Content-Type must be application/json.")
        if not self._parsed:
            self._json = parse_json(self.raw_body)
            self._parsed = True
            if (
                isinstance(self._json, list)
                and self.method == "PATCH"
                and self.settings.has_fault("update_array_body_as_empty")
            ):
                self._json = {}  # merged into the record key by key: nothing changes
        return self._json

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One serialized storage transaction (see `storage.Store`), embedding only what
        the caller sees."""
        with self.store.transaction() as tx:
            if self.personal and not self.settings.has_fault("expand_ignores_visibility"):
                tx.embeds = self.sees
            if self.settings.has_fault("embedded_organization_cached"):
                tx.embed_cache = self.store.stale
            yield tx

    @property
    def personal(self) -> bool:
        """An OAuth token's call: what it sees is its person's view, so its renderings
        are not shared with other callers' (`list_reply`'s memo)."""
        return self.principal is not None and self.principal.user_id is not None

    def path_id(self, name: str, kind: str) -> str:
        """A path id of `kind`; a malformed one answers 400 validation_failed."""
        value = self.path_params[name]
        if (
            not is_id(value, kind)
            and kind == "deal"
            and self.settings.has_fault("deal_path_id_read_as_missing")
        ):
            raise ApiError(404, "not_found", "No such deal.")
        if not is_id(value, kind):
            raise bad_query(name, f"must be a {kind} id", "pattern")
        return value

    def allow_query(self, names: Iterable[str]) -> None:
        """Refuse query parameters other than `names` (400 validation_failed), so a
        misspelt filter fails instead of being ignored."""
        allowed = set(names)
        unknown = [
            Problem(name, "unknown query parameter", "unknown_parameter")
            for name in dict.fromkeys(self.query.keys())
            if name not in allowed
        ]
        if unknown:
            raise validation_failed(unknown, status=400)

    def single(self, name: str) -> str | None:
        """A query parameter that may appear at most once."""
        values = self.query.getlist(name)
        if len(values) > 1:
            raise bad_query(name, "must be given at most once", "repeated")
        return values[0] if values else None

    def list_reply(
        self,
        spec: ListSpec,
        rows: Sequence[Record],
        params: ListParams,
        identity: Mapping[str, Any],
        render: Callable[[Record], dict[str, Any]],
        *,
        kept_in: tuple[Transaction, str] | None = None,
    ) -> Reply:
        """A page of `rows` (already filtered and visible) as a collection answer.

        With `kept_in` (the transaction the rows were read in, from its `view`, and
        their kind), the page's rows are rendered and encoded once while the database
        stands (`Transaction.memo`), and each row once while it and every record of
        another kind stand (`Transaction.row_memo`: after a write, only the rows it
        changed). So `render(row)` must depend on nothing but the stored row, records of
        other kinds and `params.expand`, and render every list of `spec` alike (a page
        of 50 contacts cost 3 ms of CPU, most of it rendering and encoding the same rows
        again)."""
        page = paginate(
            spec,
            rows,
            params,
            settings=self.settings,
            identity={"workspace": self.workspace, **identity},
        )
        self.narrowed = params.fields is not None
        fields_drops_id = params.fields is not None and self.settings.has_fault("fields_drops_id")
        omits_visibility = self.settings.has_fault("lists_omit_default_visibility")
        if kept_in is not None and not (fields_drops_id or omits_visibility or self.personal):
            tx, kind = kept_in
            ids = tuple(row["id"] for row in page.rows)
            key = ("list rows", spec.name, self.workspace, ids, params.expand, params.fields)
            row_key = ("list row", spec.name, self.workspace, params.expand, params.fields)

            def encoded(row: Record) -> str:
                return tx.row_memo(
                    row, kind, row_key, lambda: compact(self._project(render(row), params.fields))
                )

            # The text `compact` gives the list: its items' texts, joined.
            text = tx.memo(key, lambda: "[" + ",".join(encoded(row) for row in page.rows) + "]")
            return Reply(200, EncodedJson(encoded_collection(page, text)))
        data = [self._project(render(row), params.fields) for row in page.rows]
        if fields_drops_id:
            # "id was not asked for": the list projection forgets id is always returned
            data = [
                {k: v for k, v in item.items() if k != "id" or k in (params.fields or ())}
                for item in data
            ]
        if omits_visibility:
            for item in data:  # "company is the default, why send it?"
                if item.get("visibility") == "company":
                    del item["visibility"]
        return Reply(200, collection(page, data))

    def list_params(self, spec: ListSpec, *, filters: Iterable[str] = ()) -> ListParams:
        """The common list parameters of the query; other names than `filters` are refused."""
        self.allow_query((*LIST_PARAMETERS, *filters))
        for name in LIST_PARAMETERS:
            self.single(name)
        return parse_params(spec, self.query, settings=self.settings)

    def retrieve_params(self, spec: ListSpec) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
        """`expand` and `fields` of a retrieve; other query names are refused."""
        self.allow_query(("expand", "fields"))
        expand = parse_expand(spec, self.single("expand"))
        return expand, parse_fields(spec, self.single("fields"))

    def narrow(self, rendered: dict[str, Any], fields: tuple[str, ...] | None) -> dict[str, Any]:
        """`rendered` narrowed to `fields` (keeping id and object)."""
        self.narrowed = fields is not None
        return self._project(rendered, fields)

    def _project(self, rendered: dict[str, Any], fields: tuple[str, ...] | None) -> dict[str, Any]:
        """`rendered` narrowed to `fields`; under `fields_keeps_always_present` a contact or
        deal keeps its "Always present" fields too."""
        if fields is not None and self.settings.has_variant("fields_keeps_always_present"):
            fields = (*fields, *DOCUMENTED_ALWAYS_PRESENT.get(rendered.get("object", ""), ()))
        return project(rendered, fields)

    def created(self, body: Any) -> Reply:
        """The answer to a create: 201 (200 under the `create_returns_200` variant)."""
        return Reply(200 if self.settings.has_variant("create_returns_200") else 201, body)

    def sees(self, record: Mapping[str, Any]) -> bool:
        """Whether the token may see `record`: a workspace token sees all; an OAuth token
        sees what its person sees (what they own, and `company` records)."""
        if self.principal is None:
            return True
        if self.principal.user_id is None:
            hides = self.settings.has_fault("workspace_token_hides_private")
            return not hides or record.get("visibility") != "private"
        if self.settings.has_fault("private_visible_to_oauth"):
            return True
        if self.settings.has_fault("oauth_sees_only_own_records"):
            return record.get("owner_id") == self.principal.user_id
        # this server's people are in no team: a team's records are its members' only
        hidden = ("private",) if self.settings.has_fault("team_records_seen_by_all") else HIDDEN
        owner = record.get("owner_id")
        return (
            record.get("visibility") not in hidden
            or owner == self.principal.user_id
            # the fault's reading: no owner, no one to hide it from
            or (owner is None and self.settings.has_fault("ownerless_private_seen_by_all"))
        )

    def now(self) -> str:
        """The current instant in the stored form."""
        return now_stamp()


def require_scopes(call: Call, scopes: tuple[str, ...]) -> None:
    """403 insufficient_scope naming the first missing scope in `param`, all in the message."""
    assert call.principal is not None
    held = call.principal.scopes
    if call.settings.has_fault("scope_check_resource_only"):
        resources = {scope.split(":")[0] for scope in held}
        missing = [scope for scope in scopes if scope.split(":")[0] not in resources]
    else:
        missing = [scope for scope in scopes if scope not in held]
    if missing:
        raise ApiError(
            403,
            "forbidden"
            if call.settings.has_fault("missing_scope_forbidden")
            else "insufficient_scope",
            "This token lacks a required scope."
            if call.settings.has_fault("scope_message_generic")
            else f"This token lacks the scope(s) {', '.join(missing)}.",
            param=missing[0].split(":")[0]
            if call.settings.has_fault("scope_param_names_resource")
            else missing[0],
        )


@dataclass(frozen=True)
class RouteSpec:
    method: str
    path: str
    handler: Handler
    scopes: tuple[str, ...]
    entity: str | None
    authenticated: bool
    variant: str | None = None
    """Mounted only when this variant is on (an operation another server may offer), or
    this fault (an operation a buggy server offers that it must not)."""
    precheck: Precheck | None = None
    """Runs before the scope and policy checks (a variant validating the body first)."""
    replaced_by: tuple[str, ...] = ()
    """Not mounted when one of these variants (or faults) is on: it offers the operation
    elsewhere (or not at all)."""
    variant_scopes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(variant or fault, scopes): the scopes the route needs instead when that variant
    or fault is on."""

    def needed_scopes(self, settings: ServerSettings) -> tuple[str, ...]:
        """The scopes the route checks on a server with `settings`."""
        for name, scopes in self.variant_scopes:
            if name in settings.variants | settings.faults:
                return scopes
        return self.scopes

    def mounted(self, settings: ServerSettings) -> bool:
        """Whether the route exists on a server with `settings`."""
        if self.variant is not None and self.variant not in settings.variants | settings.faults:
            return False
        return not set(self.replaced_by) & (settings.variants | settings.faults)


class RouteTable:
    """The routes of one module; `app.create_app` mounts every module's table."""

    def __init__(self, *, authenticated: bool = True) -> None:
        self.authenticated = authenticated
        self.specs: list[RouteSpec] = []

    def route(
        self,
        method: str,
        path: str,
        *,
        scopes: tuple[str, ...] = (),
        entity: str | None = None,
        variant: str | None = None,
        precheck: Precheck | None = None,
        replaced_by: tuple[str, ...] = (),
        variant_scopes: tuple[tuple[str, tuple[str, ...]], ...] = (),
    ) -> Callable[[Handler], Handler]:
        """Declare a handler. `scopes` are all required; `entity` (a `policy.ENTITIES`
        name) makes writes refuse with local_write_denied when the workspace mirrors it;
        `variant` mounts the route only when that variant is on, `replaced_by` only when
        none of those variants or faults is on; `precheck` runs before the scope and
        policy checks; `variant_scopes` names the scopes a variant (or fault) needs instead."""

        def declare(handler: Handler) -> Handler:
            if entity is not None and entity not in policy.ENTITIES:
                raise ValueError(f"unknown policy entity {entity!r}")
            spec = RouteSpec(
                method,
                path,
                handler,
                scopes,
                entity,
                self.authenticated,
                variant,
                precheck,
                replaced_by,
                variant_scopes,
            )
            self.specs.append(spec)
            return handler

        return declare

    def get(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("GET", path, **options)

    def post(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("POST", path, **options)

    def put(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("PUT", path, **options)

    def patch(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("PATCH", path, **options)

    def delete(self, path: str, **options: Any) -> Callable[[Handler], Handler]:
        return self.route("DELETE", path, **options)
