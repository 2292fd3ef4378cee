"""The runner's pytest plugin for Ctrl-C: the first one ends the session between tests.

pytest's own SIGINT handling raises KeyboardInterrupt wherever the main thread is. When
that is inside allure-pytest's old-style hookwrappers, which write each result as the
test finishes, pluggy prints a PluggyTeardownRaisedWarning over the interrupted run's
report and the result being written is lost (seen in CI, once in some hundred runs).

Loaded by `crm-conformance run` with `-p`, as the run's other plugins are, so plain
`pytest` keeps pytest's behaviour. The first SIGINT sets `session.shouldstop`, which
pytest checks after each test and xdist's workers between tests (a worker's reason
reaches the controller, which ends the session too). The session then ends as
interrupted, with every result written. The second SIGINT restores pytest's own
handler and raises at once: a test waiting out a long `Retry-After` can still be cut.
The runner, which passes each Ctrl-C on, tells the user so (a test's output is
captured here, and every worker would say it again).
"""

import signal
import threading
from types import FrameType

import pytest

REASON = "interrupted (Ctrl-C)"


class GracefulStop:
    """The SIGINT handler of one session; `restore` puts the previous one back."""

    def __init__(self, session: pytest.Session) -> None:
        self.session = session
        self.previous = signal.signal(signal.SIGINT, self.stop)

    def stop(self, signum: int, frame: FrameType | None) -> None:
        self.restore()  # the second Ctrl-C is pytest's: KeyboardInterrupt at once
        self.session.shouldstop = REASON

    def restore(self) -> None:
        signal.signal(signal.SIGINT, self.previous)


_STOP = pytest.StashKey[GracefulStop]()


def pytest_sessionstart(session: pytest.Session) -> None:
    if threading.current_thread() is threading.main_thread():  # only it may take signals
        session.stash[_STOP] = GracefulStop(session)


def pytest_sessionfinish(session: pytest.Session) -> None:
    stop = session.stash.get(_STOP, None)
    if stop is not None:
        stop.restore()
