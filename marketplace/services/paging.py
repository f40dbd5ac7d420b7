"""Bounds of a page request, the same for every paged list (422 naming the parameter, never a 500)."""

from __future__ import annotations

from marketplace.services.errors import InvalidParameter

MAX_LIMIT = 100
MAX_OFFSET = 1_000_000


def check_page(*, limit: int, offset: int = 0, max_limit: int = MAX_LIMIT, max_offset: int = MAX_OFFSET) -> None:
    if not 1 <= limit <= max_limit:
        raise InvalidParameter(f"limit must be between 1 and {max_limit}", field="limit")
    if not 0 <= offset <= max_offset:
        raise InvalidParameter(f"offset must be between 0 and {max_offset}", field="offset")
