"""What Stripe Billing does on its own, on a timeline (a test clock, or the wall clock for customers without one).

In time order: a trial's `customer.subscription.trial_will_end` three days before its end; an `incomplete`
subscription expires 23 hours after creation (`incomplete_expired`, its invoice
voided, `customer.subscription.deleted`); a cancellation scheduled with `cancel_at` happens; at a period end a
subscription renews (a draft invoice for the next period) or ends (`cancel_at_period_end`); a draft renewal is
finalized and charged an hour after its creation; a failed invoice is retried at `next_payment_attempt`.
clocks.py runs these steps for a test clock's advance and for the wall clock.
"""

from __future__ import annotations

from typing import Any

from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import compat, context
from dev.stripe_standin.customers import after_setup, attach, retrieve_customer
from dev.stripe_standin.delivery import emit
from dev.stripe_standin.invoices import ENDED, Invoice
from dev.stripe_standin.subscriptions import Subscription, add_interval, cancel_now, pending_setup_succeeded

INCOMPLETE_EXPIRY = 23 * 3600
TRIAL_WILL_END_BEFORE = 3 * 86400  # Stripe's `customer.subscription.trial_will_end`: three days before the end


def _due(customer_ids: set[str] | None, clock_id: str | None) -> list[tuple[int, int, str, Any]]:
    """Every pending automatic action of these customers: (time, order, kind, object)."""
    actions: list[tuple[int, int, str, Any]] = []
    for sub in ls.store.of("subscription"):
        if not isinstance(sub, Subscription) or sub.test_clock != clock_id or sub.status in ENDED:
            continue
        if customer_ids is not None and sub.customer not in customer_ids:
            continue
        if sub.status == "incomplete":
            actions.append((sub.created + INCOMPLETE_EXPIRY, 0, "expire", sub))
            continue
        if sub.status == "trialing" and sub.trial_end is not None and not sub.trial_will_end_sent:
            actions.append((max(sub.created, sub.trial_end - TRIAL_WILL_END_BEFORE), 0, "trial_will_end", sub))
        if sub.cancel_at is not None and sub.cancel_at < sub._period_end:
            actions.append((sub.cancel_at, 0, "cancel", sub))
        actions.append((sub._period_end, 1, "period_end", sub))
    for invoice in ls.store.of("invoice"):
        if not isinstance(invoice, Invoice) or invoice.test_clock != clock_id:
            continue
        if customer_ids is not None and invoice.customer not in customer_ids:
            continue
        if invoice.status == "draft" and invoice.auto_advance and invoice.automatically_finalizes_at is not None:
            actions.append((invoice.automatically_finalizes_at, 2, "finalize", invoice))
        elif invoice.status == "open" and invoice.auto_advance and invoice.next_payment_attempt is not None:
            actions.append((invoice.next_payment_attempt, 3, "retry", invoice))
    return sorted(actions, key=lambda a: (a[0], a[1], a[3].created))


def next_due(clock_id: str | None, until: int) -> tuple[int, str, Any] | None:
    actions = [a for a in _due(None, clock_id) if a[0] <= until]
    return (actions[0][0], actions[0][2], actions[0][3]) if actions else None


def run_action(kind: str, obj: Any, at: int) -> None:
    """Do one automatic action at its time (the caller sets the clock's time)."""
    with context.at(at):
        if kind == "expire":
            before = obj._fields()
            obj.status = "incomplete_expired"
            obj.ended_at = at
            invoice = ls.store.get(f"invoice:{obj.latest_invoice}") if obj.latest_invoice else None
            if invoice is not None and invoice.status == "open":
                invoice._void()
            previous = {k: v for k, v in before.items() if obj._fields().get(k) != v}
            emit("customer.subscription.deleted", obj, previous=previous)
        elif kind == "trial_will_end":
            obj._trial_will_end()
        elif kind == "cancel":
            cancel_now(obj, reason="cancellation_requested", at=at)
        elif kind == "period_end":
            obj._renew()
        elif kind == "finalize":
            try:
                obj._finalize()
            except UserError as error:
                obj._finalization_failed(error)
                return
            if obj.status == "open" and obj.auto_advance:
                sub = obj._subscription()
                if sub is None or sub.status != "unpaid":
                    obj._attempt(obj._charge_method(), automatic=True)
                else:
                    obj.auto_advance = False
        elif kind == "retry":
            obj._attempt(obj._charge_method(), automatic=True)


def max_advance(clock_id: str, frozen_time: int) -> int:
    """Stripe's limit: two intervals of the shortest subscription on the clock (two years without one)."""
    limits = [add_interval(frozen_time, s._interval, s._interval_count, 2) for s in ls.store.of("subscription")
              if isinstance(s, Subscription) and s.test_clock == clock_id and s.status not in ENDED]
    return min(limits) if limits else add_interval(frozen_time, "year", 1, 2)


def _save_card_after_payment(intent: Any) -> None:
    """A PaymentIntent with setup_future_usage attaches its card to the customer on success, as Stripe does."""
    if getattr(intent, "setup_future_usage", None) and intent.customer and intent.payment_method:
        method = ls.store.get(f"payment_method:{intent.payment_method}")
        if method is not None and method.customer is None:
            attach(method.id, retrieve_customer(intent.customer))


def install() -> None:
    if pending_setup_succeeded not in after_setup:
        after_setup.append(pending_setup_succeeded)
    if _save_card_after_payment not in compat.before_success:
        compat.before_success.append(_save_card_after_payment)
