"""Where the seconds of a conformance run go: a pytest plugin for `bench.py`, never shipped.

Loaded with `-p run_breakdown` (benchmarks/ on PYTHONPATH) in every pytest process of a
run (the one that collects and each forked worker of `-n N`, or an xdist controller and
its workers); each one writes one JSON file into the folder named by
CRM_BENCH_BREAKDOWN_DIR when it ends: when it was imported, configured,
collected and finished (epoch seconds, comparable across processes), the setup, call
and teardown time of its tests by module, and the time spent in what a run waits on:
HTTP round trips (count and seconds, by phase), sleeps, the embedded server's start and
the fuzz layer's schema loads. It measures, and changes nothing a test sees.
"""

import json
import os
import resource
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

IMPORTED = time.time()
FIGURES: dict[str, Any] = {
    "imported": IMPORTED,
    "tests": defaultdict(lambda: {"setup": 0.0, "call": 0.0, "teardown": 0.0, "count": 0}),
    "http": defaultdict(lambda: {"requests": 0, "seconds": 0.0}),
    "sleep": 0.0,
    "server_start": 0.0,
    "schema_loads": {"count": 0, "seconds": 0.0},
}
_phase = ["outside tests"]


def _timed(function: Callable[..., Any], add: Callable[[float], None]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            add(time.perf_counter() - started)

    return timed


def _add(key: str) -> Callable[[float], None]:
    def add(seconds: float) -> None:
        FIGURES[key] += seconds

    return add


def _add_http(seconds: float) -> None:
    spent = FIGURES["http"][_phase[0]]
    spent["requests"] += 1
    spent["seconds"] += seconds


def _add_schema_load(seconds: float) -> None:
    FIGURES["schema_loads"]["count"] += 1
    FIGURES["schema_loads"]["seconds"] += seconds


def _add_sleep(seconds: float) -> None:
    if threading.current_thread() is threading.main_thread():  # not xdist's I/O threads
        FIGURES["sleep"] += seconds


# Patched at import, before the harness imports its client (which binds time.sleep).
time.sleep = _timed(time.sleep, _add_sleep)


def pytest_configure(config: pytest.Config) -> None:
    import httpx

    from crm_conformance.fuzz import layer as fuzz
    from crm_conformance.plugin import embedded

    httpx.Client.send = _timed(httpx.Client.send, _add_http)  # type: ignore[method-assign]
    embedded.EmbeddedServer.target = _timed(  # type: ignore[method-assign]
        embedded.EmbeddedServer.target, _add("server_start")
    )
    fuzz.load = _timed(fuzz.load, _add_schema_load)
    workerinput = getattr(config, "workerinput", None)
    FIGURES["process"] = workerinput["workerid"] if workerinput else "main"
    FIGURES["configured"] = time.time()


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    FIGURES["collection_start"] = time.time()


def pytest_collection_finish(session: pytest.Session) -> None:
    FIGURES["collection_end"] = time.time()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    FIGURES.setdefault("first_test", time.time())
    yield
    FIGURES["last_test"] = time.time()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    _phase[0] = "setup"
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    _phase[0] = "call"
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    _phase[0] = "teardown"
    yield
    _phase[0] = "outside tests"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if hasattr(report, "node") or hasattr(report, "crm_worker"):  # a worker's, passed on
        return
    module = FIGURES["tests"][report.nodeid.split("::")[0]]
    module[report.when] += report.duration
    module["count"] += report.when == "call"


def pytest_sessionfinish(session: pytest.Session) -> None:
    FIGURES["session_finish"] = time.time()


@pytest.hookimpl(optionalhook=True)
def pytest_crm_fork_finished(config: pytest.Config, worker: str) -> None:
    """A child of `-n N` (`plugin.forks`) ends without unconfigure: its figures now.
    Its start and collection were its parent's (a fork starts at its first test)."""
    FIGURES["process"] = worker
    FIGURES["imported"] = FIGURES["configured"] = FIGURES.get("first_test", time.time())
    FIGURES.pop("collection_start", None)
    FIGURES.pop("collection_end", None)
    FIGURES["session_finish"] = time.time()
    _write_figures()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """After the harness's own unconfigure (which stops the embedded server)."""
    _write_figures()


def _write_figures() -> None:
    folder = os.environ.get("CRM_BENCH_BREAKDOWN_DIR")
    if not folder:
        return
    FIGURES["unconfigured"] = time.time()
    FIGURES["cpu"] = time.process_time()
    FIGURES["children_cpu"] = sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])
    path = Path(folder) / f"{FIGURES['process']}-{os.getpid()}.json"
    path.write_text(json.dumps(FIGURES), encoding="utf-8")
