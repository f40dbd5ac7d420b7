"""A tab's Redis state lock is not left behind by an event cancelled while it takes or releases the lock
(marketplace/state_lock.py): Reflex cancels a page's unfinished events when the tab moves on, and a lock left in
Redis kept the tab's next page from hydrating for the lock's 30 s (issue 35). Each test holds Redis's answer at the
point where a cancellation left the lock, cancels there, and looks at the lock in Redis."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis
from redis.asyncio import Redis
from reflex.istate.manager.redis import StateManagerRedis
from reflex.istate.manager.token import BaseStateToken

import marketplace.marketplace  # noqa: F401  (registers every page's state; installs the whole lock)
from marketplace.state.catalog import BrowseState

TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/6")  # as tests/unit/test_state_lease.py


def _hold(call: Callable[..., Awaitable[Any]], reached: asyncio.Event, *, before: bool,
          when: Callable[..., bool] = lambda *args, **kwargs: True) -> Callable[..., Awaitable[Any]]:
    """`call`, held for good before or after Redis runs it (a reply still on its way) when `when` says so."""
    async def held(*args: Any, **kwargs: Any) -> Any:
        if not when(*args, **kwargs):
            return await call(*args, **kwargs)
        result = None if before else await call(*args, **kwargs)
        reached.set()
        await asyncio.Event().wait()  # until cancelled
        return result
    return held


async def _lock_left_after(hold: Callable[[StateManagerRedis, asyncio.Event], None], cancels: int) -> bytes | None:
    """Run one event of a tab whose Redis call is held by `hold`, cancel it `cancels` times at the held call (the
    first, with two, while the handler runs), and return what the tab's lock holds in Redis afterwards."""
    manager = StateManagerRedis(redis=Redis.from_url(TEST_REDIS_URL))
    token = BaseStateToken(ident=f"lock-test-{uuid.uuid4().hex}", cls=BrowseState)
    reached, handling = asyncio.Event(), asyncio.Event()
    hold(manager, reached)

    async def event() -> None:
        async with manager.modify_state(token):
            handling.set()
            await asyncio.Event().wait()  # the handler, still running when the tab moves on

    try:
        task = asyncio.create_task(event())
        if cancels == 2:
            await handling.wait()
            task.cancel()
        await reached.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await manager.redis.get(manager._lock_key(token))
    finally:
        await manager.redis.delete(manager._lock_key(token))
        await manager.close()


def _grant_in_transit(manager: StateManagerRedis, reached: asyncio.Event) -> None:
    """Redis has set the lock for the event; its reply has not reached the event yet."""
    manager.redis.set = _hold(manager.redis.set, reached, before=False,  # type: ignore[method-assign]
                              when=lambda *args, **kwargs: kwargs.get("nx", False))


def _release_pending(manager: StateManagerRedis, reached: asyncio.Event) -> None:
    """The event is done (or cancelled) and about to delete its lock."""
    manager.redis.getdel = _hold(manager.redis.getdel, reached, before=True)  # type: ignore[method-assign]


def _needs_redis() -> None:
    try:
        redis.Redis.from_url(TEST_REDIS_URL).ping()
    except redis.ConnectionError:
        pytest.fail(f"this test needs Redis at TEST_REDIS_URL ({TEST_REDIS_URL})")


@pytest.mark.redis  # scripts/test.sh leaves it out where no Redis answers
def test_an_event_cancelled_while_redis_grants_its_lock_leaves_no_lock():
    _needs_redis()
    assert asyncio.run(_lock_left_after(_grant_in_transit, cancels=1)) is None


@pytest.mark.redis
def test_an_event_cancelled_again_while_it_releases_its_lock_leaves_no_lock():
    _needs_redis()
    assert asyncio.run(_lock_left_after(_release_pending, cancels=2)) is None
