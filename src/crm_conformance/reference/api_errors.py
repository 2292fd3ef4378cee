"""API errors: the `{error: {...}}` envelope every non-2xx answer carries.

Handlers raise `ApiError`; the routing layer and the middleware turn it into the
envelope with the request's id. The envelope and its status → type table are the
adapter kit's (`error_envelope`), so the public API and the adapter answer errors alike.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from crm_conformance.adapter_kit import Problem, Refusal, error_envelope


class ApiError(Refusal):
    """An answer other than 2xx: raised anywhere below a route, rendered as the envelope.

    The kit's `Refusal` with what the public API adds: headers of its own (a 429's
    `Retry-After`) and, for a fault, another `type` than the status gives. So a handler's
    error raised inside an adapter operation is the adapter's refusal as it stands."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        param: str | None = None,
        detail: Sequence[Problem] | None = None,
        headers: Mapping[str, str] | None = None,
        error_type: str | None = None,
    ) -> None:
        super().__init__(status, code, message, param=param, detail=detail)
        self.headers = dict(headers or {})
        self.error_type = error_type
        """A type other than the status's (a fault's: the kit types by status)."""

    def body(self, request_id: str | None) -> dict[str, Any]:
        """The envelope, with `request_id` equal to the X-Request-ID header."""
        body = error_envelope(
            self.status,
            self.code,
            self.message,
            param=self.param,
            detail=self.detail,
            request_id=request_id,
        )
        if self.error_type is not None:
            body["error"]["type"] = self.error_type
        return body


def validation_failed(problems: Sequence[Problem], *, status: int = 422) -> ApiError:
    """422 for body problems, 400 for query, path and header problems (same code)."""
    return ApiError.invalid(problems, status=status)


def bad_query(field: str, message: str, code: str | None = "invalid") -> ApiError:
    """400 validation_failed for one query, path or header parameter."""
    return validation_failed([Problem(field, message, code)], status=400)


def not_found(kind: str, code: str = "not_found") -> ApiError:
    """404: the same answer for a missing record and one of another workspace."""
    return ApiError.not_found(kind, code=code)
