"""The `serve` command: the reference server on loopback, with its target file."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from crm_conformance.cli.guard import fail

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _adapter_secret(name: str, environ: Mapping[str, str], no_adapter: bool) -> str:
    """The secret of `serve --adapter-token-env NAME`, or exit 2 saying what is wrong."""
    if no_adapter:
        fail("--adapter-token-env with --no-adapter: there is no adapter to protect", 2, "serve")
    value = environ.get(name, "")
    if not value.strip() or value != value.strip():
        fail(
            f"--adapter-token-env={name}: the environment variable {name} is not set, empty or "
            f"has surrounding whitespace; export {name}=<secret>",
            2,
            "serve",
        )
    return value


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="loopback address only")
@click.option("--port", type=int, default=0, show_default=True, help="0 picks a free port")
@click.option("--db", default=":memory:", show_default=True, help="SQLite file or :memory:")
@click.option(
    "--target-out",
    type=click.Path(path_type=Path),
    help="write the target file (TOML, tokens inline) here",
)
@click.option("--rate-limit", type=click.IntRange(min=1), help="requests per token per window")
@click.option("--rate-window", type=click.IntRange(min=1), help="rate-limit window in seconds")
@click.option("--fault", "faults", multiple=True, metavar="NAME", help="switch a fault on")
@click.option("--variant", "variants", multiple=True, metavar="NAME", help="switch a variant on")
@click.option("--no-adapter", is_flag=True, help="do not serve the provisioning adapter")
@click.option(
    "--adapter-fault",
    "adapter_faults",
    multiple=True,
    metavar="NAME",
    help="break the adapter (not the server), e.g. adapter_ignores_workspace",
)
@click.option(
    "--adapter-token-env",
    metavar="NAME",
    help="the adapter requires the secret in this environment variable "
    "(Authorization: Bearer); --target-out names the variable, never the value",
)
def serve(
    host: str,
    port: int,
    db: str,
    target_out: Path | None,
    rate_limit: int | None,
    rate_window: int | None,
    faults: tuple[str, ...],
    variants: tuple[str, ...],
    no_adapter: bool,
    adapter_faults: tuple[str, ...],
    adapter_token_env: str | None,
) -> None:
    """Serve the reference server on loopback until SIGINT or SIGTERM."""
    import logging
    import os
    import signal

    import uvicorn

    from crm_conformance.reference import ServerSettings, create_app
    from crm_conformance.reference.server import bind, served_target

    if host not in _LOOPBACK:
        fail(f"--host={host}: the reference server binds loopback only", 2, "serve")
    options: dict[str, Any] = {
        "db": db,
        "adapter": not no_adapter,
        "adapter_faults": frozenset(adapter_faults),
    }
    if adapter_token_env is not None:
        options["adapter_token"] = _adapter_secret(adapter_token_env, os.environ, no_adapter)
    if rate_limit is not None:
        options["rate_limit"] = rate_limit
    if rate_window is not None:
        options["rate_window"] = rate_window
    try:
        settings = ServerSettings(faults=frozenset(faults), variants=frozenset(variants), **options)
    except ValueError as exc:
        fail(str(exc), 2, "serve")
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    app = create_app(settings)
    try:
        sock = bind("127.0.0.1" if host == "localhost" else host, port)
    except OSError as exc:
        fail(f"--port={port}: cannot listen ({exc})", 2, "serve")
        return
    bound_host, bound_port = sock.getsockname()[:2]
    served = served_target(
        bound_host,
        bound_port,
        app.seeded_tokens,
        app.adapter_mounted,
        app.conventions,
        adapter_token_env=adapter_token_env,
    )
    if target_out is not None:
        served.write_target_file(target_out)
    click.echo(f"Reference server at {served.base_url}")
    if served.adapter_url:
        guarded = f" (requires the secret in ${adapter_token_env})" if adapter_token_env else ""
        click.echo(f"Provisioning adapter at {served.adapter_url}{guarded}")
    if target_out is not None:
        click.echo(f"Target file: {target_out}")
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    )
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then re-raises the signal to the
    # handler that was in place before it; a no-op one makes the stop a clean exit 0.
    for stop_signal in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop_signal, lambda *_: None)
    server.run(sockets=[sock])
    app.store.close()
    click.echo("Reference server stopped.")
