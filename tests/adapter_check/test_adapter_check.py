"""`crm-conformance adapter-check` against the reference's adapter, a broken one, a missing
one, and the example sidecar adapter of `examples/adapter/` run with uvicorn."""

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

from crm_conformance.cli import main
from crm_conformance.core.model.paths import SUITES_DIR
from crm_conformance.reference import ServerSettings, running_server
from crm_conformance.reference.server import ServedTarget

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "adapter"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def target_file(served: ServedTarget, folder: Path, **changes: str | None) -> Path:
    """The served target's file, with top-level keys changed (None removes one)."""
    lines = served.target_file_text().splitlines()
    for key, value in changes.items():
        lines = [line for line in lines if not line.startswith(f"{key} =")]
        if value is not None:
            lines.insert(0, f'{key} = "{value}"')
    path = folder / "target.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def leaks(output: str, served: ServedTarget) -> list[str]:
    return [role for role, token in served.tokens.items() if token in output]


def test_every_feature_of_the_reference_adapter_is_ready(tmp_path: Path) -> None:
    with running_server() as served:
        result = invoke("adapter-check", "--target", str(target_file(served, tmp_path)))
    assert result.exit_code == 0, result.output
    for feature in ("fixtures", "tokens", "users", "permissions", "records", "inbound"):
        assert f"ready   {feature}\n" in result.output
    assert "all 10 listed features ready" in result.output
    assert not leaks(result.output, served)


def test_an_adapter_that_ignores_the_workspace_is_broken_with_the_request(tmp_path: Path) -> None:
    """The adapter fault `adapter_ignores_workspace`: records made for secondary land in
    primary. adapter-check kills it with one clear line per broken feature."""
    settings = ServerSettings(adapter_faults=frozenset({"adapter_ignores_workspace"}))
    with running_server(settings) as served:
        result = invoke("adapter-check", "--target", str(target_file(served, tmp_path)))
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    records = next(i for i, line in enumerate(lines) if line.startswith("broken  records: "))
    assert (
        "a contact made for workspace secondary should be visible to tokens.other_workspace, "
        "but GET /v1/contacts/con_"
    ) in lines[records]
    assert lines[records].endswith("with tokens.other_workspace answered 404 (expected 200)")
    curl = lines[records + 1].strip()
    assert curl.startswith("curl '")
    assert '"Authorization: Bearer $TOKEN"' in curl
    assert "listed features broken" in lines[-1]
    assert not leaks(result.output, served)


def test_an_adapter_that_withholds_no_permission_is_broken(tmp_path: Path) -> None:
    """The adapter fault `adapter_permissions_ignored`: the person's OAuth token still
    changes records once `changes` is withheld."""
    settings = ServerSettings(adapter_faults=frozenset({"adapter_permissions_ignored"}))
    with running_server(settings) as served:
        result = invoke("adapter-check", "--target", str(target_file(served, tmp_path)))
    assert result.exit_code == 1, result.output
    assert (
        "broken  permissions: with changes withheld, POST /v1/tags by the person's OAuth "
        "token answered 20"
    ) in result.output
    assert "1 of 10 listed features broken" in result.output


def test_an_adapter_that_revokes_any_id_is_broken(tmp_path: Path) -> None:
    """The adapter fault `adapter_revoke_unknown_ok`: "an id the adapter never issued is a
    404", and adapter-check sends one."""
    settings = ServerSettings(adapter_faults=frozenset({"adapter_revoke_unknown_ok"}))
    with running_server(settings) as served:
        result = invoke("adapter-check", "--target", str(target_file(served, tmp_path)))
    assert result.exit_code == 1, result.output
    assert "broken  tokens: " in result.output
    assert "1 of 10 listed features broken" in result.output
    assert not leaks(result.output, served)


def test_custom_field_samples_the_api_does_not_honour_are_broken(tmp_path: Path) -> None:
    """The adapter fault `adapter_samples_untrue`: a number field's sample says it takes
    text. The suites would fail the target's custom field tests for the fixture's
    mistake, so adapter-check names the sample and the write that disproves it."""
    settings = ServerSettings(adapter_faults=frozenset({"adapter_samples_untrue"}))
    with running_server(settings) as served:
        result = invoke("adapter-check", "--target", str(target_file(served, tmp_path)))
    assert result.exit_code == 1, result.output
    assert "broken  fixtures: the fixtures' sample says the contact custom field " in result.output
    assert "takes 'forty-two' and reads it back, but POST /v1/contacts answered 422" in (
        result.output
    )
    assert "1 of 10 listed features broken" in result.output
    assert not leaks(result.output, served)


def test_a_deletion_feed_the_target_file_cannot_query_is_a_note_not_a_broken_adapter(
    tmp_path: Path,
) -> None:
    with running_server() as served:
        path = target_file(served, tmp_path)
        text = path.read_text(encoding="utf-8")
        assert 'contacts = "contacts"' in text, "the served file names the feed's values"
        path.write_text(text.replace('contacts = "contacts"', 'contacts = "nope"', 1))
        result = invoke("adapter-check", "--target", str(path))
    assert result.exit_code == 0, result.output
    assert (
        "ready   records (the deletion feed not read: GET /v1/deleted-records?entity=nope "
        "answered 400"
    ) in result.output


def test_a_target_without_an_adapter_is_a_usage_error(tmp_path: Path) -> None:
    with running_server() as served:
        result = invoke(
            "adapter-check", "--target", str(target_file(served, tmp_path, adapter_url=None))
        )
    assert result.exit_code == 2
    assert "the target has no adapter_url" in result.output


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_adapter_exits_3(tmp_path: Path) -> None:
    with running_server() as served:
        nowhere = f"http://127.0.0.1:{free_port()}"
        result = invoke(
            "adapter-check", "--target", str(target_file(served, tmp_path, adapter_url=nowhere))
        )
    assert result.exit_code == 3
    assert "unreachable" in result.output


SIDECAR_SECRET = "sidecar-secret-0c4b7e"
"""The example adapter's secret (`CRM_ADAPTER_TOKEN`), which its target file names."""


def sidecar_target(served: ServedTarget, folder: Path, url: str) -> Path:
    """The served target's file pointing at the example adapter, with its secret."""
    path = target_file(served, folder, adapter_url=url)
    with path.open("a", encoding="utf-8") as file:
        file.write(f'\n[adapter_token]\nvalue = "{SIDECAR_SECRET}"\n')
    return path


@pytest.fixture
def sidecar() -> Iterator[tuple[ServedTarget, str]]:
    """The example adapter run with uvicorn beside a served reference whose own adapter
    stands in for the vendor's internal endpoints."""
    with running_server() as served:
        assert served.adapter_url is not None
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "adapter:app", "--port", str(port)],
            cwd=EXAMPLE,
            env={
                **os.environ,
                "CRM_ADMIN_URL": served.adapter_url,
                "CRM_ADAPTER_TOKEN": SIDECAR_SECRET,
            },
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(200):  # bounded: give up after about 20 s of polls
                try:
                    httpx.get(f"{url}/v1/health", timeout=1)
                    break
                except httpx.TransportError:
                    assert process.poll() is None, process.stderr.read() if process.stderr else ""
                    time.sleep(0.1)
            yield served, url
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_the_example_adapter_is_ready_for_what_it_offers(
    sidecar: tuple[ServedTarget, str], tmp_path: Path
) -> None:
    served, url = sidecar
    assert httpx.get(f"{url}/v1/health").status_code == 401, "it requires its secret"
    result = invoke("adapter-check", "--target", str(sidecar_target(served, tmp_path, url)))
    assert result.exit_code == 0, result.output
    assert SIDECAR_SECRET not in result.output
    assert "ready   fixtures (no custom_field_samples: the tests that write custom " in (
        result.output
    )
    for feature in ("tokens", "users", "records", "conversations"):
        assert f"ready   {feature}\n" in result.output
    for feature in ("inbound", "campaigns", "policy", "success_event_types"):
        assert f"--      {feature}: not offered" in result.output
    assert "all 5 listed features ready" in result.output


def test_a_suite_runs_through_the_example_adapter(
    sidecar: tuple[ServedTarget, str], tmp_path: Path
) -> None:
    served, url = sidecar
    target = sidecar_target(served, tmp_path, url)
    suite = str(SUITES_DIR / "test_token_lifecycle.py")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", suite, "--target", str(target), "-q", "-p", "no:xdist"],
        capture_output=True,
        text=True,
        check=False,
        cwd=SUITES_DIR.parent,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout
    assert "skipped" not in done.stdout
