"""Rate limits: at most `limit` counted requests per key in a sliding window, counted in the database (every
worker sees the same count). Used per client address for registration, reviews, reports and password-reset
requests; the limits are settings (`RATE_LIMIT_*`), so tests and deployments can change them.
"""

from __future__ import annotations

import math
from datetime import timedelta

from sqlalchemy import delete, func
from sqlmodel import select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import RateLimitHit
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


def purge() -> None:
    """Housekeeping on start: drop hits older than any window."""
    with session_scope() as session:
        session.exec(delete(RateLimitHit).where(RateLimitHit.created_at < utcnow() - KEEP))
