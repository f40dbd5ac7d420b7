"""The demo customer's subscriptions and refunds, and the demo vendor's Pro plan, real in the local stand-in (run
by `seed_demo` after the vendor).

`customer` subscribes, through the product's checkout and billing services, to three monthly agents of the
demo vendor, each paid with Stripe's test card (confirmed server-side as Stripe.js would confirm it). The demo
test clock is created two months back, so advancing it (a month, then up to now) makes Stripe renew each
subscription twice. Before the second renewal one subscription gets, through the update-card flow, the test card
that attaches but declines every charge (4000000000000341): that renewal fails and it is past due. Another is
cancelled at the period end. The customer also buys three one-time licences (the demo vendor's first): an admin
refunds one, the customer gets one back under the 30-day guarantee, and asks for the third, which, as a third
refund within 90 days, waits in the admin's Refunds tab. The demo vendor subscribes to the Pro plan at the clock's
start, so its plan renews twice too (the admin's plan revenue).

The stand-in's webhooks are applied here by the same billing handlers the webhook route calls (`make run` seeds
before the app serves, with the stand-in's endpoint not yet registered). The orders, subscriptions and access
are then dated when Stripe's clock says they happened. Idempotent: a demo customer who already has
subscriptions is left as they are.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.integrations import billing, payments
from marketplace.models import (
    FREE_PLAN_ID,
    Agent,
    AgentStatus,
    Order,
    PlanPayment,
    PlatformSetting,
    PricingModel,
    Purchase,
    Subscription,
    User,
    VendorPlan,
)
from marketplace.models.base import utcnow
from marketplace.services import plans, refunds
from marketplace.services.billing import cancel_subscription, demo_clock, finish_card_update, start_card_update
from marketplace.services.billing import invoices as billing_invoices
from marketplace.services.plans import subscriptions as plan_subscriptions
from marketplace.services.purchases import checkout, completion

CUSTOMER, VENDOR, ADMIN = "customer", "vendor", "admin"
VENDOR_PLAN = "pro"
START_DAYS_AGO = 63  # the clock starts here: two monthly renewals fall before today
FIRST_ADVANCE_DAYS = 32
SECOND_ADVANCE_DAYS = 31  # at least: to today (a demo clock made elsewhere at today's time goes ahead)
GOOD_CARD = "pm_card_visa"
FAILING_CARD = "pm_card_chargeCustomerFail"  # 4000000000000341: attaches, then every charge is declined
REFUND_REASON = "Charged twice by the bank, per the customer's e-mail"
GUARANTEE_REASON = "It does not handle our invoices in euros."
WAITING_REASON = "I expected it to connect to our CRM."
READY_TIMEOUT_S = 120.0


def _user(username: str) -> User | None:
    with db.session_scope() as session:
        return session.exec(select(User).where(User.username == username)).first()


def _agents(vendor: User) -> tuple[list[Agent], list[Agent]]:
    """Three monthly agents of the vendor and three one-time agents (the vendor's first), by name, so every run
    picks the same."""
    with db.session_scope() as session:
        rows = session.exec(select(Agent).where(Agent.status == AgentStatus.APPROVED, Agent.price_cents > 0)
                            .order_by(Agent.name)).all()
    monthly = [a for a in rows if a.pricing_model == PricingModel.MONTHLY and a.vendor_id == vendor.id][:3]
    one_time = sorted((a for a in rows if a.pricing_model == PricingModel.ONE_TIME),
                      key=lambda a: a.vendor_id != vendor.id)[:3]
    return monthly, one_time


def _buy(buyer: User, agent: Agent) -> Order:
    """The checkout of a one-time licence, paid."""
    opened = checkout.create_payment_intent(actor=buyer, agent_id=agent.id)
    _pay(opened.client_secret)
    return completion.complete_payment(actor=buyer, payment_intent_id=opened.payment_intent_id,
                                       agent_id=agent.id).order


def _start_clock() -> None:
    """The demo clock, created two months back (unless demo mode already has one), so renewals are in the past."""
    with db.session_scope() as session:
        if session.get(PlatformSetting, demo_clock.CLOCK_SETTING) is not None:
            return
    clock = billing.create_test_clock(name="AgentMarket demo", frozen_time=utcnow() - timedelta(days=START_DAYS_AGO))
    with db.session_scope() as session:
        session.add(PlatformSetting(key=demo_clock.CLOCK_SETTING, value=clock.id,
                                    description="The demo mode's Stripe test clock"))


def _pay(client_secret: str) -> None:
    intent_id = client_secret.split("_secret_")[0]
    payments.client().v1.payment_intents.confirm(intent_id, params={"payment_method": GOOD_CARD})


def _subscribe(buyer: User, agent: Agent) -> str:
    """The checkout of a monthly agent, paid: answers the subscription row's id."""
    opened = checkout.create_payment_intent(actor=buyer, agent_id=agent.id)
    _pay(opened.client_secret)
    billing_invoices.record_payment(actor=buyer, payment_intent_id=opened.payment_intent_id, agent_id=agent.id,
                                    user_id=None)
    assert opened.subscription_id is not None
    return opened.subscription_id


def _give_failing_card(buyer: User, subscription_id: str) -> None:
    """The update-card flow with the card that declines every later charge."""
    started = start_card_update(actor=buyer, subscription_id=subscription_id)
    intent_id = started.client_secret.split("_secret_")[0]
    payments.client().v1.setup_intents.confirm(intent_id, params={"payment_method": FAILING_CARD})
    finish_card_update(actor=buyer, subscription_id=subscription_id, setup_intent_id=intent_id)


def _advance(to: datetime) -> None:
    clock_id = demo_clock.clock_id_for_new_customer()
    assert clock_id is not None
    billing.advance_test_clock(clock_id, to=to)
    deadline = time.monotonic() + READY_TIMEOUT_S
    while billing.retrieve_test_clock(clock_id).status == "advancing":
        if time.monotonic() > deadline:
            raise RuntimeError(f"the demo clock {clock_id} is still advancing")
        time.sleep(0.1)


def _apply_webhooks(buyer: User) -> None:
    """What the `invoice.*` and `customer.subscription.*` webhooks do, for each of the buyer's subscriptions."""
    with db.session_scope() as session:
        stripe_ids = session.exec(select(Subscription.stripe_subscription_id)
                                  .where(Subscription.user_id == buyer.id)).all()
    for stripe_id in stripe_ids:
        listed = payments.client().v1.invoices.list(params={"subscription": stripe_id, "limit": 100})
        for invoice in sorted(listed.data, key=lambda i: i.created):
            if invoice.status == "paid":
                billing_invoices.invoice_paid(invoice.id)
            elif invoice.status == "open" and invoice.attempt_count:
                billing_invoices.invoice_payment_failed(invoice.id)
        billing_invoices.subscription_changed(stripe_id)


def _vendor_on_pro(vendor: User) -> None:
    """The demo vendor's Pro plan (the demo data's, which has no subscription) made real: chosen through the
    plans service on the demo clock and its first invoice paid, as the Payment Element would."""
    with db.session_scope() as session:
        row = session.get(VendorPlan, vendor.id)
        if row is not None and row.stripe_subscription_id:
            return
        session.merge(VendorPlan(user_id=vendor.id, plan_id=FREE_PLAN_ID))  # to be paid for from Free
    change = plans.choose_plan(actor=vendor, plan_id=VENDOR_PLAN)
    assert change.client_secret is not None
    _pay(change.client_secret)
    plans.refresh_plan(actor=vendor)


def _apply_plan_webhooks(vendor: User) -> None:
    """What the webhooks do for the vendor's plan subscription: each paid invoice recorded, the plan mirrored,
    each payment dated when Stripe's clock says it was paid."""
    with db.session_scope() as session:
        row = session.get(VendorPlan, vendor.id)
        stripe_id = row.stripe_subscription_id if row is not None else None
    if stripe_id is None:
        return
    client = payments.client()
    listed = client.v1.invoices.list(params={"subscription": stripe_id, "limit": 100})
    for invoice in sorted(listed.data, key=lambda i: i.created):
        paid, sub = billing.retrieve_invoice(invoice.id), billing.retrieve_subscription(stripe_id)
        if invoice.status == "paid" and paid is not None and sub is not None:
            plan_subscriptions.invoice_paid(paid, sub)
            with db.session_scope() as session:
                payment = session.exec(select(PlanPayment).where(PlanPayment.invoice_id == invoice.id)).one()
                payment.created_at = datetime.fromtimestamp(invoice.status_transitions.paid_at, UTC)
                session.add(payment)
    current = billing.retrieve_subscription(stripe_id)
    if current is not None:
        plan_subscriptions.mirror(current)


def _dated_by_the_clock(buyer: User) -> None:
    """The app records an invoice's order when it hears of it; these were paid on the demo clock, months back,
    so their orders, the subscriptions and the access they gave are dated when Stripe says they happened (the
    admin's day totals follow an order's date by trigger)."""
    client = payments.client()
    with db.session_scope() as session:
        for sub in session.exec(select(Subscription).where(Subscription.user_id == buyer.id)).all():
            sub.created_at = datetime.fromtimestamp(client.v1.subscriptions.retrieve(sub.stripe_subscription_id)
                                                    .created, UTC)
            session.add(sub)
        orders = session.exec(select(Order).where(Order.user_id == buyer.id, Order.invoice_id.is_not(None))  # type: ignore[union-attr]
                              ).all()
        for order in orders:
            paid_at = client.v1.invoices.retrieve(order.invoice_id).status_transitions.paid_at
            order.created_at = datetime.fromtimestamp(paid_at, UTC)
            session.add(order)
        for purchase in session.exec(select(Purchase).where(Purchase.user_id == buyer.id,
                                                            Purchase.subscription_id.is_not(None))).all():  # type: ignore[union-attr]
            first = session.get(Order, purchase.order_id)
            if first is not None:
                purchase.purchased_at = first.created_at
                session.add(purchase)


def _clock_time() -> datetime:
    clock_id = demo_clock.clock_id_for_new_customer()
    assert clock_id is not None
    return billing.retrieve_test_clock(clock_id).frozen_time


def seed() -> dict[str, str] | None:
    """Seed the demo customer's billing; answers what was made (subscription row ids and order ids by role),
    None when there is nothing to do."""
    if not settings.demo_enabled:  # demo data without demo mode (DEMO_DATA=1 DEMO_MODE=0): there is no demo clock
        print("billing demo: demo mode is off, so there is no demo clock; nothing to do")
        return None
    buyer, vendor, admin = _user(CUSTOMER), _user(VENDOR), _user(ADMIN)
    if buyer is None or vendor is None or admin is None:
        print("billing demo: no 'customer', 'vendor' or 'admin' (load the demo data first); nothing to do")
        return None
    with db.session_scope() as session:
        if session.exec(select(Subscription.id).where(Subscription.user_id == buyer.id)).first():
            print("billing demo: the demo customer already has subscriptions")
            return None
    monthly, one_time = _agents(vendor)
    if len(monthly) < 3 or len(one_time) < 3:
        print("billing demo: fewer than three monthly agents of the demo vendor or three one-time agents")
        return None
    started = time.monotonic()
    _start_clock()
    _vendor_on_pro(vendor)
    renewing, cancelled, past_due = (_subscribe(buyer, agent) for agent in monthly)
    refunded, self_refunded, requested = (_buy(buyer, agent) for agent in one_time)
    _advance(_clock_time() + timedelta(days=FIRST_ADVANCE_DAYS))
    _apply_webhooks(buyer)
    _apply_plan_webhooks(vendor)
    _give_failing_card(buyer, past_due)
    _advance(max(utcnow(), _clock_time() + timedelta(days=SECOND_ADVANCE_DAYS)))
    _apply_webhooks(buyer)
    _apply_plan_webhooks(vendor)
    cancel_subscription(actor=buyer, subscription_id=cancelled)
    refunds.refund_order(actor=admin, order_id=refunded.id, reason=REFUND_REASON)
    refunds.request_refund(actor=buyer, order_id=self_refunded.id, reason=GUARANTEE_REASON)  # paid back at once
    refunds.request_refund(actor=buyer, order_id=requested.id, reason=WAITING_REASON)  # the third: for an admin
    _dated_by_the_clock(buyer)
    with db.session_scope() as session:
        orders = len(session.exec(select(Order.id).where(Order.user_id == buyer.id,
                                                         Order.subscription_id.is_not(None))).all())  # type: ignore[union-attr]
    print(f"billing demo: 3 subscriptions ({orders} paid invoices), 2 refunds and a request in "
          f"{time.monotonic() - started:.1f}s")
    return {"renewing": renewing, "cancelled": cancelled, "past_due": past_due, "refunded_order": refunded.id,
            "self_refunded_order": self_refunded.id, "requested_order": requested.id}
