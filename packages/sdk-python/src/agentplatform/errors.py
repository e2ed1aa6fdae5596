"""The API's errors as typed exceptions (shape A: ``{error, message, details?, retry_after?}``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class FieldIssue:
    field: str
    message: str


@dataclass
class ApiError(Exception):
    """An error answer of the API: its HTTP status, the API's code, message and field details."""

    status: int
    code: str
    message: str
    details: list[FieldIssue] = field(default_factory=list)
    retry_after: int | None = None

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"

    def detail(self, name: str) -> FieldIssue | None:
        return next((d for d in self.details if d.field == name), None)


class ValidationError(ApiError):
    """400 or 422 validation_error: ``details`` names each field."""


class AuthenticationError(ApiError):
    """401 unauthorized."""


class InsufficientCreditsError(ApiError):
    """402 insufficient_credits."""


class PermissionDeniedError(ApiError):
    """403 forbidden or quota_exceeded."""


class NotFoundError(ApiError):
    """404 not_found."""


class ConflictError(ApiError):
    """409 conflict."""


class RateLimitError(ApiError):
    """429 rate_limit_exceeded: ``retry_after`` says when to try again."""


class ServerError(ApiError):
    """5xx: internal_error or service_unavailable."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: ValidationError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: ValidationError,
    429: RateLimitError,
}


def error_from(status: int, content: bytes, headers: httpx.Headers | dict[str, str]) -> ApiError:
    """The typed exception for an error answer."""
    try:
        body: Any = httpx.Response(status, content=content).json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    details = [
        FieldIssue(field=str(d.get("field", "")), message=str(d.get("message", "")))
        for d in body.get("details") or []
        if isinstance(d, dict)
    ]
    retry = body.get("retry_after", headers.get("retry-after"))
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    return kind(
        status=status,
        code=str(body.get("error", "error")),
        message=str(body.get("message", f"HTTP {status}")),
        details=details,
        retry_after=int(retry) if retry is not None else None,
    )
