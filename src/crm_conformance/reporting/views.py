"""The views of a run's verdict written beside `summary.md`: `requirements.html` (the
document coloured by verdict) and `badge.json`.

One entry for every writer of a report folder (a run, merged shards, `report` over an
existing folder), so none of them forgets one view.
"""

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from crm_conformance.core.model.catalogue import Catalogue, load_catalogue
from crm_conformance.core.verdicts.outcomes import OutcomeRecord
from crm_conformance.reporting.badge import BADGE_FILE, write_badge
from crm_conformance.reporting.requirements_page import PAGE_FILE, write_requirements_page

VIEW_FILES = (PAGE_FILE, BADGE_FILE)
"""What `write_views` writes in a report folder (an earlier run's are removed first)."""


def write_views(
    run_dir: Path,
    summary: dict[str, Any],
    records: Iterable[OutcomeRecord],
    catalogue: Catalogue | None = None,
) -> Path:
    """Write both views; the page's path, which the terminal's verdict names."""
    write_badge(run_dir, summary)
    return write_requirements_page(run_dir, summary, records, catalogue or load_catalogue())


def rewrite_views(run_dir: Path) -> Path:
    """Both views again from a report folder's `summary.json` and `outcomes.jsonl`
    (`crm-conformance report RUN_DIR`): a folder from before the views gains them."""
    import json

    from crm_conformance.core.verdicts.outcomes import OUTCOMES_FILE, read_records

    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    return write_views(run_dir, summary, read_records(run_dir / OUTCOMES_FILE))
