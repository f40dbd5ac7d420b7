"""Recurring revenue for vendors and admins: subscribers, MRR (USD at each subscription's own rate),
cancellations and refunds in the last 30 days; renewals count as sales everywhere, refunded orders nowhere."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlmodel import update

from marketplace import db
from marketplace.models import OrderKind, OrderStatus, Refund, RefundStatus, SubscriptionStatus
from marketplace.services import pricing
from marketplace.services.admin import sales as admin_sales
from marketplace.services.errors import Forbidden, Unauthorized
from marketplace.services.vendors import recurring, sales
from tests.factories import make_admin, make_agent, make_order, make_refund, make_subscription, make_user, make_vendor

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)


@pytest.fixture
def shop():
    vendor, rival = make_vendor(), make_vendor()
    agent = make_agent(vendor, "Monthly", price_cents=2999)
    rival_agent = make_agent(rival, "Rival", price_cents=1000)
    return vendor, rival, agent, rival_agent


def _partly(refund, cents):
    """A refund of part of its order (as one made in Stripe's dashboard may be)."""
    with db.session_scope() as session:
        session.exec(update(Refund).where(Refund.id == refund.id).values(amount_cents=cents))


def _subscribe(agent, status=SubscriptionStatus.ACTIVE, **fields):
    return make_subscription(agent, make_user(), status=status, **fields)


def test_subscribers_and_mrr_count_live_subscriptions_at_their_own_rate(shop):
    vendor, rival, agent, rival_agent = shop
    _subscribe(agent)                                                                # 29.99 USD
    _subscribe(agent, currency="eur", price_cents=2759, exchange_rate=Decimal("0.9200"))  # 2998.91 -> 29.99
    _subscribe(agent, status=SubscriptionStatus.PAST_DUE, price_cents=1500)          # in its grace period
    _subscribe(agent, cancel_at_period_end=True, canceled_at=NOW - timedelta(days=2))  # paid until the period ends
    _subscribe(agent, status=SubscriptionStatus.PAST_DUE, ended_at=NOW - timedelta(days=1))  # lapsed
    for status in (SubscriptionStatus.CANCELED, SubscriptionStatus.INCOMPLETE, SubscriptionStatus.UNPAID):
        _subscribe(agent, status=status)
    _subscribe(rival_agent)
    mine = recurring.vendor_recurring(actor=vendor, now=NOW)
    assert mine.active_subscribers == 4
    assert mine.mrr_cents == 2999 + 2999 + 1500 + 2999
    theirs = recurring.vendor_recurring(actor=rival, now=NOW)
    assert (theirs.active_subscribers, theirs.mrr_cents) == (1, 1000)
    summary = admin_sales.summary(actor=make_admin(), now=NOW)
    assert (summary.active_subscriptions, summary.mrr_cents) == (5, 2999 * 3 + 1500 + 1000)


def test_cancellations_in_the_last_30_days(shop):
    vendor, _, agent, rival_agent = shop
    for days in (0, 1, 29.9):
        _subscribe(agent, status=SubscriptionStatus.CANCELED, canceled_at=NOW - timedelta(days=days))
    _subscribe(agent, status=SubscriptionStatus.CANCELED, canceled_at=NOW - timedelta(days=30))  # the window's edge
    _subscribe(agent, status=SubscriptionStatus.CANCELED, canceled_at=NOW - timedelta(days=45))
    _subscribe(agent, canceled_at=NOW + timedelta(hours=1))  # after `now`: not yet
    _subscribe(rival_agent, status=SubscriptionStatus.CANCELED, canceled_at=NOW - timedelta(days=1))
    assert recurring.vendor_recurring(actor=vendor, now=NOW).cancellations_30d == 3


def test_refunds_in_the_last_30_days_in_usd(shop):
    vendor, _, agent, rival_agent = shop
    buyer = make_user()
    whole = make_order(agent, buyer, status=OrderStatus.REFUNDED, refunded_at=NOW - timedelta(days=3),
                       created_at=NOW - timedelta(days=10))
    make_refund(whole)                                                                  # 29.99 back
    eur = make_order(agent, buyer, currency="eur", exchange_rate="0.9200", status=OrderStatus.REFUNDED,
                     refunded_at=NOW - timedelta(days=29), created_at=NOW - timedelta(days=40))
    _partly(make_refund(eur), 1380)                                                     # part: 13.80 EUR = 15.00
    make_refund(eur, status=RefundStatus.FAILED)                                        # a failed try is not money
    # Refunded at payment time before `refunded_at` existed: dated by the order.
    make_order(agent, buyer, status=OrderStatus.REFUNDED, created_at=NOW - timedelta(days=5), amount_cents=500)
    old = make_order(agent, buyer, status=OrderStatus.REFUNDED, refunded_at=NOW - timedelta(days=31),
                     created_at=NOW - timedelta(days=60))
    make_refund(old)
    make_order(agent, buyer, created_at=NOW - timedelta(days=3))                         # kept: not a refund
    make_order(rival_agent, buyer, status=OrderStatus.REFUNDED, refunded_at=NOW - timedelta(days=1))
    figures = recurring.vendor_recurring(actor=vendor, now=NOW)
    assert (figures.refunds_30d, figures.refunded_30d_cents) == (3, 2999 + 1500 + 500)


def test_renewals_count_as_sales_and_refunded_orders_do_not(shop):
    vendor, _, agent, _ = shop
    subscription = _subscribe(agent)
    first = NOW - timedelta(days=40)
    make_order(agent, make_user(), kind=OrderKind.SUBSCRIPTION, subscription_id=subscription.id, created_at=first)
    make_order(agent, make_user(), kind=OrderKind.RENEWAL, subscription_id=subscription.id,
               created_at=NOW - timedelta(days=10))                                    # 2999: vendor 2399
    make_order(agent, make_user(), kind=OrderKind.RENEWAL, currency="eur", exchange_rate="0.9200",
               created_at=NOW - timedelta(days=2))                                     # 2759 EUR: vendor 2207 = 2399
    refunded = make_order(agent, make_user(), kind=OrderKind.RENEWAL, status=OrderStatus.REFUNDED,
                          refunded_at=NOW - timedelta(days=1), created_at=NOW - timedelta(days=5))
    make_refund(refunded)
    days = {p.start: p for p in sales.earnings_series(actor=vendor, period="day", now=NOW)}
    assert (days[(NOW - timedelta(days=10)).date()].sales, days[(NOW - timedelta(days=10)).date()].vendor_cents) == (
        1, 2399)
    assert days[(NOW - timedelta(days=2)).date()].vendor_cents == 2399
    assert days[(NOW - timedelta(days=5)).date()].sales == 0  # the refunded renewal is not earned
    assert sum(p.sales for p in days.values()) == 2  # the first payment is older than 30 days
    months = sales.earnings_series(actor=vendor, period="month", now=NOW)
    assert sum(p.sales for p in months) == 3 and sum(p.vendor_cents for p in months) == 3 * 2399
    totals = sales.analytics(actor=vendor, now=NOW)
    assert (totals.total_sales, totals.total_vendor_earnings_cents, totals.total_revenue_cents) == (
        3, 3 * 2399, 3 * 2999)
    listed = sales.list_sales(actor=vendor)
    assert listed.total == 3 and refunded.id not in {s.order_id for s in listed.items}
    assert sorted(s.kind for s in listed.items) == ["renewal", "renewal", "subscription"]
    rows = list(csv.DictReader(io.StringIO("".join(sales.sales_csv(actor=vendor)))))
    assert sorted(r["kind"] for r in rows) == ["renewal", "renewal", "subscription"]


def test_order_kinds_read_as_words():
    assert [pricing.order_kind_label(k) for k in ("purchase", "subscription", "renewal")] == [
        "Purchase", "Subscription", "Renewal"]


def test_admin_entries_label_every_kind(shop):
    _, _, agent, _ = shop
    for kind in (OrderKind.PURCHASE, OrderKind.SUBSCRIPTION, OrderKind.RENEWAL):
        make_order(agent, make_user(), kind=kind)
    rows, _ = admin_sales.list_commissions(actor=make_admin())
    assert sorted(r.kind_label for r in rows) == ["Purchase", "Renewal", "Subscription"]
    assert admin_sales.summary(actor=make_admin()).total_sales == 3


def test_only_vendors_see_their_figures_and_only_admins_the_platforms():
    with pytest.raises(Unauthorized):
        recurring.vendor_recurring(actor=None)
    for outsider in (make_user(), make_vendor(vendor_approved=False)):
        with pytest.raises(Forbidden):
            recurring.vendor_recurring(actor=outsider)
    for outsider in (make_user(), make_vendor()):
        with pytest.raises(Forbidden):
            admin_sales.summary(actor=outsider)
    assert recurring.vendor_recurring(actor=make_admin()).active_subscribers == 0  # an admin acting as a vendor


def test_trials_count_apart_from_payers_with_their_conversion_in_the_last_30_days(shop):
    """Trialing subscribers are not paying: not in the subscribers or MRR; of the trials that ended in the last 30
    days, those whose subscription has a completed (paid) order converted."""
    vendor, _rival, agent, rival_agent = shop
    _subscribe(agent)  # paying
    _subscribe(agent, SubscriptionStatus.TRIALING, trial_end=NOW + timedelta(days=3))  # in a trial now
    _subscribe(agent, SubscriptionStatus.TRIALING, trial_end=NOW + timedelta(days=3),
               ended_at=NOW - timedelta(days=1))  # cancelled and ended: not counted
    _subscribe(rival_agent, SubscriptionStatus.TRIALING, trial_end=NOW + timedelta(days=3))  # another vendor's
    converted = _subscribe(agent, trial_end=NOW - timedelta(days=10))
    make_order(agent, kind=OrderKind.SUBSCRIPTION, subscription_id=converted.id, created_at=NOW - timedelta(days=10))
    _subscribe(agent, SubscriptionStatus.CANCELED, trial_end=NOW - timedelta(days=5))  # cancelled in its trial
    _subscribe(agent, SubscriptionStatus.PAST_DUE, trial_end=NOW - timedelta(days=2))  # first charge failed
    _subscribe(agent, trial_end=NOW - timedelta(days=40))  # ended before the window
    with db.session_scope() as session:
        mine = recurring.figures(session, vendor_id=vendor.id, now=NOW)
        platform = recurring.figures(session, vendor_id=None, now=NOW)
    assert (mine.trialing_subscribers, mine.trials_ended_30d, mine.trials_converted_30d) == (1, 3, 1)
    assert mine.trial_conversion_percent == 33
    assert mine.active_subscribers == 4 and mine.mrr_cents == 4 * 2999  # active + past due, no trials
    assert platform.trialing_subscribers == 2
    summary = admin_sales.summary(actor=make_admin(), now=NOW)
    assert summary.trialing_subscriptions == 2
    with db.session_scope() as session:
        assert recurring.figures(session, vendor_id=make_vendor().id, now=NOW).trial_conversion_percent is None
