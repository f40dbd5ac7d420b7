"""Events and their webhooks: created with Stripe's event shape, signed like Stripe, delivered in order.

localstripe sent each event one second later from its own task with a new HTTP session, so events raced
each other (`invoice.paid` could arrive before `invoice.created`) and a busy stand-in opened a connection per
event. Here:

- Events carry `api_version` (the endpoint's: `--api-version`, the pinned SDK's by default), `created` (a
  test clock's time for its objects), `request` (`{id, idempotency_key}` of the API request that caused
  them; null for what the stand-in did on its own, as Stripe's automatic events), `data.previous_attributes`
  on updates, `pending_webhooks`, and `account` for Connect events.
- Delivery: a `POST` of the JSON event to every registered endpoint (`--webhook-url`, or
  `POST /_config/webhooks/<id>` with `url`, `secret`, optional `events[]`), with
  `Stripe-Signature: t=<now>,v1=<HMAC-SHA256 of "t.payload" with the endpoint's secret>` as Stripe signs.
  Events about one customer (or one payment without a customer) are delivered one after the other in the
  order they happened; different customers' events go out concurrently over one pooled HTTP session.
  A failed delivery (no 2xx) is retried after 1, 5, 30 and 120 seconds, outside that order (at least once,
  as Stripe: handlers must be idempotent).
- Synchronous batches: a test clock's advance collects the events of each step (`collect()`) and awaits their
  delivery (`deliver_in_order()`, two quick retries) before the next step, so by the time the clock is
  `ready` the endpoint has answered every event of the advance.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

import aiohttp
from localstripe import resources as ls
from localstripe.webhooks import _webhooks

from dev.stripe_standin import context

log = logging.getLogger("stripe_standin")
RETRY_DELAYS = (1.0, 5.0, 30.0, 120.0)
SYNC_RETRY_DELAYS = (0.2, 1.0)
_collector: ContextVar[list[Any] | None] = ContextVar("event_collector", default=None)


def _ordering_key(event: Any) -> str:
    """The lane an event is delivered in: its customer's (also the one a detach just removed), else its
    payment's, else its object's."""
    obj = event.data.get("object") or {}
    customer = obj.get("customer") or (event.data.get("previous_attributes") or {}).get("customer")
    if isinstance(customer, dict):
        customer = customer.get("id")
    if obj.get("object") == "customer":
        customer = obj.get("id")
    intent = obj.get("payment_intent")
    return str(customer or (intent if isinstance(intent, str) else None) or obj.get("id") or event.id)


def signature(secret: str, payload: bytes, timestamp: int) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


class Deliveries:
    """Sends events to the registered endpoints (see the module docstring)."""

    def __init__(self) -> None:
        self.delay = 0.0
        self._session: aiohttp.ClientSession | None = None
        self._chains: dict[str, asyncio.Task[None]] = {}
        self._first_attempts: set[asyncio.Task[None]] = set()
        self._retries: set[asyncio.Task[None]] = set()
        self.delivered = 0
        self.failed = 0

    async def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=30), connector=aiohttp.TCPConnector(limit=64))
        return self._session

    def cancel_all(self) -> None:
        """Forget every queued delivery and retry (a reset between tests)."""
        for task in [*self._first_attempts, *self._retries]:
            task.cancel()
        self._first_attempts.clear()
        self._retries.clear()
        self._chains.clear()

    async def close(self, _app: Any = None) -> None:
        self.cancel_all()
        if self._session is not None:
            await self._session.close()

    def schedule(self, event: Any) -> None:
        """Queue an event (or add it to the batch being collected by a clock advance)."""
        batch = _collector.get()
        if batch is not None:
            batch.append(event)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no server running (an import-time object): nothing to deliver to
        key = _ordering_key(event)
        previous = self._chains.get(key)
        task = loop.create_task(self._after(previous, event))
        self._chains[key] = task
        self._first_attempts.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            self._first_attempts.discard(finished)
            if self._chains.get(key) is finished:
                del self._chains[key]

        task.add_done_callback(done)

    async def _after(self, previous: asyncio.Task[None] | None, event: Any) -> None:
        if previous is not None:
            await asyncio.wait([previous])
        if self.delay:
            await asyncio.sleep(self.delay)
        for endpoint_id, ok in (await self._send_all(event)).items():
            if not ok:
                task = asyncio.get_running_loop().create_task(self._retry(endpoint_id, event, RETRY_DELAYS))
                self._retries.add(task)
                task.add_done_callback(self._retries.discard)

    async def _retry(self, endpoint_id: str, event: Any, delays: tuple[float, ...]) -> bool:
        for delay in delays:
            await asyncio.sleep(delay)
            endpoint = _webhooks.get(endpoint_id)
            if endpoint is None:
                return False
            if await self._post(endpoint, event):
                return True
        log.warning("webhook %s (%s) not delivered to %s", event.id, event.type, endpoint_id)
        return False

    async def _send_all(self, event: Any) -> dict[str, bool]:
        results = {}
        for endpoint_id, endpoint in list(_webhooks.items()):
            if endpoint.events is not None and event.type not in endpoint.events:
                continue
            results[endpoint_id] = await self._post(endpoint, event)
        return results

    async def _post(self, endpoint: Any, event: Any) -> bool:
        payload = json.dumps(event._export(), sort_keys=True).encode()
        headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "Stripe/1.0 (+stand-in)",
                   "Stripe-Signature": signature(endpoint.secret, payload, int(time.time()))}
        try:
            session = await self._client()
            async with session.post(endpoint.url, data=payload, headers=headers) as response:
                await response.read()
                ok = 200 <= response.status < 300
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            log.info("webhook %s (%s) failed: %s", event.id, event.type, exc)
            ok = False
        if ok:
            self.delivered += 1
        else:
            self.failed += 1
        return ok

    @contextlib.contextmanager
    def collect(self) -> Iterator[list[Any]]:
        """Events created inside the block are returned instead of queued (the caller delivers them)."""
        batch: list[Any] = []
        token = _collector.set(batch)
        try:
            yield batch
        finally:
            _collector.reset(token)

    async def deliver_in_order(self, events: list[Any]) -> None:
        """POST each event to every endpoint and await the answer before the next (test clock advances)."""
        for event in events:
            for endpoint_id, ok in (await self._send_all(event)).items():
                if not ok:
                    await self._retry(endpoint_id, event, SYNC_RETRY_DELAYS)

    async def drain(self, timeout: float) -> bool:
        """Wait until every queued event has had its first delivery attempt; False on timeout."""
        deadline = time.monotonic() + timeout
        while self._first_attempts:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            await asyncio.wait(list(self._first_attempts), timeout=remaining)
        return True

    def stats(self) -> dict[str, int]:
        return {"delivered": self.delivered, "failed": self.failed, "queued": len(self._first_attempts),
                "retrying": len(self._retries)}


deliveries = Deliveries()


# --- Stripe's event shape on top of localstripe's Event ------------------------------------------------------

_orig_object_init = ls.StripeObject.__init__


def _object_init(self: Any, id: str | None = None) -> None:
    _orig_object_init(self, id)
    if context.simulated() and not isinstance(self, ls.List):
        self.created = context.now()


def _event_init(self: Any, type: str, data: Any, previous_attributes: dict[str, Any] | None = None,
                account: str | None = None) -> None:
    with context.version(context.default_api_version):
        exported = data._export() if hasattr(data, "_export") else dict(data)
    ls.StripeObject.__init__(self)
    self.type = type
    self.data = {"object": exported}
    if previous_attributes is not None:
        self.data["previous_attributes"] = previous_attributes
    self.api_version = context.default_api_version
    self.request = {"id": context.request_id.get(), "idempotency_key": context.idempotency_key.get()}
    self.pending_webhooks = len(_webhooks)
    if account:
        self.account = account


def _event_export(self: Any, expand: Any = None) -> dict[str, Any]:
    """The event as Stripe sends it (explicit: localstripe's generic export walks dir() for every delivery)."""
    data = {"id": self.id, "object": "event", "api_version": self.api_version, "created": self.created,
            "data": self.data, "livemode": False, "pending_webhooks": self.pending_webhooks,
            "request": self.request, "type": self.type}
    if getattr(self, "account", None):
        data["account"] = self.account
    return data


def emit(event_type: str, obj: Any, *, previous: dict[str, Any] | None = None, account: str | None = None) -> Any:
    """Create an event about `obj` (its state now) and queue its delivery."""
    event = ls.Event(event_type, obj, previous, account)
    deliveries.schedule(event)
    return event


def install() -> None:
    """Route localstripe's own events (customer.created, payment_intent.succeeded...) through `deliveries`."""
    ls.StripeObject.__init__ = _object_init
    ls.Event.__init__ = _event_init
    ls.Event._export = _event_export
    ls.schedule_webhook = deliveries.schedule
