"""The task queue (huey): work that must not run inside a request, such as sending mail.

Redis when `REDIS_URL` is set (several app workers share it), else an SQLite file: no extra server on the
embedded default. The app runs the consumer in-process (worker threads started by a lifespan task), so
`make run` needs nothing else. With `APP_ENV=test` tasks run inline in the caller (huey's immediate mode),
which keeps tests deterministic; failed tasks are then scheduled for retry rather than re-run at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from huey import Huey, RedisHuey, SqliteHuey
from huey.consumer import Consumer

from marketplace.config import settings

log = logging.getLogger(__name__)

WORKERS = 2
IDLE_POLL_MAX_SECONDS = 1.0  # an idle worker checks for new work at least this often
SHUTDOWN_SECONDS = 10


def build_huey() -> Huey:
    immediate = settings.queue_runs_inline
    if settings.redis_url:
        return RedisHuey("marketplace", url=settings.redis_url, results=False, immediate=immediate)
    if not immediate:
        Path(settings.queue_path).parent.mkdir(parents=True, exist_ok=True)
    return SqliteHuey("marketplace", filename=settings.queue_path, results=False, immediate=immediate)


huey = build_huey()


class InProcessConsumer(Consumer):
    """huey's consumer minus its signal handlers: inside the web server, the server owns the signals."""

    def _set_signal_handlers(self) -> None:
        return None


@asynccontextmanager
async def run_consumer() -> AsyncIterator[None]:
    """Lifespan task: worker threads consume the queue while the app serves; they finish their task on exit."""
    if huey.immediate:
        yield
        return
    consumer = InProcessConsumer(huey, workers=WORKERS, worker_type="thread", max_delay=IDLE_POLL_MAX_SECONDS,
                                 shutdown_timeout=SHUTDOWN_SECONDS)
    consumer.start()
    log.info("task queue consumer started (%s)", type(huey.storage).__name__)
    try:
        yield
    finally:
        await asyncio.to_thread(consumer.stop, graceful=True)
