"""Test Clocks, and the wall clock's own renewals.

`POST /v1/test_helpers/test_clocks` (`frozen_time`, `name`), retrieve, list (newest first), delete (removes
the clock's customers with their subscriptions and invoices, as Stripe does), and
`POST /v1/test_helpers/test_clocks/<id>/advance` (`frozen_time`: after the current one, at most two intervals of
the shortest subscription on the clock ahead, two years without one). The advance answers at once with
`status: advancing` (and `status_details.advancing.target_frozen_time`); then, in the background, every
renewal, payment, retry, cancellation and expiry that falls in the interval happens in time order, each step
at its own time (objects and events carry it as `created`), and each step's events are POSTed to the webhook
endpoints and answered before the next step begins. Only then does the clock become `ready` (its
`frozen_time` the target) and `test_helpers.test_clock.ready` is sent. So a caller that polls the clock until
`ready` knows the app has handled every webhook of the advance. Events: `test_helpers.test_clock.created`,
`.advancing`, `.ready`, `.deleted`; `internal_failure` if a step raised (the stand-in's log says why).

Customers without a clock live on the wall clock: a background task (every `--tick` seconds, or
`POST /_standin/tick`) does what falls due for them, their webhooks delivered like any others.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from typing import Any

from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import renewals
from dev.stripe_standin.compat import InvalidRequest
from dev.stripe_standin.delivery import deliveries, emit
from dev.stripe_standin.shapes import Resource, as_int, page, reject_unknown, required

log = logging.getLogger("stripe_standin")
DELETES_AFTER = 30 * 24 * 3600
MAX_STEPS = 10_000


class TestClock(Resource):
    object = "test_helpers.test_clock"
    _id_prefix = "clock_"

    def __init__(self, *, frozen_time: int, name: str | None) -> None:
        super().__init__()
        self._seq = time.perf_counter_ns()
        self.frozen_time = frozen_time
        self.name = name
        self.status = "ready"
        self.deletes_after = self.created + DELETES_AFTER
        self._cursor: int | None = None  # mid-advance: the time of the step being processed
        self._target: int | None = None

    def _now(self) -> int:
        return self._cursor if self._cursor is not None else self.frozen_time

    def _fields(self) -> dict[str, Any]:
        details = {"advancing": {"target_frozen_time": self._target}} if self.status == "advancing" else {}
        return {"id": self.id, "object": "test_helpers.test_clock", "created": self.created,
                "deletes_after": self.deletes_after, "frozen_time": self.frozen_time, "livemode": False,
                "name": self.name, "status": self.status, "status_details": details}


def retrieve(clock_id: str) -> TestClock:
    clock = ls.store.get(f"test_helpers.test_clock:{clock_id}") if isinstance(clock_id, str) else None
    if not isinstance(clock, TestClock):
        raise UserError(404, f"No such test clock: '{clock_id}'", {"code": "resource_missing", "param": "id"})
    return clock


def create(params: dict[str, Any]) -> TestClock:
    reject_unknown(params, {"frozen_time", "name"})
    frozen_time = as_int(required(params, "frozen_time"), param="frozen_time", minimum=0)
    name = params.get("name")
    if name is not None and (not isinstance(name, str) or len(name) > 300):
        raise InvalidRequest("Invalid name", param="name")
    clock = TestClock(frozen_time=frozen_time, name=name)
    emit("test_helpers.test_clock.created", clock)
    return clock


def named(params: dict[str, Any]) -> TestClock:
    """The stand-in's helper: the clock with this name (the newest), created at `frozen_time` or now if none."""
    reject_unknown(params, {"name", "frozen_time"})
    name = required(params, "name")
    existing = [c for c in ls.store.of("test_helpers.test_clock") if isinstance(c, TestClock) and c.name == name]
    if existing:
        return max(existing, key=lambda c: c._seq)
    return create({"name": name, "frozen_time": params.get("frozen_time") or int(time.time())})


def list_clocks(params: dict[str, Any]) -> dict[str, Any]:
    reject_unknown(params, {"limit", "starting_after", "ending_before"})
    rows = sorted((c for c in ls.store.of("test_helpers.test_clock") if isinstance(c, TestClock)),
                  key=lambda c: c._seq, reverse=True)
    return page(rows, url="/v1/test_helpers/test_clocks", limit=params.get("limit"),
                starting_after=params.get("starting_after"), ending_before=params.get("ending_before"))


def delete(clock_id: str) -> dict[str, Any]:
    clock = retrieve(clock_id)
    if clock.status == "advancing":
        raise InvalidRequest("The test clock is advancing; wait until it is ready.")
    customers = {c.id for c in ls.store.of("customer") if getattr(c, "test_clock", None) == clock.id}
    for kind in ("subscription", "subscription_item", "invoice", "invoiceitem", "invoice_payment"):
        for obj in ls.store.of(kind):
            owner = getattr(obj, "customer", None)
            if owner is None and kind == "subscription_item":
                owner = getattr(ls.store.get(f"subscription:{obj.subscription}"), "customer", None)
            if owner is None and kind == "invoice_payment":
                owner = getattr(ls.store.get(f"invoice:{obj.invoice}"), "customer", None)
            if owner in customers:
                del ls.store[f"{kind}:{obj.id}"]
    for customer_id in customers:
        del ls.store[f"customer:{customer_id}"]
    del ls.store[f"test_helpers.test_clock:{clock.id}"]
    emit("test_helpers.test_clock.deleted", clock)
    return {"id": clock.id, "object": "test_helpers.test_clock", "deleted": True}


class Clocks:
    """Runs advances in the background (one per clock) and the wall clock's due work."""

    def __init__(self) -> None:
        self._advancing: dict[str, asyncio.Task[None]] = {}
        self._ticker: asyncio.Task[None] | None = None
        self.tick_seconds = 10.0

    def advance(self, clock_id: str, params: dict[str, Any]) -> TestClock:
        reject_unknown(params, {"frozen_time"})
        clock = retrieve(clock_id)
        if clock.status != "ready":
            raise InvalidRequest(f"The test clock is {clock.status}; it can only advance when ready.",
                                 code="test_clock_not_ready" if clock.status == "advancing" else None)
        target = as_int(required(params, "frozen_time"), param="frozen_time")
        if target <= clock.frozen_time:
            raise InvalidRequest("The test clock can only be advanced to a time after its current frozen_time "
                                 f"({clock.frozen_time}).", param="frozen_time")
        limit = renewals.max_advance(clock.id, clock.frozen_time)
        if target > limit:
            raise InvalidRequest("Cannot advance the test clock more than two intervals beyond the shortest "
                                 f"subscription interval on it (at most to {limit}).", param="frozen_time")
        clock.status = "advancing"
        clock._target = target
        # A fresh context: the advance's events are Stripe's own (request null), not this request's.
        self._advancing[clock.id] = asyncio.get_running_loop().create_task(self._run(clock, target),
                                                                           context=contextvars.Context())
        return clock

    async def _run(self, clock: TestClock, target: int) -> None:
        try:
            with deliveries.collect() as batch:
                emit("test_helpers.test_clock.advancing", clock)
            await deliveries.deliver_in_order(batch)
            for _ in range(MAX_STEPS):
                due = renewals.next_due(clock.id, target)
                if due is None:
                    break
                at, kind, obj = due
                clock._cursor = at
                with deliveries.collect() as batch:
                    renewals.run_action(kind, obj, at)
                ls.store.mark_dirty()  # type: ignore[attr-defined]
                await deliveries.deliver_in_order(batch)
            else:
                raise RuntimeError(f"more than {MAX_STEPS} steps")
            clock._cursor = None
            clock._target = None
            clock.frozen_time = target
            clock.status = "ready"
            emit("test_helpers.test_clock.ready", clock)
        except Exception:
            log.exception("test clock %s failed to advance", clock.id)
            clock._cursor = None
            clock.status = "internal_failure"
            emit("test_helpers.test_clock.internal_failure", clock)
        finally:
            ls.store.mark_dirty()  # type: ignore[attr-defined]
            self._advancing.pop(clock.id, None)

    def run_wall_clock(self) -> int:
        """Do what has fallen due for customers without a clock; answers how many steps ran."""
        now = int(time.time())
        for steps in range(MAX_STEPS):
            due = renewals.next_due(None, now)
            if due is None:
                return steps
            at, kind, obj = due
            renewals.run_action(kind, obj, at)
            ls.store.mark_dirty()  # type: ignore[attr-defined]
        return MAX_STEPS

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.tick_seconds)
            try:
                self.run_wall_clock()
            except Exception:
                log.exception("wall-clock renewals failed")

    async def start(self, _app: Any = None) -> None:
        if self.tick_seconds > 0:
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def stop(self, _app: Any = None) -> None:
        for task in [*self._advancing.values(), *([self._ticker] if self._ticker else [])]:
            task.cancel()
        for clock in ls.store.of("test_helpers.test_clock"):  # type: ignore[attr-defined]
            if isinstance(clock, TestClock) and clock.status == "advancing":
                clock.status, clock._cursor, clock._target = "ready", None, None  # restart from frozen_time

    def clear(self) -> None:
        for task in self._advancing.values():
            task.cancel()
        self._advancing.clear()


clocks = Clocks()
