"""Domain errors, mapped to HTTP statuses by the API and to toasts by the states."""

from __future__ import annotations


class DomainError(Exception):
    """`code`: a stable name for the failure, for answers that carry no text (the provider sign-in's redirect
    to /login carries a code, never words of its own)."""

    status = 400

    def __init__(self, message: str, *, field: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code


class Invalid(DomainError):
    status = 400


class Unauthorized(DomainError):
    status = 401


class Forbidden(DomainError):
    status = 403


class NotFound(DomainError):
    status = 404


class Conflict(DomainError):
    status = 409


class TooManyRequests(DomainError):
    status = 429

    def __init__(self, message: str, *, field: str | None = None, retry_after: int | None = None) -> None:
        super().__init__(message, field=field)
        self.retry_after = retry_after  # seconds, sent as Retry-After


class InvalidParameter(Invalid):
    """A named request parameter has a bad value (422, so clients can tell it from other 400s)."""

    status = 422


class BadGateway(DomainError):
    """A provider the app calls (Stripe) failed or could not be reached; trying again may work."""

    status = 502


class ServiceUnavailable(DomainError):
    """A feature this installation has not configured (payments without Stripe keys)."""

    status = 503
