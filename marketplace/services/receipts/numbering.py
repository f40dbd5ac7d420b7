"""Gap-free document numbers: one counter row per sequence, advanced by one conditional UPDATE ... RETURNING in
the transaction that writes the document. The UPDATE holds the row's lock (PostgreSQL) or the database's write
lock (SQLite) until that transaction ends, so concurrent documents take consecutive numbers one after the other,
and a transaction that rolls back gives its number back with everything else: never skipped, never reused."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from marketplace.models import ReceiptCounter


def take_number(session: Session, *, sequence: str) -> int:
    """The next number of `sequence`, taken inside `session`'s transaction (the caller writes its document in
    the same one). The counter row is made on first use (the migration seeds the two sequences)."""
    advance = (update(ReceiptCounter).where(ReceiptCounter.name == sequence)
               .values(last_number=ReceiptCounter.last_number + 1).returning(ReceiptCounter.last_number))
    number = session.execute(advance).scalar_one_or_none()
    if number is not None:
        return int(number)
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    session.execute(dialect.insert(ReceiptCounter).values(name=sequence, last_number=0)
                    .on_conflict_do_nothing(index_elements=["name"]))
    return int(session.execute(advance).scalar_one())
