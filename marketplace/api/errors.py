"""The error answer every `/api` route may give, documented once in the OpenAPI (app.py adds it to each router):
`{"message": ..., "field"?: ...}` from the DomainError, validation and HTTP error handlers."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class ErrorOut(BaseModel):
    message: str
    field: str | None = None  # the request field the message is about, when there is one


def _error(description: str, **extra: Any) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description, **extra}


RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before trying again",
                               "schema": {"type": "integer", "minimum": 1}}}


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("The request is well-formed but a value is refused (the message says which)"),
    401: _error("Not signed in"),
    403: _error("Signed in without the needed role or ownership, or a cross-origin write"),
    404: _error("No such record (or not visible to the caller), or demo-only with demo mode off"),
    409: _error("Conflicts with the current state (already done, still in use, ...)"),
    422: _error("A parameter or body field is missing, malformed or out of range"),
    429: _error("Too many requests from this address or for this account; see Retry-After", headers=RETRY_AFTER),
}
