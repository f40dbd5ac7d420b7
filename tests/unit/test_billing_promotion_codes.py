"""Promotion codes on monthly agents (issue 31) against the Stripe stand-in, on a test clock: the code's Stripe
coupon discounts the invoices of the months chosen (first month, N months, every month) and renewals after them
are full price; each order records the code and what it took off, and the fee and the vendor's share are those
of the amount paid; a 100% code starts the subscription with a $0 invoice and saves the card; with a free trial
the coupon discounts the first paid invoice; an abandoned checkout gives its hold back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import (
    Order,
    OrderKind,
    PricingModel,
    PromotionCode,
    PromotionDuration,
    PromotionRedemption,
    RedemptionStatus,
    Subscription,
    SubscriptionStatus,
)
from marketplace.services import billing, pricing, purchases
from marketplace.services.errors import Forbidden, Invalid, Unauthorized
from tests import factories
from tests.payments_fixtures import on_clock

DAY = timedelta(days=1)


@pytest.fixture
def buyer(make_user):
    return make_user("buyer")


def _clock(standin, monkeypatch) -> str:
    return on_clock(standin, monkeypatch, datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=1))


def _row(subscription_id: str) -> Subscription:
    with db.session_scope() as session:
        return session.get(Subscription, subscription_id)


def _orders(subscription_id: str) -> list[Order]:
    with db.session_scope() as session:
        return list(session.exec(select(Order).where(Order.subscription_id == subscription_id)
                                 .order_by(Order.created_at, Order.id)).all())


def _redemptions(code_id: str) -> list[PromotionRedemption]:
    with db.session_scope() as session:
        return list(session.exec(select(PromotionRedemption).where(PromotionRedemption.code_id == code_id)).all())


def _uses(code_id: str) -> int:
    """Holds and redemptions not released: what the lists show (a code without a limit keeps no counter)."""
    return sum(r.status != RedemptionStatus.RELEASED for r in _redemptions(code_id))


def _code(code_id: str) -> PromotionCode:
    with db.session_scope() as session:
        return session.get(PromotionCode, code_id)


def _money(order: Order) -> tuple[int, int, int, int, str | None]:
    return (order.total_amount_cents, order.discount_cents, order.vendor_amount_cents, order.platform_fee_cents,
            order.promotion_code)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _renew(standin, clock: str, subscription_id: str) -> None:
    """Past the current period's end and the hour Stripe waits before charging the renewal."""
    end = _aware(_row(subscription_id).current_period_end)
    standin.advance(clock, int((end + timedelta(hours=2)).timestamp()))


def _subscribe(standin, buyer, agent, code: str) -> purchases.CheckoutIntent:
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id, promotion_code=code)
    assert (intent.mode, intent.intent_type) == ("subscription", "payment")
    assert standin.confirm(intent.client_secret).json()["status"] == "succeeded"
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=agent.id)
    return intent


def test_a_code_for_three_months_discounts_three_invoices_then_renewals_are_full_price(
        app_webhooks, buyer, make_vendor, make_agent, monkeypatch):
    standin = app_webhooks
    clock = _clock(standin, monkeypatch)
    agent = make_agent(make_vendor("enabled"), price_cents=2000, pricing_model=PricingModel.MONTHLY)
    code = factories.make_promotion_code([agent], code="SPRING25", percent_off=25,
                                         duration=PromotionDuration.REPEATING, duration_months=3)
    intent = _subscribe(standin, buyer, agent, "spring25")
    assert (intent.amount, intent.discount_amount, intent.monthly_amount) == (1500, 500, 2000)
    assert (intent.promotion_code, intent.promotion_months, intent.due_today) == ("SPRING25", "First 3 months", 1500)
    stripe_sub = standin.stripe.v1.subscriptions.retrieve(_row(intent.subscription_id).stripe_subscription_id)
    assert len(stripe_sub.discounts) == 1 and stripe_sub["items"].data[0].price.unit_amount == 2000
    for _ in range(3):
        _renew(standin, clock, intent.subscription_id)
    orders = _orders(intent.subscription_id)
    assert [o.kind for o in orders] == [OrderKind.SUBSCRIPTION] + [OrderKind.RENEWAL] * 3
    # 20% platform fee, on the amount paid: the vendor and the platform share the discount.
    assert [_money(o) for o in orders] == [(1500, 500, 1200, 300, "SPRING25")] * 3 + [(2000, 0, 1600, 400, None)]
    assert [r.status for r in _redemptions(code.id)] == [RedemptionStatus.REDEEMED]
    assert _redemptions(code.id)[0].order_id == orders[0].id and _uses(code.id) == 1
    assert _row(intent.subscription_id).price_cents == 2000


def test_a_first_month_code_and_an_every_month_code(app_webhooks, buyer, make_user, make_agent, monkeypatch):
    standin = app_webhooks
    clock = _clock(standin, monkeypatch)
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.MONTHLY)
    factories.make_promotion_code([agent], code="FIVEOFF", amount_off_cents=500, duration=PromotionDuration.ONCE)
    once = _subscribe(standin, buyer, agent, "FIVEOFF")
    assert once.promotion_months == "First payment"
    other = make_user("other")
    factories.make_promotion_code([agent], code="LOYAL10", percent_off=10, duration=PromotionDuration.FOREVER)
    forever = _subscribe(standin, other, agent, "LOYAL10")
    assert (forever.amount, forever.promotion_months) == (1800, "Every month")
    for _ in range(2):
        _renew(standin, clock, once.subscription_id)
    # No split (the agent's vendor has no Stripe account): the same fee arithmetic on what was paid.
    assert [(*_money(o)[:2], o.promotion_code) for o in _orders(once.subscription_id)] == [
        (1500, 500, "FIVEOFF"), (2000, 0, None), (2000, 0, None)]
    assert [(o.total_amount_cents, o.discount_cents, o.promotion_code) for o in _orders(forever.subscription_id)] \
        == [(1800, 200, "LOYAL10")] * 3
    for order in _orders(forever.subscription_id):
        assert order.vendor_amount_cents + order.platform_fee_cents == 1800


def test_a_100_percent_code_starts_the_subscription_with_a_zero_invoice_and_saves_the_card(
        app_webhooks, buyer, make_vendor, make_agent, monkeypatch):
    standin = app_webhooks
    clock = _clock(standin, monkeypatch)
    agent = make_agent(make_vendor("enabled"), price_cents=2000, pricing_model=PricingModel.MONTHLY)
    code = factories.make_promotion_code([agent], code="FREEMONTH", percent_off=100)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id, promotion_code="FREEMONTH")
    assert (intent.mode, intent.intent_type, intent.amount, intent.due_today) == ("subscription", "setup", 0, 0)
    assert intent.client_secret.startswith("seti_") and intent.discount_amount == 2000
    with pytest.raises(Invalid, match="card was not saved"):
        billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id)
    assert standin.confirm_setup(intent.client_secret).json()["status"] == "succeeded"
    with pytest.raises(Unauthorized):
        billing.complete_trial(actor=None, subscription_id=intent.subscription_id)
    with pytest.raises(Forbidden):
        billing.complete_trial(actor=factories.make_user(), subscription_id=intent.subscription_id)
    for _ in range(2):  # the browser's call, twice, and the webhooks: one order
        billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id, agent_id=agent.id)
    standin.drain()
    [first] = _orders(intent.subscription_id)
    assert (first.kind, _money(first)) == (OrderKind.SUBSCRIPTION, (0, 2000, 0, 0, "FREEMONTH"))
    assert _row(intent.subscription_id).status == SubscriptionStatus.ACTIVE
    assert [(r.status, r.order_id) for r in _redemptions(code.id)] == [(RedemptionStatus.REDEEMED, first.id)]
    _renew(standin, clock, intent.subscription_id)  # the saved card pays the full price
    assert [_money(o) for o in _orders(intent.subscription_id)][1:] == [(2000, 0, 1600, 400, None)]


def test_with_a_trial_the_code_discounts_the_first_paid_invoice(
        app_webhooks, buyer, make_agent, monkeypatch):
    standin = app_webhooks
    clock = _clock(standin, monkeypatch)
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.MONTHLY, trial_days=7)
    code = factories.make_promotion_code([agent], code="HALFFIRST", percent_off=50)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id, promotion_code="HALFFIRST")
    assert (intent.intent_type, intent.trial_days, intent.amount, intent.due_today) == ("setup", 7, 1000, 0)
    assert standin.confirm_setup(intent.client_secret).json()["status"] == "succeeded"
    billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id, agent_id=agent.id)
    assert [(r.status, r.order_id) for r in _redemptions(code.id)] == [(RedemptionStatus.REDEEMED, None)]
    _renew(standin, clock, intent.subscription_id)  # the trial's end: the first charge, discounted
    _renew(standin, clock, intent.subscription_id)
    orders = _orders(intent.subscription_id)
    assert [(o.kind, o.total_amount_cents, o.discount_cents, o.promotion_code) for o in orders] == [
        (OrderKind.SUBSCRIPTION, 1000, 1000, "HALFFIRST"), (OrderKind.RENEWAL, 2000, 0, None)]
    assert [(r.status, r.order_id) for r in _redemptions(code.id)] == [(RedemptionStatus.REDEEMED, orders[0].id)]
    assert _uses(code.id) == 1


def test_an_abandoned_subscription_checkout_gives_its_hold_back(app_webhooks, buyer, make_agent, monkeypatch):
    standin = app_webhooks
    clock = _clock(standin, monkeypatch)
    agent = make_agent(price_cents=2000, pricing_model=PricingModel.MONTHLY)
    code = factories.make_promotion_code([agent], code="LASTONE", max_redemptions=1)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id, promotion_code="LASTONE")
    assert [r.status for r in _redemptions(code.id)] == [RedemptionStatus.HELD] and _code(code.id).redemptions == 1
    created = _aware(_row(intent.subscription_id).created_at)
    standin.advance(clock, int((created + DAY).timestamp()))  # Stripe expires it unpaid after 23 hours
    assert _row(intent.subscription_id).status == SubscriptionStatus.INCOMPLETE_EXPIRED
    assert [r.status for r in _redemptions(code.id)] == [RedemptionStatus.RELEASED] and _code(code.id).redemptions == 0


def test_a_vendors_code_is_refused_on_another_vendors_monthly_agent_and_bad_codes_keep_the_price(
        stripe_standin, buyer, make_agent):
    mine, theirs = factories.make_vendor(), factories.make_vendor()
    agent = make_agent(theirs, price_cents=2000, pricing_model=PricingModel.MONTHLY)
    factories.make_promotion_code([agent], code="NOTYOURS", vendor=mine)
    expired = factories.make_promotion_code([agent], code="OLDCODE",
                                            expires_at=datetime.now(UTC) - timedelta(days=1))
    for text, message in (("NOTYOURS", "This code is not valid for this agent."), ("OLDCODE", "This code has expired."),
                          ("no such!", "This code is not valid for this agent.")):
        with pytest.raises(Invalid, match=message):
            purchases.create_payment_intent(actor=buyer, agent_id=agent.id, promotion_code=text)
    with pytest.raises(Unauthorized):
        purchases.create_payment_intent(actor=None, agent_id=agent.id, promotion_code="OLDCODE")
    assert _redemptions(expired.id) == []
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert (intent.amount, intent.discount_amount, intent.promotion_code) == (2000, 0, None)


def test_checkout_texts_for_a_code_s_months_and_what_is_due_later():
    assert pricing.code_months_line(months="First 3 months", monthly=2999, currency="usd", every_month=False) \
        == "First 3 months, then $29.99/month"
    assert pricing.code_months_line(months="Every month", monthly=2999, currency="usd", every_month=True) \
        == "Every month"
    assert pricing.due_later_line(next_charge=2999, monthly=2999, currency="usd", starts_on="Dec 9, 2026",
                                  every_month=False) == "Then $29.99/month from Dec 9, 2026"
    assert pricing.due_later_line(next_charge=1500, monthly=2999, currency="eur", starts_on="Dec 9, 2026",
                                  every_month=False) == "Then €15.00 on Dec 9, 2026, €29.99/month after the discount"
    assert pricing.due_later_line(next_charge=2699, monthly=2999, currency="usd", starts_on="Dec 9, 2026",
                                  every_month=True) == "Then $26.99/month from Dec 9, 2026"


def test_in_euros_the_coupon_takes_off_the_discount_shown_and_fee_and_share_follow_the_amount_paid(
        app_webhooks, buyer, make_vendor, make_agent, monkeypatch, eur_checkout):
    standin = app_webhooks
    clock = _clock(standin, monkeypatch)
    agent = make_agent(make_vendor("enabled"), price_cents=2999, pricing_model=PricingModel.MONTHLY)
    factories.make_promotion_code([agent], code="EUROQUARTER", percent_off=25)
    intent = _subscribe(standin, buyer, agent, "EUROQUARTER")
    # $29.99 less 25% ($7.50) = $22.49, at 0.92: EUR 20.69; the full price EUR 27.59, so EUR 6.90 off.
    assert (intent.currency, intent.amount, intent.discount_amount, intent.monthly_amount) == ("eur", 2069, 690, 2759)
    _renew(standin, clock, intent.subscription_id)
    orders = _orders(intent.subscription_id)
    assert [o.currency for o in orders] == ["eur", "eur"]
    assert [_money(o) for o in orders] == [(2069, 690, 1655, 414, "EUROQUARTER"), (2759, 0, 2207, 552, None)]


def test_the_stand_in_refuses_coupons_stripe_refuses(stripe_standin):
    import stripe

    coupons = stripe_standin.stripe.v1.coupons
    for params in ({"duration": "once"}, {"percent_off": 10, "amount_off": 100, "currency": "usd"},
                   {"percent_off": 0}, {"percent_off": 10, "duration": "repeating"},
                   {"percent_off": 10, "duration": "once", "duration_in_months": 2}, {"amount_off": 100},
                   {"percent_off": 10, "duration": "weekly"}, {"percent_off": 10, "colour": "red"}):
        with pytest.raises(stripe.InvalidRequestError):
            coupons.create(params=params)
    made = coupons.create(params={"id": "TENOFF", "percent_off": 10, "duration": "repeating",
                                  "duration_in_months": 3})
    assert (made.id, made.percent_off, made.duration, made.duration_in_months, made.valid) == (
        "TENOFF", 10, "repeating", 3, True)
    with pytest.raises(stripe.InvalidRequestError, match="already exists"):
        coupons.create(params={"id": "TENOFF", "percent_off": 10})
    with pytest.raises(stripe.InvalidRequestError):
        coupons.retrieve("NOSUCH")
