"""Who a session token belongs to, kept for a moment: every websocket handler asks who is signed in.

The rule: an answer is reused for at most `TTL_SECONDS` (2 s), and never past the session's own expiry. Any
commit in this process that wrote a `users` or `user_sessions` row (an ORM flush, or a bulk UPDATE/DELETE such
as sign-out's) empties the cache, so a sign-out, a role change, a deletion or a profile edit made through this
process counts at once; one made through another worker process counts within the 2 s. An answer read while
such a commit happened is not kept (the generation moved on).
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from itertools import chain
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction, UOWTransaction

from marketplace.models import User, UserSession
from marketplace.models.base import utcnow

TTL_SECONDS = 2.0
_MAX_ENTRIES = 20_000  # past this, expired entries are swept on the next write
_CHANGED = "marketplace.session_cache.changed"
_TABLES = frozenset({User.__tablename__, UserSession.__tablename__})

MISS: Any = object()

_lock = threading.Lock()
_entries: dict[str, tuple[float, datetime | None, User | None]] = {}
_generation = 0


def generation() -> int:
    """Read before the database: `put` keeps an answer only if no user or session write committed since."""
    return _generation


def get(token_hash: str) -> User | None:
    """The cached user (or None: no valid session) for a token hash, or `MISS`."""
    entry = _entries.get(token_hash)
    if entry is None:
        return MISS
    kept_until, session_expires, user = entry
    if time.monotonic() >= kept_until or (session_expires is not None and session_expires <= utcnow()):
        return MISS
    return user


def put(token_hash: str, user: User | None, *, session_expires: datetime | None, read_at: int) -> None:
    with _lock:
        if read_at != _generation:
            return
        if len(_entries) >= _MAX_ENTRIES:
            now = time.monotonic()
            for key in [k for k, (until, _, _) in _entries.items() if until <= now]:
                del _entries[key]
        _entries[token_hash] = (time.monotonic() + TTL_SECONDS, session_expires, user)


def clear() -> None:
    global _generation
    with _lock:
        _generation += 1
        _entries.clear()


@event.listens_for(Session, "after_flush")
def _note_flushed_rows(session: Session, _flush: UOWTransaction) -> None:
    if any(isinstance(row, User | UserSession) for row in chain(session.new, session.dirty, session.deleted)):
        session.info[_CHANGED] = True


@event.listens_for(Session, "do_orm_execute")
def _note_bulk_writes(state: ORMExecuteState) -> None:
    if state.is_update or state.is_delete:
        table = getattr(state.statement, "table", None)
        if getattr(table, "name", None) in _TABLES:
            state.session.info[_CHANGED] = True


@event.listens_for(Session, "after_commit")
def _clear_after_commit(session: Session) -> None:
    if session.info.pop(_CHANGED, False):
        clear()


@event.listens_for(Session, "after_soft_rollback")
def _forget_on_rollback(session: Session, _transaction: SessionTransaction) -> None:
    session.info.pop(_CHANGED, None)
