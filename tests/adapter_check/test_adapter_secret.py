"""adapter-check with the adapter's secret: sent when the target names it, a clear line
when the adapter wants one, and a warning for an adapter off loopback that answers
without one. No request leaves loopback: the address check is replaced where needed."""

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from crm_conformance.adapter_check import exposure as adapter_exposure
from crm_conformance.cli import main
from crm_conformance.reference import ServerSettings, running_server
from crm_conformance.reference.server import ServedTarget

SECRET = "adapter-secret-5d1e0b"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def target_file(served: ServedTarget, folder: Path, secret: str | None) -> Path:
    text = served.target_file_text()
    if secret is not None:
        text += f'\n[adapter_token]\nvalue = "{secret}"\n'
    path = folder / "target.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_secret_is_sent_and_never_printed(tmp_path: Path) -> None:
    with running_server(ServerSettings(adapter_token=SECRET)) as served:
        result = invoke("adapter-check", "--target", str(target_file(served, tmp_path, SECRET)))
    assert result.exit_code == 0, result.output
    assert "all 10 listed features ready" in result.output
    assert "warning:" not in result.output
    assert SECRET not in result.output


def test_an_adapter_wanting_a_secret_the_target_lacks_or_gets_wrong_says_so(
    tmp_path: Path,
) -> None:
    with running_server(ServerSettings(adapter_token=SECRET)) as served:
        missing = invoke("adapter-check", "--target", str(target_file(served, tmp_path, None)))
        wrong = invoke(
            "adapter-check", "--target", str(target_file(served, tmp_path, "another-secret"))
        )
    assert missing.exit_code == 1
    assert (
        "broken  health: GET /v1/health answered 401 (unauthorized: This adapter requires its "
        "secret"
    ) in missing.output
    assert "; the adapter requires a secret: set adapter_token in the target file" in (
        missing.output
    )
    assert wrong.exit_code == 1
    assert "; the adapter refuses adapter_token: is it the adapter's secret?" in wrong.output
    assert "another-secret" not in wrong.output


def test_an_open_adapter_off_loopback_is_warned_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_server() as served:
        path = target_file(served, tmp_path, None)
        on_loopback = invoke("adapter-check", "--target", str(path))
        monkeypatch.setattr(adapter_exposure, "is_loopback", lambda host: False)
        off_loopback = invoke("adapter-check", "--target", str(path))
    assert on_loopback.exit_code == 0
    assert "warning:" not in on_loopback.output
    assert off_loopback.exit_code == 0, off_loopback.output
    assert off_loopback.output.splitlines()[1] == (
        f"warning: the adapter at {served.adapter_url} answers without a secret: anyone on "
        "that network can mint tokens; set adapter_token"
    )


def test_off_loopback_a_secret_the_adapter_does_not_check_is_warned_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(adapter_exposure, "is_loopback", lambda host: False)
    with running_server() as served:  # requires no secret, though the target sends one
        unchecked = invoke("adapter-check", "--target", str(target_file(served, tmp_path, SECRET)))
    with running_server(ServerSettings(adapter_token=SECRET)) as served:
        checked = invoke("adapter-check", "--target", str(target_file(served, tmp_path, SECRET)))
    assert unchecked.exit_code == 0, unchecked.output
    assert "answers without its secret (adapter_token is set, yet GET /v1/health" in (
        unchecked.output
    )
    assert checked.exit_code == 0
    assert "warning:" not in checked.output
    assert SECRET not in unchecked.output + checked.output


def test_the_warning_names_the_adapter() -> None:
    assert adapter_exposure.open_adapter_warning(
        "http://10.0.0.5:9100", secret_configured=False
    ) == (
        "the adapter at http://10.0.0.5:9100 answers without a secret: anyone on that "
        "network can mint tokens; set adapter_token"
    )


def test_loopback_is_every_address_of_the_host_being_loopback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert adapter_exposure.on_loopback("http://127.0.0.1:9100")
    assert adapter_exposure.on_loopback("http://[::1]:9100/_adapter")
    assert adapter_exposure.on_loopback("http://localhost:9100")
    assert not adapter_exposure.on_loopback("http://10.0.0.5:9100")
    resolved = {
        "adapter": ["172.18.0.3"],
        "local": ["127.0.0.1", "::1"],
        "mixed": ["127.0.0.1", "10.0.0.5"],
    }

    def fake_getaddrinfo(host: str, *args: object, **kwargs: object) -> list[tuple[object, ...]]:
        if host not in resolved:
            raise socket.gaierror("no such name")
        return [(0, 0, 0, "", (address, 0)) for address in resolved[host]]

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    assert not adapter_exposure.on_loopback("http://adapter:9100")
    assert adapter_exposure.on_loopback("http://local:9100")
    assert not adapter_exposure.on_loopback("http://mixed:9100")
    assert not adapter_exposure.on_loopback("http://unknown:9100")
