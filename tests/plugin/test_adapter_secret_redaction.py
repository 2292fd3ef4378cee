"""The adapter's secret is filtered like every token wherever a run or a command builds
its redactor: the run's state (every process), adapter-check's probe and sweep."""

from pathlib import Path

import pytest

from crm_conformance.adapter_check.probe import Probe
from crm_conformance.core.hygiene.redaction import FILTERED
from crm_conformance.core.model.target import target_from_data
from crm_conformance.core.transport.wiring import Wiring
from crm_conformance.plugin.options import Options
from crm_conformance.plugin.state import RunState

SECRET = "adapter-secret-c0ffee42"
TARGET = target_from_data(
    {
        "base_url": "http://127.0.0.1:1",
        "adapter_url": "http://127.0.0.1:2",
        "tokens": {"full": {"value": "sk_test_full.token1"}},
        "adapter_token": {"value": SECRET},
    },
    origin="test",
)


def test_the_run_state_filters_the_adapter_secret(tmp_path: Path) -> None:
    options = Options(target_path=None, base_url=None, classes=None, run_id="r", request_budget=9)
    state = RunState(options, worker="gw0", worker_count=1, pacing_dir=str(tmp_path))
    state.adopt(TARGET)
    assert state.wiring is not None
    assert state.wiring.redactor.text(f"secret={SECRET}") == f"secret={FILTERED}"


def test_adapter_check_filters_the_adapter_secret() -> None:
    probe = Probe(TARGET, prefix="cc-check-x-")
    try:
        assert SECRET in probe.redactor.secrets
        assert probe.adapter.token == SECRET
    finally:
        probe.close()


def test_sweep_sends_the_adapter_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    from crm_conformance.run import sweep

    class Stop(Exception):
        pass

    made: list[tuple[Wiring, str, str | None]] = []

    def recording(wiring: Wiring, base_url: str, token: str | None) -> object:
        made.append((wiring, base_url, token))
        if base_url == TARGET.adapter_url:
            raise Stop
        return object()

    monkeypatch.setattr(sweep, "load_target", lambda **_: TARGET)
    monkeypatch.setattr(sweep, "connect", recording)
    with pytest.raises(Stop):
        sweep.sweep(target_path=Path("t.toml"))
    wiring, _, token = made[-1]
    assert token == SECRET
    redactor = wiring.redactor
    assert SECRET in redactor.secrets
