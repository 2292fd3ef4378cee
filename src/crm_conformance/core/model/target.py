"""The target: which server to test, with which tokens, under which conventions.

A target comes from a TOML file (DESIGN.md, ARCHITECTURE.md), from `--base-url` with
tokens in the environment, or from the embedded reference server. Everything is
validated here, eagerly, so a mistake in the file is one `TargetFileError` naming the
key and the value, before any request is sent (exit code 2).
"""

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

from crm_conformance._errors import TargetFileError
from crm_conformance.core.transport.pacing import DEFAULT_MAX_WAIT

TOKEN_ROLES = ("full", "other_workspace")
"""Token roles a target file may name: a full-scope workspace token, and one of a 2nd workspace."""

ENV_TOKENS = {"full": "CRM_TOKEN_FULL", "other_workspace": "CRM_TOKEN_OTHER"}
"""Environment variables read for tokens when `--base-url` is given without a target file."""

_TOP_LEVEL_KEYS = frozenset(
    {
        "base_url",
        "adapter_url",
        "adapter_token",
        "allow_live",
        "timeout",
        "max_rate_limit_wait",
        "tokens",
        "conventions",
        "write_policy",
        "max_response_bytes",
        "token_pool",
    }
)
_TOKEN_KEYS = frozenset({"value", "value_env", "scopes", "values_env"})
LARGEST_TOKEN_POOL = 32
"""The most tokens `token_pool` (or `--token-pool`) may mint."""
_LIVE_PREFIX = "sk_live_"
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
"""The default size cap of one answer's body (10 MiB), `max_response_bytes` in the file
(`crm_conformance.core.transport.bounds`). Here, not there: loading a target needs no
HTTP client."""
LARGEST_RESPONSE_CAP = 1024 * 1024 * 1024
"""The most `max_response_bytes` may say: 1 GiB (a run keeps each answer in memory)."""
LONGEST_RATE_LIMIT_WAIT = 86_400
"""The most `max_rate_limit_wait` may say: a day (a daily quota)."""
_T = TypeVar("_T")


@dataclass(frozen=True)
class Target:
    """A validated target; `sources` says where each value came from (file, flag, environment)."""

    base_url: str
    adapter_url: str | None = None
    allow_live: bool = False
    timeout: float = DEFAULT_TIMEOUT
    """Seconds one exchange with the API or the adapter may take, body included
    (`timeout` in the file; `crm_conformance.core.transport.bounds`)."""
    max_rate_limit_wait: float = DEFAULT_MAX_WAIT
    """Longest single wait for a token's allowance (a 429's Retry-After or a spent
    window's X-RateLimit-Reset); a longer one stops the run naming this key."""
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    """The most bytes one answer's body may hold; a longer one is a transport fault."""
    # Not in the repr: a repr cut short by pytest could leave half a token unfiltered.
    tokens: Mapping[str, str] = field(default_factory=dict, repr=False)
    conventions: Mapping[str, str] = field(default_factory=dict)
    declared_scopes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    write_policy: Mapping[str, bool] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    adapter_token: str | None = field(default=None, repr=False)
    """The secret the adapter requires as `Authorization: Bearer` (`[adapter_token]`), if any."""
    pool: tuple[str, ...] = field(default=(), repr=False)
    """More full-scope tokens of the workspace of tokens.full (`[tokens.full] values_env`):
    "Rate limits are per token", so a run spreads its requests over them (`token_pool`)."""
    token_pool: int = 0
    """How many full-scope tokens to mint through the adapter for the run's pool
    (`token_pool` in the file, `--token-pool` on the command line); 0: none."""

    def token(self, role: str) -> str | None:
        """The token value of `role`, or None when the target does not give one."""
        return self.tokens.get(role)

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every secret of the target (the tokens and the adapter's), for the redactor."""
        extra = (self.adapter_token,) if self.adapter_token is not None else ()
        return (*self.tokens.values(), *self.pool, *extra)

    def describe(self) -> dict[str, Any]:
        """The target without secrets, for reports and the certificate bundle."""
        return {
            "base_url": self.base_url,
            "adapter_url": self.adapter_url,
            "allow_live": self.allow_live,
            "timeout": self.timeout,
            "max_rate_limit_wait": self.max_rate_limit_wait,
            "max_response_bytes": self.max_response_bytes,
            "token_roles": sorted(self.tokens),
            "token_pool": {"given": len(self.pool), "minted": self.token_pool},
            "adapter_token": self.adapter_token is not None,
            "conventions": dict(self.conventions),
            "declared_scopes": {role: sorted(s) for role, s in self.declared_scopes.items()},
            "write_policy": dict(self.write_policy),
            "sources": dict(self.sources),
        }


class ServedTargetLike(Protocol):
    """What `crm_conformance.reference.ServedTarget` offers (ARCHITECTURE.md)."""

    @property
    def base_url(self) -> str: ...
    @property
    def adapter_url(self) -> str | None: ...
    @property
    def tokens(self) -> Mapping[str, str]: ...
    @property
    def conventions(self) -> Mapping[str, Any]: ...


def load_target(
    *,
    path: Path | None = None,
    base_url: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Target:
    """Load the target from `path` and/or `base_url` (which overrides the file's base_url only).

    Raises `TargetFileError` naming the key for every problem found.
    """
    env = os.environ if environ is None else environ
    if path is None and base_url is None:
        raise TargetFileError("no target: pass --target FILE or --base-url URL")
    if path is None:
        assert base_url is not None
        return _from_base_url(base_url, env)
    data = _read_toml(path)
    origin = f"target file {path.name}"
    return _from_mapping(data, origin=origin, base_url_override=base_url, env=env)


def target_from_served(served: ServedTargetLike) -> Target:
    """The Target of the embedded reference server, validated like a file would be."""
    data: dict[str, Any] = {
        "base_url": served.base_url,
        "tokens": {role: {"value": value} for role, value in served.tokens.items()},
        "conventions": dict(served.conventions),
    }
    if served.adapter_url:
        data["adapter_url"] = served.adapter_url
    return target_from_data(data, origin="embedded reference server")


def target_from_data(data: Mapping[str, Any], *, origin: str) -> Target:
    """A Target from parsed target-file data, validated; `origin` names where it came
    from in messages and `sources`."""
    return _from_mapping(data, origin=origin, base_url_override=None, env={})


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TargetFileError(f"target file {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TargetFileError(f"target file {path}: cannot be read ({exc})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message carries "(at line L, column C)".
        raise TargetFileError(f"target file {path}: invalid TOML: {exc}") from None


def _from_base_url(base_url: str, env: Mapping[str, str]) -> Target:
    tokens: dict[str, str] = {}
    sources = {"base_url": "--base-url"}
    for role, variable in ENV_TOKENS.items():
        value = env.get(variable, "")
        if value:
            tokens[role] = value
            sources[f"tokens.{role}"] = f"environment variable {variable}"
    if "full" not in tokens:
        raise TargetFileError(
            f"--base-url given without --target: set the environment variable "
            f"{ENV_TOKENS['full']} to a full-scope workspace token, or pass --target FILE"
        )
    _refuse_live(tokens, allow_live=False, origin="environment")
    return Target(
        base_url=_url("--base-url", base_url),
        tokens=MappingProxyType(tokens),
        sources=MappingProxyType(sources),
    )


def _from_mapping(
    data: Mapping[str, Any], *, origin: str, base_url_override: str | None, env: Mapping[str, str]
) -> Target:
    unknown = sorted(set(data) - _TOP_LEVEL_KEYS)
    if unknown:
        raise TargetFileError(
            f"{origin}: unknown key {unknown[0]!r}; "
            f"known keys: {', '.join(sorted(_TOP_LEVEL_KEYS))}"
        )
    sources: dict[str, str] = {}
    if base_url_override is not None:
        base_url = _url("--base-url", base_url_override)
        sources["base_url"] = "--base-url"
    elif "base_url" in data:
        base_url = _url("base_url", _typed(data, "base_url", str, origin))
        sources["base_url"] = origin
    else:
        raise TargetFileError(
            f"{origin}: missing key 'base_url' (the API root, e.g. base_url = "
            f'"https://api.example.com"), or pass --base-url'
        )
    adapter_url = None
    if "adapter_url" in data:
        adapter_url = _url("adapter_url", _typed(data, "adapter_url", str, origin))
        sources["adapter_url"] = origin
    allow_live = _typed(data, "allow_live", bool, origin) if "allow_live" in data else False
    timeout = DEFAULT_TIMEOUT
    if "timeout" in data:
        raw = data["timeout"]
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 < raw <= 600:
            raise TargetFileError(
                f"{origin}: timeout = {raw!r} must be a number of seconds, above 0 and at most 600"
            )
        timeout = float(raw)
    max_rate_limit_wait = DEFAULT_MAX_WAIT
    if "max_rate_limit_wait" in data:
        raw = data["max_rate_limit_wait"]
        if (
            isinstance(raw, bool)
            or not isinstance(raw, int | float)
            or not 0 < raw <= LONGEST_RATE_LIMIT_WAIT
        ):
            raise TargetFileError(
                f"{origin}: max_rate_limit_wait = {raw!r} must be a number of seconds, above 0 "
                f"and at most {LONGEST_RATE_LIMIT_WAIT} (a day), e.g. max_rate_limit_wait = 900"
            )
        max_rate_limit_wait = float(raw)
        sources["max_rate_limit_wait"] = origin
    max_response_bytes = _response_cap(data, origin, sources)
    tokens, scopes = _tokens(data.get("tokens"), origin, env, sources)
    pool = _pool(data["tokens"]["full"], origin, env, sources)
    pooled = {f"full.values_env[{i}]": value for i, value in enumerate(pool)}
    _refuse_live({**tokens, **pooled}, allow_live=allow_live, origin=origin)
    token_pool = 0
    if "token_pool" in data:
        token_pool = pool_size(data["token_pool"], f"{origin}: token_pool")
        sources["token_pool"] = origin
    adapter_token = _adapter_token(data.get("adapter_token"), origin, env, sources)
    return Target(
        base_url=base_url,
        adapter_url=adapter_url,
        allow_live=allow_live,
        timeout=timeout,
        max_rate_limit_wait=max_rate_limit_wait,
        max_response_bytes=max_response_bytes,
        tokens=MappingProxyType(tokens),
        conventions=MappingProxyType(_conventions(data.get("conventions", {}), origin)),
        declared_scopes=MappingProxyType(scopes),
        write_policy=MappingProxyType(_write_policy(data.get("write_policy", {}), origin)),
        sources=MappingProxyType(sources),
        adapter_token=adapter_token,
        pool=pool,
        token_pool=token_pool,
    )


def pool_size(raw: Any, where: str) -> int:
    """A pool size (`token_pool`, `--token-pool`): a whole number from 0 to the largest."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= LARGEST_TOKEN_POOL:
        raise TargetFileError(
            f"{where} = {raw!r} must be a whole number of tokens to mint, from 0 to "
            f"{LARGEST_TOKEN_POOL}, e.g. token_pool = 4"
        )
    return raw


def _pool(
    entry: Mapping[str, Any], origin: str, env: Mapping[str, str], sources: dict[str, str]
) -> tuple[str, ...]:
    """`[tokens.full] values_env = [...]`: more tokens like tokens.full, each named by an
    environment variable (never inline: a list of secrets in a file is easy to leak)."""
    if "values_env" not in entry:
        return ()
    listed = entry["values_env"]
    key = "tokens.full.values_env"
    if not isinstance(listed, list) or not all(isinstance(v, str) and v for v in listed):
        raise TargetFileError(
            f"{origin}: {key} must be a list of environment variable names, e.g. "
            'values_env = ["CRM_TOKEN_FULL_2", "CRM_TOKEN_FULL_3"]'
        )
    values = tuple(_secret({"value_env": v}, key, origin, env, sources) for v in listed)
    sources[key] = ", ".join(f"environment variable {v}" for v in listed)
    return values


def _response_cap(data: Mapping[str, Any], origin: str, sources: dict[str, str]) -> int:
    """`max_response_bytes`: a whole number of bytes, at least 1 KiB and at most 1 GiB."""
    if "max_response_bytes" not in data:
        return DEFAULT_MAX_RESPONSE_BYTES
    raw = data["max_response_bytes"]
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1024 <= raw <= LARGEST_RESPONSE_CAP:
        raise TargetFileError(
            f"{origin}: max_response_bytes = {raw!r} must be a whole number of bytes, at least "
            f"1024 and at most {LARGEST_RESPONSE_CAP} (1 GiB), e.g. max_response_bytes = 52428800"
        )
    sources["max_response_bytes"] = origin
    return raw


def _typed(data: Mapping[str, Any], key: str, kind: type[_T], origin: str) -> _T:
    value = data[key]
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise TargetFileError(
            f"{origin}: {key} = {value!r} must be a {kind.__name__}, not {type(value).__name__}"
        )
    return value


def _url(key: str, value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetFileError(f"{key} = {value!r} is not an http(s) URL with a host")
    if parts.query or parts.fragment:
        raise TargetFileError(f"{key} = {value!r} must not carry a query or a fragment")
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise TargetFileError(f"{key} = {value!r} has an invalid port") from None
    url = value.rstrip("/")
    if key != "adapter_url" and url.endswith("/v1"):
        raise TargetFileError(
            f"{key} = {value!r} ends with /v1: give the API root; the suite adds /v1 to every path"
        )
    return url


def _tokens(
    raw: Any, origin: str, env: Mapping[str, str], sources: dict[str, str]
) -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    if raw is None:
        raise TargetFileError(
            f"{origin}: missing table [tokens.full] (a full-scope workspace token: "
            f'value_env = "CRM_TOKEN_FULL" or value = "sk_test_...")'
        )
    if not isinstance(raw, dict):
        raise TargetFileError(f"{origin}: tokens must be a table of roles ([tokens.full], ...)")
    tokens: dict[str, str] = {}
    scopes: dict[str, frozenset[str]] = {}
    for role, entry in raw.items():
        key = f"tokens.{role}"
        if role not in TOKEN_ROLES:
            raise TargetFileError(
                f"{origin}: unknown token role {key!r}; known roles: {', '.join(TOKEN_ROLES)}"
            )
        if not isinstance(entry, dict):
            raise TargetFileError(f"{origin}: {key} must be a table with value or value_env")
        unknown = sorted(set(entry) - _TOKEN_KEYS)
        if unknown:
            raise TargetFileError(
                f"{origin}: unknown key '{key}.{unknown[0]}'; known: value, value_env, scopes"
                + (", values_env" if role == "full" else "")
            )
        if "values_env" in entry and role != "full":
            raise TargetFileError(
                f"{origin}: unknown key '{key}.values_env'; a pool of tokens is of tokens.full"
            )
        tokens[role] = _secret(entry, key, origin, env, sources)
        if "scopes" in entry:
            listed = entry["scopes"]
            if not isinstance(listed, list) or not all(isinstance(s, str) for s in listed):
                raise TargetFileError(f"{origin}: {key}.scopes must be a list of strings")
            scopes[role] = frozenset(listed)
    if "full" not in tokens:
        raise TargetFileError(
            f"{origin}: missing table [tokens.full] (a full-scope workspace token: "
            f'value_env = "CRM_TOKEN_FULL" or value = "sk_test_...")'
        )
    return tokens, scopes


def _secret(
    entry: Mapping[str, Any], key: str, origin: str, env: Mapping[str, str], sources: dict[str, str]
) -> str:
    """The value of a secret's table (`value` inline, or `value_env` naming a variable)."""
    if ("value" in entry) == ("value_env" in entry):
        raise TargetFileError(f"{origin}: {key} needs exactly one of value or value_env")
    if "value" in entry:
        value = _typed(entry, "value", str, f"{origin}: {key}")
        sources[key] = origin
    else:
        variable = _typed(entry, "value_env", str, f"{origin}: {key}")
        value = env.get(variable, "")
        if not value:
            raise TargetFileError(
                f"{origin}: {key}.value_env = {variable!r} names an environment variable "
                f"that is not set (or empty); export {variable}=<secret>"
            )
        sources[key] = f"environment variable {variable}"
    if not value.strip() or value != value.strip():
        raise TargetFileError(f"{origin}: {key} is empty or has surrounding whitespace")
    return value


def _adapter_token(
    raw: Any, origin: str, env: Mapping[str, str], sources: dict[str, str]
) -> str | None:
    """[adapter_token]: the secret the adapter requires (`spec/adapter.yaml`, "Security"),
    sent as `Authorization: Bearer`; None when the table is absent."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise TargetFileError(
            f"{origin}: adapter_token must be a table with value or value_env, e.g. "
            '[adapter_token] value_env = "CRM_ADAPTER_TOKEN"'
        )
    unknown = sorted(set(raw) - {"value", "value_env"})
    if unknown:
        raise TargetFileError(
            f"{origin}: unknown key 'adapter_token.{unknown[0]}'; known: value, value_env"
        )
    return _secret(raw, "adapter_token", origin, env, sources)


def _refuse_live(tokens: Mapping[str, str], *, allow_live: bool, origin: str) -> None:
    if allow_live:
        return
    for role, value in tokens.items():
        if value.startswith(_LIVE_PREFIX):
            raise TargetFileError(
                f"{origin}: tokens.{role} is a live workspace token ({_LIVE_PREFIX}...). "
                "The suite creates, changes and closes records, so it refuses production "
                "workspaces: use a sk_test_ token of a test workspace, or set "
                "allow_live = true in the target file if you really mean to test a live one"
            )


def _conventions(raw: Any, origin: str) -> dict[str, str]:
    """Flatten [conventions] to dotted keys: `contact_filters.status` -> query name."""
    if not isinstance(raw, dict):
        raise TargetFileError(f"{origin}: conventions must be a table")
    flat: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, dict):
            for sub, name in value.items():
                if not isinstance(name, str) or not name:
                    raise TargetFileError(
                        f"{origin}: conventions.{key}.{sub} = {name!r} must be a non-empty string"
                    )
                flat[f"{key}.{sub}"] = name
        elif isinstance(value, str) and value:
            flat[key] = value
        else:
            raise TargetFileError(
                f"{origin}: conventions.{key} = {value!r} must be a non-empty string or a table"
            )
    return flat


def _write_policy(raw: Any, origin: str) -> dict[str, bool]:
    """[write_policy]: entity -> whether local writes are allowed (false: mirrored from a CRM)."""
    if not isinstance(raw, dict):
        raise TargetFileError(f"{origin}: write_policy must be a table of entity = true|false")
    for entity, value in raw.items():
        if not isinstance(value, bool):
            raise TargetFileError(
                f"{origin}: write_policy.{entity} = {value!r} must be true or false"
            )
    return dict(raw)
