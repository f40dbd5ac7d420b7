"""Subscriptions against the Stripe stand-in: checkout of a monthly agent, the first invoice recorded from the
browser and from webhooks in any order and any number of times, renewals on a test clock, failed renewals and
their grace, cancel and resume, card update, the end of access, and a lapsed subscriber buying again."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import httpx
import pytest
from sqlalchemy import func
from sqlmodel import select

from marketplace import db
from marketplace.integrations import billing as stripe_billing
from marketplace.integrations.payments import PaymentProviderError
from marketplace.models import (
    BillingCustomer,
    Order,
    OrderKind,
    OrderStatus,
    PricingModel,
    Purchase,
    Subscription,
    SubscriptionStatus,
)
from marketplace.models.base import utcnow
from marketplace.services import access, billing, purchases
from marketplace.services.billing import customers, lifecycle, payment_methods, records
from marketplace.services.errors import BadGateway, Conflict, Forbidden, Invalid, NotFound, Unauthorized
from tests import factories
from tests.payments_fixtures import on_clock, set_platform, sign

DAY = timedelta(days=1)


@pytest.fixture
def buyer(make_user):
    return make_user("buyer")


def _count(model, *where) -> int:
    with db.session_scope() as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


def _row(subscription_id: str) -> Subscription:
    with db.session_scope() as session:
        return session.get(Subscription, subscription_id)


def _purchase(user_id: str, agent_id: str) -> Purchase | None:
    with db.session_scope() as session:
        return session.exec(select(Purchase).where(Purchase.user_id == user_id, Purchase.agent_id == agent_id)).first()


def _orders(subscription_id: str) -> list[Order]:
    with db.session_scope() as session:
        return list(session.exec(select(Order).where(Order.subscription_id == subscription_id)
                                 .order_by(Order.created_at, Order.id)).all())


def _has_access(user_id: str, agent_id: str, now: datetime | None = None) -> bool:
    with db.session_scope() as session:
        return access.has_access(session, user_id=user_id, agent_id=agent_id, now=now)


def _subscribe(standin, buyer, agent, card: str = "4242424242424242") -> purchases.CheckoutIntent:
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert standin.confirm(intent.client_secret, card).json()["status"] == "succeeded"
    return intent


def _deliver(event: dict) -> str:
    body = json.dumps(event, default=str).encode()  # the SDK's dict form holds Decimals
    return purchases.handle_webhook(payload=body, signature=sign(body)).result


def _events_about(standin, *object_ids: str) -> list[dict]:
    """Every event the stand-in made about these objects, oldest first (as Stripe would deliver them)."""
    events = standin.stripe.v1.events.list(params={"limit": 100}).data
    plain = [e.to_dict() for e in reversed(events)]
    return [e for e in plain if e["data"]["object"].get("id") in object_ids]


# --- checkout ------------------------------------------------------------------------------------------------


def test_a_monthly_agent_checks_out_as_a_split_subscription(stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999, name="Writer Bot")
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert intent.mode == "subscription" and intent.subscription_id
    assert intent.client_secret.startswith(intent.payment_intent_id + "_secret_")
    assert (intent.amount, intent.display_amount, intent.commission_split_enabled) == (2999, "29.99", True)
    row = _row(intent.subscription_id)
    assert (row.status, row.price_cents, row.commission_rate, row.commission_split_enabled) == (
        "incomplete", 2999, Decimal("20.00"), True)
    sub = stripe_standin.stripe.v1.subscriptions.retrieve(row.stripe_subscription_id)
    assert (sub.transfer_data.destination, sub.application_fee_percent) == (vendor.stripe_account_id, 20)
    assert sub["items"].data[0].price.lookup_key == f"agent-{agent.id}-usd-2999"
    # A double click reuses it; nothing is recorded before the payment.
    again = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert (again.subscription_id, again.payment_intent_id) == (intent.subscription_id, intent.payment_intent_id)
    assert _count(Order) == 0 and _purchase(buyer.id, agent.id) is None

    assert stripe_standin.confirm(intent.client_secret).json()["status"] == "succeeded"
    done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=agent.id)
    assert done.created and done.purchase is not None
    order = done.order
    assert (order.kind, order.subscription_id, order.invoice_id[:3], order.payment_intent_id) == (
        OrderKind.SUBSCRIPTION, row.id, "in_", intent.payment_intent_id)
    assert (order.total_amount_cents, order.vendor_amount_cents, order.platform_fee_cents) == (2999, 2399, 600)
    assert order.commission_split_enabled and order.customer_email == buyer.email
    row = _row(intent.subscription_id)
    assert row.status == SubscriptionStatus.ACTIVE and row.current_period_end > utcnow() + 27 * DAY
    assert done.purchase.access_until == row.current_period_end + access.RENEWAL_SLACK
    assert done.purchase.subscription_id == row.id
    # A renewal is charged about an hour after the period ends: the customer keeps access meanwhile.
    assert _has_access(buyer.id, agent.id) and _has_access(buyer.id, agent.id, row.current_period_end + DAY / 24)
    assert not _has_access(buyer.id, agent.id, row.current_period_end + DAY)
    # The vendor's transfer and the platform's fee, as Stripe moved them.
    assert stripe_standin.balance(vendor.stripe_account_id)["available"]["usd"] == 2399
    again = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert not again.created and again.order.id == order.id
    with pytest.raises(Conflict, match="You already own this agent"):
        purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    with db.session_scope() as session:
        assert session.get(BillingCustomer, buyer.id).stripe_customer_id == row.stripe_customer_id


def test_direct_subscription_in_eur_when_the_vendor_cannot_take_charges(stripe_standin, buyer, make_vendor,
                                                                        make_agent, eur_checkout):
    agent = make_agent(make_vendor("none"), price_cents=2999)
    intent = _subscribe(stripe_standin, buyer, agent)
    assert (intent.currency, intent.amount, intent.commission_split_enabled) == ("eur", 2759, False)
    assert intent.split_block_reason == purchases.NO_ACCOUNT
    done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    order = done.order
    assert (order.currency, order.total_amount_cents, order.exchange_rate) == ("eur", 2759, Decimal("0.9200"))
    assert (order.commission_split_enabled, order.split_block_reason) == (False, purchases.NO_ACCOUNT)
    assert (order.vendor_amount_cents, order.platform_fee_cents) == (2207, 552)
    sub = stripe_standin.stripe.v1.subscriptions.retrieve(_row(intent.subscription_id).stripe_subscription_id)
    assert sub.transfer_data is None and sub.application_fee_percent is None


def test_one_customer_and_one_price_however_many_checkouts(stripe_standin, make_user, make_agent):
    agent = make_agent(price_cents=1500)
    buyers = [make_user() for _ in range(3)]
    outcomes: list[str] = []

    def run(user) -> None:
        outcomes.append(purchases.create_payment_intent(actor=user, agent_id=agent.id).subscription_id or "")

    threads = [threading.Thread(target=run, args=(buyers[i % 3],)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outcomes) == 6
    prices = stripe_standin.stripe.v1.prices.list(params={"lookup_keys": [f"agent-{agent.id}-usd-1500"]}).data
    assert len(prices) == 1
    assert _count(BillingCustomer) == 3
    assert len(stripe_standin.stripe.v1.customers.list(params={"limit": 100}).data) == 3
    assert _count(Subscription) == 3  # one per buyer: the same terms reuse one subscription


def test_a_one_time_agent_still_checks_out_as_one_payment(stripe_standin, buyer, make_agent):
    agent = make_agent(pricing_model=PricingModel.ONE_TIME)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert (intent.mode, intent.subscription_id) == ("payment", None)
    stripe_standin.confirm(intent.client_secret)
    done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert done.order.kind == OrderKind.PURCHASE and done.purchase.access_until is None
    assert _count(Subscription) == 0


def test_completion_refusals(stripe_standin, buyer, make_user, make_agent):
    agent, other_agent = make_agent(), make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    with pytest.raises(Unauthorized):
        purchases.complete_payment(actor=None, payment_intent_id=intent.payment_intent_id)
    with pytest.raises(Forbidden):
        purchases.complete_payment(actor=make_user(), payment_intent_id=intent.payment_intent_id)
    with pytest.raises(Invalid):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=other_agent.id)
    unpaid = purchases.create_payment_intent(actor=buyer, agent_id=other_agent.id)
    with pytest.raises(Invalid, match="not successful"):
        purchases.complete_payment(actor=buyer, payment_intent_id=unpaid.payment_intent_id)
    assert _count(Order) == 0


def test_a_second_subscription_paid_in_another_tab_is_refunded_and_ended(stripe_standin, buyer, make_agent):
    agent = make_agent(price_cents=2999)
    first = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    set_platform(commission="25")  # other terms: the second tab gets its own subscription
    second = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert first.subscription_id != second.subscription_id
    for intent in (first, second):
        stripe_standin.confirm(intent.client_secret)
    purchases.complete_payment(actor=buyer, payment_intent_id=first.payment_intent_id)
    with pytest.raises(Conflict, match="This payment has been refunded"):
        purchases.complete_payment(actor=buyer, payment_intent_id=second.payment_intent_id)
    with pytest.raises(Conflict, match="This payment has been refunded"):
        purchases.complete_payment(actor=buyer, payment_intent_id=second.payment_intent_id)
    [refunded] = _orders(second.subscription_id)
    assert refunded.status == OrderStatus.REFUNDED and refunded.refund_id
    duplicate = _row(second.subscription_id)
    assert duplicate.status == SubscriptionStatus.CANCELED and duplicate.ended_at is not None
    assert stripe_standin.stripe.v1.subscriptions.retrieve(duplicate.stripe_subscription_id).status == "canceled"
    purchase = _purchase(buyer.id, agent.id)
    assert purchase.subscription_id == first.subscription_id and _has_access(buyer.id, agent.id)


# --- webhooks in any order, any number of times --------------------------------------------------------------


def test_webhooks_replayed_out_of_order_and_twice_make_one_order(stripe_standin, buyer, make_agent):
    agent = make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    stripe_standin.drain()
    row = _row(intent.subscription_id)
    invoice = stripe_billing.invoice_for_payment(intent.payment_intent_id)
    events = _events_about(stripe_standin, row.stripe_subscription_id, invoice.id, intent.payment_intent_id)
    types = [e["type"] for e in events]
    assert {"invoice.paid", "customer.subscription.created", "customer.subscription.updated",
            "invoice.payment_succeeded", "payment_intent.succeeded"} <= set(types)
    results = [_deliver(e) for e in reversed(events)] + [_deliver(e) for e in events]
    # A repeat is a duplicate; an event of a type nothing acts on is ignored each time, remembered by no table.
    again = ["duplicate" if t in purchases.HANDLED else "ignored" for t in types]
    assert results.count("recorded") == 1 and results[len(events):] == again
    assert "payment_intent.succeeded" in types and results[len(events) - 1 - types.index(
        "payment_intent.succeeded")] == "ignored"  # an invoice's payment is recorded through its invoice
    # Webhooks first, browser last: the same one order.
    done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert not done.created and _count(Order) == 1 and _count(Subscription) == 1 and _count(Purchase) == 1
    assert _row(intent.subscription_id).status == SubscriptionStatus.ACTIVE


def test_browser_and_webhook_at_the_same_moment_record_one_order(stripe_standin, buyer, make_agent):
    agent = make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    invoice = stripe_billing.invoice_for_payment(intent.payment_intent_id)
    paid = next(e for e in _events_about(stripe_standin, invoice.id) if e["type"] == "invoice.paid")
    errors: list[BaseException] = []

    def browser() -> None:
        try:
            purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
        except BaseException as exc:
            errors.append(exc)

    def webhook(n: int) -> None:
        try:
            event = {**paid, "id": f"{paid['id']}_{n}"}  # distinct deliveries, as after a retry
            _deliver(event)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=browser) for _ in range(4)]
    threads += [threading.Thread(target=webhook, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert _count(Order) == 1 and _count(Purchase) == 1 and _count(Subscription) == 1


def test_billing_events_of_other_systems_are_ignored(stripe_standin):
    customer = stripe_standin.stripe.v1.customers.create(params={"email": "x@example.com"})
    price = stripe_standin.stripe.v1.prices.create(params={
        "unit_amount": 500, "currency": "usd", "recurring": {"interval": "month"}, "product_data": {"name": "X"}})
    sub = stripe_standin.stripe.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}], "payment_behavior": "default_incomplete",
        "expand": ["latest_invoice.confirmation_secret"]})
    stripe_standin.confirm(sub.latest_invoice.confirmation_secret.client_secret)
    results = {_deliver(e) for e in _events_about(stripe_standin, sub.id, sub.latest_invoice.id)}
    assert results <= {"ignored", "rejected"} and _count(Order) == 0 and _count(Subscription) == 0


# --- renewals, failed renewals, the end ---------------------------------------------------------------------


def test_a_renewal_on_a_test_clock_makes_a_renewal_order_and_extends_access(app_webhooks, buyer, make_vendor,
                                                                            make_agent, monkeypatch, mailbox):
    standin = app_webhooks
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=1)
    clock = on_clock(standin, monkeypatch, start)
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999, name="Renew Bot")
    intent = _subscribe(standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    standin.drain()
    first_end = _row(intent.subscription_id).current_period_end
    standin.advance(clock, int((first_end + timedelta(hours=2)).timestamp()))
    first, renewal = _orders(intent.subscription_id)
    assert (first.kind, renewal.kind) == (OrderKind.SUBSCRIPTION, OrderKind.RENEWAL)
    assert (renewal.total_amount_cents, renewal.vendor_amount_cents, renewal.platform_fee_cents) == (2999, 2399, 600)
    assert renewal.invoice_id != first.invoice_id and renewal.commission_split_enabled
    row = _row(intent.subscription_id)
    assert row.current_period_end > first_end + 27 * DAY and row.status == SubscriptionStatus.ACTIVE
    assert _purchase(buyer.id, agent.id).access_until == row.current_period_end + access.RENEWAL_SLACK
    mailbox.last(buyer.email, "Your subscription renewed: Renew Bot")
    mailbox.last(vendor.email, "New sale: Renew Bot")


def _paid_with_a_card_that_will_decline(
    standin, monkeypatch, buyer, agent,
) -> tuple[str, purchases.CheckoutIntent, datetime]:
    """A subscription on a test clock whose first invoice is paid and whose card declines from now on: the test
    clock, the checkout's intent and the first period's end."""
    clock = on_clock(standin, monkeypatch, datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=1))
    intent = _subscribe(standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    card = standin.stripe.v1.subscriptions.retrieve(_row(intent.subscription_id).stripe_subscription_id)
    httpx.post(f"{standin.base}/_standin/payment_methods/{card.default_payment_method}/decline_later",
               json={"decline_code": "insufficient_funds"}).raise_for_status()
    return clock, intent, _row(intent.subscription_id).current_period_end


def test_a_failed_renewal_gives_a_grace_period_and_a_new_card_recovers_it(app_webhooks, buyer, make_agent,
                                                                        monkeypatch, mailbox):
    standin = app_webhooks
    agent = make_agent(price_cents=1000, name="Grace Bot")
    clock, intent, first_end = _paid_with_a_card_that_will_decline(standin, monkeypatch, buyer, agent)
    standin.advance(clock, int((first_end + timedelta(hours=2)).timestamp()))
    row = _row(intent.subscription_id)
    assert row.status == SubscriptionStatus.PAST_DUE and row.past_due_since is not None
    purchase = _purchase(buyer.id, agent.id)
    assert purchase.access_until >= row.past_due_since + access.GRACE - timedelta(seconds=1)
    assert purchase.access_until >= first_end
    message = mailbox.last(buyer.email, "Payment failed: Grace Bot")
    assert f"/dashboard/billing/{row.id}" in message.text
    assert len(_orders(row.id)) == 1
    # Stripe's retry a day later fails too: the grace and its mail are not started again.
    standin.advance(clock, int((first_end + timedelta(days=1, hours=3)).timestamp()))
    assert _row(row.id).past_due_since == row.past_due_since
    assert [m.subject for m in mailbox.messages(buyer.email)].count("Payment failed: Grace Bot") == 1

    # The update-card page: a SetupIntent, confirmed by Stripe.js, then the open invoice paid with the new card.
    update = billing.start_card_update(actor=buyer, subscription_id=row.id)
    setup_id = update.client_secret.split("_secret_")[0]
    assert standin.confirm_setup(update.client_secret).json()["status"] == "succeeded"
    with pytest.raises(Forbidden):
        billing.finish_card_update(actor=factories.make_user(), subscription_id=row.id, setup_intent_id=setup_id)
    with pytest.raises(Invalid):
        billing.finish_card_update(actor=buyer, subscription_id=row.id, setup_intent_id="nope")
    with payment_methods.cards_claimed(buyer), pytest.raises(Conflict, match="being changed in another window"):
        billing.finish_card_update(actor=buyer, subscription_id=row.id, setup_intent_id=setup_id)  # the Payment tab
    view = billing.finish_card_update(actor=buyer, subscription_id=row.id, setup_intent_id=setup_id)
    assert view.status == SubscriptionStatus.ACTIVE
    row = _row(row.id)
    assert row.past_due_since is None and len(_orders(row.id)) == 2
    assert _purchase(buyer.id, agent.id).access_until == row.current_period_end + access.RENEWAL_SLACK


def test_a_renewal_never_paid_ends_the_subscription_and_says_so_once(app_webhooks, buyer, make_agent, monkeypatch,
                                                                     mailbox):
    standin = app_webhooks
    agent = make_agent(price_cents=1000, name="Lapse Bot")
    clock, intent, first_end = _paid_with_a_card_that_will_decline(standin, monkeypatch, buyer, agent)
    # Stripe retries 1, 3 and 7 days after the first failure, then cancels the subscription.
    standin.advance(clock, int((first_end + timedelta(days=9)).timestamp()))
    row = _row(intent.subscription_id)
    assert row.status == SubscriptionStatus.CANCELED and row.ended_at is not None and row.canceled_at is None
    assert not _has_access(buyer.id, agent.id)
    ended = [m for m in mailbox.messages(buyer.email) if m.subject == "Subscription ended: Lapse Bot"]
    assert len(ended) == 1 and f"/agents/{agent.id}" in ended[0].text
    # A replay of Stripe's view changes nothing and mails nothing more.
    lifecycle.mirror(stripe_billing.retrieve_subscription(row.stripe_subscription_id))
    assert [m.subject for m in mailbox.messages(buyer.email)].count("Subscription ended: Lapse Bot") == 1


def test_a_lapse_ends_access_and_the_lapsed_subscriber_may_buy_again(app_webhooks, buyer, make_agent, monkeypatch):
    standin = app_webhooks
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=1)
    clock = on_clock(standin, monkeypatch, start)
    agent = make_agent(price_cents=1000)
    intent = _subscribe(standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    billing.cancel_subscription(actor=buyer, subscription_id=intent.subscription_id)
    standin.drain()
    first_end = _row(intent.subscription_id).current_period_end
    assert _has_access(buyer.id, agent.id)
    standin.advance(clock, int((first_end + timedelta(hours=2)).timestamp()))
    row = _row(intent.subscription_id)
    assert row.status == SubscriptionStatus.CANCELED and row.ended_at is not None
    assert not _has_access(buyer.id, agent.id) and len(_orders(row.id)) == 1
    assert [v.status for v in billing.list_subscriptions(actor=buyer)] == ["canceled"]
    # Subscribing again reuses the purchase row (one per buyer and agent) with a new subscription.
    again = _subscribe(standin, buyer, agent)
    assert again.subscription_id != row.id
    # The stand-in's webhooks reach the app meanwhile: whichever of them and this call comes first records it.
    done = purchases.complete_payment(actor=buyer, payment_intent_id=again.payment_intent_id)
    standin.drain()
    assert done.order.subscription_id == again.subscription_id and _count(Purchase) == 1
    assert len(_orders(again.subscription_id)) == 1
    purchase = _purchase(buyer.id, agent.id)
    assert purchase.subscription_id == again.subscription_id and _has_access(buyer.id, agent.id)
    # A late renewal of the old subscription records its money and leaves the new one's access alone.
    old = stripe_billing.retrieve_subscription(row.stripe_subscription_id)
    late = stripe_billing.Invoice(id="in_late_renewal", status="paid", customer=old.customer, subscription_id=old.id,
                                  billing_reason="subscription_cycle", amount_paid=1000, amount_due=1000,
                                  currency="usd", payment_intent_id=None, period_end=utcnow() + 30 * DAY)
    assert records.record_paid_invoice(late, old).order.kind == OrderKind.RENEWAL
    purchase = _purchase(buyer.id, agent.id)
    assert purchase.subscription_id == again.subscription_id and _has_access(buyer.id, agent.id)


def test_subscription_deleted_ends_access_once_and_a_late_invoice_does_not_bring_it_back(stripe_standin, buyer,
                                                                                        make_agent):
    agent = make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    row = _row(intent.subscription_id)
    stripe_standin.stripe.v1.subscriptions.cancel(row.stripe_subscription_id)
    stripe_standin.drain()
    deleted = [e for e in _events_about(stripe_standin, row.stripe_subscription_id)
               if e["type"] == "customer.subscription.deleted"]
    assert [_deliver(e) for e in deleted] == ["updated"]
    ended = _row(row.id)
    assert ended.status == SubscriptionStatus.CANCELED and ended.ended_at is not None
    assert not _has_access(buyer.id, agent.id)
    invoice = stripe_billing.invoice_for_payment(intent.payment_intent_id)
    paid = next(e for e in _events_about(stripe_standin, invoice.id) if e["type"] == "invoice.paid")
    assert _deliver(paid) == "already-recorded"
    assert not _has_access(buyer.id, agent.id) and _row(row.id).ended_at == ended.ended_at


def test_a_stale_view_of_stripe_cannot_revive_an_ended_subscription(stripe_standin, buyer, make_agent):
    agent = make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    stale = stripe_billing.retrieve_subscription(_row(intent.subscription_id).stripe_subscription_id)
    assert stale.status == "active"
    billing.end_subscription_now(subscription_id=intent.subscription_id)
    lifecycle.mirror(stale)  # a handler that read Stripe before the end writes after it
    row = _row(intent.subscription_id)
    assert row.status == SubscriptionStatus.CANCELED and row.ended_at is not None
    assert not _has_access(buyer.id, agent.id)


def test_a_view_read_before_a_cancel_or_resume_cannot_undo_it(stripe_standin, buyer, make_agent):
    """A webhook's handler that read Stripe before the app's cancel (or resume) writes after it: the flag stays as
    the app set it; a view read after the change still mirrors a change made on Stripe's side."""
    agent = make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    stripe_id = _row(intent.subscription_id).stripe_subscription_id
    before_cancel = stripe_billing.retrieve_subscription(stripe_id)
    assert billing.cancel_subscription(actor=buyer, subscription_id=intent.subscription_id).cancel_at_period_end
    lifecycle.mirror(before_cancel)
    assert _row(intent.subscription_id).cancel_at_period_end
    before_resume = stripe_billing.retrieve_subscription(stripe_id)
    assert before_resume.cancel_at_period_end
    assert not billing.resume_subscription(actor=buyer, subscription_id=intent.subscription_id).cancel_at_period_end
    lifecycle.mirror(before_resume)
    assert not _row(intent.subscription_id).cancel_at_period_end
    stripe_billing.set_cancel_at_period_end(stripe_id, True)  # cancelled on Stripe's side, read after
    lifecycle.mirror(stripe_billing.retrieve_subscription(stripe_id))
    assert _row(intent.subscription_id).cancel_at_period_end


def test_end_subscription_now_is_for_refunds_and_happens_once(stripe_standin, buyer, make_agent):
    agent = make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert billing.end_subscription_now(subscription_id=intent.subscription_id) is True
    assert billing.end_subscription_now(subscription_id=intent.subscription_id) is False
    assert not _has_access(buyer.id, agent.id)
    assert _row(intent.subscription_id).status == SubscriptionStatus.CANCELED
    with pytest.raises(NotFound):
        billing.end_subscription_now(subscription_id="missing")


# --- the customer's cancel and resume --------------------------------------------------------------------------


def test_cancel_and_resume(stripe_standin, buyer, make_agent, mailbox):
    agent = make_agent(name="Cancel Bot")
    intent = _subscribe(stripe_standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    sub_id = intent.subscription_id
    view = billing.cancel_subscription(actor=buyer, subscription_id=sub_id)
    assert view.cancel_at_period_end and view.status == SubscriptionStatus.ACTIVE
    stripe_id = _row(sub_id).stripe_subscription_id
    assert stripe_standin.stripe.v1.subscriptions.retrieve(stripe_id).cancel_at_period_end is True
    assert _has_access(buyer.id, agent.id)
    message = mailbox.last(buyer.email, "Subscription cancelled: Cancel Bot")
    assert f"keep access until {lifecycle.records.long_date(view.current_period_end)}" in message.text
    with pytest.raises(Conflict, match="already cancelled"):
        billing.cancel_subscription(actor=buyer, subscription_id=sub_id)
    view = billing.resume_subscription(actor=buyer, subscription_id=sub_id)
    assert not view.cancel_at_period_end
    assert stripe_standin.stripe.v1.subscriptions.retrieve(stripe_id).cancel_at_period_end is False
    resumed = mailbox.last(buyer.email, "Subscription resumed: Cancel Bot")  # resuming mails too (issue 34)
    assert f"renews on {lifecycle.records.long_date(view.current_period_end)}" in resumed.text
    with pytest.raises(Conflict, match="not cancelled"):
        billing.resume_subscription(actor=buyer, subscription_id=sub_id)
    # Stripe's webhooks of those changes mirror the same.
    stripe_standin.drain()
    for event in _events_about(stripe_standin, stripe_id):
        _deliver(event)
    assert _row(sub_id).cancel_at_period_end is False


def test_cancel_and_resume_refusals(stripe_standin, buyer, make_user, make_agent):
    agent = make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    sub_id = intent.subscription_id
    with pytest.raises(Conflict, match="has not started"):  # the first payment is not recorded yet
        billing.cancel_subscription(actor=buyer, subscription_id=sub_id)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    with pytest.raises(Unauthorized):
        billing.cancel_subscription(actor=None, subscription_id=sub_id)
    with pytest.raises(Forbidden):
        billing.cancel_subscription(actor=make_user(), subscription_id=sub_id)
    with pytest.raises(Forbidden):
        billing.resume_subscription(actor=make_user(), subscription_id=sub_id)
    for bad in ("", "x" * 33, "nope"):
        with pytest.raises(NotFound):
            billing.cancel_subscription(actor=buyer, subscription_id=bad)
    billing.end_subscription_now(subscription_id=sub_id)
    with pytest.raises(Conflict, match="has ended"):
        billing.cancel_subscription(actor=buyer, subscription_id=sub_id)
    with pytest.raises(Conflict, match="has ended"):
        billing.resume_subscription(actor=buyer, subscription_id=sub_id)
    with pytest.raises(Conflict, match="has ended"):
        billing.start_card_update(actor=buyer, subscription_id=sub_id)


def test_a_cancel_that_stripe_refuses_is_given_back(stripe_standin, buyer, make_agent, monkeypatch):
    agent = make_agent()
    intent = _subscribe(stripe_standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)

    def down(*_args: object) -> None:
        raise PaymentProviderError("The payment provider could not process the request. Please try again.")

    monkeypatch.setattr(stripe_billing, "set_cancel_at_period_end", down)
    with pytest.raises(BadGateway):
        billing.cancel_subscription(actor=buyer, subscription_id=intent.subscription_id)
    assert _row(intent.subscription_id).cancel_at_period_end is False


def test_list_subscriptions_shows_only_started_ones(stripe_standin, buyer, make_user, make_agent):
    paid, unpaid = make_agent(name="Paid"), make_agent(name="Unpaid")
    intent = _subscribe(stripe_standin, buyer, paid)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    purchases.create_payment_intent(actor=buyer, agent_id=unpaid.id)
    [view] = billing.list_subscriptions(actor=buyer)
    assert (view.agent_name, view.status, view.price_cents, view.currency) == ("Paid", "active", 2999, "usd")
    assert billing.list_subscriptions(actor=make_user()) == []
    with pytest.raises(Unauthorized):
        billing.list_subscriptions(actor=None)


def test_a_customer_is_made_once_per_user(stripe_standin, buyer):
    first = customers.customer_id_for(user=buyer)
    assert customers.customer_id_for(user=buyer) == first
    assert _count(BillingCustomer) == 1



def test_the_first_payments_receipt_says_monthly_when_it_renews_and_one_money_format(stripe_standin, buyer,
                                                                                      make_agent, mailbox):
    agent = make_agent(name="Monthly Bot", price_cents=3500)
    intent = _subscribe(stripe_standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    period_end = _row(intent.subscription_id).current_period_end
    text = mailbox.last(buyer.email, "Your receipt: Monthly Bot").text
    assert "Amount: $35.00 per month\n" in text, text
    assert f"Monthly subscription: renews on {lifecycle.records.long_date(period_end)}, cancel anytime" in text
    assert "USD" not in text
