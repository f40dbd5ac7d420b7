"""Report callbacks that hold a worker's event loop: asyncio's debug-mode slow-callback report, made exact.

Reflex serves every websocket of a worker from one event loop, so a callback that computes or waits for long
stalls all of them. With `SLOW_CALLBACK_MS` set, the app turns on asyncio's debug mode once it is serving (start-up
may hold the loop: no browser is being served yet) and the `asyncio` logger warns 'Executing <Task ...> took
0.123 seconds' for each longer callback. The browser suite sets 50 ms and fails on any such line.

asyncio times a callback by the wall clock, which also counts the time the thread sat ready while other processes
had the CPU (on a busy two-core box a 5 ms callback can 'take' 100 ms) and the garbage collector's pauses, which
stop every thread wherever they fall. Linux counts the first per thread (`/proc/thread-self/schedstat`) and
`gc.callbacks` time the second, so each report is cut by both: a callback is reported when its own work (CPU and
blocking calls) held the loop longer, and the report says what came on top.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import threading
import time
from asyncio import events

_REPORT = "Executing %s took %.3f seconds"  # asyncio's own message (base_events._run_once)
WATCHING = "event loop watched: callbacks holding it over %d ms are reported"
log = logging.getLogger(__name__)


class _Waits(threading.local):
    """The calling thread's `schedstat` file, and what the last callback it ran waited for."""

    fd: int | None = None
    waited: float = 0.0  # ready to run while another had the CPU
    collecting: float = 0.0  # garbage collection


_waits = _Waits()
_collected = 0.0  # seconds of garbage collection in this process so far
_collection_started = 0.0


def _time_collection(phase: str, info: dict[str, int]) -> None:
    global _collected, _collection_started
    if phase == "start":
        _collection_started = time.perf_counter()
    else:
        _collected += time.perf_counter() - _collection_started


def _cpu_wait() -> float:
    """Seconds this thread has spent ready to run while another had the CPU."""
    if _waits.fd is None:
        _waits.fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)  # opened by, and for, this thread
    return int(os.pread(_waits.fd, 64, 0).split()[1]) / 1e9


class _HeldOnly(logging.Filter):
    """Drop the reports of callbacks that were slow only for want of a CPU; say the wait in the others."""

    def __init__(self, threshold: float) -> None:
        super().__init__()
        self.threshold = threshold

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != _REPORT or not isinstance(record.args, tuple) or len(record.args) != 2:
            return True
        handle, took = record.args
        if not isinstance(took, float):
            return True
        if took - _waits.waited - _waits.collecting < self.threshold:
            return False
        record.msg = _REPORT + " (%.3f of them waiting for a CPU, %.3f collecting garbage)"
        record.args = (handle, took, _waits.waited, _waits.collecting)
        return True


def watch(loop: asyncio.AbstractEventLoop, threshold_ms: int) -> None:
    """Report each callback of `loop` that holds it longer than `threshold_ms` of its own work."""
    if not os.path.exists("/proc/thread-self/schedstat"):
        log.warning("event loop not watched: no per-thread scheduler counts (/proc/thread-self/schedstat)")
        return
    run = events.Handle._run

    def timed_run(handle: events.Handle) -> None:
        waited, collected = _cpu_wait(), _collected
        try:
            run(handle)
        finally:
            _waits.waited, _waits.collecting = _cpu_wait() - waited, _collected - collected

    events.Handle._run = timed_run  # type: ignore[method-assign,assignment]  # the timing patch itself
    gc.callbacks.append(_time_collection)
    logging.getLogger("asyncio").addFilter(_HeldOnly(threshold_ms / 1000))
    loop.set_debug(True)
    loop.slow_callback_duration = threshold_ms / 1000
    log.warning(WATCHING, threshold_ms)
