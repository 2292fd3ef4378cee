"""Figures of issue 14, each measured side by side in one run: printed, never asserted.

Bytecode first: the harness and the suites compiled to `__pycache__`, as an installed
wheel has them (`cache_bytecode`). The machine next: what a second CPU-bound Python
process gains on it (`parallelism.py`), the bound on what `-n 2` can gain over `-n 0`.

Quick run, `-n 0` beside `-n 2`: `crm-conformance run -n N --seed S` against the embedded
reference server, the two taking turns (`--runs` times each), with where the seconds go:
per pytest process (the one that collects and each forked worker) when it was imported,
configured, done collecting and done testing, and inside its tests the time in setup,
call and teardown, in HTTP round trips, in sleeps, waiting for the embedded server and
loading the fuzz layer's schema (`run_breakdown.py`, a pytest plugin loaded with `-p`).
Printed with the load average, since the machine's other work moves the absolute figures.
The same for the full profile (`--scale-runs` times each, section `scaling`): 100 cases
per fuzz operation and 100 stateful scenarios, where the tests' work, not the start and
end of the processes, makes most of the run.

Fuzz layer beside plain schemathesis, on the clean reference server: requests per second
of `st run` and of the fuzz layer (`versus_plain.py` does the same fault by fault).

Reference server throughput: a page of 50 contacts (`GET /v1/contacts?limit=50`, after
seeding 50) read again with the database unchanged (what the reference's kept pages
serve), the same page read right after a write (a PATCH renaming a contact of the page:
what a suite's run mostly does, the kept page dropped), and a create (`POST
/v1/contacts`, every body new), sent sequentially by one client and then by N
concurrent clients. Each is measured right after the same requests
and clients against a trivial endpoint of the same framework (`trivial_server.py`:
one Starlette route, no auth, no database, served like the reference server), and
printed beside it with the ratio: the machine and other work running on it move both
figures, much less their ratio. Both servers run in their own processes, so the
clients' threads do not share their interpreter lock. Fuzz suites: wall time and
requests sent by `suites/test_fuzz.py` and `suites/test_fuzz_stateful.py` against the
embedded reference server, per profile (requests: the harness client's count, from the
JUnit property `fuzz`; schemathesis's own auth probes are not in it).

    .venv/bin/python benchmarks/bench.py [--runs 1] [--scale-runs 1] [--requests 400]
        [--clients 4] [--rounds 5] [--full-keyword EXPR | --no-full]
        [--skip machine,quick,scaling,plain,server,fuzz]

Every loop is bounded by --requests; each run by --fuzz-timeout seconds.
"""

import argparse
import compileall
import concurrent.futures
import itertools
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from fuzz_suites import fuzz_run
from parallelism import WORKLOADS
from parallelism import measure as measure_parallelism
from quick_run import describe, quick_run, two_worker_floor
from versus_plain import failures, layer_run, load, plain_run

from crm_conformance.plugin.embedded import EmbeddedServer

TRIVIAL_SERVER = Path(__file__).resolve().with_name("trivial_server.py")
PAGE = 50
"""Contacts seeded, and the `limit` of the list measured: a full page of 50."""


@dataclass(frozen=True)
class Served:
    """A server process: its API root, the bearer token requests carry (None: none), and
    its process id (whose CPU time `measure` reads)."""

    base_url: str
    token: str | None
    pid: int

    def client(self) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=30)

    def cpu_seconds(self) -> float | None:
        """CPU time the process has used so far (Linux /proc), None where unknown."""
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def serve_reference() -> Iterator[Served]:
    """The reference server as the suite's runs get it (`crm_conformance.plugin.embedded`: a
    child process, default settings, no request log), until the block ends."""
    server = EmbeddedServer.spawn()
    try:
        target = server.target()
        yield Served(target.base_url, target.tokens["full"], server.pid)
    finally:
        server.stop()


@contextmanager
def serve_trivial(workdir: Path) -> Iterator[Served]:
    """The trivial endpoint's server (`trivial_server.py`) in a child process, until the
    block ends."""
    url, log = workdir / "trivial.url", workdir / "trivial.log"
    command = [sys.executable, str(TRIVIAL_SERVER), "--url-out", str(url)]
    with log.open("wb") as sink:  # a file, not a pipe: a full pipe would stall the server
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not url.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        if not url.exists():
            raise SystemExit(f"the trivial server did not start: {log.read_text()[-2000:]}")
        yield Served(url.read_text(encoding="utf-8"), None, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)


def percentile(ordered: list[float], q: int) -> float:
    """The nearest-rank `q`th percentile of values sorted ascending."""
    return ordered[max(0, math.ceil(len(ordered) * q / 100) - 1)]


@dataclass(frozen=True)
class Throughput:
    """`requests` answered in `seconds` (wall, or the timed requests' alone: `measure`),
    each one's latency, the statuses seen."""

    requests: int
    seconds: float
    latencies: list[float]
    statuses: set[int]
    server_cpu: float | None
    """CPU seconds the server process spent meanwhile (None where it cannot be read)."""

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    @classmethod
    def combined(cls, parts: list["Throughput"]) -> "Throughput":
        cpu = [part.server_cpu for part in parts]
        return cls(
            sum(part.requests for part in parts),
            sum(part.seconds for part in parts),
            [latency for part in parts for latency in part.latencies],
            set().union(*(part.statuses for part in parts)),
            None if None in cpu else sum(c for c in cpu if c is not None),
        )

    @property
    def cpu_per_request(self) -> float | None:
        """Server CPU milliseconds per request: what the machine's load moves least."""
        return None if self.server_cpu is None else self.server_cpu * 1000 / self.requests

    def line(self, label: str) -> str:
        ms = sorted(latency * 1000 for latency in self.latencies)
        cpu = self.cpu_per_request
        return (
            f"{label:<70} {self.rate:7.0f} req/s   "
            f"p50 {percentile(ms, 50):6.1f} ms   p99 {percentile(ms, 99):6.1f} ms   "
            + (f"server CPU {cpu:5.2f} ms/request   " if cpu is not None else "")
            + f"statuses {sorted(self.statuses)}"
        )


Send = Callable[[httpx.Client], httpx.Response]


def split(total: int, parts: int) -> list[int]:
    """`total` in `parts` shares that differ by one at most."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def measure(
    served: Served, send: Send, *, requests: int, clients: int, before: Send | None = None
) -> Throughput:
    """`requests` calls of `send`, split across `clients` threads, each its own client.

    With `before`, each client calls it, untimed, before every `send`: only the sends
    count. Their seconds are the wall time less the `before` calls' (summed per client,
    so the clients' own overhead stays in, as without `before`), and the server's CPU
    is that of the whole loop less that of as many `before` calls alone, sent right
    after by as many clients: what the sends cost the server, each right after a
    `before`."""

    def worker(count: int) -> tuple[list[float], set[int], float]:
        latencies, statuses, untimed = [], set(), 0.0
        with served.client() as client:
            for _ in range(count):
                if before is not None:
                    started = time.perf_counter()
                    before(client).raise_for_status()
                    untimed += time.perf_counter() - started
                started = time.perf_counter()
                response = send(client)
                latencies.append(time.perf_counter() - started)
                statuses.add(response.status_code)
        return latencies, statuses, untimed

    cpu_before = served.cpu_seconds()
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(pool.map(worker, split(requests, clients)))
    elapsed = time.perf_counter() - started
    cpu_after = served.cpu_seconds()
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    latencies = [latency for found, _, _ in results for latency in found]
    statuses = {status for _, found, _ in results for status in found}
    if before is not None:
        elapsed -= sum(untimed for _, _, untimed in results) / clients
        alone = measure(served, before, requests=requests, clients=clients).server_cpu
        cpu = None if cpu is None or alone is None else cpu - alone
    return Throughput(requests, elapsed, latencies, statuses, cpu)


def trivial(client: httpx.Client) -> httpx.Response:
    return client.get("/")


def beside_trivial(
    endpoint: Served,
    send: Send,
    baseline: Served,
    *,
    requests: int,
    clients: int,
    rounds: int,
    before: Send | None = None,
) -> tuple[Throughput, Throughput]:
    """`send` against `endpoint` and the trivial endpoint, `requests` each, taking turns.

    The requests go in `rounds` slices, trivial then endpoint: other work on the machine
    comes and goes within seconds, and taking turns spreads it over both figures alike.
    With `before` (untimed, before each `send`: `measure`), each trivial request follows
    an untimed trivial request too, so both sides pay the same client pattern.
    """
    trivial_before = None if before is None else trivial
    measured, trivials = [], []
    for share in split(requests, rounds):
        trivials.append(
            measure(baseline, trivial, requests=share, clients=clients, before=trivial_before)
        )
        measured.append(measure(endpoint, send, requests=share, clients=clients, before=before))
    return Throughput.combined(measured), Throughput.combined(trivials)


def list_contacts(client: httpx.Client) -> httpx.Response:
    return client.get("/v1/contacts", params={"limit": PAGE})


_serial = itertools.count()  # next() on it is atomic under the GIL: no two threads share n


def create_contact(client: httpx.Client) -> httpx.Response:
    """A contact no other request of the run sends: its last name and email are new."""
    n = next(_serial)
    body = {"first_name": "Bench", "last_name": f"Contact {n}", "email": f"bench-{n}@example.com"}
    return client.post("/v1/contacts", json=body)


def rename_contact(contact_id: str) -> Send:
    """A write that drops the reference's kept pages: a PATCH giving the contact a new
    last name (an update moves SQLite's count of changed rows, which `Transaction.memo`
    keeps a page under). The list's default order is by `created_at`, which no update
    changes, so the page read after it holds the same 50 contacts."""

    def send(client: httpx.Client) -> httpx.Response:
        return client.patch(
            f"/v1/contacts/{contact_id}", json={"last_name": f"Renamed {next(_serial)}"}
        )

    return send


def seed_contacts(served: Served) -> list[str]:
    """Create `PAGE` contacts, so that the list measured answers a full page; check it
    does. Returns the page's contact ids."""
    with served.client() as client:
        for _ in range(PAGE):
            create_contact(client).raise_for_status()
        rows = list_contacts(client).raise_for_status().json()["data"]
    if len(rows) != PAGE:
        raise SystemExit(f"GET /v1/contacts?limit={PAGE} answered {len(rows)} rows, not {PAGE}")
    return [row["id"] for row in rows]


def measured(page_ids: list[str]) -> list[tuple[str, Send, Send | None]]:
    """What `server_throughput` measures: a label, the request timed, the untimed request
    sent before each (None: none)."""
    page = f"GET /v1/contacts?limit={PAGE}"
    return [
        (f"{page}, database unchanged (kept page)", list_contacts, None),
        (f"{page}, after a PATCH", list_contacts, rename_contact(page_ids[PAGE // 2])),
        ("POST /v1/contacts", create_contact, None),
    ]


SECTIONS = ("machine", "quick", "scaling", "plain", "server", "fuzz")
"""What `--skip` may leave out: the machine's gain from a second process, the -n 0/-n 2
runs of the quick profile and of the full one, plain st beside the fuzz layer, the
reference server beside the trivial endpoint, the fuzz suites alone."""


def quick_runs(runs: int, *, seed: int, timeout: float, profile: str = "quick") -> None:
    """`-n 0` and `-n 2` taking turns, each broken down; then the ratio of their medians."""
    seconds: dict[int, list[float]] = {0: [], 2: []}
    floors: list[float] = []
    for _ in range(runs):
        for workers in (0, 2):
            print(f"load average {load()} before {profile} -n {workers}", flush=True)
            run = quick_run(workers, seed=seed, timeout=timeout, profile=profile)
            seconds[workers].append(run.seconds)
            print("\n".join(describe(run)), flush=True)
            floor = two_worker_floor(run)
            if floor is not None:
                floors.append(floor / run.seconds)
    median = {workers: statistics.median(values) for workers, values in seconds.items()}
    print(
        f"{profile} profile, median of {runs}: -n 0 {median[0]:.1f} s, -n 2 {median[2]:.1f} s, "
        f"ratio -n 2 / -n 0 {median[2] / median[0]:.2f} (load average now {load()})"
    )
    if floors:
        print(
            f"{profile} profile: -n 2 with workers that cost nothing to start, splitting the "
            f"tests of -n 0 evenly, would give a ratio of {statistics.median(floors):.2f} "
            "(-n 0's wall time before its first test and after its last, plus half its tests)"
        )


def versus_plain_st(*, seed: int, timeout: float) -> None:
    """Requests per second of plain `st run` and of the fuzz layer, clean reference server."""
    plain = plain_run(None, seed=seed, max_examples=10, timeout=timeout)
    layer = layer_run(None, seed=seed, timeout=timeout)
    plain_rate, layer_rate = plain.requests / plain.seconds, layer.requests / layer.seconds
    print(
        f"plain st run (--max-examples 10): {plain.requests} requests in {plain.seconds:.1f} s, "
        f"{plain_rate:.0f} req/s; fuzz layer (quick): {layer.requests} requests in "
        f"{layer.seconds:.1f} s, {layer_rate:.0f} req/s, "
        f"{failures(layer.run)} failed; ratio layer / st {layer_rate / plain_rate:.2f}"
    )


def server_throughput(*, requests: int, clients: int, rounds: int) -> None:
    """The reference server's list (unchanged, then after a write) and create beside the
    trivial endpoint."""
    with (
        tempfile.TemporaryDirectory(prefix="crm-bench-") as scratch,
        serve_reference() as reference,
        serve_trivial(Path(scratch)) as baseline,
    ):
        for label, send, before in measured(seed_contacts(reference)):
            for concurrent in (1, clients):
                result, base = beside_trivial(
                    reference,
                    send,
                    baseline,
                    requests=requests,
                    clients=concurrent,
                    rounds=rounds,
                    before=before,
                )
                print(result.line(f"{label}, {concurrent} client(s)"))
                after = " after an untimed GET /" if before else ""
                print(base.line(f"  trivial GET /{after}, {concurrent} client(s)"))
                cpu = (
                    f", server CPU per request {base.cpu_per_request / result.cpu_per_request:.3f}"
                    if result.cpu_per_request and base.cpu_per_request
                    else ""
                )
                print(f"  ratio {result.rate / base.rate:.3f} (endpoint / trivial){cpu}")


def cache_bytecode() -> str:
    """Compile the harness and the suites to cached bytecode, as an installed wheel has it.

    Where PYTHONDONTWRITEBYTECODE is set (CI images, this project's machines), a checkout
    never caches its own modules, and every process of a run compiles the harness anew
    (0.1 s of CPU for the embedded server alone), which weighs on `-n 2`, with five
    processes starting at once, more than on `-n 0`. The README's figures taken before
    its section "Cached bytecode" paid it."""
    root = Path(__file__).resolve().parent.parent
    folders = [root / "src" / "crm_conformance", root / "suites"]
    compiled = all(compileall.compile_dir(folder, quiet=1) for folder in folders)
    where = ", ".join(str(folder.relative_to(root)) for folder in folders)
    return f"{where} compiled to __pycache__" + ("" if compiled else " (some files failed)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="quick runs of each -n, in turns")
    parser.add_argument("--requests", type=int, default=400, help="requests per measurement")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument(
        "--rounds", type=int, default=5, help="turns taken with the trivial endpoint"
    )
    parser.add_argument(
        "--scale-runs", type=int, default=1, help="full-profile runs of each -n, in turns"
    )
    parser.add_argument("--seed", type=int, default=42, help="seed of the runs")
    parser.add_argument("--full-keyword", help="-k expression bounding the full-profile run")
    parser.add_argument("--no-full", action="store_true", help="skip the full-profile run")
    parser.add_argument("--fuzz-timeout", type=float, default=1800, help="seconds per run")
    parser.add_argument("--skip", default="", help=f"sections to leave out: {','.join(SECTIONS)}")
    args = parser.parse_args()
    skip = {name.strip() for name in args.skip.split(",") if name.strip()}
    if skip - set(SECTIONS):
        raise SystemExit(f"--skip={args.skip!r}: known sections are {', '.join(SECTIONS)}")

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load()}")
    print(f"bytecode: {cache_bytecode()}", flush=True)
    if "machine" not in skip:
        for workload in WORKLOADS:
            print(measure_parallelism(workload, rounds=3).line(), flush=True)
    if "quick" not in skip:
        quick_runs(args.runs, seed=args.seed, timeout=args.fuzz_timeout)
    if "scaling" not in skip:
        quick_runs(args.scale_runs, seed=args.seed, timeout=args.fuzz_timeout, profile="full")
    if "plain" not in skip:
        versus_plain_st(seed=args.seed, timeout=args.fuzz_timeout)
    if "server" not in skip:
        server_throughput(requests=args.requests, clients=args.clients, rounds=args.rounds)
    if "fuzz" not in skip:
        profiles = [("quick", None)] + ([] if args.no_full else [("full", args.full_keyword)])
        for profile, keyword in profiles:
            run = fuzz_run(profile, keyword=keyword, timeout=args.fuzz_timeout, seed=args.seed)
            bounded = f" (-k {keyword!r})" if keyword else ""
            print(
                f"fuzz suites, profile {run.profile}{bounded}: {run.seconds:.1f} s wall, "
                f"{run.tests} tests ({run.failed} failed), {run.requests} requests "
                f"({run.requests / run.seconds:.0f} req/s), seed {args.seed}"
            )
    print(f"load average at the end {load()}")


if __name__ == "__main__":
    main()
