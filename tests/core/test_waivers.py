"""Waivers: one reader for the command line and the pytest option, strict and dated."""

from datetime import date
from pathlib import Path

import pytest

from crm_conformance import UsageError
from crm_conformance.core.verdicts.waivers import Waiver, in_force, load_waivers


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_yaml_and_toml_read_the_same_waivers(tmp_path: Path) -> None:
    yaml_file = write(
        tmp_path, "w.yaml", "- {id: PAG-004, reason: known, link: https://x.invalid/1}\n"
    )
    toml_file = write(
        tmp_path,
        "w.toml",
        '[[waiver]]\nid = "PAG-004"\nreason = "known"\nlink = "https://x.invalid/1"\n',
    )
    expected = [Waiver("PAG-004", "known", "https://x.invalid/1")]
    assert load_waivers(yaml_file) == load_waivers(toml_file) == expected
    assert expected[0].describe() == "waived PAG-004: known https://x.invalid/1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id: PAG-004\n", "expected a list of waivers"),
        ("- {id: PAG-004}\n", "waiver 1 needs at least id and reason"),
        ("- {id: PAG-004, reason: r, expires: soon}\n", "waiver 1 expires='soon' is not a date"),
        ("- [unclosed\n", "not valid yaml"),
    ],
)
def test_a_bad_file_is_one_usage_error_naming_the_entry(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        load_waivers(write(tmp_path, "w.yaml", text))


def test_expired_waivers_are_dropped_with_a_warning(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "w.yaml",
        "- {id: PAG-001, reason: old, expires: 2020-01-01}\n"
        "- {id: PAG-002, reason: current, expires: 2999-01-01}\n",
    )
    active, warnings = in_force(load_waivers(path), date(2026, 1, 1))
    assert list(active) == ["PAG-002"]
    assert warnings == ["waiver for PAG-001 expired on 2020-01-01; ignored"]
