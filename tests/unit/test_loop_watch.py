"""`loop_watch`: asyncio's slow-callback report names a callback whose own work held the loop, and only such."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from asyncio import events
from collections.abc import Iterator

import pytest

from marketplace import loop_watch


@pytest.fixture
def watched_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """A fresh loop under watch; the asyncio handle and logger are given back as they were."""
    run, filters = events.Handle._run, list(logging.getLogger("asyncio").filters)
    loop = asyncio.new_event_loop()
    loop_watch.watch(loop, 20)
    yield loop
    loop.close()
    events.Handle._run = run  # type: ignore[method-assign]
    logging.getLogger("asyncio").filters[:] = filters
    gc.callbacks.remove(loop_watch._time_collection)


def test_a_blocking_call_on_the_loop_is_reported_by_name(watched_loop: asyncio.AbstractEventLoop,
                                                          caplog: pytest.LogCaptureFixture):
    async def blocks_the_loop() -> None:
        time.sleep(0.05)  # the blocking call under test, as a state calling a service directly would

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        watched_loop.run_until_complete(blocks_the_loop())
    reports = [r.getMessage() for r in caplog.records if r.name == "asyncio"]
    assert len(reports) == 1
    assert "blocks_the_loop" in reports[0] and "waiting for a CPU" in reports[0]


def test_an_awaited_wait_is_not_reported(watched_loop: asyncio.AbstractEventLoop, caplog: pytest.LogCaptureFixture):
    async def waits_off_the_loop() -> None:
        await asyncio.to_thread(time.sleep, 0.05)

    # The first to_thread starts the executor's thread, and the loop waits (asleep, not for a CPU) until that
    # thread runs: on a busy host that can pass the threshold. A state's handler meets an executor already up.
    watched_loop.run_until_complete(asyncio.to_thread(time.sleep, 0))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="asyncio"):
        watched_loop.run_until_complete(waits_off_the_loop())
    assert [r for r in caplog.records if r.name == "asyncio"] == []


def _report(took: float) -> logging.LogRecord:
    return logging.LogRecord("asyncio", logging.WARNING, __file__, 0, loop_watch._REPORT, ("<Task x>", took), None)


def test_time_spent_waiting_for_a_cpu_or_collecting_garbage_is_not_held():
    held_only = loop_watch._HeldOnly(0.05)
    loop_watch._waits.waited, loop_watch._waits.collecting = 0.07, 0.0
    assert not held_only.filter(_report(0.1))
    loop_watch._waits.waited, loop_watch._waits.collecting = 0.0, 0.07
    assert not held_only.filter(_report(0.1))
    loop_watch._waits.waited, loop_watch._waits.collecting = 0.01, 0.02
    record = _report(0.1)
    assert held_only.filter(record)
    assert record.getMessage() == ("Executing <Task x> took 0.100 seconds (0.010 of them waiting for a CPU, "
                                   "0.020 collecting garbage)")
