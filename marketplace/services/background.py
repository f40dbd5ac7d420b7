"""The loop every background sender runs (mail outbox, file scans, seller webhooks): drain its table on start,
whenever a transaction of this process queued work (`wake`, also from `wake_after_commit`), and every poll
interval for work queued by other processes or due for a retry; never dying of an error. A sender whose table
keeps finished rows also gives a `tidy` (e.g. purging old deliveries), run after a round at most once per
`tidy_seconds`, so the table does not grow without end.

The work itself (claiming rows with one conditional update, a lease, retries) belongs to each outbox's module;
this holds only the waking and the loop they share.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from sqlalchemy import event
from sqlalchemy.orm import Session

log = logging.getLogger(__name__)

_workers: list[Worker] = []


class Worker:
    """One kind of background work. `poll_seconds` is read at each round (tests shorten or lengthen it)."""

    def __init__(self, name: str, *, poll_seconds: Callable[[], float]) -> None:
        self.name = name
        self.poll_seconds = poll_seconds
        self.waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []  # this process's running loops
        self._flag = f"marketplace_queued_{name.replace(' ', '_')}"
        _workers.append(self)

    def wake(self) -> None:
        """Have this process's loops run a round now (any thread)."""
        for loop, ready in list(self.waiting):
            with contextlib.suppress(RuntimeError):  # that loop has closed
                loop.call_soon_threadsafe(ready.set)

    def wake_after_commit(self, session: Session) -> None:
        """Wake the loops once `session`'s transaction commits (never if it rolls back)."""
        session.info[self._flag] = True

    async def run_forever(self, work: Callable[[], object], *, tidy: Callable[[], object] | None = None,
                          tidy_seconds: float = 3600.0) -> None:
        """Lifespan task: run `work` in a worker thread at start, on `wake` and every poll interval; `tidy` after
        the first round and then at most once every `tidy_seconds`."""
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        self.waiting.append(waiter)
        tidied: float | None = None
        try:
            while True:
                waiter[1].clear()
                try:
                    await asyncio.to_thread(work)
                except Exception:
                    log.exception("%s: sending failed", self.name)
                if tidy is not None and (tidied is None or time.monotonic() - tidied >= tidy_seconds):
                    tidied = time.monotonic()
                    try:
                        await asyncio.to_thread(tidy)
                    except Exception:
                        log.exception("%s: tidying failed", self.name)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter[1].wait(), self.poll_seconds())
        finally:
            self.waiting.remove(waiter)


@event.listens_for(Session, "after_commit")
def _wake_after_commit(session: Session) -> None:
    for worker in _workers:
        if session.info.pop(worker._flag, False):
            worker.wake()


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    for worker in _workers:
        session.info.pop(worker._flag, None)
