"""Mutation testing of the harness's checks module: reported, never gated.

Every universal rule a vendor is judged by lives in `src/crm_conformance/core/verdicts/checks/`; a
mutant of it that the harness's own fast tests (`TESTS`) do not notice is a rule that
could break silently. This script measures that and prints the figures and each
surviving mutant. It exits 0 whatever the score and non-zero only when the tool itself
could not run (the unmutated tests fail, a mutant could not be applied or run).

    .venv/bin/python scripts/mutation.py [--workers 2] [--timeout 30] [--rev HEAD]
    tox -e mutation

Why cosmic-ray and not mutmut 3: mutmut 3 leaves decorated functions alone, and every
check is registered by the `@check(...)` decorator, so it would mutate only the
helpers. Why this driver and not `cosmic-ray exec`: cosmic-ray mutates the file in
place, which must never happen in a checkout others are running tests in, and its
parallel (`http`) distributor serves a run-any-command endpoint on every interface.
So cosmic-ray enumerates the mutants (`cosmic-ray init`) and applies each one
(`mutate_and_test`), in copies of `src/` and `tests/` under `.mutation/`, one copy
per worker process; the copy's `src` comes first on `PYTHONPATH`, ahead of the
editable install. Pytest plugin autoloading is off in the mutant runs: the checks'
tests need none of them, and loading schemathesis would cost seconds per mutant.

The session database stays in `.mutation/session.sqlite` (`cr-report`, `cr-html`).
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from cosmic_ray.mutating import mutate_and_test
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem, WorkResult

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / ".mutation"
MODULE = "src/crm_conformance/core/checks"
TESTS = (
    "tests/core/test_checks.py",
    "tests/core/test_answers.py",
    "tests/steps/test_expect.py",
)
TEST_COMMAND = shlex.join([sys.executable, "-m", "pytest", "-x", "-q", *TESTS])


def _environment(copy: Path) -> dict[str, str]:
    """The environment under which the tests import the code in `copy`."""
    return {**os.environ, "PYTHONPATH": str(copy / "src"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _run_one(item: WorkItem, timeout: float) -> tuple[str, WorkResult]:
    """Mutate and test in this worker process's own copy of the tree."""
    copy = SCRATCH / f"worker-{os.getpid()}"
    if not copy.exists():
        shutil.copytree(SCRATCH / "tree", copy)
    os.chdir(copy)  # cosmic-ray mutates the relative MODULE and runs the tests in the cwd
    os.environ.update(_environment(copy))
    return item.job_id, mutate_and_test(item.mutations, TEST_COMMAND, timeout)


def _snapshot(tree: Path, rev: str | None) -> None:
    """Copy `src/`, `tests/` and `pyproject.toml` of the working tree, or of commit `rev`."""
    parts = ("src", "tests", "pyproject.toml")
    if rev:
        archive = SCRATCH / "tree.tar"
        subprocess.run(["git", "archive", "-o", archive, rev, *parts], cwd=ROOT, check=True)
        shutil.unpack_archive(archive, tree)
        return
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in parts[:2]:
        shutil.copytree(ROOT / part, tree / part, ignore=ignore)
    shutil.copy2(ROOT / parts[2], tree / parts[2])


def _prepare(timeout: float, rev: str | None) -> float:
    """Snapshot the tree, write the config, check the unmutated tests pass; their time."""
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir()
    tree = SCRATCH / "tree"
    _snapshot(tree, rev)
    (SCRATCH / "config.toml").write_text(
        "[cosmic-ray]\n"
        f'module-path = "{MODULE}"\n'
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(TEST_COMMAND)}\n"
        '[cosmic-ray.distributor]\nname = "local"\n'
    )
    env = _environment(tree)
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import crm_conformance.core.verdicts.checks as c; print(c.__file__)",
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not where.startswith(str(tree)):
        sys.exit(f"the tests would import the checks from {where!r}, not the copy {tree}")
    started = time.monotonic()
    baseline = subprocess.run(
        shlex.split(TEST_COMMAND), cwd=tree, env=env, capture_output=True, text=True
    )
    if baseline.returncode != 0:
        sys.exit(f"the unmutated tests fail:\n{baseline.stdout[-3000:]}{baseline.stderr[-2000:]}")
    elapsed = time.monotonic() - started
    cosmic_ray = Path(sys.executable).parent / "cosmic-ray"
    init = [str(cosmic_ray), "init", str(SCRATCH / "config.toml"), str(SCRATCH / "session.sqlite")]
    subprocess.run(init, cwd=tree, check=True)
    return elapsed


def _changed_lines(diff: str) -> str:
    """The removed and added lines of a unified diff, on one line."""
    lines = diff.splitlines()
    changed = [
        line.strip() for line in lines if line[:1] in "-+" and not line.startswith(("---", "+++"))
    ]
    return "  ".join(changed)


def _position(item: WorkItem) -> tuple[tuple[int, int], str, int]:
    mutation = item.mutations[0]
    return mutation.start_pos, mutation.operator_name, mutation.occurrence


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="parallel test processes")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per mutant's tests")
    parser.add_argument("--rev", help="test this commit (e.g. HEAD), not the working tree")
    args = parser.parse_args()
    started = time.monotonic()
    baseline = _prepare(args.timeout, args.rev)
    with use_db(str(SCRATCH / "session.sqlite"), WorkDB.Mode.open) as db:
        pending = db.pending_work_items
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            results = pool.map(_run_one, pending, [args.timeout] * len(pending))
            for count, (job_id, result) in enumerate(results, 1):
                db.set_result(job_id, result)
                if count % 50 == 0:
                    print(f"{count}/{len(pending)} mutants run", file=sys.stderr)
        done = db.completed_work_items
    for copy in SCRATCH.glob("worker-*"):
        shutil.rmtree(copy)
    shutil.rmtree(SCRATCH / "tree")
    wall = time.monotonic() - started

    survived, broken = [], []
    killed = timeouts = incompetent = 0
    for item, result in done:
        if result.worker_outcome != WorkerOutcome.NORMAL:
            broken.append((item, result))
        elif result.test_outcome == TestOutcome.SURVIVED:
            survived.append((item, result))
        elif result.test_outcome == TestOutcome.KILLED:
            killed += 1
            timeouts += result.output == "timeout"
        else:
            incompetent += 1
    tested = killed + len(survived)
    score = 100 * killed / tested if tested else 0.0
    source = f"commit {args.rev}" if args.rev else "the working tree"
    print(f"\nMutation testing of {MODULE} in {source} (cosmic-ray, {args.workers} workers)")
    print(f"tests: {' '.join(TESTS)} (unmutated: {baseline:.1f} s)")
    print(f"mutants {len(pending)}: killed {killed} (of which timeouts {timeouts}),")
    print(f"  survived {len(survived)}, incompetent {incompetent}, not run {len(broken)}")
    print(f"score {score:.1f} % (killed / (killed + survived)); wall time {wall:.0f} s")
    if survived:
        print("\nsurviving mutants:")
    for item, result in sorted(survived, key=lambda pair: _position(pair[0])):
        mutation = item.mutations[0]
        where = f"{Path(MODULE).name}:{mutation.start_pos[0]}"
        print(f"  {where} {mutation.definition_name or '(module)'} {mutation.operator_name}")
        print(f"      {_changed_lines(result.diff or '')}")
    for item, result in broken:
        print(f"not run: {item.mutations[0]}: {result.worker_outcome}\n{result.output}")
    return 1 if broken or len(done) != len(pending) else 0


if __name__ == "__main__":
    sys.exit(main())
