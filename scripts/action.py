"""The steps of the GitHub Action (`action.yml` at the repository root), kept here so a
test can run them: `install` puts the suite in a virtual environment, `run` runs it
against the target and names the report folder for the upload step.

    python scripts/action.py install   # ACTION_PATH: the action's checkout
    python scripts/action.py run       # INPUT_TARGET, INPUT_CLASSES, INPUT_PROFILE,
                                       # INPUT_SHARD, INPUT_WORKERS (empty: not given)

Both read RUNNER_TEMP for the environment's place (CRM_ACTION_VENV overrides it) and
write their outputs to GITHUB_OUTPUT as the Actions runner expects; `run` appends the
verdict to GITHUB_STEP_SUMMARY, the job's page (`crm_conformance.reporting.step_summary`,
built from the run's summary.json). `run` exits with
the run's own exit code (README's exit-code table), so the job's verdict is the suite's.
The inputs go to `crm-conformance run` as given: it validates
them (a bad one is its exit 2 with one line naming it), so nothing is checked twice.
"""

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

EXIT_USAGE = 2
"""The suite's exit code for a usage error, used for a wrong step name too."""


@dataclass(frozen=True)
class Inputs:
    """The action's inputs; an empty one is not given (the suite's default applies)."""

    target: str = ""
    classes: str = ""
    profile: str = ""
    shard: str = ""
    seed: str = ""
    workers: str = ""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> "Inputs":
        """The inputs the runner passed as INPUT_<NAME> variables (absent: the default).

        A shard without a seed takes the workflow run's id: every job of the matrix sees
        the same one, and the shards of one run must draw the same generated cases.
        """
        given = {
            name: environ[f"INPUT_{name.upper()}"].strip()
            for name in ("target", "classes", "profile", "shard", "seed", "workers")
            if f"INPUT_{name.upper()}" in environ
        }
        if given.get("shard") and not given.get("seed"):
            given["seed"] = environ.get("GITHUB_RUN_ID", "")
        return cls(**given)

    @property
    def artifact_name(self) -> str:
        """The report's artifact name, unique per shard (a matrix uploads one per job)."""
        name = "crm-conformance-report"
        return f"{name}-shard-{self.shard.replace('/', '-of-')}" if self.shard else name


def venv_of(environ: Mapping[str, str]) -> Path:
    """Where the suite is installed: CRM_ACTION_VENV, else under the runner's temp folder."""
    if environ.get("CRM_ACTION_VENV"):
        return Path(environ["CRM_ACTION_VENV"])
    return Path(environ.get("RUNNER_TEMP") or "/tmp") / "crm-conformance-venv"


def install_commands(action_path: Path, venv: Path) -> list[list[str]]:
    """The commands that install the suite from the action's checkout into `venv`."""
    pip = [
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
    ]
    return [[sys.executable, "-m", "venv", str(venv)], [*pip, str(action_path)]]


def run_command(inputs: Inputs, venv: Path, report_dir: Path) -> list[str]:
    """`crm-conformance run` for `inputs`: only what was given, the shard passed through."""
    command = [str(venv / "bin" / "crm-conformance"), "run"]
    given = (
        ("--target", inputs.target),
        ("--classes", inputs.classes),
        ("--profile", inputs.profile),
        ("-n", inputs.workers),
        ("--shard", inputs.shard),
        ("--seed", inputs.seed),
    )
    command += [word for option, value in given if value for word in (option, value)]
    return [*command, "--report-dir", str(report_dir)]


def write_outputs(environ: Mapping[str, str], outputs: Mapping[str, str]) -> None:
    """Append `name=value` lines to GITHUB_OUTPUT (printed when not on a runner)."""
    lines = "".join(f"{name}={value}\n" for name, value in outputs.items())
    path = environ.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as sink:
            sink.write(lines)
    else:
        sys.stdout.write(lines)


def step_summary_command(venv: Path, report_dir: Path, exit_code: int, artifact: str) -> list[str]:
    """The command that prints the run's job summary (Markdown), in the suite's venv."""
    return [
        str(venv / "bin" / "python"),
        "-m",
        "crm_conformance.reporting.step_summary",
        str(report_dir),
        "--exit-code",
        str(exit_code),
        "--artifact",
        artifact,
    ]


def write_step_summary(
    environ: Mapping[str, str], inputs: Inputs, report_dir: Path, exit_code: int
) -> None:
    """Append the run's verdict to GITHUB_STEP_SUMMARY (nothing when not on a runner).

    A summary that cannot be made is said on stderr and leaves the job's verdict alone:
    the exit code is the run's.
    """
    path = environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    command = step_summary_command(venv_of(environ), report_dir, exit_code, inputs.artifact_name)
    done = subprocess.run(command, env=dict(environ), capture_output=True, text=True, check=False)
    if done.returncode:
        sys.stderr.write(f"no job summary: {done.stderr.strip()[-500:]}\n")
        return
    with open(path, "a", encoding="utf-8") as sink:
        sink.write(done.stdout)


def install(environ: Mapping[str, str]) -> int:
    action_path = Path(environ.get("ACTION_PATH") or Path(__file__).resolve().parent.parent)
    for command in install_commands(action_path, venv_of(environ)):
        done = subprocess.run(command, check=False)
        if done.returncode:
            return done.returncode
    return 0


def run(environ: Mapping[str, str]) -> int:
    inputs = Inputs.from_environment(environ)
    workspace = Path(environ.get("GITHUB_WORKSPACE") or ".")
    report_dir = (workspace / "crm-conformance-report").resolve()
    write_outputs(environ, {"report-dir": str(report_dir), "artifact-name": inputs.artifact_name})
    done = subprocess.run(run_command(inputs, venv_of(environ), report_dir), check=False)
    write_outputs(environ, {"exit-code": str(done.returncode)})
    write_step_summary(environ, inputs, report_dir, done.returncode)
    return done.returncode


def main(argv: list[str]) -> int:
    steps = {"install": install, "run": run}
    if len(argv) != 1 or argv[0] not in steps:
        sys.stderr.write(f"usage: action.py {{{'|'.join(steps)}}}\n")
        return EXIT_USAGE
    return steps[argv[0]](os.environ)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
