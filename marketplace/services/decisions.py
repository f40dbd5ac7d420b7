"""The one way to decide something that two requests may decide at the same moment.

A decision (a status change, a claim, a seat taken) is a conditional UPDATE whose WHERE clause states what must
still be true (`id = ? AND status = 'pending'`); the row count says who won. It needs no lock taken beforehand,
so it holds the same way on SQLite (which ignores `SELECT ... FOR UPDATE`, and where pysqlite opens the write
transaction only at the first write) and on PostgreSQL. Whatever the decision causes (notifications, mail in the
outbox, audit entries, file moves) is written after the claim, in the same transaction: the loser, which gets
`Conflict`, has caused nothing. Read what the decision acts on after claiming, not before.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import ColumnElement, update
from sqlalchemy.engine import CursorResult, Result
from sqlmodel import Session, SQLModel

from marketplace.services.errors import Conflict


def claim(session: Session, model: type[SQLModel], *conditions: ColumnElement[bool], values: dict[str, Any],
          conflict: str) -> None:
    """Apply `values` to the one row matching every condition, or raise `Conflict(conflict)` when no row still
    matches (someone else decided first, or there was nothing to decide)."""
    result = cast(CursorResult[Any], session.execute(update(model).where(*conditions).values(**values)))
    if result.rowcount != 1:
        raise Conflict(conflict)


def claim_any(session: Session, model: type[SQLModel], *conditions: ColumnElement[bool],
              values: dict[str, Any]) -> int:
    """As `claim` for a set of rows: the number of rows this request won (0 when others took them all)."""
    return row_count(session.execute(update(model).where(*conditions).values(**values)))


def claim_each(session: Session, model: type[SQLModel], *conditions: ColumnElement[bool], values: dict[str, Any],
               rows: list[dict[str, Any]]) -> None:
    """As `claim_any` once per parameter set in `rows`, in one statement (an executemany): `conditions` and
    `values` name bind parameters that each row fills; a row whose conditions no longer hold changes nothing."""
    if rows:
        session.connection().execute(update(model).where(*conditions).values(**values), rows)


def row_count(result: Result[Any]) -> int:
    """The rows an UPDATE, DELETE or INSERT ... SELECT wrote (SQLAlchemy types every result as a Result)."""
    return cast(CursorResult[Any], result).rowcount or 0
