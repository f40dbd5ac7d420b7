"""Agent page views: at most one per visitor per agent per UTC day, counted in `agents.view_count`.

A view is best effort: it is written off the page's path (`record_view_soon` hands it to a small worker
thread), it never raises into the page, and when the database is slow the backlog is capped and extra views
are dropped rather than queued without bound. The visitor is the user id when signed in, else a keyed hash
(HMAC-SHA256 with the app's secret key) of the browser's Reflex client token, so no address or raw token is
stored. Writing `view_count` does not touch the catalogue's listing caches (their triggers watch other
columns, revision 0010).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, date, datetime

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import Agent, AgentView

log = logging.getLogger(__name__)
MAX_BACKLOG = 1000
_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-views")
_backlog = threading.BoundedSemaphore(MAX_BACKLOG)


def visitor_key(*, user_id: str | None, client_token: str | None) -> str | None:
    """Who is viewing: the user id, else the keyed hash of the client token, else None (nothing to count)."""
    if user_id:
        return user_id
    if not client_token:
        return None
    return hmac.new(settings.secret_key.encode(), client_token.encode(), hashlib.sha256).hexdigest()


def record_view(*, agent_id: str, visitor: str, day: date | None = None) -> bool:
    """Count a view of `agent_id` by `visitor` today, unless already counted; True when it was counted.

    One short transaction: insert (agent, visitor, day) if absent, and only if a row was inserted add 1 to
    the agent's count. Any failure (unknown agent, database down) is logged and swallowed.
    """
    if not agent_id or not visitor:
        return False
    values = {"agent_id": agent_id, "visitor": visitor[:64], "day": day or datetime.now(UTC).date()}
    try:
        with session_scope() as session:
            dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
            table = AgentView.__table__
            inserted = session.execute(dialect.insert(table).values(**values).on_conflict_do_nothing()
                                       .returning(table.c.day)).first()
            if inserted is None:  # already counted today
                return False
            session.execute(update(Agent).where(Agent.id == agent_id).values(view_count=Agent.view_count + 1))
        return True
    except Exception:  # a view must never break the page that reported it
        log.warning("agent view not recorded for %s", agent_id, exc_info=True)
        return False


def record_view_soon(*, agent_id: str, visitor: str | None) -> Future[bool] | None:
    """`record_view` on the worker thread; returns at once (None when there is nothing to count or the
    backlog is full)."""
    if not agent_id or not visitor or not _backlog.acquire(blocking=False):
        return None

    def run() -> bool:
        try:
            return record_view(agent_id=agent_id, visitor=visitor)
        finally:
            _backlog.release()

    try:
        return _executor.submit(run)
    except RuntimeError:  # interpreter shutting down
        _backlog.release()
        return None
