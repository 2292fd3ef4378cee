"""The trivial endpoint that the reference server's throughput is divided by.

A Starlette app with one route answering a tiny JSON body: no authentication, no
middleware, no database, no worker thread. It is served the way `crm-conformance serve`
serves the reference server: a socket from the same `bind` (loopback, TCP_NODELAY),
the same uvicorn settings, its own process. What the framework, uvicorn, the client
and the machine cost is then common to both figures, so the ratio of the two throughputs
is what the reference server's own work costs, and survives a busy or slower machine
better than either figure alone.

    python benchmarks/trivial_server.py --url-out PATH

PATH receives the base URL once the socket listens; the server runs until SIGTERM.
"""

import argparse
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from crm_conformance.reference.server import bind

PATH = "/"


async def trivial(_: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url-out", type=Path, required=True, help="write the base URL here")
    args = parser.parse_args()
    sock = bind()  # 127.0.0.1, a free port
    host, port = sock.getsockname()[:2]
    # Written whole, then renamed: the parent waits for the name and reads it at once.
    partial = args.url_out.with_suffix(".partial")
    partial.write_text(f"http://{host}:{port}", encoding="utf-8")
    partial.rename(args.url_out)
    app = Starlette(routes=[Route(PATH, trivial)])
    # The same settings as `crm-conformance serve` (src/crm_conformance/cli.py).
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
