"""Reflex's opportunistic lock (`REFLEX_OPLOCK_ENABLED`, off by default in scripts/env.sh, an option in docs/deploy.md):
when on, a worker keeps a tab's state in memory, holding the tab's Redis lock, across the tab's events for
`REFLEX_OPLOCK_HOLD_TIME`, and writes it back when the lease ends. The app relies on the lease being broken at once
when another worker wants the tab (a page that reconnected elsewhere): that worker must see every change the first
one made, and the first one every change of the second. Two state managers on one Redis, as two workers are."""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import pytest
import redis
from redis.asyncio import Redis
from reflex.istate.manager.redis import StateManagerRedis
from reflex.istate.manager.token import BaseStateToken

import marketplace.marketplace  # noqa: F401  (registers every page's state)
from marketplace.state.catalog import BrowseState

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/6")  # as tests/unit/test_session_cache.py
HOLD_MS = 5_000  # Reflex's default hold: half the 10 s lock expiry


def _worker() -> StateManagerRedis:
    manager = StateManagerRedis(redis=Redis.from_url(TEST_REDIS_URL), oplock_hold_time_ms=HOLD_MS)
    manager._oplock_enabled = True  # what REFLEX_OPLOCK_ENABLED=true gives a manager Reflex creates
    return manager


async def _set_category(manager: StateManagerRedis, token: BaseStateToken, category: str) -> str:
    """One event of the tab: read the category, set a new one; the value it saw."""
    async with manager.modify_state(token) as root:
        browse = await root.get_state(BrowseState)
        seen = browse.category
        browse.category = category
    return seen


async def _handover() -> None:
    a, b = _worker(), _worker()
    token = BaseStateToken(ident=f"lease-test-{uuid.uuid4().hex}", cls=BrowseState)
    try:
        await a._ensure_lock_task_subscribed()
        await b._ensure_lock_task_subscribed()
        await _set_category(a, token, "Marketing")
        assert await a._get_local_lease(token.lock_key) is not None, "A holds no lease: the oplock is off"
        assert await _set_category(a, token, "Sales") == "Marketing"  # A's next event: from memory

        started = time.monotonic()
        assert await _set_category(b, token, "Support") == "Sales"  # B asks: A's lease breaks, A's writes land
        assert time.monotonic() - started < 1.0, "B waited for A's lease to run out instead of breaking it"

        assert await _set_category(a, token, "Finance") == "Support"  # and back: A sees B's change
    finally:
        await a.close()
        await b.close()


@pytest.mark.redis  # scripts/test.sh leaves it out where no Redis answers
def test_a_tab_leased_by_one_worker_moves_to_another_with_its_changes():
    try:
        redis.Redis.from_url(TEST_REDIS_URL).ping()
    except redis.ConnectionError:
        pytest.fail(f"this test needs Redis at TEST_REDIS_URL ({TEST_REDIS_URL})")
    asyncio.run(_handover())
