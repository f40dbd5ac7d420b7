"""Report callbacks that hold a worker's event loop: asyncio's debug-mode slow-callback report, made exact.

Reflex serves every websocket of a worker from one event loop, so a callback that computes or waits for long
stalls all of them. With `SLOW_CALLBACK_MS` set, the app turns on asyncio's debug mode once it is serving (start-up
may hold the loop: no browser is being served yet) and the `asyncio` logger warns 'Executing <Task ...> took
0.123 seconds' for each longer callback. The browser suite sets 50 ms and fails on any such line.

asyncio times a callback by the wall clock, which also counts time that is not the callback's work:
- the time the thread sat ready while other processes had the CPU (on a busy two-core box a 5 ms callback can
  'take' 100 ms): Linux counts it per thread (`/proc/thread-self/schedstat`);
- the garbage collector's pauses, which stop every thread wherever they fall: timed by `gc.callbacks`;
- the time it slept waiting for the interpreter lock while the worker's other threads (the services a state
  awaits on its pool) ran Python, or while the thread holding that lock was itself kept off the CPU by other
  processes. Linux cannot tell that sleep from a blocking call's, so it is excused only up to what explains it:
  the CPU time of the process's other threads (`CLOCK_PROCESS_CPUTIME_ID` less the loop thread's) plus the time
  the host had a task ready without a CPU (`/proc/pressure/cpu`, 'some'), and never more than the callback slept.
A callback is reported when the rest, its own work (CPU and blocking calls), held the loop longer than the
threshold; the report says what came on top. A blocking call on a quiet host is reported in full; on a host
whose CPUs are oversubscribed it is reported for what the host's contention does not explain.
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
    contended: float = 0.0  # asleep while other threads ran, or the host's CPUs were oversubscribed
    held: float = 0.0  # the rest: the callback's own work


_waits = _Waits()
_collected = 0.0  # seconds of garbage collection in this process so far
_collection_started = 0.0


def _time_collection(phase: str, info: dict[str, int]) -> None:
    global _collected, _collection_started
    if phase == "start":
        _collection_started = time.perf_counter()
    else:
        _collected += time.perf_counter() - _collection_started


def _thread_times() -> tuple[float, float]:
    """Seconds this thread has spent on a CPU, and ready to run while another had the CPU."""
    if _waits.fd is None:
        _waits.fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)  # opened by, and for, this thread
    ran, waited = os.pread(_waits.fd, 64, 0).split()[:2]
    return int(ran) / 1e9, int(waited) / 1e9


_PRESSURE = "/proc/pressure/cpu"
_pressure_fd: list[int | None] = [None]


def _host_stall() -> float:
    """Seconds the host has had a task ready to run without a CPU (0 where Linux keeps no pressure counts)."""
    fd = _pressure_fd[0]
    if fd is None:
        return 0.0
    first = os.pread(fd, 128, 0).split(b"\n", 1)[0]  # some avg10=.. avg60=.. avg300=.. total=<microseconds>
    return int(first.rsplit(b"=", 1)[1]) / 1e6


def _contended(*, slept: float, others_ran: float, host_stall: float) -> float:
    """What of a callback's sleep the worker's other threads or the host's contention explain."""
    return max(0.0, min(slept, others_ran + host_stall))


def _contention() -> tuple[float, float, float]:
    """This thread's CPU and its wait for one, and the host's stall. Read outside the timed window: each read
    lets go of the interpreter lock, and taking it back may wait behind the other threads."""
    return *_thread_times(), _host_stall()


def _clocks() -> tuple[float, float]:
    """Wall clock and the process's CPU clock, which do not let go of the interpreter lock."""
    return time.perf_counter(), time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID)


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
        if _waits.held < self.threshold:
            return False
        record.msg = _REPORT + (" (%.3f of them waiting for a CPU, %.3f collecting garbage, %.3f asleep while"
                                " other threads ran or the host's CPUs were busy)")
        record.args = (handle, took, _waits.waited, _waits.collecting, _waits.contended)
        return True


def watch(loop: asyncio.AbstractEventLoop, threshold_ms: int) -> None:
    """Report each callback of `loop` that holds it longer than `threshold_ms` of its own work."""
    if not os.path.exists("/proc/thread-self/schedstat"):
        log.warning("event loop not watched: no per-thread scheduler counts (/proc/thread-self/schedstat)")
        return
    if os.path.exists(_PRESSURE):
        _pressure_fd[0] = os.open(_PRESSURE, os.O_RDONLY)
    run = events.Handle._run

    def timed_run(handle: events.Handle) -> None:
        ran, waited, stalled = _contention()
        collected = _collected
        began, process_ran = _clocks()
        try:
            run(handle)
        finally:
            ended, process_ran_after = _clocks()
            ran_after, waited_after, stalled_after = _contention()
            took, own = ended - began, ran_after - ran
            _waits.waited, _waits.collecting = waited_after - waited, _collected - collected
            _waits.contended = _contended(
                slept=took - own - _waits.waited - _waits.collecting,
                others_ran=(process_ran_after - process_ran) - own,
                host_stall=stalled_after - stalled,
            )
            _waits.held = took - _waits.waited - _waits.collecting - _waits.contended

    events.Handle._run = timed_run  # type: ignore[method-assign,assignment]  # the timing patch itself
    gc.callbacks.append(_time_collection)
    logging.getLogger("asyncio").addFilter(_HeldOnly(threshold_ms / 1000))
    loop.set_debug(True)
    loop.slow_callback_duration = threshold_ms / 1000
    log.warning(WATCHING, threshold_ms)
