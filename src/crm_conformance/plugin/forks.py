"""`--crm-forks N`: the collected tests run in N forks of the process that collected them.

Why not xdist's workers: each of them starts Python, imports pytest, the plugins and the
harness, and collects the suites again, while the embedded servers boot beside them, and
each reports every test to its controller over execnet. In a quick run against the
embedded reference that was 2.4 s of a 13.7 s `-n 2` run, whose tests alone would take
11.3 s (issue 14). A fork starts with all of that in memory.

How: after collection the process (the parent) writes the index of every test to a
pipe, the weighed tests first (`ordering.weight`: those that wait, then those that
generate cases, heaviest first), the others in collection order, and forks N
children. Each child claims the next index from the pipe when it starts its next test
(a read of 4 bytes from a pipe is atomic), so a child that runs short tests runs more
of them, and runs them with the test it will run next, as pytest's own loop does, so
that fixtures are torn down when their scope ends. Each child sends every report
(`pytest_report_to_serializable`, pickled: JSON would turn a skip's tuple into a list)
on a pipe of its own, with the warnings its tests raised, and the parent passes them to
its own plugins, which alone write: the terminal (its warnings summary too), JUnit, the
outcome stream.
So a child unregisters those, and takes fresh capture files (the parent's are shared).

Each child has a worker name (`gw0`...), which names the records it creates, and its
share of the request budget. With no target, each tests its own embedded server, which
the parent starts as collection begins; a given target's allowances are shared through
a pacing directory, as xdist's workers share them.

Stopping: at the first Ctrl-C (which reaches every process of the group) each child
ends after its running test and the parent ends the session as interrupted; at -x or
--maxfail the parent empties the queue, and each child ends after its running test. A
child that dies without saying it is done fails the test it was running, and any test
no child claimed, with the reason, so the verdict never counts them as passed.
"""

import contextlib
import gc
import os
import pickle
import selectors
import signal
import struct
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any

import pytest

from crm_conformance.core.planning import profiles
from crm_conformance.plugin.ordering import weight
from crm_conformance.plugin.state import fork_count, shared_pacing_dir, state_of, use_pool_token

_INDEX = struct.Struct("!I")
_PIPE_BUF = 512
"""Bytes a pipe writes whole or not at all (POSIX's least PIPE_BUF), a multiple of 4."""


def queue_order(items: list[pytest.Item], profile: profiles.Profile) -> list[int]:
    """Indices of `items` in the order children claim them: the weighed tests first,
    heaviest first, then the others in collection order. A test that sleeps out a
    rate-limit window goes first, so the other children run the fuzz operations, which
    keep a CPU busy, while it sleeps (measured: quick `-n 2` 12.4 s, against 12.7 s with
    the fuzz operations left in collection order, where they ran beside each other)."""
    weights = [weight(item, profile) for item in items]
    weighed = sorted((i for i, w in enumerate(weights) if w), key=lambda i: -weights[i])
    return weighed + [i for i, w in enumerate(weights) if not w]


@dataclass
class _Child:
    """The parent's view of one child: its pipe, and the tests it said it took."""

    name: str
    pid: int
    reader: int
    buffer: bytes = b""
    running: str | None = None
    claimed: list[str] = field(default_factory=list)
    """Tests it claimed and has not finished: the one running and the one after it."""
    done: bool = False


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    count = fork_count(session.config)
    if not count:
        return None
    if session.testsfailed and not session.config.option.continue_on_collection_errors:
        return None  # pytest's own loop stops the session on collection errors
    state = state_of(session.config)
    if state.target is not None:  # one target for every child: its allowances shared
        shared_pacing_dir(state)
    order = queue_order(session.items, profiles.profile(state.options.profile))
    claims, queue = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()  # what the parent holds: no child's collector walks it, or copies it by touching
    children: list[_Child] = []
    try:
        for number in range(count):
            reader, writer = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(reader)
                os.close(queue)
                _child(session, number, count, claims, writer)  # never returns
            os.close(writer)
            children.append(_Child(f"gw{number}", pid, reader))
        _gather(session, children, claims, queue, b"".join(_INDEX.pack(i) for i in order))
    except BaseException:
        for child in children:
            if child.pid > 0:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGKILL)
        raise
    finally:
        os.close(claims)
        for child in children:
            if child.pid > 0:
                os.waitpid(child.pid, 0)
    if session.shouldfail:
        raise session.Failed(session.shouldfail)
    if session.shouldstop:
        raise session.Interrupted(session.shouldstop)
    return True


def _gather(
    session: pytest.Session, children: list[_Child], claims: int, queue: int, indices: bytes
) -> None:
    """Feed the queue and pass each child's messages to this process's plugins until
    every child has ended; then report as errors what no child ran because every one died
    (a stop one child decided stops them all, and what is left is not run)."""
    config = session.config
    by_id = {item.nodeid: item for item in session.items}
    os.set_blocking(queue, False)
    with selectors.DefaultSelector() as selector:
        selector.register(queue, selectors.EVENT_WRITE, None)
        for child in children:
            selector.register(child.reader, selectors.EVENT_READ, child)
        while any(isinstance(key.data, _Child) for key in selector.get_map().values()):
            for key, _ in selector.select():
                if key.data is None:  # the queue has room: write what fits, close when done
                    with contextlib.suppress(BlockingIOError):  # whole indices: PIPE_BUF at most
                        indices = indices[os.write(queue, indices[:_PIPE_BUF]) :]
                    if not indices:
                        selector.unregister(queue)
                        os.close(queue)
                    continue
                child = key.data
                chunk = os.read(child.reader, 65536)
                if not chunk:
                    selector.unregister(child.reader)
                    os.close(child.reader)
                    if not child.done:
                        _died(session, child, by_id)
                    continue
                child.buffer += chunk
                for message in _frames(child):
                    _handle(session, child, message)
            if session.shouldfail or session.shouldstop:
                _drain(claims)
                if queue in selector.get_map():
                    selector.unregister(queue)
                    os.close(queue)
    if session.shouldfail or session.shouldstop:
        return
    left = [session.items[i] for i in _drain(claims)]
    left += [session.items[i] for i in _indices(indices)]
    for item in left:  # every child died: no one claimed these
        _fail(config, item, "not run: every forked worker ended before it")


def _frames(child: _Child) -> list[dict[str, Any]]:
    """The whole messages in `child`'s buffer (each its length, then its pickle)."""
    messages = []
    while len(child.buffer) >= _INDEX.size:
        (size,) = _INDEX.unpack_from(child.buffer)
        if len(child.buffer) < _INDEX.size + size:
            break
        frame = child.buffer[_INDEX.size : _INDEX.size + size]
        child.buffer = child.buffer[_INDEX.size + size :]
        messages.append(pickle.loads(frame))  # our own child's: trusted
    return messages


def _indices(data: bytes) -> list[int]:
    """The test indices `data` holds (4 bytes each, as the queue carries them)."""
    return [index for (index,) in _INDEX.iter_unpack(data)]


def _handle(session: pytest.Session, child: _Child, message: dict[str, Any]) -> None:
    config = session.config
    kind = message["kind"]
    if kind == "claimed":
        child.claimed.append(message["nodeid"])
    elif kind == "logstart":
        location = tuple(message["location"])
        child.running = message["nodeid"]
        config.hook.pytest_runtest_logstart(nodeid=message["nodeid"], location=location)
    elif kind == "report":
        report = config.hook.pytest_report_from_serializable(config=config, data=message["data"])
        report.crm_worker = child.name  # which child ran it (xdist's `node` is its controller)
        config.hook.pytest_runtest_logreport(report=report)
    elif kind == "logfinish":
        location = tuple(message["location"])
        config.hook.pytest_runtest_logfinish(nodeid=message["nodeid"], location=location)
        child.running = None
        with contextlib.suppress(ValueError):
            child.claimed.remove(message["nodeid"])
    elif kind == "warning":
        config.hook.pytest_warning_recorded.call_historic(kwargs=_warning_from(message))
    elif kind == "stopped":
        session.shouldfail = session.shouldfail or message["fail"]
        session.shouldstop = session.shouldstop or message["stop"]
    elif kind == "done":
        child.done = True


def _died(session: pytest.Session, child: _Child, by_id: dict[str, pytest.Item]) -> None:
    """A child ended without saying so: fail the test it was running, and those it had
    claimed to run next."""
    _, status = os.waitpid(child.pid, 0)
    child.pid = -1
    code = os.waitstatus_to_exitcode(status)
    for nodeid in child.claimed:
        item = by_id[nodeid]
        if nodeid == child.running:
            why = f"forked worker {child.name} died (exit {code}) in this test"
        else:
            why = f"not run: forked worker {child.name} died (exit {code}) before it"
        _fail(session.config, item, why)
        session.config.hook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)


def _fail(config: pytest.Config, item: pytest.Item, why: str) -> None:
    """Report `item` as an error of its setup: a worker that died, or ended before the
    test, judged nothing of the target (an error, never a failure charged to a rule)."""
    for when, outcome in (("setup", "failed"), ("teardown", "passed")):
        report = pytest.TestReport(
            item.nodeid,
            item.location,
            dict.fromkeys(item.keywords, 1),
            outcome,  # type: ignore[arg-type]  # a str of the Literal pytest types
            why if outcome == "failed" else None,
            when,  # type: ignore[arg-type]  # as above
            user_properties=list(item.user_properties),
        )
        config.hook.pytest_runtest_logreport(report=report)


def _drain(claims: int) -> list[int]:
    """Take every index left in the queue, so no child claims another test."""
    os.set_blocking(claims, False)
    left: list[int] = []
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(claims, _INDEX.size * 256):
            left += _indices(chunk)
    return left


def _warning_message(
    recorded: warnings.WarningMessage, when: str, nodeid: str, location: Any
) -> dict[str, Any]:
    """A warning a child's test raised, as a message: its text and category (a class
    pickles as its import path; one that cannot be imported again is sent as its name on
    a UserWarning)."""
    category: type[Warning] = recorded.category
    text = str(recorded.message)
    try:
        pickle.dumps(category)
    except (pickle.PicklingError, AttributeError, TypeError):
        text, category = f"{category.__name__}: {text}", UserWarning
    return {
        "kind": "warning",
        "text": text,
        "category": category,
        "filename": recorded.filename,
        "lineno": recorded.lineno,
        "when": when,
        "nodeid": nodeid,
        "location": list(location) if location is not None else None,
    }


def _warning_from(message: dict[str, Any]) -> dict[str, Any]:
    """The arguments of `pytest_warning_recorded` for a child's warning."""
    category, text = message["category"], message["text"]
    try:
        raised = category(text)
    except Exception:  # a category whose constructor wants more than a text
        category, raised = UserWarning, UserWarning(f"{category.__name__}: {text}")
    recorded = warnings.WarningMessage(raised, category, message["filename"], message["lineno"])
    location = message["location"]
    return {
        "warning_message": recorded,
        "when": message["when"],
        "nodeid": message["nodeid"],
        "location": tuple(location) if location is not None else None,
    }


class _Sender:
    """A child's plugin: every report, log mark and warning, as a message to the parent."""

    def __init__(self, config: pytest.Config, writer: int) -> None:
        self.config = config
        self.writer = writer

    def send(self, message: dict[str, Any]) -> None:
        frame = pickle.dumps(message)
        data = memoryview(_INDEX.pack(len(frame)) + frame)
        while data:
            data = data[os.write(self.writer, data) :]

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self.send({"kind": "logstart", "nodeid": nodeid, "location": list(location)})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        self.send({"kind": "report", "data": data})

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self.send({"kind": "logfinish", "nodeid": nodeid, "location": list(location)})

    def pytest_warning_recorded(
        self, warning_message: warnings.WarningMessage, when: str, nodeid: str, location: Any
    ) -> None:
        self.send(_warning_message(warning_message, when, nodeid, location))


_PARENTS_WRITERS = ("terminalreporter", "crm-conformance-outcomes")
"""Plugins that write as reports arrive: the parent's alone. (JUnit writes at the
session's end, which a child never reaches.)"""


def _child(session: pytest.Session, number: int, count: int, claims: int, writer: int) -> None:
    """Run the tests this child claims, then end the process (never returns)."""
    code = 0
    try:
        config = session.config
        manager = config.pluginmanager
        for name in _PARENTS_WRITERS:
            plugin = manager.get_plugin(name)
            if plugin is not None:
                manager.unregister(plugin)
        capture = manager.get_plugin("capturemanager")
        if capture is not None:  # the parent's capture files are shared: take new ones
            capture.stop_global_capturing()
            capture.start_global_capturing()
            capture.suspend_global_capture()
        sender = _Sender(config, writer)
        manager.register(sender, "crm-conformance-fork-sender")
        _become_worker(session, number, count)
        items = session.items

        def claim() -> int | None:
            index = _claim(claims)
            if index is not None:
                sender.send({"kind": "claimed", "nodeid": items[index].nodeid})
            return index

        current = claim()
        while current is not None:
            following = claim()
            item = items[current]
            nextitem = items[following] if following is not None else None
            config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail or session.shouldstop:
                if nextitem is not None:  # what pytest's session end tears down
                    runner = manager.get_plugin("runner")
                    if runner is not None:
                        runner.pytest_sessionfinish(session)
                # Why: a stop this child decided (the target unreachable) stops the run,
                # as in one process, and leaves the rest of the queue not run, not failed.
                sender.send(
                    {"kind": "stopped", "fail": session.shouldfail, "stop": session.shouldstop}
                )
                break
            current = following
        config.hook.pytest_crm_fork_finished(config=config, worker=f"gw{number}")
        sender.send({"kind": "done"})
    except BaseException:  # a crash or a second Ctrl-C: the parent fails its test
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _become_worker(session: pytest.Session, number: int, count: int) -> None:
    """The run state of a child: its name, its budget share, its server or pacing."""
    state = state_of(session.config)
    state.worker = f"gw{number}"
    state.worker_count = count
    state.closers.clear()  # the parent stops the servers and removes the pacing directory
    use_pool_token(session.config, number, count)  # the parent revokes the pool at its end
    if state.target is not None:
        state.adopt(state.target, shared=True)  # the allowances shared with the other children
    elif state.booting_all:
        state.booting = state.booting_all[number]


def _claim(claims: int) -> int | None:
    """The next index of the queue; None once it is empty and closed, or drained (the
    parent's drain makes the pipe non-blocking, for every process)."""
    try:
        data = os.read(claims, _INDEX.size)
    except BlockingIOError:
        return None
    return _INDEX.unpack(data)[0] if len(data) == _INDEX.size else None
