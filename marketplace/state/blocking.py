"""The one way for a Reflex state to call a service: awaited, on a worker thread, never on the event loop.

Reflex 0.10 runs a plain `def` event handler on the event loop itself, and one worker's loop serves every
websocket it holds: a service that waits on the database, Stripe, storage or mail would stall them all. So a
handler that reaches any of those is `async` and writes `await blocking.run(service.fn, actor=user, ...)`.

The pool is the state layer's own, sized for many slow calls at once (Stripe answers in 200-600 ms); asyncio's
default executor has only `cpu + 4` threads. The caller's context variables travel with the call.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

THREADS = 32  # the database pool keeps 20 connections (+20 overflow), so 32 calls at once never starve it
_pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="state-call")


async def run(fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """`fn(*args, **kwargs)` on the state pool; the event loop serves other browsers meanwhile."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_pool, call)
