"""The certificate bundle of `run --certify` (DESIGN.md, Certification).

A certificate lets a third party check a vendor's claim: which suite (version, git
hash, digest of spec/ and of the document) said which classes passed against which
target, when, with checksums of every report file so none can be edited afterwards.
It claims only the classes whose every testable requirement passed, and says for every
other class how much was verified and what it lacks.
"""

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

CERTIFICATE_FILE = "certificate.json"


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def digest_tree(root: Path) -> str:
    """One sha256 over every file under `root`: relative path and content, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def write_certificate(
    run_dir: Path,
    summary: dict[str, Any],
    spec_dir: Path,
    *,
    parts: Sequence[dict[str, Any]] = (),
) -> Path:
    """Write certificate.json beside the summary files it vouches for.

    `parts` describe the shard folders a merged run was made of, each with the
    checksums of its own files (`report_merge`).
    """
    document = spec_dir / "api-reference.md"
    files = ["summary.json", "summary.md", "junit.xml", "outcomes.jsonl"]
    certificate = {
        "suite": summary["suite"],
        "spec_sha256": digest_tree(spec_dir) if spec_dir.is_dir() else None,
        "document_sha256": sha256_file(document) if document.is_file() else None,
        "target": summary["target"],
        "headline": summary["headline"],
        "classes_passed": [
            cls for cls, entry in summary["classes"].items() if entry["verdict"] == "passed"
        ],
        "classes_not_passed": {
            cls: {key: entry[key] for key in ("verdict", "verified", "testable", "lacks")}
            for cls, entry in summary["classes"].items()
            if entry["verdict"] != "passed"
        },
        "started": summary["started"],
        "finished": summary["finished"],
        "seed": summary["seed"],
        "seeds": summary["seeds"],
        "profile": summary["profile"],
        "files_sha256": {
            name: sha256_file(run_dir / name) for name in files if (run_dir / name).is_file()
        },
    }
    if parts:
        certificate["parts"] = list(parts)
    path = run_dir / CERTIFICATE_FILE
    path.write_text(json.dumps(certificate, indent=2) + "\n", encoding="utf-8")
    return path
