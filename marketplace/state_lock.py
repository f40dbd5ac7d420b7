"""A tab's Redis state lock that a cancelled event cannot leave behind.

With Redis (several workers) every event of a tab takes the tab's lock in Redis (`SET NX` with Reflex's
`redis_lock_expiration`, 30 s in rxconfig.py) and deletes it when done. Reflex cancels a page's unfinished events
when the page goes (the tab's socket disconnects, or its next page's hydrate supersedes them), and a cancellation
can land where Reflex's `_lock` does not release: after Redis has granted the lock but before the lock's `try`
(while the `SET NX` reply, or the waiter list's clean-up, is awaited), or a second cancellation during the release
itself. The lock then stays until it expires, and the tab's next page waits for it without a word in the log: its
hydrate is queued behind the lock for 30 s (measured: 7 of 150 navigations made while a page's on_load ran, on a
busy two-core host with five workers; issue 35's browser test that never hydrated).

`install()` wraps Reflex's lock so that acquiring and releasing are each done whole: an acquisition that ends in
an exception deletes the lock if Redis gave it to this attempt, and a release runs shielded from a second
cancellation. Either deletes the key only while it holds this attempt's id (compare-and-delete), so a lock that
has expired and been taken by another event is never released by mistake.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from reflex.istate.manager.redis import StateManagerRedis

log = logging.getLogger(__name__)

# Deletes the lock only while it still holds this attempt's id.
_RELEASE_IF_OURS = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
_background: set[asyncio.Task[None]] = set()  # releases under way (a task is kept alive only while referenced)


async def _release_if_ours(manager: StateManagerRedis, lock_key: bytes, lock_id: bytes) -> None:
    try:
        if await manager.redis.eval(_RELEASE_IF_OURS, 1, lock_key, lock_id):  # type: ignore[misc]
            log.info("released %s, left by a cancelled event", lock_key.decode(errors="replace"))
            manager._notify_next_waiter(lock_key)
    except Exception:
        log.exception("could not release %s; it expires by itself", lock_key.decode(errors="replace"))


async def _shielded(manager: StateManagerRedis, lock_key: bytes, lock_id: bytes) -> None:
    """The release as a task of its own: a cancellation of the caller cannot stop it halfway."""
    task = asyncio.ensure_future(_release_if_ours(manager, lock_key, lock_id))
    _background.add(task)
    task.add_done_callback(_background.discard)
    await asyncio.shield(task)


def _whole_wait_lock(
    wait_lock: Callable[[StateManagerRedis, bytes, bytes], Coroutine[Any, Any, None]],
) -> Callable[[StateManagerRedis, bytes, bytes], Coroutine[Any, Any, None]]:
    @functools.wraps(wait_lock)
    async def wrapped(self: StateManagerRedis, lock_key: bytes, lock_id: bytes) -> None:
        try:
            await wait_lock(self, lock_key, lock_id)
        except BaseException:
            # Redis may have granted the lock to this attempt before the exception (the reply was on its way).
            await _shielded(self, lock_key, lock_id)
            raise

    return wrapped


def _whole_lock(lock: Callable[..., contextlib.AbstractAsyncContextManager[bytes]]) -> Callable[..., Any]:
    @functools.wraps(lock)
    @contextlib.asynccontextmanager
    async def wrapped(self: StateManagerRedis, token: Any, event_name: str | None = None) -> AsyncIterator[bytes]:
        held = lock(self, token, event_name=event_name)
        lock_id = await held.__aenter__()
        try:
            yield lock_id
        except BaseException as error:
            try:
                suppressed = await held.__aexit__(type(error), error, error.__traceback__)
            finally:  # also when Reflex's release was cut short by a second cancellation
                await _shielded(self, self._lock_key(token), lock_id)
            if not suppressed:
                raise
        else:
            try:
                await held.__aexit__(None, None, None)
            except BaseException:
                await _shielded(self, self._lock_key(token), lock_id)
                raise

    return wrapped


def install() -> None:
    """Wrap Reflex's Redis state lock (once per process; the state manager is made later, per worker)."""
    if getattr(StateManagerRedis._wait_lock, "__whole__", False):
        return
    wait_lock, lock = StateManagerRedis._wait_lock, StateManagerRedis._lock
    StateManagerRedis._wait_lock = _whole_wait_lock(wait_lock)  # type: ignore[method-assign,assignment]
    StateManagerRedis._lock = _whole_lock(lock)  # type: ignore[method-assign]
    StateManagerRedis._wait_lock.__whole__ = True  # type: ignore[attr-defined]
