"""The library behind `crm-conformance run`: one conformance run in a pytest subprocess.

pytest runs in a child process so a crash (or a hung worker killed by the user) is
contained and still leaves a verdict. The child writes one stream of outcome records
(`outcomes.jsonl`, by the harness plugin's `plugin.stream`); afterwards this module
builds the summaries (and the certificate) from that stream alone. What was asked is
`run.request`; the exit code and the printed verdict are `run.verdict`.
"""

import json
import os
import secrets
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from crm_conformance._errors import UsageError
from crm_conformance.core.model import paths
from crm_conformance.core.model.catalogue import Catalogue, load_catalogue
from crm_conformance.core.planning.partition import SHARD_FILE
from crm_conformance.core.verdicts.outcomes import (
    OUTCOMES_FILE,
    Outcome,
    read_records,
)
from crm_conformance.core.verdicts.waivers import Waiver, load_waivers
from crm_conformance.reporting.certificate import write_certificate
from crm_conformance.reporting.replay import replay_command
from crm_conformance.reporting.summary import (
    RunInfo,
    build_summary,
    write_summary,
)
from crm_conformance.reporting.views import VIEW_FILES, write_views
from crm_conformance.run import smoke
from crm_conformance.run.interruptible import EXIT_INTERRUPTED, interrupted_text, run_interruptible
from crm_conformance.run.request import (
    RunRequest,
    check_pool,
    default_report_dir,
    public_target,
    validate,
)
from crm_conformance.run.verdict import (
    EXIT_USAGE,
    PYTEST_NO_TESTS,
    RunResult,
    exit_code,
    tail,
)

_RERUN = (Outcome.FAILED, Outcome.ERROR, Outcome.BLOCKED, Outcome.SUITE_ERROR)


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
        if done.returncode not in (0, PYTEST_NO_TESTS) or not scratch.is_file():
            raise UsageError("collecting the suites failed:\n" + tail(done.stdout or "", 20))
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
