"""`loop_watch`: asyncio's slow-callback report names a callback whose own work held the loop, and only such."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
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
                                                          caplog: pytest.LogCaptureFixture,
                                                          monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(loop_watch, "_host_stall", lambda: 0.0)  # as on a quiet host (this one may be busy)

    async def blocks_the_loop() -> None:
        time.sleep(0.05)  # the blocking call under test, as a state calling a service directly would

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        watched_loop.run_until_complete(blocks_the_loop())
    reports = [r.getMessage() for r in caplog.records if r.name == "asyncio"]
    assert len(reports) == 1
    assert "blocks_the_loop" in reports[0] and "waiting for a CPU" in reports[0]


def test_waiting_for_the_interpreter_while_other_threads_compute_is_not_held(
    watched_loop: asyncio.AbstractEventLoop, caplog: pytest.LogCaptureFixture
):
    """A callback of a few ms of its own work, slowed past the threshold because the worker's other threads
    (the services states await) hold the interpreter lock: not the callback's doing."""
    done = threading.Event()

    def computes() -> None:
        while not done.is_set():
            sum(range(4_000_000))  # one C call: it keeps the interpreter lock for tens of ms

    async def works_briefly_among_busy_threads() -> None:
        deadline = time.thread_time() + 0.008  # 8 ms of the loop's own CPU: past the 5 ms switch interval
        while time.thread_time() < deadline:
            sum(range(100))

    busy = [threading.Thread(target=computes) for _ in range(2)]
    for thread in busy:
        thread.start()
    try:
        with caplog.at_level(logging.WARNING, logger="asyncio"):
            began = time.perf_counter()
            watched_loop.run_until_complete(works_briefly_among_busy_threads())
            took = time.perf_counter() - began
    finally:
        done.set()
        for thread in busy:
            thread.join()
    assert took > 0.02, "the busy threads did not slow the callback: this test shows nothing here"
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


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


def test_only_the_callbacks_own_work_is_held():
    held_only = loop_watch._HeldOnly(0.05)
    loop_watch._waits.held = 0.049
    assert not held_only.filter(_report(0.1))
    loop_watch._waits.waited, loop_watch._waits.collecting, loop_watch._waits.contended = 0.01, 0.02, 0.005
    loop_watch._waits.held = 0.065
    record = _report(0.1)
    assert held_only.filter(record)
    assert record.getMessage() == (
        "Executing <Task x> took 0.100 seconds (0.010 of them waiting for a CPU, 0.020 collecting garbage, "
        "0.005 asleep while other threads ran or the host's CPUs were busy)")


def test_only_the_sleep_that_other_threads_or_the_hosts_contention_explain_is_excused():
    assert loop_watch._contended(slept=0.08, others_ran=0.0, host_stall=0.0) == 0.0  # a blocking call
    assert loop_watch._contended(slept=0.08, others_ran=0.03, host_stall=0.02) == pytest.approx(0.05)
    assert loop_watch._contended(slept=0.02, others_ran=0.5, host_stall=0.5) == 0.02  # never more than it slept
    assert loop_watch._contended(slept=-0.001, others_ran=0.1, host_stall=0.0) == 0.0
