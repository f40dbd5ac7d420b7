"""Recurring revenue: subscribers, monthly recurring revenue, cancellations and refunds, for one vendor (its
dashboard) or the whole platform (the admin's overview and sales summary, services/admin/sales.py).

How each figure is computed:
- active subscribers: subscriptions whose status is `active` or `past_due` (a failed renewal still in its grace
  period) and that have not ended (`ended_at` is NULL); one per subscription, so a customer subscribed to two
  agents counts twice, as the vendor is paid twice;
- monthly recurring revenue (MRR): the sum of those subscriptions' monthly price, in USD. A subscription keeps
  the price, currency and exchange rate of the moment it started (later price changes apply to new buyers), so
  each one is converted back to USD at its own snapshotted rate (1 USD = rate units), half-up to the cent, the
  way every other dashboard amount converts an order (`sales.to_usd`); sums are grouped by (currency, rate) in
  SQL, so the work is a few rows whatever the number of subscriptions. A subscription set to cancel at the
  period's end still counts: it is paid until then;
- trials (issue 31): subscriptions in a free trial whose card is saved (`trialing`, `trial_end` set, not ended)
  count apart from the paying ones and add nothing to MRR until their first charge; the trial-to-paid
  conversion is, of the trials that ended in the last 30 days (now - 30 days < trial_end <= now), the share whose
  subscription has a completed order (its first charge was paid);
- cancellations: subscriptions whose `canceled_at` falls in the last 30 days (now - 30 days < canceled_at <= now);
- refunds: orders with status `refunded` given back in the last 30 days (by `refunded_at`; an order refunded
  before that column existed, at payment time, by its `created_at`), counted and summed in USD at each order's
  own rate: the amount of the order's succeeded refund when there is one (`refunds`), else the whole order.
Earnings, revenue and the earnings chart (services/vendors/sales.py) count completed orders only: renewals are
completed orders of kind `renewal` and count like any sale; a refunded order is no longer completed and drops
out of every sum.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, func
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Order, OrderStatus, Refund, RefundStatus, Subscription, SubscriptionStatus, User
from marketplace.services.permissions import require_vendor
from marketplace.services.vendors.sales import to_usd

WINDOW_DAYS = 30
LIVE_STATUSES = (SubscriptionStatus.ACTIVE, SubscriptionStatus.PAST_DUE)


@dataclass(frozen=True)
class RecurringFigures:
    active_subscribers: int
    mrr_cents: int  # USD
    cancellations_30d: int
    refunds_30d: int
    refunded_30d_cents: int  # USD
    trialing_subscribers: int = 0
    trials_ended_30d: int = 0
    trials_converted_30d: int = 0

    @property
    def trial_conversion_percent(self) -> int | None:
        """Whole percent of the trials that ended in the last 30 days whose first charge was paid; None: none ended."""
        if not self.trials_ended_30d:
            return None
        return round(self.trials_converted_30d * 100 / self.trials_ended_30d)


def _mine(column: Any, vendor_id: str | None) -> list[Any]:
    return [] if vendor_id is None else [column == vendor_id]


def figures(session: Session, *, vendor_id: str | None, now: datetime) -> RecurringFigures:
    """The four figures for one vendor, or the whole platform when `vendor_id` is None (three grouped queries)."""
    since = now - timedelta(days=WINDOW_DAYS)
    active = session.exec(
        select(Subscription.currency, Subscription.exchange_rate, func.count(), func.sum(Subscription.price_cents))
        .where(*_mine(Subscription.vendor_id, vendor_id), Subscription.status.in_(LIVE_STATUSES),
               Subscription.ended_at.is_(None))
        .group_by(Subscription.currency, Subscription.exchange_rate)).all()
    cancellations = session.exec(
        select(func.count()).select_from(Subscription)
        .where(*_mine(Subscription.vendor_id, vendor_id), Subscription.canceled_at > since,
               Subscription.canceled_at <= now)).one()
    given_back = func.coalesce(Order.refunded_at, Order.created_at)
    refunded = session.exec(
        select(Order.currency, Order.exchange_rate, func.count(),
               func.sum(func.coalesce(Refund.amount_cents, Order.total_amount_cents)))
        .outerjoin(Refund, and_(Refund.order_id == Order.id, Refund.status == RefundStatus.SUCCEEDED))
        .where(*_mine(Order.vendor_id, vendor_id), Order.status == OrderStatus.REFUNDED, given_back > since,
               given_back <= now)
        .group_by(Order.currency, Order.exchange_rate)).all()
    trialing = session.exec(
        select(func.count()).select_from(Subscription)
        .where(*_mine(Subscription.vendor_id, vendor_id), Subscription.status == SubscriptionStatus.TRIALING,
               Subscription.trial_end.is_not(None), Subscription.ended_at.is_(None))).one()
    paid = select(Order.id).where(Order.subscription_id == Subscription.id, Order.status == OrderStatus.COMPLETED,
                                  Order.total_amount_cents > 0).exists()
    ended, converted = session.exec(
        select(func.count(), func.count().filter(paid)).select_from(Subscription)
        .where(*_mine(Subscription.vendor_id, vendor_id), Subscription.trial_end > since,
               Subscription.trial_end <= now)).one()
    return RecurringFigures(
        trialing_subscribers=int(trialing), trials_ended_30d=int(ended), trials_converted_30d=int(converted),
        active_subscribers=sum(int(count) for _, _, count, _ in active),
        mrr_cents=sum(to_usd(int(cents or 0), currency, rate) for currency, rate, _, cents in active),
        cancellations_30d=int(cancellations),
        refunds_30d=sum(int(count) for _, _, count, _ in refunded),
        refunded_30d_cents=sum(to_usd(int(cents or 0), currency, rate) for currency, rate, _, cents in refunded),
    )


def vendor_recurring(*, actor: User | None, now: datetime | None = None) -> RecurringFigures:
    """The signed-in vendor's recurring revenue (an admin acting as a vendor sees its own)."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        return figures(session, vendor_id=vendor.id, now=now or datetime.now(UTC))
