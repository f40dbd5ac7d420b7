"""The search box of the admin tables and the vendor's key list: one case-insensitive substring match, the same
rules for every table."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_

from marketplace.services.errors import InvalidParameter

MAX_SEARCH = 200


def pattern(search: str | None) -> str | None:
    """A LIKE pattern for `search` (wildcards in it escaped), or None when there is nothing to match."""
    term = (search or "").strip()
    if len(term) > MAX_SEARCH:
        raise InvalidParameter(f"search must be at most {MAX_SEARCH} characters", field="search")
    if not term:
        return None
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped.lower()}%"


def matches(like: str, *columns: Any) -> Any:
    """Any of `columns` contains the pattern, ignoring case."""
    return or_(*(func.lower(column).like(like, escape="\\") for column in columns))
