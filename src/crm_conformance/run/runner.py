"""The library behind `crm-conformance run`: one conformance run in a pytest subprocess.

pytest runs in a child process so a crash (or a hung worker killed by the user) is
contained and still leaves a verdict. The child writes one stream of outcome records
(`outcomes.jsonl`, by the harness plugin's `plugin.stream`); afterwards this module
builds the summaries (and the certificate) from that stream alone, prints the short
verdict, and maps the result onto the command's exit codes (`EXIT_*`; the table is in
README, "Exit codes").

The child tells an unreachable target apart with an exit status of its own
(`plugin.session.EXIT_UNREACHABLE`), outside pytest's 0-5, so pytest's internal error
(3) can never read as "unreachable".
"""

import json
import os
import secrets
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from crm_conformance._errors import TargetFileError, UsageError
from crm_conformance.core.model import paths
from crm_conformance.core.model.catalogue import Catalogue, load_catalogue
from crm_conformance.core.model.target import load_target
from crm_conformance.core.planning.partition import SHARD_FILE, Shard, durations_of
from crm_conformance.core.verdicts.outcomes import (
    OUTCOMES_FILE,
    ClassVerdict,
    Outcome,
    OutcomeRecord,
    read_records,
)
from crm_conformance.core.verdicts.waivers import Waiver, load_waivers
from crm_conformance.plugin.session import EXIT_UNREACHABLE as _CHILD_UNREACHABLE
from crm_conformance.reporting.allure_labels import stabilise_history
from crm_conformance.reporting.certificate import write_certificate
from crm_conformance.reporting.replay import replay_command
from crm_conformance.reporting.requirements_page import PAGE_FILE
from crm_conformance.reporting.summary import (
    RunInfo,
    build_summary,
    seed_text,
    write_summary,
)
from crm_conformance.reporting.views import VIEW_FILES, write_views
from crm_conformance.run import smoke
from crm_conformance.run.interruptible import EXIT_INTERRUPTED, interrupted_text, run_interruptible

EXIT_NOTHING_FAILED = 0
"""No requirement failed and no test errored or was blocked (the CI gate's pass)."""
EXIT_FAILED = 1
"""A requirement failed, or tests could not run for setup errors."""
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_INTERNAL = 4
"""pytest or the harness crashed; the message points to the run's pytest.log."""

_PYTEST_INTERRUPTED = 2
_PYTEST_INTERNAL_ERROR = 3
_PYTEST_USAGE = 4
_PYTEST_NO_TESTS = 5

_RERUN = (Outcome.FAILED, Outcome.ERROR, Outcome.BLOCKED, Outcome.SUITE_ERROR)
_SETUP = (Outcome.ERROR, Outcome.BLOCKED, Outcome.SUITE_ERROR)


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """Everything `crm-conformance run` was asked to do."""

    target: Path | None = None
    base_url: str | None = None
    classes: str | None = None
    workers: int = 0
    seed: int | None = None
    profile: str = "quick"
    fuzz_minutes: float | None = None
    fuzz_rounds: Path | None = None
    """An earlier deep run's report folder: each fuzz test runs the rounds it ran there."""
    report_dir: Path | None = None
    pytest_args: Sequence[str] = ()
    rerun_failed: Path | None = None
    waivers: Path | None = None
    certify: bool = False
    shard: str | None = None
    """`K/N`: run the K-th of N balanced parts of the tests
    (`crm_conformance.core.planning.partition`)."""
    shard_by: Path | None = None
    """An earlier run's report folder whose test durations balance the shards."""
    token_pool: int | None = None
    """Full-scope tokens to mint for the run's pool (`token_pool`); None: the target's."""
    suites_dir: Path = field(default_factory=lambda: paths.SUITES_DIR)


@dataclass(frozen=True)
class RunResult:
    """What a finished run established; `exit_code` is DESIGN.md's."""

    exit_code: int
    report_dir: Path
    summary: dict[str, Any]
    records: list[OutcomeRecord]
    message: str = ""


def default_report_dir(run_id: str, now: datetime) -> Path:
    return Path("reports") / f"{now.strftime('%Y%m%dT%H%M%SZ')}-{run_id}"


def validate(request: RunRequest) -> None:
    """Refuse contradictory options up front, naming the option (exit 2)."""
    if request.certify:
        for name, given in (
            ("--classes", request.classes),
            ("--waivers", request.waivers),
            ("--rerun-failed", request.rerun_failed),
            ("-- pytest args", tuple(request.pytest_args)),
        ):
            if given:
                raise UsageError(f"--certify runs every class unfiltered: {name} is not allowed")
    if request.workers < 0:
        raise UsageError(f"-n={request.workers}: expected 0 or a positive number of workers")
    if request.target is not None and not request.target.is_file():
        raise TargetFileError(f"--target={request.target}: no such file")
    if request.fuzz_rounds is not None:
        _check_fuzz_rounds(request, request.fuzz_rounds)
    if request.rerun_failed is not None and not (request.rerun_failed / OUTCOMES_FILE).is_file():
        raise UsageError(
            f"--rerun-failed={request.rerun_failed}: no {OUTCOMES_FILE} there; "
            "give the report folder of an earlier run"
        )
    if not request.suites_dir.is_dir():
        raise UsageError(f"the suites folder {request.suites_dir} does not exist")
    if request.shard is not None:
        Shard.parse(request.shard)
        if request.rerun_failed is not None:
            raise UsageError("--rerun-failed reruns one run's failures: --shard is not allowed")
        if request.seed is None:
            raise UsageError(
                f"--shard {request.shard} needs --seed N: the shards of one run must draw the "
                "same generated cases; give every shard the same seed (e.g. the CI pipeline's id)"
            )
    if request.shard_by is not None:
        if request.shard is None:
            raise UsageError(f"--shard-by={request.shard_by}: give --shard K/N too")
        durations_of(request.shard_by)


def _check_fuzz_rounds(request: RunRequest, run_dir: Path) -> None:
    """`--fuzz-rounds RUN_DIR` replays a deep run's rounds: the deep profile, no minutes."""
    if request.profile != "deep":
        raise UsageError(
            f"--fuzz-rounds={run_dir}: rounds are the deep profile's; add --profile deep"
        )
    if request.fuzz_minutes is not None:
        raise UsageError("--fuzz-rounds replays rounds: --fuzz-minutes is not allowed with it")
    if not (run_dir / OUTCOMES_FILE).is_file():
        raise UsageError(
            f"--fuzz-rounds={run_dir}: no {OUTCOMES_FILE} there; "
            "give the report folder of the deep run to replay"
        )


def check_pool(request: RunRequest) -> None:
    """A token pool to mint needs a given target with an adapter: one usage error before
    any test when it has none (the plugin would stop the run at its start)."""
    if request.target is None and request.base_url is None:
        if request.token_pool:
            raise UsageError(
                "--token-pool spreads a given target's requests over several tokens: give "
                "--target (each worker of the embedded reference server tests its own)"
            )
        return
    target = load_target(path=request.target, base_url=request.base_url)
    count = request.token_pool if request.token_pool is not None else target.token_pool
    if count and target.adapter_url is None:
        raise UsageError(
            f"a token pool of {count} is minted through the adapter (feature tokens), and "
            "the target names no adapter_url: add it, or list the tokens in "
            "[tokens.full] values_env"
        )


def public_target(request: RunRequest) -> dict[str, Any]:
    """The target as reports show it: URLs and token role names, never token values.

    Loaded as the harness loads it (`target.load_target`), so a broken file is a usage
    error before any test runs.
    """
    if request.target is None and request.base_url is None:
        return {"base_url": "embedded reference server", "adapter_url": "embedded"}
    target = load_target(path=request.target, base_url=request.base_url)
    shown: dict[str, Any] = {
        "base_url": target.base_url,
        "adapter_url": target.adapter_url,
        "token_roles": sorted(target.tokens),
    }
    if request.target is not None:
        shown["file"] = request.target.name
    return shown


def pytest_command(
    request: RunRequest,
    report_dir: Path,
    run_id: str,
    *,
    seed: int | None = None,
    listing: Path | None = None,
) -> list[str]:
    """The child's command line: the suites, the harness options and the run's plugin."""
    # pytest that ends without the interpreter's teardown (fast_exit).
    command = [sys.executable, "-m", "crm_conformance.run.fast_exit"]
    command += ["-p", "crm_conformance.reporting.run_plugin"]
    command += ["-p", "crm_conformance.reporting.graceful_stop"]
    # No .pytest_cache inside an installed wheel's folder.
    command += ["--rootdir", str(_root_of(request)), "-p", "no:cacheprovider"]
    # No assertion rewriting: the suites fail through ConformanceFailure, and where no
    # bytecode is written (PYTHONDONTWRITEBYTECODE, common in CI images) pytest rewrites
    # schemathesis and hypothesis anew in every process, ~5 s of CPU each (issue 14).
    command.append("--assert=plain")
    if request.rerun_failed is not None:
        command += _failed_nodeids(request.rerun_failed)
    else:
        command.append(str(request.suites_dir))
    if request.target is not None:  # the child runs elsewhere: a relative path would miss
        command += ["--target", str(request.target.resolve())]
    if request.base_url is not None:
        command += ["--base-url", request.base_url]
    if request.classes:
        command += ["--classes", request.classes]
    elif request.certify:
        command += ["--classes", "all"]  # a certificate claims the opt-in classes too
    command += ["--profile", request.profile, "--run-id", run_id]
    if request.fuzz_minutes is not None:
        command += ["--fuzz-minutes", str(request.fuzz_minutes)]
    if request.fuzz_rounds is not None:
        command += ["--fuzz-rounds", str(request.fuzz_rounds.resolve())]
    if listing is not None:
        return [*command, "--collect-only", "-q", "--crm-list", str(listing)]
    if seed is not None:
        # Every generating test (fuzz and property) draws from this one seed, which the
        # summary records: a rerun with `--seed` gives the same cases.
        command.append(f"--hypothesis-seed={seed}")
    # -n N: N forks of the pytest process once it has collected (plugin/forks.py), each
    # taking the next test from one queue, long tests first; not xdist's workers, which
    # each start Python and collect again (1.3 s of a 13.7 s quick run, issue 14).
    command += ["-p", "no:xdist"]
    if request.workers:
        command += ["--crm-forks", str(request.workers)]
    command += [
        f"--junitxml={report_dir / 'junit.xml'}",
        f"--alluredir={report_dir / 'allure-results'}",
        f"--crm-outcomes={report_dir / OUTCOMES_FILE}",
        "--crm-progress",
    ]
    if request.waivers is not None:
        command.append(f"--waivers={request.waivers.resolve()}")
    if request.shard is not None:
        command += ["--shard", request.shard, f"--crm-shard-record={report_dir / SHARD_FILE}"]
    if request.shard_by is not None:
        command.append(f"--shard-by={request.shard_by.resolve()}")
    if request.token_pool is not None:
        command.append(f"--token-pool={request.token_pool}")
    return [*command, *request.pytest_args]


def run_seed(request: RunRequest) -> int:
    """The run's seed: `--seed`, else the seed of the run being rerun, else a fresh one."""
    if request.seed is not None:
        return request.seed
    if request.rerun_failed is not None:
        summary = request.rerun_failed / "summary.json"
        if summary.is_file():
            earlier = json.loads(summary.read_text(encoding="utf-8")).get("seed")
            if isinstance(earlier, int):
                return earlier
    return secrets.randbelow(2**32)


def claimed_classes(request: RunRequest, catalogue: Catalogue) -> tuple[str, ...]:
    """The classes the run claims, as the harness plugin selects them: `--classes` (core
    always; `all` every class), else every class but the opt-in ones against a given
    target; a certificate and the embedded reference server claim every class."""
    every = tuple(catalogue.classes)
    names = [name.strip() for name in (request.classes or "").split(",") if name.strip()]
    if request.certify or names == ["all"]:
        return every
    if names:
        return tuple(cls for cls in every if cls in {"core", *names})
    if request.target is None and request.base_url is None:
        return every
    return tuple(cls for cls in every if cls not in catalogue.opt_in_classes)


def _failed_nodeids(run_dir: Path) -> list[str]:
    nodeids = [r.nodeid for r in read_records(run_dir / OUTCOMES_FILE) if r.outcome in _RERUN]
    if not nodeids:
        raise UsageError(f"--rerun-failed={run_dir}: that run had no failed test to rerun")
    return nodeids


def _root_of(request: RunRequest) -> Path:
    """The child's working directory: the suites' parent, so node ids are `suites/...`."""
    return request.suites_dir.resolve().parent


def list_tests(request: RunRequest) -> list[dict[str, Any]]:
    """The tests with their requirement ids and classes; collection only, no request sent."""
    validate(request)
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / f"crm-list-{uuid.uuid4().hex}.json"
    command = pytest_command(request, scratch.parent, "list", listing=scratch)
    try:
        done = _child(command, request, stdout=subprocess.PIPE)
        if done.returncode not in (0, _PYTEST_NO_TESTS) or not scratch.is_file():
            raise UsageError("collecting the suites failed:\n" + _tail(done.stdout or "", 20))
        tests: list[dict[str, Any]] = json.loads(scratch.read_text(encoding="utf-8"))
    finally:
        scratch.unlink(missing_ok=True)
    return tests


def _child(
    command: list[str], request: RunRequest, *, stdout: Any
) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        command,
        cwd=_root_of(request),
        stdout=stdout,
        stderr=None,
        text=True,
        env=_child_env(),
        check=False,
    )


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)  # the run is what the options say, nothing inherited
    return env


def _tail(text: str, lines: int) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


STOPPING = "crm-conformance: stopping after the running tests (Ctrl-C again stops at once)"
"""Said at the first Ctrl-C of a run: the child finishes its running tests first."""


def run(request: RunRequest, *, echo: Callable[[str], None] = print) -> RunResult:
    """Run the suites against the target and write the report folder.

    A given target is checked first as `smoke` checks it, so a wrong URL or token is one
    setup error (exit 2 or 3) before any test. Ctrl-C lets the running tests wind down
    and reports what ran (exit 130). A usage error found by pytest leaves no folder.
    """
    validate(request)
    if request.target is not None or request.base_url is not None:
        smoke.check(target_path=request.target, base_url=request.base_url)
    check_pool(request)
    run_id = uuid.uuid4().hex[:8]
    started = datetime.now(UTC)
    report_dir = (request.report_dir or default_report_dir(run_id, started)).resolve()
    waivers: list[Waiver] = load_waivers(request.waivers) if request.waivers is not None else []
    target = public_target(request)
    fresh = not report_dir.exists()
    report_dir.mkdir(parents=True, exist_ok=True)
    _clear(report_dir)
    seed = run_seed(request)
    command = pytest_command(request, report_dir, run_id, seed=seed)
    log_path = report_dir / "pytest.log"
    # Read and checked while the child runs (0.3 s of this process's own, issue 14): the
    # wait below leaves this process idle and the interpreter lock free.
    with ThreadPoolExecutor(max_workers=1) as pool, log_path.open("w", encoding="utf-8") as log:
        catalogue_read = pool.submit(load_catalogue)
        done = run_interruptible(
            command, cwd=_root_of(request), env=_child_env(), stdout=log, notice=STOPPING
        )
    output = log_path.read_text(encoding="utf-8")
    records = list(read_records(report_dir / OUTCOMES_FILE))
    code, message = exit_code(done.returncode, records, output, log_path)
    if code == EXIT_USAGE and not done.interrupted:
        if fresh:
            shutil.rmtree(report_dir, ignore_errors=True)
        raise UsageError(message)
    results = report_dir / "allure-results"
    if results.is_dir():
        stabilise_history(results)
        _write_allure_extras(results, target, request, run_id, seed)
    catalogue = catalogue_read.result()
    info = RunInfo(
        suite_version=suite_version(),
        git_hash=git_hash(),
        target=target,
        seed=seed,
        profile=request.profile,
        started=started.isoformat(timespec="seconds"),
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
        certify=request.certify,
        waivers=[waiver.as_dict() for waiver in waivers],
        claimed=claimed_classes(request, catalogue),
        interrupted=done.interrupted,
    )
    summary = build_summary(records, info, catalogue)
    default = claimed_classes(replace(request, classes=None, certify=False), catalogue)
    summary["replay"] = replay_command(summary, report_dir=report_dir, default_claim=default)
    write_summary(report_dir, summary)
    write_views(report_dir, summary, records, catalogue)
    if done.interrupted:
        code = EXIT_INTERRUPTED
        message = interrupted_text(
            target=request.target,
            base_url=request.base_url,
            run_id=run_id,
            ran=len(records),
            report_dir=report_dir,
        )
    elif request.certify and request.shard is None:  # a shard's part is certified merged
        write_certificate(report_dir, summary, paths.SPEC_DIR)
    if request.shard is not None:
        part = f"shard {request.shard}: a part of a run; merge the folders of all its shards"
        message = "\n".join(filter(None, (message, f"{part} (`crm-conformance report --merge`)")))
    return RunResult(code, report_dir, summary, records, message)


def _clear(report_dir: Path) -> None:
    """Remove what an earlier run left in this folder (xdist must not --clean-alluredir)."""
    shutil.rmtree(report_dir / "allure-results", ignore_errors=True)
    for name in (
        "junit.xml",
        OUTCOMES_FILE,
        "summary.json",
        "summary.md",
        "certificate.json",
        SHARD_FILE,
        *VIEW_FILES,
    ):
        (report_dir / name).unlink(missing_ok=True)


def exit_code(
    returncode: int, records: list[OutcomeRecord], output: str, log: Path
) -> tuple[int, str]:
    """The command's exit code from pytest's, the records and (for messages) its output."""
    if returncode == _PYTEST_INTERNAL_ERROR:
        return EXIT_INTERNAL, _internal(output, log, "pytest or the harness crashed")
    if returncode == _CHILD_UNREACHABLE:
        return EXIT_UNREACHABLE, _exit_message(output)
    if returncode == _PYTEST_USAGE:
        return EXIT_USAGE, _tail(output, 5)
    if returncode == _PYTEST_NO_TESTS or (returncode == 0 and not records):
        return EXIT_USAGE, "no test was selected: check --classes and the -- pytest args"
    if not records:
        return EXIT_INTERNAL, _internal(output, log, f"pytest stopped (exit {returncode})")
    if any(r.outcome == Outcome.FAILED for r in records):
        return EXIT_FAILED, ""
    unreachable = [
        r
        for r in records
        if r.outcome == Outcome.ERROR
        and r.cause.startswith(("target unreachable", "transport error"))
    ]
    if unreachable:
        return EXIT_UNREACHABLE, unreachable[0].cause
    if any(r.outcome in _SETUP for r in records):
        return EXIT_FAILED, ""
    if returncode != 0:
        return EXIT_INTERNAL, _internal(output, log, f"pytest ended with exit {returncode}")
    return EXIT_NOTHING_FAILED, ""


def _internal(output: str, log: Path, what: str) -> str:
    """An internal error in one line that points to the log, with its last line of detail."""
    detail = next(
        (line for line in reversed(output.strip().splitlines()) if line.strip()), ""
    ).strip()
    return f"{what}; details in {log}" + (f": {detail[:300]}" if detail else "")


def _exit_message(output: str) -> str:
    """The message of the plugin's `pytest.exit`, one line, without pytest's framing."""
    for line in reversed(output.splitlines()):
        if "Exit:" in line:
            return line.split("Exit:", 1)[1].strip(" !")
    return _tail(output, 1)


def suite_version() -> str:
    try:
        return metadata.version("crm-conformance")
    except metadata.PackageNotFoundError:
        return "unknown"


def git_hash() -> str | None:
    """The checkout's commit, or None for an installed wheel (no .git beside the suites)."""
    root = paths.SUITES_DIR.parent
    if not (root / ".git").exists():
        return None
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() or None


def _write_allure_extras(
    results: Path, target: dict[str, Any], request: RunRequest, run_id: str, seed: int
) -> None:
    """environment.properties and executor.json, written once by the controlling process."""
    environment = {
        "suite.version": suite_version(),
        "suite.git": git_hash() or "",
        "target.base_url": str(target.get("base_url")),
        "target.adapter_url": str(target.get("adapter_url")),
        "profile": request.profile,
        "seed": str(seed),
        "run.id": run_id,
        "python": sys.version.split()[0],
    }
    (results / "environment.properties").write_text(
        "".join(f"{k}={v}\n" for k, v in environment.items()), encoding="utf-8"
    )
    executor = {
        "name": os.environ.get("CI_NAME", "crm-conformance"),
        "type": "github" if os.environ.get("GITHUB_ACTIONS") else "local",
        "buildName": f"run {run_id}",
        "reportName": "API conformance",
    }
    (results / "executor.json").write_text(json.dumps(executor), encoding="utf-8")


_CLASS_HEADINGS = {ClassVerdict.CORE_NOT_PASSED: "Own requirements passed, but core not in full"}
"""Headings of the verdict's class lines that the verdict's name does not say well."""


def _class_lines(summary: dict[str, Any]) -> list[str]:
    """The classes by verdict, one line each: passed in full first, then what falls short."""
    claimed = set(summary["claimed"])
    by_verdict: dict[str, list[str]] = {}
    for cls, entry in summary["classes"].items():
        key = entry["verdict"] if cls in claimed else "not claimed"
        shown = f"{cls} ({entry['verified']} of {entry['testable']})"
        by_verdict.setdefault(key, []).append(
            shown if key == ClassVerdict.PARTIALLY_VERIFIED else cls
        )
    lines = [
        f"Classes passed in full: {', '.join(by_verdict.pop(ClassVerdict.PASSED, [])) or 'none'}"
    ]
    for key in (*ClassVerdict, "not claimed"):
        if key in by_verdict:
            heading = _CLASS_HEADINGS.get(key, str(key).replace("_", " ").capitalize())
            lines.append(f"{heading}: {', '.join(by_verdict[key])}")
    return lines


def verdict_text(result: RunResult) -> str:
    """The short verdict printed after a run; its first line never says more than ran."""
    summary = result.summary
    tests = summary["tests"]
    counts = ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in sorted(tests.items()))
    first = {
        EXIT_USAGE: "USAGE ERROR",
        EXIT_UNREACHABLE: "TARGET UNREACHABLE",
        EXIT_INTERNAL: "INTERNAL ERROR",
        EXIT_INTERRUPTED: "INTERRUPTED",
    }.get(result.exit_code, summary["headline"])
    lines = [f"crm-conformance: {first}"]
    if result.message:
        lines.append(result.message)
    lines.append(f"Tests: {sum(tests.values())} ({counts or 'none'}); {seed_text(summary)}")
    lines += _class_lines(summary)
    failed = [(i, e) for i, e in summary["requirements"].items() if e["verdict"] == "failed"]
    if failed:
        lines.append("Requirements failed:")
        for req_id, entry in failed:
            cause = entry["causes"][0].split(": ", 1)[-1] if entry["causes"] else entry["title"]
            cause = cause.removeprefix(req_id).strip()
            lines.append(f"  {req_id}  {cause.splitlines()[0][:110] if cause else ''}")
    errors = tests.get(Outcome.ERROR, 0) + tests.get(Outcome.BLOCKED, 0)
    if errors:
        lines.append(f"Could not run for setup errors (not target failures): {errors} tests")
    suite_errors = tests.get(Outcome.SUITE_ERROR, 0)
    if suite_errors:
        lines.append(
            f"Suite errors (the suite's own fault, not the target's; tracebacks in "
            f"pytest.log): {suite_errors} tests"
        )
    skipped = tests.get(Outcome.NOT_APPLICABLE, 0)
    if skipped:
        lines.append(
            f"Not applicable to this target: {skipped} tests (summary.md says what would "
            "verify their requirements)"
        )
    lines.append(f"Report: {result.report_dir}")
    page = result.report_dir / PAGE_FILE
    if page.is_file():
        lines.append(f"The document coloured by verdict: {page}")
    return "\n".join(lines)
