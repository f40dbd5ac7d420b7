"""Admission before the backlog: a worker whose event loop lags refuses new event websockets, keeps its open tabs.

Every open tab's events wait behind every callback queued on the worker's one loop. When the loop falls a second
behind, a new tab's connect and hydrate (the costliest step) only adds to the queue that the open tabs are waiting
in; measured at 1,000 browsers on too few cores, all tabs then got slow together (benchmarks/README.md,
"Overload"). So while the loop lags more than `settings.admission_lag_ms`, the upgrade of a new connection to
Reflex's event socket (`/_event`) is answered 503 with `Retry-After` (socket.io's client reconnects with back-off,
and a balancer may send it to another worker); pages, `/api` and the sockets already open are served as before.

The lag is measured by a ticker on the loop (`watch_lag`, started with the app): a tick asked for every
`TICK_SECONDS` that runs late tells how long a callback queued now waits. The worker refuses while the last tick
was late by more than the limit, or the current one is overdue by more, and for `HOLD_SECONDS` after, so that a
loop that is just catching up is not handed a burst of new tabs at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from marketplace.config import settings

EVENT_PATH = "/_event"  # Reflex's event socket (constants.Endpoint.EVENT)
TICK_SECONDS = 0.1
HOLD_SECONDS = 2.0
RETRY_AFTER_SECONDS = 2
BUSY = b"This server is busy: your page will connect in a moment."


@dataclass
class LoopLag:
    """What the ticker saw: when the running tick was asked for, the last tick's lateness, when to admit again."""

    clock: Callable[[], float] = time.monotonic
    tick_due: float | None = None
    last_late: float = 0.0
    refuse_until: float = 0.0

    def now(self) -> float:
        return self.clock()

    def tick_started(self) -> None:
        self.tick_due = self.now() + TICK_SECONDS

    def tick_ran(self, *, limit: float) -> None:
        now = self.now()
        self.last_late = max(0.0, now - self.tick_due) if self.tick_due is not None else 0.0
        self.tick_due = None
        if self.last_late > limit:
            self.refuse_until = now + HOLD_SECONDS

    def lagging(self, *, limit: float) -> bool:
        """True while new tabs should wait: the loop is (or just was) more than `limit` seconds behind."""
        now = self.now()
        overdue = now - self.tick_due if self.tick_due is not None else 0.0
        return self.last_late > limit or overdue > limit or now < self.refuse_until


lag = LoopLag()


def _limit() -> float:
    return settings.admission_lag_ms / 1000


async def watch_lag() -> None:
    """The ticker (a lifespan task of the app's worker); does nothing when admission is off."""
    if settings.admission_lag_ms <= 0:
        return
    while True:
        lag.tick_started()
        await asyncio.sleep(TICK_SECONDS)
        lag.tick_ran(limit=_limit())


def _new_event_socket(scope: Scope) -> bool:
    return scope["type"] == "websocket" and scope["path"].rstrip("/") == EVENT_PATH


class Admission:
    """Answers a new event websocket 503 while the loop lags (ASGI's websocket denial response; a server without
    it gets a close before accept, which the client also retries)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if settings.admission_lag_ms > 0 and _new_event_socket(scope) and lag.lagging(limit=_limit()):
            await _refuse(scope, send)
            return
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, send: Send) -> None:
    if "websocket.http.response" in scope.get("extensions", {}):
        headers = [(b"retry-after", str(RETRY_AFTER_SECONDS).encode()), (b"content-type", b"text/plain"),
                   (b"cache-control", b"no-store")]
        await send({"type": "websocket.http.response.start", "status": 503, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": BUSY})
    else:
        await send({"type": "websocket.close", "code": 1013})  # "try again later"
