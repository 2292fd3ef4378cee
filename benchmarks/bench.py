"""Figures for the reference server and the fuzz suites: printed, never asserted.

Reference server throughput: one list (`GET /v1/contacts?limit=10`) and one create
(`POST /v1/tags`), sent sequentially by one client and then by N concurrent clients.
The server runs in its own process (`crm-conformance serve`), so the clients' threads
do not share its interpreter lock. Fuzz suites: wall time and requests sent by
`suites/test_fuzz.py` and `suites/test_fuzz_stateful.py` against the embedded reference
server, per profile (requests: the harness client's count, from the JUnit property
`fuzz`; schemathesis's own auth probes are not in it).

    .venv/bin/python benchmarks/bench.py [--requests 400] [--clients 4]
        [--full-keyword EXPR | --no-full]

Every loop is bounded by --requests; each fuzz run by --fuzz-timeout seconds.
"""

import argparse
import ast
import concurrent.futures
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
FUZZ_MODULES = ("suites/test_fuzz.py", "suites/test_fuzz_stateful.py")


@dataclass(frozen=True)
class Served:
    """The reference server process's API root and full-scope token."""

    base_url: str
    token: str


@contextmanager
def serve(workdir: Path) -> Iterator[Served]:
    """`crm-conformance serve` in a child process, until the block ends."""
    target = workdir / "target.toml"
    command = [
        sys.executable,
        "-c",
        "from crm_conformance.cli import main; main()",
        "serve",
        "--target-out",
        str(target),
        "--rate-limit",
        "10000000",
    ]
    log = workdir / "serve.log"  # a file, not a pipe: a full pipe would stall the server
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not target.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        if not target.exists():
            raise SystemExit(f"the reference server did not start: {log.read_text()[-2000:]}")
        data = tomllib.loads(target.read_text(encoding="utf-8"))
        yield Served(data["base_url"], data["tokens"]["full"]["value"])
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass(frozen=True)
class Throughput:
    requests: int
    seconds: float
    latencies: list[float]
    statuses: set[int]

    def line(self, label: str) -> str:
        ms = sorted(latency * 1000 for latency in self.latencies)
        p95 = ms[max(0, int(len(ms) * 0.95) - 1)]
        return (
            f"{label:<36} {self.requests / self.seconds:8.0f} req/s   "
            f"p50 {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms   "
            f"statuses {sorted(self.statuses)}"
        )


Send = Callable[[httpx.Client, int], httpx.Response]


def measure(served: Served, send: Send, *, requests: int, clients: int) -> Throughput:
    """`requests` calls of `send`, split across `clients` threads, each its own client."""
    headers = {"Authorization": f"Bearer {served.token}"}
    share = [requests // clients + (1 if i < requests % clients else 0) for i in range(clients)]

    def worker(index: int) -> tuple[list[float], set[int]]:
        latencies, statuses = [], set()
        with httpx.Client(base_url=served.base_url, headers=headers, timeout=30) as client:
            for n in range(share[index]):
                started = time.perf_counter()
                response = send(client, index * requests + n)
                latencies.append(time.perf_counter() - started)
                statuses.add(response.status_code)
        return latencies, statuses

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(pool.map(worker, range(clients)))
    elapsed = time.perf_counter() - started
    latencies = [latency for found, _ in results for latency in found]
    statuses = {status for _, found in results for status in found}
    return Throughput(requests, elapsed, latencies, statuses)


def list_contacts(client: httpx.Client, _: int) -> httpx.Response:
    return client.get("/v1/contacts", params={"limit": 10})


def create_tag(client: httpx.Client, n: int) -> httpx.Response:
    suffix = f"{os.getpid()}-{n}-{time.monotonic_ns()}"
    return client.post("/v1/tags", json={"name": f"bench-{suffix}", "kind": "contact"})


MEASURED: tuple[tuple[str, Send], ...] = (
    ("GET /v1/contacts?limit=10", list_contacts),
    ("POST /v1/tags", create_tag),
)


@dataclass(frozen=True)
class FuzzRun:
    profile: str
    seconds: float
    tests: int
    failed: int
    requests: int


def fuzz_run(profile: str, *, keyword: str | None, timeout: float, seed: int) -> FuzzRun:
    """Both fuzz suites in a child pytest against the embedded reference server."""
    with tempfile.TemporaryDirectory(prefix="crm-bench-") as scratch:
        junit = Path(scratch) / "junit.xml"
        command = [
            sys.executable,
            "-m",
            "pytest",
            *(str(ROOT / module) for module in FUZZ_MODULES),
            "-q",
            "-p",
            "no:cacheprovider",
            f"--hypothesis-seed={seed}",
            f"--junitxml={junit}",
            *(["-k", keyword] if keyword else []),
        ]
        env = {**os.environ, "CRM_PROFILE": profile}
        started = time.perf_counter()
        subprocess.run(command, cwd=scratch, env=env, capture_output=True, timeout=timeout)
        seconds = time.perf_counter() - started
        cases = list(ET.parse(junit).getroot().iter("testcase"))
        sent = 0
        for case in cases:
            for prop in case.iter("property"):
                if prop.get("name") == "fuzz":
                    sent += int(ast.literal_eval(prop.get("value", "{}")).get("requests", 0))
        failed = sum(1 for case in cases if case.find("failure") is not None)
        return FuzzRun(profile, seconds, len(cases), failed, sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="requests per measurement")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument("--seed", type=int, default=42, help="seed of the fuzz runs")
    parser.add_argument("--full-keyword", help="-k expression bounding the full-profile run")
    parser.add_argument("--no-full", action="store_true", help="skip the full-profile run")
    parser.add_argument("--fuzz-timeout", type=float, default=1800, help="seconds per fuzz run")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="crm-bench-") as scratch, serve(Path(scratch)) as s:
        for label, send in MEASURED:
            for clients in (1, args.clients):
                result = measure(s, send, requests=args.requests, clients=clients)
                print(result.line(f"{label}, {clients} client(s)"))

    profiles = [("quick", None)] + ([] if args.no_full else [("full", args.full_keyword)])
    for profile, keyword in profiles:
        run = fuzz_run(profile, keyword=keyword, timeout=args.fuzz_timeout, seed=args.seed)
        bounded = f" (-k {keyword!r})" if keyword else ""
        print(
            f"fuzz suites, profile {run.profile}{bounded}: {run.seconds:.1f} s wall, "
            f"{run.tests} tests ({run.failed} failed), {run.requests} requests "
            f"({run.requests / run.seconds:.0f} req/s), seed {args.seed}"
        )


if __name__ == "__main__":
    main()
