"""The harness's exception tree, written once.

Every error a user can cause (a broken target file, an unreachable server, a
misbehaving adapter, a broken catalogue) is one of these, so the command line can
turn it into one clear message and an exit code instead of a traceback.
"""


class ConformanceError(Exception):
    """Base of every error the harness raises on purpose; carries the CLI exit code."""

    exit_code = 2


class TargetFileError(ConformanceError):
    """Raised when a target file (or --base-url) is missing, malformed or names a bad value."""

    exit_code = 2


class TargetUnreachable(ConformanceError):
    """Raised when the target's base URL cannot be reached or does not answer like the API."""

    exit_code = 3


class AdapterError(ConformanceError):
    """Raised when the provisioning adapter fails or answers outside its contract."""

    exit_code = 2


class CatalogueError(ConformanceError):
    """Raised when spec/requirements.yaml is unreadable or violates its meta-schema."""

    exit_code = 2
