"""The stand-in cannot drift from Stripe (issue 32): every flow the app drives against it (checkout, a refund, a
dispute, a subscription with its renewal and failed renewal on a test clock, the card update, saved cards, a
refunded subscription ended at once, vendor plans changed and cancelled, Connect onboarding, payouts) is recorded
at the app's own StripeClient, and each request must be a published method with
published parameters, and each answer and each webhook payload only published fields and status values, per
Stripe's types for the pinned API version (dev/stripe_types.json, dev/stripe_standin/README.md "Published types")."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import stripe
from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.integrations import billing as stripe_billing
from marketplace.integrations import payments
from marketplace.models import Order, PricingModel, Subscription
from marketplace.services import billing, plans, purchases, refunds
from marketplace.services.billing import demo_clock, payment_methods
from marketplace.services.vendors import payouts
from tests import factories
from tests.stripe_published_types import (
    Exchange,
    app_reads_problems,
    exchange_problems,
    object_problems,
    published,
    recording_client,
    request_problems,
)


@pytest.fixture
def exchanges(stripe_standin, monkeypatch) -> Iterator[list[Exchange]]:
    """Every request the app's StripeClient sends, with its answer, for the test's length. The requests are
    checked again at teardown, so a flow the stand-in broke off (it refuses what Stripe refuses) still names the
    parameter Stripe does not publish."""
    recorded: list[Exchange] = []
    app_client = recording_client(settings.stripe_secret_key, settings.stripe_api_base, recorded)
    monkeypatch.setattr(payments, "_client_for", lambda _key, _base: app_client)
    yield recorded
    unpublished = sorted({p for e in recorded for p in request_problems(e.method, e.url, e.body)})
    if unpublished:
        pytest.fail("\n".join(unpublished))


def _events(standin) -> list[dict[str, Any]]:
    """The events the stand-in made (the webhook payloads it delivers), fetched outside the recording."""
    return [e.to_dict() for e in standin.stripe.v1.events.list(params={"limit": 100}).data]


def _assert_published(exchanges: list[Exchange], standin, *expected: str) -> None:
    sent = {f"{e.method} {e.url.split('?')[0].split('/v1/', 1)[1]}" for e in exchanges}
    for prefix in expected:  # the flow really went through the calls it is meant to check
        assert any(s.startswith(prefix) for s in sent), (prefix, sorted(sent))
    problems = exchange_problems(exchanges)
    for event in _events(standin):
        problems += object_problems(event, f"webhook {event['type']}")
    assert not sorted(set(problems)), "\n".join(sorted(set(problems)))


def test_the_published_types_are_the_pinned_sdks_api_version():
    assert published()["api_version"] == stripe.api_version
    assert not app_reads_problems(), app_reads_problems()


def test_the_checker_names_what_stripe_does_not_publish():
    setup = request_problems("POST", "http://standin/v1/setup_intents",
                             "customer=cus_1&payment_method_types[0]=card&automatic_payment_methods[enabled]=true")
    assert setup == ["POST /v1/setup_intents: parameter 'payment_method_types' is not in Stripe's published types"]
    nested = request_problems("POST", "http://standin/v1/payment_intents",
                              "amount=1&currency=usd&automatic_payment_methods[enable]=true")
    assert nested == ["POST /v1/payment_intents: parameter 'automatic_payment_methods.enable' is not in Stripe's "
                      "published types"]
    assert request_problems("GET", "http://standin/v1/refunds?payment_intent=pi_1&limit=1") == []
    assert request_problems("POST", "http://standin/v1/setup_intents/seti_1/approve", "") == [
        "POST /v1/setup_intents/seti_1/approve: not a published Stripe API method"]
    answer = {"object": "list", "data": [{"id": "sub_1", "object": "subscription", "status": "grace",
                                          "renewal_count": 2, "items": {"object": "list", "data": []}}]}
    assert object_problems(answer) == [
        "answer subscription.status: 'grace' is not one of Stripe's published values",
        "answer subscription: field 'renewal_count' is not in Stripe's published object"]
    account = {"id": "acct_1", "object": "account", "requirements": {"disabled_reason": "waiting", "currently_due": []}}
    assert object_problems(account) == [
        "answer account.requirements.disabled_reason: 'waiting' is not one of Stripe's published values"]


def test_checkout_refund_and_dispute(exchanges, stripe_standin, make_vendor, make_agent, app_webhooks):
    vendor = make_vendor("enabled")
    buyer = factories.make_user("buyer")
    agent = make_agent(vendor, pricing_model=PricingModel.ONE_TIME, price_cents=4900)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert stripe_standin.confirm(intent.client_secret).json()["status"] == "succeeded"
    done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    refunds.request_refund(actor=buyer, order_id=done.order.id, reason="Not what I needed")

    other = make_agent(vendor, pricing_model=PricingModel.ONE_TIME, price_cents=1900)
    disputed = purchases.create_payment_intent(actor=buyer, agent_id=other.id)
    assert stripe_standin.confirm(disputed.client_secret).json()["status"] == "succeeded"
    purchases.complete_payment(actor=buyer, payment_intent_id=disputed.payment_intent_id)
    httpx.post(f"{stripe_standin.base}/_standin/disputes",
               json={"payment_intent": disputed.payment_intent_id}).raise_for_status()
    stripe_standin.drain()
    _assert_published(exchanges, stripe_standin, "POST payment_intents", "GET payment_intents/", "POST refunds")


def test_subscription_renewal_failed_renewal_card_update_and_saved_cards(exchanges, app_webhooks, make_agent,
                                                                         monkeypatch):
    standin = app_webhooks
    buyer = factories.make_user("buyer")
    # The test clock as demo mode makes and moves it (integrations.billing), every new Customer on it.
    clock = stripe_billing.create_test_clock(name="drift", frozen_time=datetime.now(UTC) + timedelta(minutes=1)).id
    monkeypatch.setattr(demo_clock, "clock_id_for_new_customer", lambda: clock)

    def advance(to: datetime) -> None:
        stripe_billing.advance_test_clock(clock, to=to)
        standin.wait_ready(clock)
        assert stripe_billing.retrieve_test_clock(clock).status == "ready"

    agent = make_agent(price_cents=1500, name="Drift Bot")
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert standin.confirm(intent.client_secret).json()["status"] == "succeeded"
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    standin.drain()
    with db.session_scope() as session:
        row = session.get(Subscription, intent.subscription_id)
        first_end, stripe_id = row.current_period_end, row.stripe_subscription_id
    advance(first_end + timedelta(hours=2))  # a paid renewal

    card = standin.stripe.v1.subscriptions.retrieve(stripe_id).default_payment_method
    httpx.post(f"{standin.base}/_standin/payment_methods/{card}/decline_later",
               json={"decline_code": "insufficient_funds"}).raise_for_status()
    with db.session_scope() as session:
        second_end = session.get(Subscription, intent.subscription_id).current_period_end
    advance(second_end + timedelta(hours=2))  # a declined renewal
    update = billing.start_card_update(actor=buyer, subscription_id=intent.subscription_id)
    assert standin.confirm_setup(update.client_secret).json()["status"] == "succeeded"
    billing.finish_card_update(actor=buyer, subscription_id=intent.subscription_id,
                               setup_intent_id=update.client_secret.split("_secret_")[0])
    standin.drain()  # the card update's webhooks handled before the cancel, the cancel's before the resume
    billing.cancel_subscription(actor=buyer, subscription_id=intent.subscription_id)
    standin.drain()
    billing.resume_subscription(actor=buyer, subscription_id=intent.subscription_id)

    # The Payment tab: add a card, make it the default, remove the old one.
    secret = payment_methods.start_adding_card(actor=buyer)
    assert standin.confirm_setup(secret).json()["status"] == "succeeded"
    cards = payment_methods.list_cards(actor=buyer)
    new = next(c for c in cards if not c.is_default)
    payment_methods.make_default(actor=buyer, payment_method_id=new.id)
    old = next(c for c in payment_methods.list_cards(actor=buyer) if not c.is_default)
    payment_methods.remove_card(actor=buyer, payment_method_id=old.id)
    standin.drain()
    with db.session_scope() as session:  # the first payment, the renewal and the recovered renewal
        orders = session.exec(select(Order).where(Order.subscription_id == intent.subscription_id)
                              .order_by(Order.created_at)).all()
        assert len(orders) == 3
    # The money-back guarantee on the latest payment ends the subscription at Stripe at once.
    refunds.request_refund(actor=buyer, order_id=orders[-1].id, reason="Changed my mind")
    standin.drain()
    _assert_published(exchanges, standin, "POST subscriptions", "POST setup_intents", "POST invoices/",
                      "GET customers/", "POST payment_methods/", "POST test_helpers/test_clocks",
                      "DELETE subscriptions/", "POST refunds")


def test_connect_onboarding_and_payouts(exchanges, stripe_standin, make_user, monkeypatch):
    from marketplace.models import Role

    vendor = make_user(role=Role.VENDOR, vendor_approved=True)
    monkeypatch.setattr(settings, "public_url", "http://shop.test:3000/")
    url = payouts.create_account_link(actor=vendor)
    assert httpx.post(url, data={"action": "complete"}).status_code == 302
    payouts.account_status(actor=vendor, refresh=True)
    with db.session_scope() as session:
        from marketplace.models import User

        account_id = session.get(User, vendor.id).stripe_account_id
    for amount, status in ((5000, "paid"), (2500, "failed"), (1000, None)):
        stripe_standin.fund(account_id, amount, fee=amount // 5)
        payout = stripe_standin.pay_out(account_id).json()
        if status:
            assert stripe_standin.set_payout_status(payout["id"], status).status_code == 200
    assert len(payouts.list_payouts(actor=vendor).payouts) == 3
    _assert_published(exchanges, stripe_standin, "POST accounts", "POST account_links", "GET accounts/",
                      "GET payouts")


def test_vendor_plans_upgrade_downgrade_and_cancel(exchanges, app_webhooks):
    standin = app_webhooks
    vendor = factories.make_vendor()
    change = plans.choose_plan(actor=vendor, plan_id="pro")
    assert standin.confirm(change.client_secret).json()["status"] == "succeeded"
    plans.refresh_plan(actor=vendor)
    standin.drain()
    assert plans.choose_plan(actor=vendor, plan_id="enterprise").client_secret is None  # at once, prorated
    standin.drain()
    plans.choose_plan(actor=vendor, plan_id="pro")  # at the period's end
    standin.drain()
    plans.cancel_plan(actor=vendor)
    standin.drain()
    _assert_published(exchanges, standin, "GET prices", "POST products", "POST prices", "POST subscriptions/")


def test_free_trial_with_its_setup_intent_trial_will_end_and_first_invoice(exchanges, app_webhooks, make_agent,
                                                                           monkeypatch):
    standin = app_webhooks
    buyer = factories.make_user("buyer")
    clock = stripe_billing.create_test_clock(name="trial", frozen_time=datetime.now(UTC) + timedelta(minutes=1)).id
    monkeypatch.setattr(demo_clock, "clock_id_for_new_customer", lambda: clock)
    agent = make_agent(price_cents=1500, name="Trial Drift Bot", trial_days=7)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert intent.intent_type == "setup"
    assert standin.confirm_setup(intent.client_secret).json()["status"] == "succeeded"
    billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id)
    standin.drain()
    with db.session_scope() as session:
        trial_end = session.get(Subscription, intent.subscription_id).trial_end
    trial_end = trial_end if trial_end.tzinfo else trial_end.replace(tzinfo=UTC)
    stripe_billing.advance_test_clock(clock, to=trial_end + timedelta(hours=2))  # trial_will_end, then invoiced
    standin.wait_ready(clock)
    events = {e["type"] for e in _events(standin)}
    assert {"customer.subscription.trial_will_end", "setup_intent.succeeded", "invoice.paid"} <= events
    with db.session_scope() as session:
        assert len(session.exec(select(Order).where(Order.subscription_id == intent.subscription_id)).all()) == 1
    _assert_published(exchanges, standin, "POST subscriptions", "GET subscriptions/", "POST test_helpers/test_clocks")


def test_promotion_code_coupons_on_subscriptions_and_their_discounted_invoices(exchanges, app_webhooks, make_agent,
                                                                               monkeypatch):
    """A repeating code's coupon made and reused, a subscription created with `discounts`, its discounted first
    invoice and renewal on the test clock, and a 100% code's $0 invoice with its pending SetupIntent."""
    standin = app_webhooks
    clock = stripe_billing.create_test_clock(name="codes", frozen_time=datetime.now(UTC) + timedelta(minutes=1)).id
    monkeypatch.setattr(demo_clock, "clock_id_for_new_customer", lambda: clock)
    agent = make_agent(price_cents=1500, name="Coupon Drift Bot", pricing_model=PricingModel.MONTHLY)
    factories.make_promotion_code([agent], code="DRIFT20", percent_off=20, duration="repeating", duration_months=2)
    factories.make_promotion_code([agent], code="DRIFTFREE", percent_off=100, duration="forever")
    subscribed = []
    for name, code in (("buyer", "DRIFT20"), ("second", "DRIFT20"), ("third", "DRIFTFREE")):
        buyer = factories.make_user(name)
        intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id, promotion_code=code)
        if intent.intent_type == "setup":
            assert standin.confirm_setup(intent.client_secret).json()["status"] == "succeeded"
            billing.complete_trial(actor=buyer, subscription_id=intent.subscription_id)
        else:
            assert standin.confirm(intent.client_secret).json()["status"] == "succeeded"
            purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
        subscribed.append(intent.subscription_id)
    standin.drain()
    with db.session_scope() as session:
        first_end = session.get(Subscription, subscribed[0]).current_period_end
    first_end = first_end if first_end.tzinfo else first_end.replace(tzinfo=UTC)
    stripe_billing.advance_test_clock(clock, to=first_end + timedelta(hours=2))  # discounted renewals
    standin.wait_ready(clock)
    with db.session_scope() as session:
        orders = session.exec(select(Order).where(Order.agent_id == agent.id)).all()
    assert sorted((o.total_amount_cents, o.discount_cents) for o in orders) == [
        (0, 1500), (0, 1500), (1200, 300), (1200, 300), (1200, 300), (1200, 300)]
    _assert_published(exchanges, standin, "GET coupons/", "POST coupons", "POST subscriptions",
                      "POST test_helpers/test_clocks")
