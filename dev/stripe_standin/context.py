"""Per-request and per-clock context: which API version answers, which request caused an event, what time it is.

- API version: the SDK sends `Stripe-Version` (stripe 16.1.0 pins `2026-10-28.endive`); answers and events use
  today's shapes (since 2025-03-31.basil: `invoice.confirmation_secret`, `invoice.payments`,
  `invoice.parent.subscription_details`, periods on subscription items). A request that asks for an older
  version gets the pre-basil fields too (`invoice.payment_intent`, `invoice.subscription`,
  `subscription.current_period_end`, `payment_intent.invoice`), as Stripe would answer it.
- Time: objects of a customer on a test clock live at that clock's time. `at(ts)` makes every object and
  event created inside it carry `ts` as `created` (localstripe stamps `time.time()`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

import stripe

CURRENT_API_VERSION: str = stripe.api_version  # what the pinned SDK sends (and reads)
BASIL = "2025-03-31"  # the first version with invoice.payments / confirmation_secret

api_version: ContextVar[str] = ContextVar("api_version", default=CURRENT_API_VERSION)
request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
idempotency_key: ContextVar[str | None] = ContextVar("idempotency_key", default=None)
_now: ContextVar[int | None] = ContextVar("simulated_now", default=None)
default_api_version = CURRENT_API_VERSION  # events' version (a webhook endpoint's); --api-version sets it


def legacy_shape() -> bool:
    """True when the caller asked for an API version older than basil."""
    return api_version.get()[:10] < BASIL


def now() -> int:
    """The time objects created here carry: a test clock's time inside `at()`, else the wall clock."""
    simulated = _now.get()
    return int(time.time()) if simulated is None else simulated


def simulated() -> bool:
    return _now.get() is not None


@contextlib.contextmanager
def at(timestamp: int | None) -> Iterator[None]:
    """Run the block at `timestamp` (None: the wall clock)."""
    token = _now.set(timestamp)
    try:
        yield
    finally:
        _now.reset(token)


@contextlib.contextmanager
def version(value: str) -> Iterator[None]:
    token = api_version.set(value)
    try:
        yield
    finally:
        api_version.reset(token)
