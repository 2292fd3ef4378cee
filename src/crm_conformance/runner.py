"""The library behind `crm-conformance run`: one conformance run in a pytest subprocess.

pytest runs in a child process so a crash (or a hung worker killed by the user) is
contained and still leaves a verdict. The child writes one stream of outcome records
(`outcomes.jsonl`, by the harness plugin, `crm_conformance.plugin.stream`); afterwards this module
builds the summaries (and the certificate) from that stream alone, prints the short
verdict, and maps the result onto DESIGN.md's exit codes.
"""

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from crm_conformance import paths, smoke
from crm_conformance._errors import TargetFileError, UsageError
from crm_conformance.catalogue import load_catalogue
from crm_conformance.interruptible import EXIT_INTERRUPTED, interrupted_text, run_interruptible
from crm_conformance.outcomes import OUTCOMES_FILE, OutcomeRecord, read_records
from crm_conformance.reporting.allure_labels import stabilise_history
from crm_conformance.reporting.certificate import write_certificate
from crm_conformance.reporting.summary import RunInfo, build_summary, write_summary
from crm_conformance.sharding import SHARD_FILE, Shard, durations_of
from crm_conformance.target import load_target
from crm_conformance.waivers import Waiver, load_waivers

EXIT_CONFORMANT = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3

_PYTEST_USAGE = 4
_PYTEST_NO_TESTS = 5
_PYTEST_EXIT_UNREACHABLE = 3
"""The harness plugin ends a run with pytest.exit(returncode=3) on an unreachable target."""

_RERUN = ("failed", "error", "blocked")


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
    report_dir: Path | None = None
    pytest_args: Sequence[str] = ()
    rerun_failed: Path | None = None
    waivers: Path | None = None
    certify: bool = False
    shard: str | None = None
    """`K/N`: run the K-th of N balanced parts of the tests (`crm_conformance.sharding`)."""
    shard_by: Path | None = None
    """An earlier run's report folder whose test durations balance the shards."""
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
    if request.shard_by is not None:
        if request.shard is None:
            raise UsageError(f"--shard-by={request.shard_by}: give --shard K/N too")
        durations_of(request.shard_by)


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
    request: RunRequest, report_dir: Path, run_id: str, *, listing: Path | None = None
) -> list[str]:
    """The child's command line: the suites, the harness options and the run's plugin."""
    command = [sys.executable, "-m", "pytest", "-p", "crm_conformance.reporting.run_plugin"]
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
    if listing is not None:
        return [*command, "--collect-only", "-q", "--crm-list", str(listing)]
    if request.seed is not None:
        command.append(f"--hypothesis-seed={request.seed}")
    # worksteal: a worker that runs out takes half of another's remaining tests, so the
    # fuzz tests (a second each) do not leave one worker running alone at the end.
    workers = ["-n", str(request.workers), "--dist", "worksteal"]
    command += workers if request.workers else ["-p", "no:xdist"]
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
    return [*command, *request.pytest_args]


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


def run(request: RunRequest, *, echo: Callable[[str], None] = print) -> RunResult:
    """Run the suites against the target and write the report folder.

    A given target is checked first as `smoke` checks it, so a wrong URL or token is one
    setup error (exit 2 or 3) before any test. Ctrl-C lets the running tests wind down
    and reports what ran (exit 130). A usage error found by pytest leaves no folder.
    """
    validate(request)
    if request.target is not None or request.base_url is not None:
        smoke.check(target_path=request.target, base_url=request.base_url)
    run_id = uuid.uuid4().hex[:8]
    started = datetime.now(UTC)
    report_dir = (request.report_dir or default_report_dir(run_id, started)).resolve()
    waivers: list[Waiver] = load_waivers(request.waivers) if request.waivers is not None else []
    target = public_target(request)
    fresh = not report_dir.exists()
    report_dir.mkdir(parents=True, exist_ok=True)
    _clear(report_dir)
    command = pytest_command(request, report_dir, run_id)
    log_path = report_dir / "pytest.log"
    with log_path.open("w", encoding="utf-8") as log:
        done = run_interruptible(command, cwd=_root_of(request), env=_child_env(), stdout=log)
    output = log_path.read_text(encoding="utf-8")
    records = list(read_records(report_dir / OUTCOMES_FILE))
    code, message = exit_code(done.returncode, records, output)
    if code == EXIT_USAGE and not done.interrupted:
        if fresh:
            shutil.rmtree(report_dir, ignore_errors=True)
        raise UsageError(message)
    results = report_dir / "allure-results"
    if results.is_dir():
        stabilise_history(results)
        _write_allure_extras(results, target, request, run_id)
    info = RunInfo(
        suite_version=suite_version(),
        git_hash=git_hash(),
        target=target,
        seed=str(request.seed) if request.seed is not None else None,
        profile=request.profile,
        started=started.isoformat(timespec="seconds"),
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
        certify=request.certify,
        waivers=[waiver.as_dict() for waiver in waivers],
        interrupted=done.interrupted,
    )
    summary = build_summary(records, info, load_catalogue())
    write_summary(report_dir, summary)
    if done.interrupted:
        code = EXIT_INTERRUPTED
        message = interrupted_text(
            target=request.target, base_url=request.base_url, run_id=run_id, ran=len(records)
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
    ):
        (report_dir / name).unlink(missing_ok=True)


def exit_code(returncode: int, records: list[OutcomeRecord], output: str) -> tuple[int, str]:
    """DESIGN.md's exit code from pytest's, the records and (for messages) pytest's output."""
    if returncode == _PYTEST_EXIT_UNREACHABLE:
        return EXIT_UNREACHABLE, _tail(output, 3)
    if returncode == _PYTEST_USAGE:
        return EXIT_USAGE, _tail(output, 5)
    if returncode == _PYTEST_NO_TESTS or (returncode == 0 and not records):
        return EXIT_USAGE, "no test was selected: check --classes and the -- pytest args"
    if any(r.outcome == "failed" for r in records):
        return EXIT_FAILED, ""
    unreachable = [
        r
        for r in records
        if r.outcome == "error" and r.cause.startswith(("target unreachable", "transport error"))
    ]
    if unreachable:
        return EXIT_UNREACHABLE, unreachable[0].cause
    if returncode != 0:
        return EXIT_FAILED, "" if records else _tail(output, 10)
    return EXIT_CONFORMANT, ""


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
    results: Path, target: dict[str, Any], request: RunRequest, run_id: str
) -> None:
    """environment.properties and executor.json, written once by the controlling process."""
    environment = {
        "suite.version": suite_version(),
        "suite.git": git_hash() or "",
        "target.base_url": str(target.get("base_url")),
        "target.adapter_url": str(target.get("adapter_url")),
        "profile": request.profile,
        "seed": str(request.seed) if request.seed is not None else "random",
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


def verdict_text(result: RunResult) -> str:
    """The short verdict printed after a run."""
    summary = result.summary
    tests = summary["tests"]
    counts = ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in sorted(tests.items()))
    headline = {
        EXIT_CONFORMANT: "CONFORMANT",
        EXIT_FAILED: "NOT CONFORMANT",
        EXIT_USAGE: "USAGE ERROR",
        EXIT_UNREACHABLE: "TARGET UNREACHABLE",
        EXIT_INTERRUPTED: "INTERRUPTED",
    }[result.exit_code]
    lines = [f"crm-conformance: {headline} ({sum(tests.values())} tests: {counts or 'none'})"]
    passed = [c for c, e in summary["classes"].items() if e["verdict"] == "passed"]
    lines.append(f"Classes passed in full: {', '.join(passed) or 'none'}")
    failed = [(i, e) for i, e in summary["requirements"].items() if e["verdict"] == "failed"]
    if failed:
        lines.append("Requirements failed:")
        for req_id, entry in failed:
            cause = entry["causes"][0].split(": ", 1)[-1] if entry["causes"] else entry["title"]
            cause = cause.removeprefix(req_id).strip()
            lines.append(f"  {req_id}  {cause.splitlines()[0][:110] if cause else ''}")
    errors = tests.get("error", 0) + tests.get("blocked", 0)
    if errors:
        lines.append(f"Setup or harness errors (not target failures): {errors} tests")
    skipped = tests.get("not_applicable", 0)
    if skipped:
        lines.append(f"Skipped for capability (not applicable): {skipped} tests")
    if result.message:
        lines.append(result.message)
    lines.append(f"Report: {result.report_dir}")
    return "\n".join(lines)
