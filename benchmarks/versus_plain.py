"""Plain schemathesis beside this project's fuzz layer, fault by fault: printed, never asserted.

Why: the fuzz layer (`suites/test_fuzz.py`, `suites/test_fuzz_stateful.py`) wraps
schemathesis in overlays, the harness's checks and a guard. This measures what that buys
over the tool alone, run as a user would run it without this project
(`st run spec/openapi.yaml`), on the faults of the reference server: which of them each
one catches, and how many requests per second each one sends.

Per fault (and first on the clean server), against a fresh reference server on
127.0.0.1 with that one fault switched on:

- plain st: `st run spec/openapi.yaml --url URL -H "Authorization: Bearer TOKEN" --seed S
  --max-examples N`, in an empty scratch folder (no example database carried over), with
  JUnit and HAR reports there. Plain st fails on the clean server too (methods the
  server legitimately offers, `null` bodies, data valid by the schema but not by the
  document), so only what none of the clean runs (`--clean-runs`) showed counts, at two
  grains: a new (operation, failure code) pair, and a new answer (the same pair with
  another status or error code: a pair the clean server already fails can hide a
  fault). Requests: the HAR entries, one per test case sent (requests a check sends on
  its own, such as `ignored_auth`'s probes, are not recorded there, nor in the layer's
  figure).
- the fuzz layer: `run_suite` on both modules with `--hypothesis-seed=S` (profile
  `--profile`, default quick); caught means a failed test names one of the fault's
  requirement ids (`SuiteRun.kills`), as in the kill matrix. Requests: the JUnit
  property `fuzz`, summed (`bench.fuzz_requests`).

Wall time: the `st run` process for plain st (the server is already up); the whole
`run_suite` call for the layer (server start, pytest start, schema load). Tokens never
leave this process unredacted: st filters the Authorization header itself, and whatever
this script prints from a tool's output is redacted again.

    .venv/bin/python benchmarks/versus_plain.py [--faults a,b,...|all] [--clean-runs 3]
        [--seed 42] [--max-examples 10] [--profile quick] [--timeout 900]

Every run is bounded by --timeout seconds.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from fuzz_suites import FUZZ_MODULES, ROOT, fuzz_requests

from crm_conformance.reference import ServerSettings, running_server
from crm_conformance.reference.faults import FAULTS, Fault
from crm_conformance.selftest.suite_run import SuiteRun, run_suite

ST = Path(sys.executable).with_name("st")
"""The `st` command of the interpreter's environment (the project's venv)."""
SPEC = ROOT / "spec" / "openapi.yaml"
DEFAULT_FAULTS = (
    "missing_request_id_on_errors",
    "error_type_wrong",
    "rate_limit_headers_missing_on_errors",
    "rate_remaining_counts_used",
    "has_more_wrong_on_last_page",
    "value_as_number",
    "query_errors_answer_422",
    "param_names_the_location",
    "method_not_allowed_404",
    "fields_ignored",
    "fields_drops_id",
    "lists_omit_default_visibility",
    "meta_limit_reports_default",
    "limit_200_rejected",
    "tag_color_unchecked",
    "unknown_sort_key_ignored",
    "phone_not_normalized",
)
"""Faults a schema-driven fuzzer could plausibly see: error envelope, headers,
identifiers, pagination, query parameters, the shape of a record."""

Pair = tuple[str, str]
"""(operation, failure code): the JUnit test case's name and an `STnnn` code."""
Failure = tuple[str, str, str]
"""(operation, failure code, answer): a Pair and the status and error code of the answer
that failed, e.g. `[400] invalid_cursor`."""

TOKEN_LIKE = re.compile(r"sk_(?:test|live)_[A-Za-z0-9_\-]+")
FAILURE_CODE = re.compile(r"^- (ST\d{3}) ", re.MULTILINE)
STATUS = re.compile(r"^\[(\d{3})\]", re.MULTILINE)
ERROR_CODE = re.compile(r'"code":"([^"]*)"')


def redact(text: str, tokens: Iterable[str] = ()) -> str:
    """`text` without the given tokens and without anything shaped like a token."""
    for token in tokens:
        text = text.replace(token, "<token>")
    return TOKEN_LIKE.sub("<token>", text)


@dataclass(frozen=True)
class PlainRun:
    """One `st run`: its failures, the requests it sent, how long it took."""

    failures: frozenset[Failure]
    requests: int
    seconds: float
    exit_code: int
    problem: str = ""
    """Why the reports are missing, redacted; empty when they are there."""

    @property
    def pairs(self) -> frozenset[Pair]:
        return frozenset((operation, code) for operation, code, _ in self.failures)


def failures_of(junit: Path, tokens: Iterable[str]) -> frozenset[Failure]:
    """The failures of a schemathesis JUnit report, one per check that failed on a case."""
    found = set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        operation = case.get("name", "")
        for element in case:
            if element.tag not in ("failure", "error"):
                continue
            text = element.text or ""
            status = STATUS.search(text)
            code = ERROR_CODE.search(text)
            answer = f"[{status.group(1) if status else '?'}] {code.group(1) if code else ''}"
            answer = redact(answer.strip(), tokens)
            for check in FAILURE_CODE.findall(text) or [element.get("message") or element.tag]:
                found.add((operation, check, answer))
    return frozenset(found)


def plain_run(fault: str | None, *, seed: int, max_examples: int, timeout: float) -> PlainRun:
    """`st run` of the spec against a fresh reference server with `fault` switched on."""
    settings = ServerSettings(faults=frozenset({fault} if fault else ()))
    with (
        tempfile.TemporaryDirectory(prefix="crm-versus-st-") as scratch,
        running_server(settings) as served,
    ):
        tokens = list(served.tokens.values())
        command = [
            str(ST),
            "run",
            str(SPEC),
            "--url",
            served.base_url,
            "-H",
            f"Authorization: Bearer {served.tokens['full']}",
            "--seed",
            str(seed),
            "--max-examples",
            str(max_examples),
            "--no-color",
            "--report",
            "junit,har",
            "--report-dir",
            scratch,
        ]
        started = time.perf_counter()
        done = subprocess.run(
            command, cwd=scratch, capture_output=True, text=True, timeout=timeout, check=False
        )
        seconds = time.perf_counter() - started
        junits = sorted(Path(scratch).glob("junit*.xml"))
        hars = sorted(Path(scratch).glob("har*.json"))
        if not junits or not hars:
            tail = redact((done.stdout + done.stderr)[-1500:], tokens)
            return PlainRun(frozenset(), 0, seconds, done.returncode, f"no report: {tail}")
        entries = json.loads(hars[0].read_text(encoding="utf-8"))["log"]["entries"]
        failures = failures_of(junits[0], tokens)
        return PlainRun(failures, len(entries), seconds, done.returncode)


@dataclass(frozen=True)
class LayerRun:
    """One run of the fuzz layer's two modules through `run_suite`."""

    run: SuiteRun
    requests: int
    seconds: float


def layer_run(fault: str | None, *, seed: int, timeout: float) -> LayerRun:
    """Both fuzz modules against a fresh reference server with `fault` switched on."""
    modules = [Path(module).name for module in FUZZ_MODULES]
    with tempfile.TemporaryDirectory(prefix="crm-versus-layer-") as scratch:
        junit = Path(scratch) / "junit.xml"
        started = time.perf_counter()
        given = run_suite(
            modules,
            faults={fault} if fault else (),
            # run_suite reads outcomes.jsonl; this JUnit is for the `fuzz` properties.
            extra_args=[f"--hypothesis-seed={seed}", f"--junitxml={junit}"],
            timeout=timeout,
        )
        seconds = time.perf_counter() - started
        if not junit.exists():
            return LayerRun(given, 0, seconds)
        return LayerRun(given, fuzz_requests(junit), seconds)


def row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def failures(run: SuiteRun) -> str:
    """The failed tests of a layer run, and its setup errors when there are any."""
    failed, errors = len(run.with_outcome("failed")), len(run.with_outcome("error"))
    return f"{failed}" + (f" (+{errors} errors)" if errors else "")


def chosen_faults(option: str) -> list[str]:
    names = list(FAULTS) if option == "all" else [n.strip() for n in option.split(",") if n]
    unknown = sorted(set(names) - FAULTS.keys())
    if unknown:
        raise SystemExit(f"unknown fault(s) {unknown}; known: {', '.join(sorted(FAULTS))}")
    return names


HEADER = (
    "fault",
    "ids",
    "plain st: new pairs",
    "plain st: new answers",
    "layer caught (right id)",
    "layer failed tests",
    "st requests",
    "st s",
    "st req/s",
    "layer requests",
    "layer s",
    "layer req/s",
)


@dataclass(frozen=True)
class Novelty:
    """What a fault's st run showed that no clean run did."""

    pairs: frozenset[Pair]
    failures: frozenset[Failure]

    @classmethod
    def against(cls, plain: PlainRun, cleans: Sequence[PlainRun]) -> "Novelty":
        clean_pairs = frozenset().union(*(clean.pairs for clean in cleans))
        clean_failures = frozenset().union(*(clean.failures for clean in cleans))
        return cls(plain.pairs - clean_pairs, plain.failures - clean_failures)

    def line(self, name: str) -> str:
        pairs = "; ".join(f"{check} {operation}" for operation, check in sorted(self.pairs))
        failures = "; ".join(
            f"{check} {operation} {answer}" for operation, check, answer in sorted(self.failures)
        )
        return f"  {name}: new pairs: {pairs or '-'}\n    new answers: {failures or '-'}"


@dataclass
class Table:
    """The printed table's rows, and the totals over the faults."""

    lines: list[str] = field(default_factory=lambda: [row(HEADER), row(["---"] * len(HEADER))])
    caught: Counter[str] = field(default_factory=Counter)
    requests: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=lambda: {"st": 0.0, "layer": 0.0})

    def add(self, cells: Sequence[object]) -> None:
        self.lines.append(row(cells))
        print(self.lines[-1], flush=True)

    def add_clean_plain(self, plain: PlainRun) -> None:
        pairs, answers = f"baseline: {len(plain.pairs)}", f"baseline: {len(plain.failures)}"
        self.add(["(clean)", "", pairs, answers, "", "", *figures(plain), "", "", ""])

    def add_clean_layer(self, layer: LayerRun) -> None:
        self.add(["(clean)", "", "", "", "", failures(layer.run), "", "", "", *figures(layer)])

    def add_fault(self, fault: Fault, new: Novelty, plain: PlainRun, layer: LayerRun) -> None:
        killed = layer.run.kills(fault.reqs)
        caught = {"st_pairs": bool(new.pairs), "st_answers": bool(new.failures), "layer": killed}
        self.caught.update({key: int(value) for key, value in caught.items()})
        self.requests.update(st=plain.requests, layer=layer.requests)
        self.seconds["st"] += plain.seconds
        self.seconds["layer"] += layer.seconds
        self.add(
            [
                fault.name,
                ", ".join(fault.reqs),
                f"yes ({len(new.pairs)})" if new.pairs else "no",
                f"yes ({len(new.failures)})" if new.failures else "no",
                "yes" if killed else "no",
                failures(layer.run),
                *figures(plain),
                *figures(layer),
            ]
        )

    def add_totals(self, faults: int) -> None:
        self.add(
            [
                f"**total ({faults} faults)**",
                "",
                *(f"{self.caught[key]}/{faults}" for key in ("st_pairs", "st_answers", "layer")),
                "",
                *figures(Totals(self.requests["st"], self.seconds["st"])),
                *figures(Totals(self.requests["layer"], self.seconds["layer"])),
            ]
        )


@dataclass(frozen=True)
class Totals:
    requests: int
    seconds: float


def figures(run: PlainRun | LayerRun | Totals) -> list[object]:
    """Requests, seconds and requests per second of a run."""
    per_second = f"{run.requests / run.seconds:.0f}" if run.seconds else "-"
    return [run.requests, f"{run.seconds:.1f}", per_second]


def clean_summary(cleans: Sequence[PlainRun]) -> None:
    """Print what plain st reported on the clean server; each failure, in how many runs."""
    seen = Counter(failure for clean in cleans for failure in clean.failures)
    pairs = Counter(pair for clean in cleans for pair in clean.pairs)
    print(f"\nplain st on the clean server ({len(cleans)} runs; failure: runs showing it):")
    for operation, check, answer in sorted(seen):
        print(f"  {check} {operation} {answer}: {seen[operation, check, answer]}/{len(cleans)}")
    unstable = sum(1 for count in pairs.values() if count < len(cleans))
    print(f"  pairs some clean runs showed and others did not: {unstable} of {len(pairs)}")
    unstable = sum(1 for count in seen.values() if count < len(cleans))
    print(f"  answers some clean runs showed and others did not: {unstable} of {len(seen)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--faults",
        default=",".join(DEFAULT_FAULTS),
        help="comma-separated fault names, or 'all' (default: faults a schema can show)",
    )
    parser.add_argument("--clean-runs", type=int, default=3, help="plain st runs, clean server")
    parser.add_argument("--seed", type=int, default=42, help="seed of both tools")
    parser.add_argument("--max-examples", type=int, default=10, help="st --max-examples")
    parser.add_argument("--profile", default="quick", help="the fuzz layer's CRM_PROFILE")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run")
    args = parser.parse_args()
    faults = chosen_faults(args.faults)
    os.environ["CRM_PROFILE"] = args.profile  # read by the layer's child pytest

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load()}")
    print(
        f"plain: st run spec/openapi.yaml --seed {args.seed} --max-examples "
        f"{args.max_examples}; layer: {' + '.join(FUZZ_MODULES)}, profile {args.profile}, "
        f"--hypothesis-seed={args.seed}",
        flush=True,
    )
    plain = partial(plain_run, seed=args.seed, max_examples=args.max_examples, timeout=args.timeout)
    layer = partial(layer_run, seed=args.seed, timeout=args.timeout)

    table = Table()
    print("\n".join(table.lines), flush=True)
    cleans = []
    for _ in range(max(1, args.clean_runs)):
        cleans.append(plain(None))
        table.add_clean_plain(cleans[-1])
    table.add_clean_layer(layer(None))

    novelties: dict[str, Novelty] = {}
    problems = [f"clean: st exit {c.exit_code}, {c.problem}" for c in cleans if c.problem]
    for name in faults:
        by_st, by_layer = plain(name), layer(name)
        novelties[name] = Novelty.against(by_st, cleans)
        table.add_fault(FAULTS[name], novelties[name], by_st, by_layer)
        if by_st.problem:
            problems.append(f"{name}: st exit {by_st.exit_code}, {by_st.problem}")
        if not by_layer.run.results:
            problems.append(
                f"{name}: no JUnit report from the layer, exit {by_layer.run.exit_code}"
            )
    table.add_totals(len(faults))

    print(f"\nload average at the end {load()}\n")
    print("\n".join(table.lines))
    clean_summary(cleans)
    print("\nplain st, per fault, what no clean run showed:")
    for name, novelty in novelties.items():
        print(novelty.line(name))
    for problem in problems:
        print(f"problem: {problem}")


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
