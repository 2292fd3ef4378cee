"""`badge.json`: the run's verdict as a badge a vendor shows on their own page.

The endpoint format shields-style badges read (`https://img.shields.io/endpoint?url=`
the file's published address): the label, a message saying what the run established,
a colour. Like the headline, it never says more than was verified: red when a
requirement failed, green only when every testable requirement of the claimed classes
was verified, yellow otherwise (nothing failed, not everything verified).
"""

import json
from pathlib import Path
from typing import Any

from crm_conformance.core.verdicts.outcomes import Verdict

BADGE_FILE = "badge.json"
LABEL = "CRM API conformance"


def badge(summary: dict[str, Any]) -> dict[str, Any]:
    """The endpoint document: `{schemaVersion, label, message, color}`."""
    verified, testable = summary["verified"]["requirements"], summary["verified"]["testable"]
    failed = sum(entry["verdict"] == Verdict.FAILED for entry in summary["requirements"].values())
    share = f"{verified}/{testable} verified"
    if failed:
        message, color = f"{failed} failed, {share}", "red"
    elif testable and verified == testable:
        message, color = share, "green"
    else:
        message, color = share, "yellow"
    return {"schemaVersion": 1, "label": LABEL, "message": message, "color": color}


def write_badge(run_dir: Path, summary: dict[str, Any]) -> Path:
    path = run_dir / BADGE_FILE
    path.write_text(json.dumps(badge(summary)) + "\n", encoding="utf-8")
    return path
