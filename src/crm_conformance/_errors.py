"""The harness's exception tree, written once.

Every error a user can cause (a broken target file, an unreachable server, a
misbehaving adapter, a broken catalogue, contradictory options) is one of these, so the
command line can turn it into one clear message and an exit code instead of a
traceback, and the plugin can tell a setup problem from a target failure by its class.
`ConformanceFailure` (the target broke the document) is not here: it is an
`AssertionError`, what pytest reports as a failed test.
"""


class ConformanceError(Exception):
    """Base of every error the harness raises on purpose; carries the CLI exit code."""

    exit_code = 2


class UsageError(ConformanceError):
    """Raised when command-line options contradict each other or name a bad value or file."""


class TargetFileError(ConformanceError):
    """Raised when a target file (or --base-url) is missing, malformed or names a bad value."""


class TargetUnreachable(ConformanceError):
    """Raised when the target's base URL cannot be reached or does not answer like the API."""

    exit_code = 3


class ExchangeBoundExceeded(TargetUnreachable):
    """Raised when an answer does not end within the target's `timeout` (the whole
    exchange: connect, send, headers and body) or grows past `max_response_bytes`.

    A target that trickles or never ends its answer would otherwise hang the run for
    ever; this is a transport fault, never a conformance failure (`outcomes.classify`).
    """


class TargetUnavailable(ConformanceError):
    """Raised when transport faults (a dropped connection, a gateway's 502 or 504, a 503)
    outlast the retries, or meet a request not safe to send again (`retries`): the test
    could not run; an error, never a failure of the target."""

    PREFIX = "target unavailable"
    """How the cause of such an error begins (the verdict counts them by it)."""


class AdapterError(ConformanceError):
    """Raised when the provisioning adapter fails or answers outside its contract."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        """The adapter's HTTP status when it answered with an error; None otherwise. A
        4xx is a refusal of what was asked (a test may expect one), not a broken adapter."""


class FeatureMissing(ConformanceError):
    """Raised by `AdapterClient.require` when the adapter does not offer a feature."""


class SetupFailed(ConformanceError):
    """Raised when the target refuses to create data a test needs; the test is blocked."""


class BudgetExhausted(ConformanceError):
    """Raised when a run has sent as many requests as its budget (`--request-budget`) allows."""


class RateLimitWaitError(ConformanceError):
    """Raised when the run cannot wait out the target's rate limit: a wait longer than
    `max_rate_limit_wait`, or 429s that go on after every wait the target asked for."""


class CatalogueError(ConformanceError):
    """Raised when spec/requirements.yaml is unreadable or violates its meta-schema."""


class ReportError(ConformanceError):
    """Raised when the HTML report cannot be built (no run folder, no Node, Allure failed)."""
