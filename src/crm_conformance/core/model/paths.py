"""Where the spec and the suites live: in a checkout, or inside an installed wheel.

The wheel carries `spec/` and `suites/` under `crm_conformance/_bundled/`; a source
checkout keeps them at the repository root. Everything else asks this module, so
the two layouts never diverge.
"""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[2]  # crm_conformance/, this file in core/model/
_BUNDLED = PACKAGE_DIR / "_bundled"
_CHECKOUT = PACKAGE_DIR.parent.parent


def _root() -> Path:
    if (_BUNDLED / "spec").is_dir():
        return _BUNDLED
    return _CHECKOUT


SPEC_DIR = _root() / "spec"
SUITES_DIR = _root() / "suites"
OPENAPI = SPEC_DIR / "openapi.yaml"
REQUIREMENTS = SPEC_DIR / "requirements.yaml"
ADAPTER_SPEC = SPEC_DIR / "adapter.yaml"


def in_suites(path: Path) -> bool:
    """Whether `path` lies in a `suites` folder: conformance tests, which must name their ids.

    By folder name, not by SUITES_DIR: a vendor's own suites folder beside ours counts too.
    """
    return "suites" in path.parts
