"""Headless Chromium for the report tests: one command line, kept off the network.

Both HTML views of a run (the Allure report, `requirements.html`) are checked the way a
reader opens them: rendered from file:// by a real browser, its DOM or a screenshot read
back. The flags keep the browser from fetching anything (no updates, sync or background
requests), so a page that needs the network shows as broken.
"""

import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium")
"""The browser, when installed (`scripts/setup.sh --dev` installs it where it is root)."""
MISSING = "chromium not installed (apt-get install chromium)"
"""The skip reason of a test that needs it."""


def chromium(*args: str, profile: Path, budget_ms: int = 5000) -> str:
    """Run headless Chromium with `args` (`--dump-dom URL`, `--screenshot=FILE URL`) on a
    fresh `profile` directory, letting scripts run `budget_ms` of virtual time; its stdout."""
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            f"--virtual-time-budget={budget_ms}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout
