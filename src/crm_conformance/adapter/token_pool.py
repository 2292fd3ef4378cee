"""The run's pool of full-scope tokens: "Rate limits are per token."

A run against a rate-limited target is bound by its tokens' allowance, not by its CPU.
Several full-scope tokens of the same workspace multiply that allowance while each
stays within every documented limit, as a team of several integrations would. The
pool is the tokens the target file lists (`[tokens.full] values_env = [...]`) and
those the adapter mints for the run (`token_pool = N`, `--token-pool N`, feature
`tokens`); each process that runs tests (a forked worker, a shard) takes one and
paces it on its own (`pacing`: the ledger keys each token apart).

The configured `tokens.full` stays the token of the tests whose meaning depends on it
(the `configured_api` fixture). Minted tokens are revoked when the run ends, Ctrl-C
included (`plugin.session` closes the pool at unconfigure).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from crm_conformance.adapter.provisioning import AdapterClient

CONFIGURED = "tokens.full"
"""The label of the configured token, in the summary's waits per token."""


def label(index: int) -> str:
    """The name of the pool's `index`-th token (from 0) in reports: never its value."""
    return f"pool {index + 1}"


@dataclass
class TokenPool:
    """The tokens a run spreads its requests over, and the ids of those it minted."""

    tokens: tuple[str, ...]
    minted: list[str] = field(default_factory=list)
    """Ids of the tokens the adapter issued for this run: revoked by `close`."""

    def index_for(self, worker: int) -> int:
        """The pool token of the `worker`-th process running tests (from 0), round robin."""
        return worker % len(self.tokens)


def mint(adapter: AdapterClient, given: tuple[str, ...], count: int) -> TokenPool:
    """The pool of `given` tokens and `count` more the adapter issues (full scope, workspace
    `primary`, that of tokens.full); if minting fails half-way, those already minted are
    revoked before the error goes on."""
    pool = TokenPool(tokens=given)
    try:
        for _ in range(count):
            issued = adapter.create_token(workspace="primary", kind="workspace")
            pool.minted.append(issued.id)
            pool.tokens = (*pool.tokens, issued.token)
    except BaseException:
        revoke(adapter, pool)
        raise
    return pool


def revoke(adapter: AdapterClient, pool: TokenPool, warn: Callable[[str], None] = print) -> None:
    """Revoke every token the run minted; one that will not go is named by id (never by
    value) so the vendor can revoke it by hand."""
    while pool.minted:
        token_id = pool.minted.pop()
        try:
            adapter.revoke_token(token_id)
        except Exception as exc:  # whatever went wrong, the other tokens are still revoked
            warn(f"warning: the pool's token {token_id} could not be revoked ({exc}); revoke it")
