"""Shared column helpers and the camelCase bases for API schemas."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from marketplace.models.text import has_forbidden

INT64_MAX = 2**63 - 1


def new_id() -> str:
    return uuid.uuid4().hex


def utcnow() -> datetime:
    return datetime.now(UTC)


class ApiModel(BaseModel):
    """Base of every `/api/*` schema: camelCase names on the wire, snake_case in Python."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


# An answer that is one sentence for the user (password reset asked, demo data loaded...): every area's routes use
# this one, so the API document has one `MessageOut`.
class MessageOut(ApiModel):
    message: str


def _refuse_bad_values(value: Any) -> None:
    """Walk a value (strings, numbers, lists, dicts, nested models) for text or numbers no route can take."""
    if isinstance(value, str):
        if has_forbidden(value, multiline=True):
            raise PydanticCustomError("text_not_allowed", "contains characters that are not allowed")
    elif isinstance(value, int) and not isinstance(value, bool):
        if not -INT64_MAX <= value <= INT64_MAX:
            raise PydanticCustomError("number_too_large", "number is out of range")
    elif isinstance(value, BaseModel):
        for item in value.__dict__.values():
            _refuse_bad_values(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_bad_values(key)
            _refuse_bad_values(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _refuse_bad_values(item)


class ApiInput(ApiModel):
    """Base of every request body: any text with a control character (tab, newline and CR aside: the services
    refuse those where a value is one line) or a lone surrogate, and any integer beyond 64 bits, is a 422 naming
    the field. Response schemas stay `ApiModel`: they carry stored data, which must never turn a read into a 500."""

    @field_validator("*", mode="after")
    @classmethod
    def _plain_values(cls, value: Any) -> Any:
        _refuse_bad_values(value)
        return value
