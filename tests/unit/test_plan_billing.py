"""Vendor plans against the Stripe stand-in: choosing a paid plan through the Payment Element, an upgrade at once
with proration, a downgrade and a cancellation at the period end on a test clock, a failed renewal's grace and
the return to Free, the webhooks telling a plan from a customer's subscription, and each sale's fee following
the vendor's plan at the moment of the charge."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import httpx
import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations import billing as stripe_billing
from marketplace.models import FREE_PLAN_ID, Order, OrderKind, PlanPayment, PricingModel, Subscription, VendorPlan
from marketplace.services import money, plans, purchases
from marketplace.services.errors import Conflict, Forbidden, NotFound, Unauthorized
from marketplace.services.plans.subscriptions import day
from tests import factories
from tests.payments_fixtures import on_clock

DAY = timedelta(days=1)


def _start() -> datetime:
    return datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=1)


def _row(vendor) -> VendorPlan:
    with db.session_scope() as session:
        return session.get(VendorPlan, vendor.id)


def _payments(vendor) -> list[PlanPayment]:
    with db.session_scope() as session:
        return list(session.exec(select(PlanPayment).where(PlanPayment.user_id == vendor.id)
                                 .order_by(PlanPayment.created_at)).all())


def _subscribe_to(standin, vendor, plan_id: str = "pro") -> plans.CurrentPlan:
    change = plans.choose_plan(actor=vendor, plan_id=plan_id)
    assert change.client_secret and change.current.plan.is_free  # nothing changes before the payment
    assert standin.confirm(change.client_secret).json()["status"] == "succeeded"
    return plans.refresh_plan(actor=vendor)


def test_choosing_pro_pays_a_platform_subscription_and_the_plan_follows(stripe_standin, mailbox):
    vendor = factories.make_vendor()
    change = plans.choose_plan(actor=vendor, plan_id="pro")
    first, _, next_charge = change.message.partition(". The next charge of $29.00 is on ")
    assert first == "Pay $29.00/month to start your Pro plan" and next_charge.endswith(".")  # issue 34
    again = plans.choose_plan(actor=vendor, plan_id="pro")  # a double click: the same subscription
    assert again.client_secret == change.client_secret
    assert stripe_standin.confirm(change.client_secret).json()["status"] == "succeeded"
    current = plans.refresh_plan(actor=vendor)
    assert (current.plan.id, current.status, current.pending_plan, current.agent_limit) == ("pro", "active", None,
                                                                                          None)
    assert current.current_period_end > datetime.now(UTC) + 27 * DAY
    assert next_charge == f"{day(current.current_period_end)}."  # the date it then renews
    sub = stripe_billing.retrieve_subscription(_row(vendor).stripe_subscription_id)
    assert sub.transfer_destination is None and sub.application_fee_percent is None  # the platform's own
    assert sub.metadata == {"vendorId": vendor.id, "vendorPlan": "pro"}
    started = mailbox.last(vendor.email, "Your Pro plan has started").text
    assert "We charged $29.00 for the first month" in started  # the amount charged (issue 34)
    assert plans.refresh_plan(actor=vendor) == current  # again: nothing more
    with pytest.raises(Conflict, match="You are already on the Pro plan"):
        plans.choose_plan(actor=vendor, plan_id="pro")


def test_plan_requests_refuse_other_roles_and_bad_input(stripe_standin):
    customer, vendor = factories.make_user(), factories.make_vendor()
    for call in (lambda actor: plans.choose_plan(actor=actor, plan_id="pro"),
                 lambda actor: plans.cancel_plan(actor=actor), lambda actor: plans.current_plan(actor=actor)):
        with pytest.raises(Unauthorized):
            call(None)
        with pytest.raises(Forbidden, match="Vendor access required"):
            call(customer)
    for bad in ("gold", "", "x" * 40):
        with pytest.raises(NotFound, match="Plan not found"):
            plans.choose_plan(actor=vendor, plan_id=bad)
    with pytest.raises(Conflict, match="You are already on the Free plan"):
        plans.choose_plan(actor=vendor, plan_id=FREE_PLAN_ID)
    with pytest.raises(Conflict, match="You are on the Free plan: there is nothing to cancel"):
        plans.cancel_plan(actor=vendor)
    assert _row(vendor) is None


def test_an_upgrade_takes_effect_at_once_with_proration(app_webhooks, monkeypatch, mailbox):
    standin = app_webhooks
    clock = on_clock(standin, monkeypatch, _start())
    vendor = factories.make_vendor()
    first = _subscribe_to(standin, vendor)
    standin.advance(clock, int((first.current_period_end - 15 * DAY).timestamp()))  # about half the period left
    change = plans.choose_plan(actor=vendor, plan_id="enterprise")
    assert change.client_secret is None and change.message == "You are now on the Enterprise plan"
    assert (change.current.plan.id, change.current.current_period_end) == ("enterprise", first.current_period_end)
    standin.drain()
    paid = _payments(vendor)
    assert [(p.plan_id, p.billing_reason) for p in paid] == [("pro", "subscription_create"),
                                                              ("enterprise", "subscription_update")]
    # The unused half of Pro credited and half of Enterprise charged: about (99 - 29) / 2.
    assert 3000 < paid[1].amount_cents < 4000
    mailbox.last(vendor.email, "You are now on the Enterprise plan")
    assert plans.current_plan(actor=vendor).plan.id == "enterprise"


def test_a_downgrade_waits_for_the_period_end(app_webhooks, monkeypatch, mailbox):
    standin = app_webhooks
    clock = on_clock(standin, monkeypatch, _start())
    vendor = factories.make_vendor()
    _subscribe_to(standin, vendor, "enterprise")
    change = plans.choose_plan(actor=vendor, plan_id="pro")
    end = change.current.current_period_end
    assert change.message == f"Your plan changes to Pro on {end:%B} {end.day}, {end.year}"
    assert (change.current.plan.id, change.current.pending_plan.id) == ("enterprise", "pro")
    mailbox.last(vendor.email, f"Your plan changes to Pro on {end:%B} {end.day}, {end.year}")
    standin.drain()
    assert plans.current_plan(actor=vendor).plan.id == "enterprise"  # the webhooks keep the plan until then
    standin.advance(clock, int((end + timedelta(hours=2)).timestamp()))
    current = plans.current_plan(actor=vendor)
    assert (current.plan.id, current.pending_plan, current.status) == ("pro", None, "active")
    assert current.current_period_end > end + 27 * DAY
    renewal = _payments(vendor)[-1]
    assert (renewal.plan_id, renewal.amount_cents, renewal.billing_reason) == ("pro", 2900, "subscription_cycle")
    mailbox.last(vendor.email, "You are now on the Pro plan")


def test_a_cancelled_plan_lasts_to_the_period_end_then_free(app_webhooks, monkeypatch, mailbox):
    standin = app_webhooks
    clock = on_clock(standin, monkeypatch, _start())
    vendor = factories.make_vendor()
    end = _subscribe_to(standin, vendor).current_period_end
    change = plans.cancel_plan(actor=vendor)
    assert change.current.cancelled and change.current.plan.id == "pro"
    with pytest.raises(Conflict, match="Your Pro plan is already cancelled"):
        plans.cancel_plan(actor=vendor)
    kept = plans.choose_plan(actor=vendor, plan_id="pro")  # changed its mind: the plan continues
    assert kept.current.pending_plan is None and kept.message.startswith("Your Pro plan continues")
    plans.choose_plan(actor=vendor, plan_id=FREE_PLAN_ID)  # Free is a cancellation too
    mailbox.last(vendor.email, "Your Pro plan is cancelled")
    standin.advance(clock, int((end + timedelta(hours=2)).timestamp()))
    current = plans.current_plan(actor=vendor)
    assert (current.plan.id, current.current_period_end, _row(vendor).stripe_subscription_id) == ("free", None, None)
    assert "it was cancelled" in mailbox.last(vendor.email, "You are now on the Free plan").text


def test_a_failed_renewal_gives_7_days_of_grace_then_free(app_webhooks, monkeypatch, mailbox):
    standin = app_webhooks
    clock = on_clock(standin, monkeypatch, _start())
    vendor = factories.make_vendor()
    end = _subscribe_to(standin, vendor).current_period_end
    card = standin.stripe.v1.subscriptions.retrieve(_row(vendor).stripe_subscription_id).default_payment_method
    httpx.post(f"{standin.base}/_standin/payment_methods/{card}/decline_later",
               json={"decline_code": "insufficient_funds"}).raise_for_status()
    standin.advance(clock, int((end + timedelta(hours=2)).timestamp()))
    current = plans.current_plan(actor=vendor)
    assert (current.plan.id, current.status) == ("pro", "past_due")
    assert current.grace_ends_at == _row(vendor).past_due_since + 7 * DAY
    mailbox.last(vendor.email, "Payment failed: your Pro plan")
    with pytest.raises(Conflict, match="Your last plan payment failed"):
        plans.choose_plan(actor=vendor, plan_id="enterprise")
    standin.advance(clock, int((end + 9 * DAY).timestamp()))  # Stripe's last retry, 7 days on, fails too
    current = plans.current_plan(actor=vendor)
    assert (current.plan.id, current.status, current.grace_ends_at) == ("free", "active", None)
    assert "could not collect" in mailbox.last(vendor.email, "You are now on the Free plan").text
    assert [m.subject for m in mailbox.messages(vendor.email)].count("Payment failed: your Pro plan") == 1


def test_plan_webhooks_never_touch_customers_subscriptions(app_webhooks):
    vendor = factories.make_vendor()
    _subscribe_to(app_webhooks, vendor)
    app_webhooks.drain()
    with db.session_scope() as session:
        assert session.exec(select(Subscription)).all() == [] and session.exec(select(Order)).all() == []
    assert len(_payments(vendor)) == 1


def _orders(agent) -> list[Order]:
    with db.session_scope() as session:
        return list(session.exec(select(Order).where(Order.agent_id == agent.id)
                                 .order_by(Order.created_at, Order.id)).all())


def test_each_sale_pays_the_fee_of_the_vendors_plan_at_that_moment(stripe_standin, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    licence = make_agent(vendor, price_cents=1000, pricing_model=PricingModel.ONE_TIME)

    def buy() -> Order:
        buyer = factories.make_user()
        intent = purchases.create_payment_intent(actor=buyer, agent_id=licence.id)
        assert stripe_standin.confirm(intent.client_secret).json()["status"] == "succeeded"
        return purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id).order

    on_free = buy()
    factories.put_on_plan(vendor, "pro")
    on_pro = buy()
    assert [(o.commission_rate, o.platform_fee_cents, money.split_label(o.commission_rate))
            for o in (on_free, on_pro)] == [(Decimal("20.00"), 200, "80/20"), (Decimal("10.00"), 100, "90/10")]
    assert [o.id for o in _orders(licence)] == [on_free.id, on_pro.id]  # the first kept its own fee


def test_a_subscription_follows_the_plan_fee_from_the_next_invoice(app_webhooks, make_vendor, make_agent,
                                                                    monkeypatch):
    standin = app_webhooks
    clock = on_clock(standin, monkeypatch, _start())
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2000, name="Fee Bot")
    buyer = factories.make_user()
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert standin.confirm(intent.client_secret).json()["status"] == "succeeded"
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    standin.drain()
    factories.put_on_plan(vendor, "enterprise")  # the vendor's plan changes mid-period
    with db.session_scope() as session:
        row = session.get(Subscription, intent.subscription_id)
    standin.advance(clock, int((row.current_period_end + timedelta(hours=2)).timestamp()))
    first, renewal = _orders(agent)
    assert (first.kind, first.commission_rate, first.platform_fee_cents) == (OrderKind.SUBSCRIPTION,
                                                                             Decimal("20.00"), 400)
    assert (renewal.kind, renewal.commission_rate, renewal.platform_fee_cents) == (OrderKind.RENEWAL,
                                                                                   Decimal("5.00"), 100)
    sub = stripe_billing.retrieve_subscription(row.stripe_subscription_id)
    assert sub.application_fee_percent == Decimal("5")
    fees = standin.stripe.v1.application_fees.list(params={"limit": 10}).data
    assert sorted(fee.amount for fee in fees) == [100, 400]  # what Stripe took says the same


def test_a_plan_payment_gets_its_receipt_when_paid_for_the_vendor_and_admins_only(app_webhooks):
    from marketplace.models import Receipt
    from marketplace.services import receipts

    vendor = factories.make_vendor(first_name="Vera", last_name="Vendor", business_name="Vera Tools Ltd")
    _subscribe_to(app_webhooks, vendor)
    app_webhooks.drain()  # invoice.paid records the payment
    [payment] = _payments(vendor)
    with db.session_scope() as session:  # numbered with the payment, before anyone read it
        [row] = session.exec(select(Receipt)).all()
    assert (row.plan_payment_id, row.order_id, row.number, row.card_brand, row.card_last4) == (
        payment.id, None, 1, "visa", "4242")
    view = receipts.plan_receipt_of(actor=vendor, payment_id=payment.id)
    doc = view.receipt
    assert (doc.number, doc.seller, doc.total, doc.card, doc.status) == (
        "R-000001", "AgentMarket", "$29.00", "Visa •••• 4242", "Paid")
    assert doc.line.startswith("Pro plan: monthly, ") and doc.buyer[:3] == ["Vera Vendor", vendor.email,
                                                                             "Vera Tools Ltd"]
    assert view.pdf_url == f"/api/vendor/plan/payments/{payment.id}/receipt.pdf"
    assert receipts.plan_receipt_of(actor=factories.make_admin(), payment_id=payment.id).receipt.number == "R-000001"
    for stranger in (factories.make_vendor(), factories.make_user()):
        with pytest.raises(NotFound, match="Receipt not found"):
            receipts.plan_receipt_of(actor=stranger, payment_id=payment.id)
    with pytest.raises(Unauthorized):
        receipts.plan_receipt_of(actor=None, payment_id=payment.id)
    [line] = receipts.plan_payments(actor=vendor)
    assert (line.id, line.plan_name, line.amount, line.receipt_number) == (payment.id, "Pro", "$29.00", "R-000001")
    assert receipts.plan_payments(actor=factories.make_vendor()) == []
