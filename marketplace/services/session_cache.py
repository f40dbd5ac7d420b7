"""Who a session token belongs to, kept per process and checked against a generation every process shares.

Every websocket handler asks who is signed in (`auth.user_for_token`); the answer changes only when a `users` row
or a session is written. The rule:

- Each answer is kept with the generation read just before the database was asked. A lookup reads the current
  generation (with `REDIS_URL`: one Redis GET, the counter every worker shares; without Redis, one process serves
  the pages and a counter in memory is enough) and reuses the answer only if it still matches.
- Any commit that wrote a `users` row, or changed or deleted a session (an ORM flush, or a bulk UPDATE/DELETE
  such as sign-out's), bumps the generation after the commit and before the service returns: a sign-out, role
  change, approval, ban, deletion, password, 2FA or e-mail change made through any worker is seen by the next
  lookup in every worker. A new session needs no bump (its token was never cached).
- An answer is never kept past the session's expiry, nor longer than `MAX_AGE_SECONDS` (a safety net for a bump
  lost while Redis was unreachable; without an answer from Redis nothing is reused, nor while its counter is
  missing).

The cached `User` is shared by the callers of one process: they read it (services re-read what they change).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from itertools import chain
from typing import Any, cast

import redis
from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction, UOWTransaction

from marketplace.config import settings
from marketplace.models import User, UserSession

log = logging.getLogger(__name__)

GENERATION_KEY = "marketplace:viewer-generation"
MAX_AGE_SECONDS = 60.0
_MAX_ENTRIES = 20_000  # past this, the oldest half is dropped on the next write
_CHANGED = "marketplace.session_cache.changed"
_TABLES = frozenset({User.__tablename__, UserSession.__tablename__})

MISS: Any = object()


class LocalGeneration:
    """The generation of one process (no Redis: Reflex then runs a single worker)."""

    def __init__(self) -> None:
        self._value = 0
        self._lock = threading.Lock()

    def read(self) -> int | None:
        return self._value

    def bump(self) -> None:
        with self._lock:
            self._value += 1


class SharedGeneration:
    """The generation every worker reads: a counter in Redis, one GET per lookup, INCR after a write.

    The counter starts at a random value, and again if it is ever lost (a flushed or restarted Redis): counting
    up from 0 again would repeat generations that answers elsewhere were kept under."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)

    def read(self) -> int | None:
        try:
            # redis-py types the answers of its sync and async clients as one
            value = cast(bytes | None, self.client.get(GENERATION_KEY))
            if value is None:
                self.client.set(GENERATION_KEY, _fresh_start(), nx=True)
        except redis.RedisError:
            log.warning("session cache: Redis did not answer; the user is read from the database", exc_info=True)
            return None
        return int(value) if value is not None else None

    def bump(self) -> None:
        try:
            with self.client.pipeline(transaction=True) as both:
                both.set(GENERATION_KEY, _fresh_start(), nx=True)
                both.incr(GENERATION_KEY)
                both.execute()
        except redis.RedisError:
            log.exception("session cache: the generation could not be bumped; other workers may keep a user's old "
                          "answer for up to %s s", MAX_AGE_SECONDS)


def _fresh_start() -> int:
    return secrets.randbits(62)


@dataclass(frozen=True)
class _Entry:
    generation: int
    kept_until: float  # monotonic
    session_expires: datetime | None
    user: User | None


class SessionCache:
    """One process's answers, valid while the shared generation has not moved."""

    def __init__(self, generation: LocalGeneration | SharedGeneration) -> None:
        self.generation = generation
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def lookup(self, token_hash: str, *, now: datetime) -> tuple[Any, int | None]:
        """(the cached user or None, or `MISS`; the generation read, to pass to `put` after a database read)."""
        current = self.generation.read()
        entry = self._entries.get(token_hash)
        if (entry is None or current is None or entry.generation != current or time.monotonic() >= entry.kept_until
                or (entry.session_expires is not None and entry.session_expires <= now)):
            return MISS, current
        return entry.user, current

    def put(self, token_hash: str, user: User | None, *, session_expires: datetime | None,
            read_at: int | None) -> None:
        if read_at is None:
            return
        with self._lock:
            if len(self._entries) >= _MAX_ENTRIES:
                for key in list(self._entries)[: _MAX_ENTRIES // 2]:
                    del self._entries[key]
            self._entries[token_hash] = _Entry(read_at, time.monotonic() + MAX_AGE_SECONDS, session_expires, user)

    def changed(self) -> None:
        """A user or session write committed: every process's answers are stale."""
        self.generation.bump()
        with self._lock:
            self._entries.clear()


def _default() -> SessionCache:
    return SessionCache(SharedGeneration(settings.redis_url) if settings.redis_url else LocalGeneration())


_cache: list[SessionCache | None] = [None]


def cache() -> SessionCache:
    found = _cache[0]
    if found is None:
        found = _cache[0] = _default()
    return found


def use(replacement: SessionCache | None) -> SessionCache | None:
    """Swap this process's cache (tests: a cache on a test Redis); None goes back to the settings'. Returns the
    previous one."""
    previous, _cache[0] = _cache[0], replacement
    return previous


def clear() -> None:
    """Every answer stale (tests empty the tables by raw SQL, which the commit hook does not see)."""
    cache().changed()


@event.listens_for(Session, "after_flush")
def _note_flushed_rows(session: Session, _flush: UOWTransaction) -> None:
    # A new user or session needs nothing: no cached answer can name it.
    if any(isinstance(row, User | UserSession) for row in chain(session.dirty, session.deleted)):
        session.info[_CHANGED] = True


@event.listens_for(Session, "do_orm_execute")
def _note_bulk_writes(state: ORMExecuteState) -> None:
    if state.is_update or state.is_delete:
        table = getattr(state.statement, "table", None)
        if getattr(table, "name", None) in _TABLES:
            state.session.info[_CHANGED] = True


@event.listens_for(Session, "after_commit")
def _bump_after_commit(session: Session) -> None:
    if session.info.pop(_CHANGED, False):
        cache().changed()


@event.listens_for(Session, "after_soft_rollback")
def _forget_on_rollback(session: Session, _transaction: SessionTransaction) -> None:
    session.info.pop(_CHANGED, None)
