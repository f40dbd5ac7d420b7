"""Rate limits: at most `limit` counted requests per key in a sliding window, counted in the database (every
worker sees the same count). Used per client address for registration, reviews, reports and password-reset
requests; the limits are settings (`RATE_LIMIT_*`), so tests and deployments can change them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import case, delete, func
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import RateLimitCounter, RateLimitHit
from marketplace.models.base import utcnow
from marketplace.services.errors import TooManyRequests

MAX_KEY = 255
KEEP = timedelta(days=1)  # purge: no window is longer


def hit(*, key: str, limit: int, window_seconds: int, message: str | None = None) -> None:
    """Count one request under `key`; `TooManyRequests` (429, with Retry-After) once more than `limit` fall in the
    last `window_seconds`. The hit is written (and committed) before counting, so concurrent requests in several
    workers cannot all slip under the limit; a refused request counts too. `limit <= 0` turns the limit off."""
    if limit <= 0:
        return
    key = key[:MAX_KEY]
    now = utcnow()
    since = now - timedelta(seconds=window_seconds)
    with session_scope() as session:
        session.exec(delete(RateLimitHit).where(RateLimitHit.key == key, RateLimitHit.created_at < since))
        session.add(RateLimitHit(key=key, created_at=now))
    with session_scope() as session:
        count, oldest = session.exec(
            select(func.count(), func.min(RateLimitHit.created_at)).where(
                RateLimitHit.key == key, RateLimitHit.created_at >= since)
        ).one()
    if count > limit:
        wait = max(1, math.ceil(window_seconds - (now - oldest).total_seconds())) if oldest else window_seconds
        minutes = max(1, math.ceil(wait / 60))
        raise TooManyRequests(message or f"Too many requests. Please try again in {minutes} minute"
                              f"{'s' if minutes != 1 else ''}.", retry_after=wait)


def hit_per_address(*, action: str, address: str | None, limit: int) -> None:
    """`hit` for one action (`register`, `review`, ...) from one client address, in the shared window setting.
    No address (an internal call, not a client's request) is not limited."""
    if address:
        hit(key=f"{action}:{address}", limit=limit, window_seconds=settings.rate_limit_window_minutes * 60)


def hit_counters(session: Session, *, limits: Sequence[tuple[str, int]], window_seconds: int, message: str) -> None:
    """Count one request under each `(key, limit)` (distinct keys) in a fixed window of `window_seconds`, in the
    caller's transaction; `TooManyRequests` once any key is past its limit (the caller's transaction then rolls
    back, so a refused request leaves the count at the limit, and refuses the next one alike). One upsert for
    all the keys, returning the new counts: the cost does not grow with the traffic (as `hit`'s rows do), for a
    public API called many times a second. A fixed window lets up to twice the limit through across a window's
    edge, which these limits allow for. Call it last in the transaction: it holds the counters' rows until the
    commit."""
    now = utcnow().timestamp()
    window = int(now) // window_seconds * window_seconds
    counter = RateLimitCounter.__table__
    upsert = sqlite_insert if session.get_bind().dialect.name == "sqlite" else postgresql_insert
    statement = upsert(counter).values([{"key": key[:MAX_KEY], "window_start": window, "count": 1}
                                        for key, _limit in limits])
    statement = statement.on_conflict_do_update(
        index_elements=[counter.c.key],
        set_={"count": case((counter.c.window_start == statement.excluded.window_start, counter.c.count + 1),
                            else_=1),
              "window_start": statement.excluded.window_start},
    ).returning(counter.c.key, counter.c.count)
    counts = {key: count for key, count in session.execute(statement).all()}
    if any(0 < limit < counts.get(key[:MAX_KEY], 0) for key, limit in limits):
        raise TooManyRequests(message, retry_after=max(1, math.ceil(window + window_seconds - now)))


def purge() -> None:
    """Housekeeping on start: drop hits and counters older than any window."""
    with session_scope() as session:
        session.exec(delete(RateLimitHit).where(RateLimitHit.created_at < utcnow() - KEEP))
        session.exec(delete(RateLimitCounter).where(
            RateLimitCounter.window_start < (utcnow() - KEEP).timestamp()))
