"""The demo customer's billing seeding (dev tooling) against the stand-in: real subscriptions, and only once."""

from __future__ import annotations

from datetime import UTC, timedelta
from itertools import pairwise

from sqlmodel import select

from dev.stripe_standin import seed_billing, seed_demo
from marketplace import db
from marketplace.models import Order, OrderKind, OrderStatus, Refund, Subscription, User
from marketplace.models.base import utcnow
from marketplace.services import billing, demo, plans, refunds
from marketplace.services.admin import sales
from marketplace.services.billing import demo_clock
from marketplace.services.vendors import recurring


def _user(username: str) -> User:
    with db.session_scope() as session:
        return session.exec(select(User).where(User.username == username)).one()


def _orders(subscription_id: str) -> list[Order]:
    with db.session_scope() as session:
        return list(session.exec(select(Order).where(Order.subscription_id == subscription_id)
                                 .order_by(Order.created_at, Order.id)).all())


def _snapshot() -> tuple[list[tuple[str, str, bool]], list[tuple[str, str, str]], int]:
    with db.session_scope() as session:
        subs = [(s.stripe_subscription_id, s.status, s.cancel_at_period_end)
                for s in session.exec(select(Subscription).order_by(Subscription.id)).all()]
        orders = [(o.id, o.kind, o.status) for o in session.exec(select(Order).order_by(Order.id)).all()]
        refunds = len(session.exec(select(Refund.id)).all())
    return subs, orders, refunds


def test_the_demo_customer_gets_real_subscriptions_renewals_and_a_refund_once(stripe_standin, demo_mode):
    demo.seed()
    seed_demo.seed(stripe_standin.base)
    made = seed_billing.seed()
    assert made is not None
    customer, vendor, admin = _user("customer"), _user("vendor"), _user("admin")

    views = {v.id: v for v in billing.list_subscriptions(actor=customer)}
    renewing, cancelled, past_due = views[made["renewing"]], views[made["cancelled"]], views[made["past_due"]]
    assert (renewing.status, renewing.cancel_at_period_end) == ("active", False)
    assert (cancelled.status, cancelled.cancel_at_period_end, cancelled.can_resume) == ("active", True, True)
    assert past_due.past_due
    for view in (renewing, cancelled):
        kinds = [o.kind for o in _orders(view.id)]
        assert kinds == [OrderKind.SUBSCRIPTION, OrderKind.RENEWAL, OrderKind.RENEWAL]
        dates = [o.created_at for o in _orders(view.id)]  # a month apart, the last one within the month
        assert all(timedelta(days=28) <= b - a <= timedelta(days=31) for a, b in pairwise(dates))
        assert utcnow() - timedelta(days=31) < dates[-1].replace(tzinfo=UTC) < utcnow()
    assert [o.kind for o in _orders(past_due.id)] == [OrderKind.SUBSCRIPTION, OrderKind.RENEWAL]

    # Real in the stand-in: the Stripe side agrees, renewals a month apart on the demo clock.
    with db.session_scope() as session:
        row = session.get(Subscription, renewing.id)
    invoices = stripe_standin.stripe.v1.invoices.list(params={"subscription": row.stripe_subscription_id}).data
    paid = sorted(i.status_transitions.paid_at for i in invoices if i.status == "paid")
    assert len(paid) == 3 and all(timedelta(days=28) <= timedelta(seconds=b - a) <= timedelta(days=31)
                                  for a, b in pairwise(paid))
    stripe_sub = stripe_standin.stripe.v1.subscriptions.retrieve(row.stripe_subscription_id)
    assert stripe_sub.status == "active" and stripe_sub.customer == row.stripe_customer_id

    with db.session_scope() as session:
        refunded, self_refunded, requested = (session.get(Order, made[key]) for key in (
            "refunded_order", "self_refunded_order", "requested_order"))
    assert (refunded.kind, refunded.status, refunded.user_id, refunded.vendor_id) \
        == (OrderKind.PURCHASE, OrderStatus.REFUNDED, customer.id, vendor.id)
    assert (self_refunded.status, requested.status) == (OrderStatus.REFUNDED, OrderStatus.COMPLETED)
    assert {(r.order_id, r.source) for r in refunds.list_refunds(actor=admin, status="succeeded")[0]} \
        == {(refunded.id, "admin"), (self_refunded.id, "customer")}
    assert [r.order_id for r in refunds.list_refunds(actor=admin)[0]] == [requested.id]  # the tab's first view

    figures = recurring.vendor_recurring(actor=vendor)
    assert figures.active_subscribers == 3 and figures.mrr_cents > 0
    assert figures.cancellations_30d == 1 and figures.refunds_30d >= 1
    overview = sales.summary(actor=admin)
    assert overview.active_subscriptions == 3 and overview.mrr_cents == figures.mrr_cents

    # The demo vendor's Pro plan is a real subscription, renewed twice on the demo clock (the plan revenue), so
    # its sales pay Pro's fee; nova_labs is on Free at its limit.
    pro = plans.current_plan(actor=vendor)
    assert (pro.plan.id, pro.status, pro.pending_plan) == ("pro", "active", None) and pro.current_period_end
    assert [(p.plan_id, p.revenue_cents, p.vendors) for p in overview.plan_revenue] == [
        ("pro", 3 * 2900, 1), ("enterprise", 0, 0)]
    assert _orders(renewing.id)[-1].commission_rate == plans.get_plan(plan_id="pro").fee_percent
    nova = plans.current_plan(actor=_user("nova_labs"))
    assert nova.plan.id == "free" and nova.at_limit
    assert plans.room_refusal(actor=_user("nova_labs")) == "Your Free plan allows 3 agents. Upgrade to list more."

    before = _snapshot()
    assert seed_billing.seed() is None
    assert _snapshot() == before

    # What the demo lets people do works on them: resume, a new card paying the past-due renewal, the clock.
    assert not billing.resume_subscription(actor=customer, subscription_id=cancelled.id).cancel_at_period_end
    started = billing.start_card_update(actor=customer, subscription_id=past_due.id)
    assert stripe_standin.confirm_setup(started.client_secret).status_code == 200
    fixed = billing.finish_card_update(actor=customer, subscription_id=past_due.id,
                                       setup_intent_id=started.client_secret.split("_secret_")[0])
    assert (fixed.status, fixed.past_due) == ("active", False)
    assert [o.kind for o in _orders(past_due.id)] == [OrderKind.SUBSCRIPTION, OrderKind.RENEWAL, OrderKind.RENEWAL]
    assert demo_clock.advance_clock(actor=admin, days=1).status == "ready"


def test_nothing_to_do_without_the_demo_accounts(stripe_standin, demo_mode):
    assert seed_billing.seed() is None
    assert stripe_standin.stripe.v1.test_helpers.test_clocks.list().data == []


def test_nothing_to_do_without_demo_mode(stripe_standin):
    demo.seed()
    seed_demo.seed(stripe_standin.base)
    assert seed_billing.seed() is None
    assert _snapshot()[0] == []
