"""Figures for the reference server and the fuzz suites: printed, never asserted.

Reference server throughput: a page of 50 contacts (`GET /v1/contacts?limit=50`, after
seeding 50) and a create (`POST /v1/contacts`, every body new), sent sequentially by one
client and then by N concurrent clients. Each is measured right after the same requests
and clients against a trivial endpoint of the same framework (`trivial_server.py`:
one Starlette route, no auth, no database, served like the reference server), and
printed beside it with the ratio: the machine and other work running on it move both
figures, much less their ratio. Both servers run in their own processes, so the
clients' threads do not share their interpreter lock. Fuzz suites: wall time and
requests sent by `suites/test_fuzz.py` and `suites/test_fuzz_stateful.py` against the
embedded reference server, per profile (requests: the harness client's count, from the
JUnit property `fuzz`; schemathesis's own auth probes are not in it).

    .venv/bin/python benchmarks/bench.py [--requests 400] [--clients 4] [--rounds 5]
        [--full-keyword EXPR | --no-full]

Every loop is bounded by --requests; each fuzz run by --fuzz-timeout seconds.
"""

import argparse
import ast
import concurrent.futures
import itertools
import math
import os
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
TRIVIAL_SERVER = Path(__file__).resolve().with_name("trivial_server.py")
FUZZ_MODULES = ("suites/test_fuzz.py", "suites/test_fuzz_stateful.py")
PAGE = 50
"""Contacts seeded, and the `limit` of the list measured: a full page of 50."""


@dataclass(frozen=True)
class Served:
    """A server process's API root and the bearer token its requests carry (None: none)."""

    base_url: str
    token: str | None = None

    def client(self) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=30)


@contextmanager
def child_server(command: list[str], ready: Path, log: Path) -> Iterator[None]:
    """`command` in a child process, from when it has written `ready` until the block ends."""
    with log.open("wb") as sink:  # a file, not a pipe: a full pipe would stall the server
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        if not ready.exists():
            raise SystemExit(f"{log.stem}: the server did not start: {log.read_text()[-2000:]}")
        yield
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def serve_reference(workdir: Path) -> Iterator[Served]:
    """`crm-conformance serve` (full-scope token), until the block ends."""
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
    with child_server(command, target, workdir / "reference.log"):
        data = tomllib.loads(target.read_text(encoding="utf-8"))
        yield Served(data["base_url"], data["tokens"]["full"]["value"])


@contextmanager
def serve_trivial(workdir: Path) -> Iterator[Served]:
    """The trivial endpoint's server (`trivial_server.py`), until the block ends."""
    url = workdir / "trivial.url"
    command = [sys.executable, str(TRIVIAL_SERVER), "--url-out", str(url)]
    with child_server(command, url, workdir / "trivial.log"):
        yield Served(url.read_text(encoding="utf-8"))


def percentile(ordered: list[float], q: int) -> float:
    """The nearest-rank `q`th percentile of values sorted ascending."""
    return ordered[max(0, math.ceil(len(ordered) * q / 100) - 1)]


@dataclass(frozen=True)
class Throughput:
    """`requests` answered in `seconds` (wall), each one's latency, the statuses seen."""

    requests: int
    seconds: float
    latencies: list[float]
    statuses: set[int]

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    @classmethod
    def combined(cls, parts: list["Throughput"]) -> "Throughput":
        return cls(
            sum(part.requests for part in parts),
            sum(part.seconds for part in parts),
            [latency for part in parts for latency in part.latencies],
            set().union(*(part.statuses for part in parts)),
        )

    def line(self, label: str) -> str:
        ms = sorted(latency * 1000 for latency in self.latencies)
        return (
            f"{label:<40} {self.rate:7.0f} req/s   "
            f"p50 {percentile(ms, 50):6.1f} ms   p99 {percentile(ms, 99):6.1f} ms   "
            f"statuses {sorted(self.statuses)}"
        )


Send = Callable[[httpx.Client], httpx.Response]


def split(total: int, parts: int) -> list[int]:
    """`total` in `parts` shares that differ by one at most."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def measure(served: Served, send: Send, *, requests: int, clients: int) -> Throughput:
    """`requests` calls of `send`, split across `clients` threads, each its own client."""

    def worker(count: int) -> tuple[list[float], set[int]]:
        latencies, statuses = [], set()
        with served.client() as client:
            for _ in range(count):
                started = time.perf_counter()
                response = send(client)
                latencies.append(time.perf_counter() - started)
                statuses.add(response.status_code)
        return latencies, statuses

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(pool.map(worker, split(requests, clients)))
    elapsed = time.perf_counter() - started
    latencies = [latency for found, _ in results for latency in found]
    statuses = {status for _, found in results for status in found}
    return Throughput(requests, elapsed, latencies, statuses)


def trivial(client: httpx.Client) -> httpx.Response:
    return client.get("/")


def beside_trivial(
    endpoint: Served, send: Send, baseline: Served, *, requests: int, clients: int, rounds: int
) -> tuple[Throughput, Throughput]:
    """`send` against `endpoint` and the trivial endpoint, `requests` each, taking turns.

    The requests go in `rounds` slices, trivial then endpoint: other work on the machine
    comes and goes within seconds, and taking turns spreads it over both figures alike.
    """
    measured, trivials = [], []
    for share in split(requests, rounds):
        trivials.append(measure(baseline, trivial, requests=share, clients=clients))
        measured.append(measure(endpoint, send, requests=share, clients=clients))
    return Throughput.combined(measured), Throughput.combined(trivials)


def list_contacts(client: httpx.Client) -> httpx.Response:
    return client.get("/v1/contacts", params={"limit": PAGE})


_serial = itertools.count()  # next() on it is atomic under the GIL: no two threads share n


def create_contact(client: httpx.Client) -> httpx.Response:
    """A contact no other request of the run sends: its last name and email are new."""
    n = next(_serial)
    body = {"first_name": "Bench", "last_name": f"Contact {n}", "email": f"bench-{n}@example.com"}
    return client.post("/v1/contacts", json=body)


def seed_contacts(served: Served) -> None:
    """Create `PAGE` contacts, so that the list measured answers a full page; check it does."""
    with served.client() as client:
        for _ in range(PAGE):
            create_contact(client).raise_for_status()
        rows = list_contacts(client).raise_for_status().json()["data"]
    if len(rows) != PAGE:
        raise SystemExit(f"GET /v1/contacts?limit={PAGE} answered {len(rows)} rows, not {PAGE}")


MEASURED: tuple[tuple[str, Send], ...] = (
    (f"GET /v1/contacts?limit={PAGE}", list_contacts),
    ("POST /v1/contacts", create_contact),
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
        failed = sum(1 for case in cases if case.find("failure") is not None)
        return FuzzRun(profile, seconds, len(cases), failed, fuzz_requests(junit))


def fuzz_requests(junit: Path) -> int:
    """The requests the fuzz suites' harness client sent: the JUnit property `fuzz`, summed."""
    sent = 0
    for prop in ET.parse(junit).getroot().iter("property"):
        if prop.get("name") == "fuzz":
            sent += int(ast.literal_eval(prop.get("value", "{}")).get("requests", 0))
    return sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="requests per measurement")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument(
        "--rounds", type=int, default=5, help="turns taken with the trivial endpoint"
    )
    parser.add_argument("--seed", type=int, default=42, help="seed of the fuzz runs")
    parser.add_argument("--full-keyword", help="-k expression bounding the full-profile run")
    parser.add_argument("--no-full", action="store_true", help="skip the full-profile run")
    parser.add_argument("--fuzz-timeout", type=float, default=1800, help="seconds per fuzz run")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    with (
        tempfile.TemporaryDirectory(prefix="crm-bench-") as scratch,
        serve_reference(Path(scratch)) as reference,
        serve_trivial(Path(scratch)) as baseline,
    ):
        seed_contacts(reference)
        for label, send in MEASURED:
            for clients in (1, args.clients):
                result, base = beside_trivial(
                    reference,
                    send,
                    baseline,
                    requests=args.requests,
                    clients=clients,
                    rounds=args.rounds,
                )
                print(result.line(f"{label}, {clients} client(s)"))
                print(base.line(f"  trivial GET /, {clients} client(s)"))
                print(f"  ratio {result.rate / base.rate:.3f} (endpoint / trivial)")

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
