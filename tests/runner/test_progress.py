"""The progress line: one updating line on a terminal, plain lines in a CI log."""

import io

from crm_conformance.core.verdicts.outcomes import Outcome, OutcomeRecord
from crm_conformance.reporting.run_plugin import Progress


class Log(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


class Clock:
    """A clock the test moves by hand: no test here waits or reads the real time."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def finish(progress: Progress, outcomes: list[Outcome], clock: Clock, step: float) -> None:
    for number, outcome in enumerate(outcomes):
        clock.now += step
        progress.count(OutcomeRecord(f"t::{number}", outcome, [], []))
    progress.finish()


def test_off_a_terminal_a_plain_line_at_every_tenth_of_the_run() -> None:
    log, clock = Log(terminal=False), Clock()
    progress = Progress(enabled=True, stream=log, clock=clock)
    progress.total = 40
    finish(progress, [Outcome.PASSED] * 39 + [Outcome.FAILED], clock, step=0.1)
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue()
    assert lines == [f"{n}/40 tests, {0 if n < 40 else 1} failing" for n in range(4, 41, 4)]


def test_off_a_terminal_a_slow_run_still_shows_a_line_every_30_seconds() -> None:
    log, clock = Log(terminal=False), Clock()
    progress = Progress(enabled=True, stream=log, clock=clock)
    progress.total = 1000
    finish(progress, [Outcome.PASSED] * 30, clock, step=11.0)  # 11 s a test, 330 s in all
    shown = [int(line.split("/")[0]) for line in log.getvalue().splitlines()]
    assert shown == [3, 6, 9, 12, 15, 18, 21, 24, 27, 30]


def test_on_a_terminal_one_line_updates_in_place() -> None:
    log, clock = Log(terminal=True), Clock()
    progress = Progress(enabled=True, stream=log, clock=clock)
    progress.total = 3
    finish(progress, [Outcome.PASSED, Outcome.ERROR, Outcome.PASSED], clock, step=1.0)
    text = log.getvalue()
    assert text.count("\r") == 3
    assert text.count("\n") == 1
    assert text.endswith("\r3/3 tests, 1 failing   \n")
