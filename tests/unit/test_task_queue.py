"""The task queue as `make run` uses it: an SQLite-backed huey consumed by worker threads inside the app."""

from __future__ import annotations

import asyncio
import threading

from huey import SqliteHuey

from marketplace import queue


def test_lifespan_consumer_runs_queued_tasks_and_stops(tmp_path, monkeypatch):
    huey = SqliteHuey("test", filename=str(tmp_path / "queue.db"), results=False)
    monkeypatch.setattr(queue, "huey", huey)
    ran = threading.Event()

    @huey.task()
    def job() -> None:
        ran.set()

    async def serve() -> bool:
        async with queue.run_consumer():
            job()
            return await asyncio.to_thread(ran.wait, 10)

    assert asyncio.run(serve()) is True


def test_tests_run_tasks_inline():
    assert queue.huey.immediate is True
