"""Checkout and completion against the Stripe stand-in: pricing, commission routing, verification, races.

This file checks the one-off path (one PaymentIntent per licence), so its agents are one-time licences; the
subscription path (monthly agents) is checked in tests/unit/test_billing_subscriptions.py."""

from __future__ import annotations

import json
import threading
from decimal import Decimal

import pytest
from sqlalchemy import event, func
from sqlmodel import select

from marketplace import db
from marketplace.models import (
    Agent,
    AgentStatus,
    Notification,
    NotificationType,
    Order,
    OrderStatus,
    PricingModel,
    Purchase,
)
from marketplace.services import purchases
from marketplace.services.errors import BadGateway, Conflict, Forbidden, Invalid, NotFound, Unauthorized
from marketplace.services.purchases import completion
from tests.factories import ago, make_order
from tests.payments_fixtures import DECLINED_CARD, INSUFFICIENT_FUNDS_CARD, set_platform


def _count(model, **where) -> int:
    with db.session_scope() as session:
        query = select(func.count()).select_from(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return session.exec(query).one()


def _sales(agent_id: str) -> int:
    with db.session_scope() as session:
        return session.get(Agent, agent_id).sales_count


@pytest.fixture
def buyer(make_user):
    return make_user("buyer")


@pytest.fixture
def make_agent(make_agent):
    def _make(*args: object, **fields: object) -> Agent:
        return make_agent(*args, **{"pricing_model": PricingModel.ONE_TIME, **fields})

    return _make


def _paid_intent(standin, buyer, agent, card="4242424242424242"):
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    response = standin.confirm(intent.client_secret, card)
    return intent, response


# --- creating the PaymentIntent ------------------------------------------------------------------------------


def test_direct_payment_when_vendor_has_no_account(stripe_standin, buyer, make_vendor, make_agent):
    agent = make_agent(make_vendor("none"), price_cents=2999)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert (intent.currency, intent.amount, intent.display_amount) == ("usd", 2999, "29.99")
    assert intent.exchange_rate == 1 and intent.supported_payment_methods == ["card"]
    assert not intent.commission_split_enabled
    assert intent.split_block_reason == "Vendor has not connected a Stripe account"
    pi = stripe_standin.stripe.v1.payment_intents.retrieve(intent.payment_intent_id)
    assert pi.amount == 2999 and pi.currency == "usd"
    assert pi.application_fee_amount is None and pi.transfer_data is None
    assert pi.metadata.to_dict() == {
        "agentId": agent.id, "userId": buyer.id, "vendorId": agent.vendor_id, "commissionRate": "20.00",
        "originalPriceUsdCents": "2999", "exchangeRate": "1.0000", "currency": "usd",
        "splitBlockReason": "Vendor has not connected a Stripe account",
    }


def test_direct_payment_when_vendor_account_cannot_charge(stripe_standin, buyer, make_vendor, make_agent):
    agent = make_agent(make_vendor("restricted"))
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert intent.split_block_reason == "Vendor's Stripe account cannot accept charges yet"
    pi = stripe_standin.stripe.v1.payment_intents.retrieve(intent.payment_intent_id)
    assert pi.transfer_data is None


def test_destination_charge_with_application_fee(stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert intent.commission_split_enabled and intent.split_block_reason is None
    pi = stripe_standin.stripe.v1.payment_intents.retrieve(intent.payment_intent_id)
    assert pi.application_fee_amount == 600
    assert pi.transfer_data.destination == vendor.stripe_account_id
    assert "splitBlockReason" not in pi.metadata


def test_eur_checkout_converts_with_stored_rate(stripe_standin, buyer, make_vendor, make_agent, eur_checkout):
    agent = make_agent(make_vendor("enabled"), price_cents=2999)
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert (intent.currency, intent.amount, intent.display_amount) == ("eur", 2759, "27.59")
    assert intent.exchange_rate == Decimal("0.9200")
    pi = stripe_standin.stripe.v1.payment_intents.retrieve(intent.payment_intent_id)
    assert (pi.amount, pi.currency, pi.application_fee_amount) == (2759, "eur", 552)
    assert pi.metadata["exchangeRate"] == "0.9200" and pi.metadata["originalPriceUsdCents"] == "2999"


def test_double_click_reuses_one_intent_until_the_charge_changes(stripe_standin, buyer, make_agent):
    agent = make_agent()
    first = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    again = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert again.payment_intent_id == first.payment_intent_id
    set_platform(commission="25%")
    changed = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert changed.payment_intent_id != first.payment_intent_id


def test_create_intent_refusals(stripe_standin, buyer, make_user, make_vendor, make_agent):
    vendor = make_vendor()
    live = make_agent(vendor)
    with pytest.raises(Unauthorized):
        purchases.create_payment_intent(actor=None, agent_id=live.id)
    with pytest.raises(NotFound, match="Agent not found"):
        purchases.create_payment_intent(actor=buyer, agent_id="missing")
    for status in (AgentStatus.PENDING, AgentStatus.REJECTED):
        with pytest.raises(NotFound):
            purchases.create_payment_intent(actor=buyer, agent_id=make_agent(vendor, status=status).id)
    with pytest.raises(Forbidden, match="You cannot buy your own agent"):
        purchases.create_payment_intent(actor=vendor, agent_id=live.id)
    with pytest.raises(Invalid, match="free"):
        purchases.create_payment_intent(actor=buyer, agent_id=make_agent(vendor, price_cents=0).id)
    with pytest.raises(Invalid, match="minimum"):
        purchases.create_payment_intent(actor=buyer, agent_id=make_agent(vendor, price_cents=49).id)
    intent, _ = _paid_intent(stripe_standin, buyer, live)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=live.id)
    with pytest.raises(Conflict, match="You already own this agent"):
        purchases.create_payment_intent(actor=buyer, agent_id=live.id)


def test_checkout_agent_says_what_the_page_may_offer(make_user, make_agent):
    buyer, vendor = make_user("shopper"), make_user("maker", role="vendor", vendor_approved=True)
    paid = make_agent(vendor, price_cents=2999, name="Paid One")
    free = make_agent(vendor, price_cents=0)
    info = purchases.checkout_agent(actor=buyer, agent_id=paid.id)
    assert (info.id, info.name, info.price_usd_cents, info.is_free) == (paid.id, "Paid One", 2999, False)
    assert purchases.checkout_agent(actor=buyer, agent_id=free.id).is_free
    with pytest.raises(Unauthorized):
        purchases.checkout_agent(actor=None, agent_id=paid.id)
    with pytest.raises(NotFound):
        purchases.checkout_agent(actor=buyer, agent_id=make_agent(vendor, status=AgentStatus.PENDING).id)
    with pytest.raises(Forbidden, match="You cannot buy your own agent"):
        purchases.checkout_agent(actor=vendor, agent_id=paid.id)
    purchases.claim_free_agent(actor=buyer, agent_id=free.id)
    with pytest.raises(Conflict, match="You already own this agent"):
        purchases.checkout_agent(actor=buyer, agent_id=free.id)


# --- completing ----------------------------------------------------------------------------------------------


def test_split_completion_records_one_order_snapshot(stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999, name="Writer Bot")
    intent, response = _paid_intent(stripe_standin, buyer, agent)
    assert response.json()["status"] == "succeeded"
    done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id,
                                      agent_id=agent.id, user_id=buyer.id)
    order = done.order
    assert done.created and done.purchase.order_id == order.id
    assert (order.currency, order.total_amount_cents, order.original_price_usd_cents) == ("usd", 2999, 2999)
    assert order.exchange_rate == 1 and order.commission_rate == Decimal("20.00")
    assert order.commission_split_enabled and order.split_block_reason is None
    assert (order.vendor_amount_cents, order.platform_fee_cents) == (2399, 600)
    assert order.user_id == buyer.id and order.vendor_id == vendor.id and order.agent_name == "Writer Bot"
    assert order.customer_email == buyer.email and order.status == "completed"
    assert done.purchase.purchase_price_cents == 2999 and done.purchase.currency == "usd"
    assert _sales(agent.id) == 1
    with db.session_scope() as session:
        notes = session.exec(select(Notification).where(Notification.user_id == vendor.id)).all()
    assert [(n.type, n.title) for n in notes] == [(NotificationType.SALE, "New sale")]
    assert "Writer Bot" in notes[0].message and "$29.99." in notes[0].message
    # A destination charge transfers the whole amount and collects the platform's fee from it, as Stripe does.
    transfers = stripe_standin.stripe.v1.transfers.list(params={"destination": vendor.stripe_account_id}).data
    assert [t.amount for t in transfers] == [2999]
    assert stripe_standin.balance(vendor.stripe_account_id)["available"]["usd"] == 2399


def test_direct_eur_completion_snapshot(stripe_standin, buyer, make_vendor, make_agent, eur_checkout):
    agent = make_agent(make_vendor("restricted"), price_cents=2999)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    order = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id).order
    assert (order.currency, order.total_amount_cents, order.original_price_usd_cents) == ("eur", 2759, 2999)
    assert order.exchange_rate == Decimal("0.9200")
    assert not order.commission_split_enabled
    assert order.split_block_reason == "Vendor's Stripe account cannot accept charges yet"
    assert (order.vendor_amount_cents, order.platform_fee_cents) == (2207, 552)


def test_completion_is_idempotent(stripe_standin, buyer, make_agent):
    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    first = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    second = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert first.created and not second.created
    assert second.order.id == first.order.id and second.purchase.id == first.purchase.id
    assert _count(Order) == 1 and _count(Purchase) == 1 and _sales(agent.id) == 1


def test_completion_reads_once_then_writes_in_one_transaction(stripe_standin, buyer, make_vendor, make_agent):
    """Round trips are most of a completion's time on a busy host: one statement reads the order, agent, buyer
    and vendor before the payment is retrieved, and one transaction writes everything (issue 21)."""
    agent = make_agent(make_vendor("enabled"), price_cents=2999)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    statements, commits = [], []
    engine = db.engine()

    def on_statement(_conn, _cursor, statement, *_args):
        statements.append(statement.split()[0].upper())

    def on_commit(_conn):
        commits.append(len(statements))

    event.listen(engine, "before_cursor_execute", on_statement)
    event.listen(engine, "commit", on_commit)
    try:
        done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id,
                                          agent_id=agent.id, user_id=buyer.id)
    finally:
        event.remove(engine, "before_cursor_execute", on_statement)
        event.remove(engine, "commit", on_commit)
    assert done.created and _count(Order) == 1 and _count(Purchase) == 1
    # The read (with the vendor's application name the receipt may need); then the order, the purchase row read
    # with its access, purchase, sales count, key, notification and both e-mails (one statement).
    # Last, the receipt and its number: one statement on PostgreSQL (the counter's UPDATE as a CTE of the
    # INSERT); SQLite's CTEs cannot update, so there it is the UPDATE and the INSERT, in process.
    receipt = ["WITH"] if engine.dialect.name == "postgresql" else ["UPDATE", "INSERT"]
    assert statements == ["SELECT", "INSERT", "SELECT", "INSERT", "UPDATE", "INSERT", "INSERT", "INSERT",
                          *receipt], statements
    assert commits == [len(statements)]


@pytest.mark.parametrize(("card", "message"), [(DECLINED_CARD, "Your card was declined."),
                                               (INSUFFICIENT_FUNDS_CARD, "Your card has insufficient funds.")])
def test_declined_card_records_nothing(stripe_standin, buyer, make_agent, card, message):
    agent = make_agent()
    intent, response = _paid_intent(stripe_standin, buyer, agent, card)
    assert response.status_code == 402 and response.json()["error"]["message"] == message
    with pytest.raises(Invalid, match="Payment was not successful"):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert _count(Order) == 0 and _count(Purchase) == 0
    # The same intent can then be paid with a good card.
    assert stripe_standin.confirm(intent.client_secret).json()["status"] == "succeeded"
    assert purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id).created


def test_unconfirmed_intent_is_not_successful(stripe_standin, buyer, make_agent):
    intent = purchases.create_payment_intent(actor=buyer, agent_id=make_agent().id)
    with pytest.raises(Invalid, match=r"^Payment was not successful$"):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)


def test_completion_input_and_caller_checks(stripe_standin, buyer, make_user, make_agent):
    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    with pytest.raises(Unauthorized):
        purchases.complete_payment(actor=None, payment_intent_id=intent.payment_intent_id)
    for bad in ("", "ch_123", "pi_../../x", "pi_" + "a" * 300):
        with pytest.raises(Invalid, match="Invalid payment intent id"):
            purchases.complete_payment(actor=buyer, payment_intent_id=bad)
    with pytest.raises(Invalid, match="Payment not found"):
        purchases.complete_payment(actor=buyer, payment_intent_id="pi_doesnotexist")
    with pytest.raises(Forbidden):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, user_id="someone-else")
    assert _count(Order) == 0


def test_another_users_intent_is_refused(stripe_standin, buyer, make_user, make_agent):
    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    thief = make_user("thief")
    with pytest.raises(Forbidden, match="another account"):
        purchases.complete_payment(actor=thief, payment_intent_id=intent.payment_intent_id, user_id=thief.id)
    assert _count(Order) == 0
    # Once recorded for its buyer, it is still refused to anyone else.
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    with pytest.raises(Forbidden):
        purchases.complete_payment(actor=thief, payment_intent_id=intent.payment_intent_id)
    assert _count(Purchase, user_id=thief.id) == 0


def test_intent_for_another_agent_is_refused(stripe_standin, buyer, make_agent):
    cheap, dear = make_agent(price_cents=500), make_agent(price_cents=5000)
    intent, _ = _paid_intent(stripe_standin, buyer, cheap)
    with pytest.raises(Invalid, match="does not match"):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=dear.id)
    assert _count(Purchase, agent_id=dear.id) == 0


def _outside_intent(standin, metadata, amount=2999, currency="usd", **extra):
    pi = standin.stripe.v1.payment_intents.create(params={"amount": amount, "currency": currency,
                                                          "metadata": metadata, **extra})
    assert standin.confirm(pi.client_secret).json()["status"] == "succeeded"
    return pi.id


def _metadata(buyer, agent, **overrides):
    return {"agentId": agent.id, "userId": buyer.id, "vendorId": agent.vendor_id or "", "commissionRate": "20.00",
            "originalPriceUsdCents": str(agent.price_cents), "exchangeRate": "1.0000", "currency": "usd",
            **overrides}


def test_intent_without_our_metadata_is_refused(stripe_standin, buyer, make_agent):
    agent = make_agent()
    intent_id = _outside_intent(stripe_standin, {})
    with pytest.raises(Invalid, match="not made for a purchase on this marketplace"):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent_id, agent_id=agent.id)
    assert _count(Order) == 0


@pytest.mark.parametrize(
    ("amount", "currency", "overrides"),
    [
        (100, "usd", {}),  # tampered amount, metadata claims the real price
        (100, "usd", {"originalPriceUsdCents": "100"}),  # metadata lies about the price too
        (2999, "eur", {}),  # charged in another currency than the metadata says
        (2999, "usd", {"exchangeRate": "0.5000"}),  # USD must be at rate 1
        (1500, "eur", {"currency": "eur", "exchangeRate": "0.5000"}),  # a made-up rate
    ],
)
def test_tampered_amounts_are_refused(stripe_standin, buyer, make_agent, amount, currency, overrides):
    agent = make_agent(price_cents=2999)
    intent_id = _outside_intent(stripe_standin, _metadata(buyer, agent, **overrides), amount, currency)
    with pytest.raises(Invalid):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent_id, agent_id=agent.id)
    assert _count(Order) == 0 and _count(Purchase) == 0


def test_tampered_application_fee_is_refused(stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999)
    intent_id = _outside_intent(stripe_standin, _metadata(buyer, agent), application_fee_amount=1,
                                transfer_data={"destination": vendor.stripe_account_id})
    with pytest.raises(Invalid):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent_id)
    assert _count(Order) == 0


def test_price_change_after_checkout_refunds_the_payment(stripe_standin, buyer, make_vendor, make_agent):
    agent = make_agent(make_vendor("enabled"), price_cents=2999)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    with db.session_scope() as session:
        session.get(Agent, agent.id).price_cents = 3999
    for _ in range(2):  # the browser's call and the webhook's: one refund
        with pytest.raises(purchases.PriceChanged, match="price changed during checkout"):
            purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    refunds = _refunds(stripe_standin, intent.payment_intent_id)
    assert [(r.amount, bool(r.transfer_reversal)) for r in refunds] == [(2999, True)]
    assert _count(Order) == 0 and _count(Purchase) == 0 and _sales(agent.id) == 0


def test_rate_change_after_checkout_refunds_the_payment(stripe_standin, buyer, make_agent, eur_checkout):
    agent = make_agent(price_cents=2999)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    set_platform(rate="0.9500")
    with pytest.raises(purchases.PriceChanged):
        purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert [r.amount for r in _refunds(stripe_standin, intent.payment_intent_id)] == [2759]
    assert _count(Order) == 0


def test_a_refund_asked_again_after_its_key_expired_returns_the_first(stripe_standin, buyer, make_agent):
    from marketplace.integrations import payments

    intent, _ = _paid_intent(stripe_standin, buyer, make_agent())
    first = payments.refund_payment(intent_id=intent.payment_intent_id, reverse_split=False, idempotency_key="k1")
    again = payments.refund_payment(intent_id=intent.payment_intent_id, reverse_split=False, idempotency_key="k2")
    assert first.startswith("re_") and again == first and len(_refunds(stripe_standin, intent.payment_intent_id)) == 1


def _two_tabs(standin, buyer, agent):
    """Two checkouts opened before either was paid (the commission changed in between, so they are two
    PaymentIntents: the same terms would give the same one); both paid; the first one recorded."""
    first = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    set_platform(commission="25")
    second = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert second.payment_intent_id != first.payment_intent_id
    assert standin.confirm(first.client_secret).status_code == 200
    assert standin.confirm(second.client_secret).status_code == 200
    purchases.complete_payment(actor=buyer, payment_intent_id=first.payment_intent_id)
    return first.payment_intent_id, second.payment_intent_id


def _refunds(standin, intent_id):
    return standin.stripe.v1.refunds.list(params={"payment_intent": intent_id}).data


def _order(intent_id) -> Order:
    with db.session_scope() as session:
        return session.exec(select(Order).where(Order.payment_intent_id == intent_id)).one()


def test_second_payment_for_an_owned_agent_is_refunded(stripe_standin, buyer, make_agent):
    """Two tabs, both paid: access stays one purchase, the second payment goes back at once."""
    agent = make_agent(price_cents=2999)
    first_id, second_id = _two_tabs(stripe_standin, buyer, agent)
    with pytest.raises(Conflict, match="This payment has been refunded"):
        purchases.complete_payment(actor=buyer, payment_intent_id=second_id)
    refunds = _refunds(stripe_standin, second_id)
    assert [(r.amount, r.status) for r in refunds] == [(2999, "succeeded")]
    order = _order(second_id)
    assert (order.status, order.refund_id) == ("refunded", refunds[0].id)
    assert _order(first_id).status == "completed" and _refunds(stripe_standin, first_id) == []
    assert _count(Order) == 2 and _count(Purchase) == 1 and _sales(agent.id) == 1
    assert purchases.spending_summary(actor=buyer).completed_orders == 1
    # Asked again (reload, webhook): same answer, no second refund.
    with pytest.raises(Conflict, match="This payment has been refunded"):
        purchases.complete_payment(actor=buyer, payment_intent_id=second_id)
    assert len(_refunds(stripe_standin, second_id)) == 1


def test_refund_of_a_split_payment_takes_the_vendor_transfer_back(stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999)
    first_id, second_id = _two_tabs(stripe_standin, buyer, agent)
    with pytest.raises(Conflict):
        purchases.complete_payment(actor=buyer, payment_intent_id=second_id)
    transfers = stripe_standin.stripe.v1.transfers.list(params={"destination": vendor.stripe_account_id}).data
    by_intent = {t.metadata["payment_intent"]: t for t in transfers}
    assert (by_intent[second_id].amount_reversed, by_intent[second_id].reversed) == (2999, True)
    assert (by_intent[first_id].amount_reversed, by_intent[first_id].reversed) == (0, False)
    assert _refunds(stripe_standin, second_id)[0].transfer_reversal
    # The platform's fee on the refunded payment went back too: the vendor keeps its share of the first only.
    fees = stripe_standin.stripe.v1.application_fees.list().data
    assert sorted((f.amount, f.amount_refunded) for f in fees) == [(600, 0), (750, 750)]
    assert stripe_standin.balance(vendor.stripe_account_id)["available"]["usd"] == 2999 - 600


def test_webhook_refunds_a_duplicate_payment(stripe_standin, buyer, make_agent):
    from tests.payments_fixtures import event_body, sign

    agent = make_agent()
    _, second_id = _two_tabs(stripe_standin, buyer, agent)
    body = event_body(stripe_standin.event_for(second_id, "payment_intent.succeeded"))
    assert purchases.handle_webhook(payload=body, signature=sign(body)).result == "refunded"
    assert _order(second_id).status == "refunded" and len(_refunds(stripe_standin, second_id)) == 1
    with pytest.raises(Conflict, match="This payment has been refunded"):
        purchases.complete_payment(actor=buyer, payment_intent_id=second_id)
    assert len(_refunds(stripe_standin, second_id)) == 1


def test_a_failed_refund_is_retried(stripe_standin, buyer, make_agent, monkeypatch):
    from marketplace.integrations import payments

    agent = make_agent()
    _, second_id = _two_tabs(stripe_standin, buyer, agent)
    real = payments.refund_payment

    def down(**_kwargs):
        raise payments.PaymentProviderError("The payment provider could not process the request. Please try again.")

    monkeypatch.setattr(payments, "refund_payment", down)
    with pytest.raises(BadGateway):
        purchases.complete_payment(actor=buyer, payment_intent_id=second_id)
    assert (_order(second_id).status, _order(second_id).refund_id) == ("completed", None)
    monkeypatch.setattr(payments, "refund_payment", real)
    with pytest.raises(Conflict, match="This payment has been refunded"):
        purchases.complete_payment(actor=buyer, payment_intent_id=second_id)
    assert _order(second_id).status == "refunded" and len(_refunds(stripe_standin, second_id)) == 1


def test_another_account_cannot_trigger_a_refund(stripe_standin, buyer, make_user, make_agent):
    agent = make_agent()
    _, second_id = _two_tabs(stripe_standin, buyer, agent)
    with pytest.raises(Forbidden):
        purchases.complete_payment(actor=make_user("intruder"), payment_intent_id=second_id)
    assert _refunds(stripe_standin, second_id) == []


# --- races ---------------------------------------------------------------------------------------------------


def _run_threads(n, target):
    barrier = threading.Barrier(n)
    results, errors = [], []

    def run(i):
        try:
            barrier.wait(timeout=30)
            results.append(target(i))
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results, errors


def test_fifty_concurrent_completions_record_one_order(stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    agent = make_agent(vendor)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    results, errors = _run_threads(
        50, lambda _i: purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id))
    assert errors == []
    assert len(results) == 50 and sum(r.created for r in results) == 1
    assert len({r.order.id for r in results}) == 1 and len({r.purchase.id for r in results}) == 1
    assert _count(Order) == 1 and _count(Purchase) == 1 and _sales(agent.id) == 1
    assert _count(Notification, user_id=vendor.id) == 1


def test_browser_and_webhook_race(stripe_standin, buyer, make_agent):
    from tests.payments_fixtures import event_body, sign

    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    event = stripe_standin.event_for(intent.payment_intent_id, "payment_intent.succeeded")
    body = event_body(event)

    def act(i):
        if i % 2:
            return purchases.handle_webhook(payload=body, signature=sign(body)).result
        return purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id).created

    results, errors = _run_threads(10, act)
    assert errors == []
    assert _count(Order) == 1 and _count(Purchase) == 1 and _sales(agent.id) == 1
    created = [r for r in results if r is True or r == "recorded"]
    assert len(created) == 1


# --- webhook -------------------------------------------------------------------------------------------------


def test_webhook_records_the_purchase_and_ignores_duplicates(stripe_standin, buyer, make_agent):
    from tests.payments_fixtures import event_body, sign

    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    body = event_body(stripe_standin.event_for(intent.payment_intent_id, "payment_intent.succeeded"))
    assert purchases.handle_webhook(payload=body, signature=sign(body)).result == "recorded"
    assert purchases.handle_webhook(payload=body, signature=sign(body)).result == "duplicate"
    # The browser's later call finds the recorded purchase.
    late = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert not late.created
    assert _count(Order) == 1 and _count(Purchase) == 1 and _sales(agent.id) == 1


def test_webhook_signature_is_verified(stripe_standin, buyer, make_agent):
    from tests.payments_fixtures import event_body, sign

    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    body = event_body(stripe_standin.event_for(intent.payment_intent_id, "payment_intent.succeeded"))
    for signature in (None, "", "t=1,v1=deadbeef", sign(body, secret="whsec_other"), sign(body, timestamp=1),
                      sign(body + b" ")):
        with pytest.raises(Invalid, match="Invalid webhook signature"):
            purchases.handle_webhook(payload=body, signature=signature)
    tampered = body.replace(intent.payment_intent_id.encode(), b"pi_forged")
    with pytest.raises(Invalid):
        purchases.handle_webhook(payload=tampered, signature=sign(body))
    assert _count(Order) == 0


def test_webhook_failure_and_foreign_events_change_nothing(stripe_standin, buyer, make_agent):
    from tests.payments_fixtures import event_body, sign

    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent, DECLINED_CARD)
    failed = event_body(stripe_standin.event_for(intent.payment_intent_id, "payment_intent.payment_failed"))
    assert purchases.handle_webhook(payload=failed, signature=sign(failed)).result == "ignored"
    foreign_id = _outside_intent(stripe_standin, {})
    foreign = event_body(stripe_standin.event_for(foreign_id, "payment_intent.succeeded"))
    assert purchases.handle_webhook(payload=foreign, signature=sign(foreign)).result == "ignored"
    tampered_id = _outside_intent(stripe_standin, _metadata(buyer, agent), amount=100)
    tampered = event_body(stripe_standin.event_for(tampered_id, "payment_intent.succeeded"))
    assert purchases.handle_webhook(payload=tampered, signature=sign(tampered)).result == "rejected"
    assert _count(Order) == 0 and _count(Purchase) == 0


def test_webhook_of_a_type_nothing_acts_on_touches_no_table(stripe_standin, buyer, make_agent):
    """Stripe sends about 11 events per purchase and 7 of them (charge.succeeded, payment_intent.created, ...)
    change nothing here: they are answered without a statement, each delivery alike (issue 21)."""
    from tests.payments_fixtures import event_body, sign

    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    body = event_body(stripe_standin.event_for(intent.payment_intent_id, "payment_intent.created"))
    statements: list[str] = []

    def on_statement(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(db.engine(), "before_cursor_execute", on_statement)
    try:
        outcomes = [purchases.handle_webhook(payload=body, signature=sign(body)).result for _ in range(2)]
    finally:
        event.remove(db.engine(), "before_cursor_execute", on_statement)
    assert outcomes == ["ignored", "ignored"]
    assert statements == []
    assert _count(Order) == 0


def test_a_first_invoice_s_created_event_is_not_retrieved_again(stripe_standin, monkeypatch):
    """`invoice.created` matters for a renewal's plan fee only: a subscription's first invoice is ignored from the
    signed event itself, without a call to Stripe (issue 21)."""
    from marketplace.services.plans import fees
    from tests.payments_fixtures import sign

    asked: list[str] = []
    monkeypatch.setattr(fees, "invoice_created", lambda invoice_id: asked.append(invoice_id) or "ignored")
    outcomes = []
    for n, reason in enumerate(("subscription_create", "subscription_cycle", None)):
        invoice = {"id": f"in_{n}", "object": "invoice", "billing_reason": reason}
        body = json.dumps({"id": f"evt_inv_{n}", "type": "invoice.created", "data": {"object": invoice}}).encode()
        outcomes.append(purchases.handle_webhook(payload=body, signature=sign(body)).result)
    assert outcomes == ["ignored"] * 3
    assert asked == ["in_1", "in_2"]


def test_late_failure_event_after_success_changes_nothing(stripe_standin, buyer, make_agent):
    from tests.payments_fixtures import event_body, sign

    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent, DECLINED_CARD)
    failed = event_body(stripe_standin.event_for(intent.payment_intent_id, "payment_intent.payment_failed"))
    stripe_standin.confirm(intent.client_secret)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id)
    assert purchases.handle_webhook(payload=failed, signature=sign(failed)).result == "ignored"
    with db.session_scope() as session:
        assert session.exec(select(Order.status)).all() == ["completed"]


def test_account_updated_webhook_refreshes_vendor_flags(stripe_standin, make_vendor):
    from tests.payments_fixtures import event_body, sign

    vendor = make_vendor("restricted")
    stripe_standin.onboard(vendor.stripe_account_id)
    events = stripe_standin.stripe.v1.events.list(params={"type": "account.updated"}).data
    body = event_body(events[0].to_dict())
    assert purchases.handle_webhook(payload=body, signature=sign(body)).result == "updated"
    with db.session_scope() as session:
        from marketplace.models import User

        row = session.get(User, vendor.id)
        assert row.stripe_charges_enabled and row.stripe_payouts_enabled


# --- free agents ---------------------------------------------------------------------------------------------


def test_claim_free_agent(stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor()
    free, paid = make_agent(vendor, price_cents=0), make_agent(vendor, price_cents=999)
    done = purchases.claim_free_agent(actor=buyer, agent_id=free.id)
    assert done.created and done.purchase.purchase_price_cents == 0
    assert (done.order.total_amount_cents, done.order.vendor_amount_cents, done.order.platform_fee_cents) == (0, 0, 0)
    assert done.order.split_block_reason == "Free agent: no payment taken"
    with pytest.raises(Conflict, match="You already own this agent"):
        purchases.claim_free_agent(actor=buyer, agent_id=free.id)
    with pytest.raises(Invalid, match="not free"):
        purchases.claim_free_agent(actor=buyer, agent_id=paid.id)
    with pytest.raises(Unauthorized):
        purchases.claim_free_agent(actor=None, agent_id=free.id)
    with pytest.raises(Forbidden):
        purchases.claim_free_agent(actor=vendor, agent_id=free.id)
    with pytest.raises(NotFound):
        purchases.claim_free_agent(actor=buyer, agent_id="missing")
    assert _count(Order) == 1 and _count(Purchase) == 1 and _sales(free.id) == 1


def test_concurrent_free_claims_make_one_purchase(stripe_standin, buyer, make_agent):
    agent = make_agent(price_cents=0)

    def claim(_i):
        try:
            return purchases.claim_free_agent(actor=buyer, agent_id=agent.id).order.id
        except Conflict:
            return "conflict"

    results, errors = _run_threads(10, claim)
    assert errors == [] and len(results) == 10
    assert _count(Order) == 1 and _count(Purchase) == 1 and _sales(agent.id) == 1


def test_free_claim_racing_a_paid_purchase_leaves_no_order(stripe_standin, buyer, make_agent, monkeypatch):
    """The buyer came to own the agent between the claim's check and its write: the claim writes nothing."""
    agent = make_agent(price_cents=999)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=agent.id)
    with db.session_scope() as session:
        session.get(Agent, agent.id).price_cents = 0
    real_owns = completion._owns
    answers = [False]  # the claim's own check ran before the paid purchase was visible
    monkeypatch.setattr(completion, "_owns", lambda *args: answers.pop() if answers else real_owns(*args))
    with pytest.raises(Conflict, match="You already own this agent"):
        purchases.claim_free_agent(actor=buyer, agent_id=agent.id)
    assert _count(Order) == 1 and _count(Purchase) == 1 and _sales(agent.id) == 1


def test_checkout_again_after_paying_without_completing_records_the_purchase(stripe_standin, buyer, make_agent):
    """The page closed after the card was charged and no webhook came: the next checkout must not charge again."""
    agent = make_agent()
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    with pytest.raises(Conflict, match="You already own this agent"):
        purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert _count(Order, payment_intent_id=intent.payment_intent_id) == 1 and _count(Purchase) == 1


def test_canceled_intent_is_replaced(stripe_standin, buyer, make_agent):
    agent = make_agent()
    first = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    stripe_standin.stripe.v1.payment_intents.cancel(first.payment_intent_id)
    second = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    assert second.payment_intent_id != first.payment_intent_id
    assert stripe_standin.confirm(second.client_secret).json()["status"] == "succeeded"


# --- the success page's order --------------------------------------------------------------------------------


def test_recent_purchase_is_only_the_buyers_fresh_completed_order(stripe_standin, buyer, make_user, make_agent):
    """/purchase-success celebrates the order it was sent with only if this service finds it: the buyer's
    own, completed (not a refunded second payment), made within the window."""
    agent = make_agent(price_cents=999)
    intent, _ = _paid_intent(stripe_standin, buyer, agent)
    done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=agent.id)
    assert purchases.recent_purchase(actor=buyer, order_id=done.order.id).id == done.order.id

    with pytest.raises(NotFound, match=purchases.NO_RECENT_PURCHASE):
        purchases.recent_purchase(actor=make_user("other"), order_id=done.order.id)
    with pytest.raises(Unauthorized):
        purchases.recent_purchase(actor=None, order_id=done.order.id)
    for bad in ("", "../orders", "x" * 33, "\u0663" * 32, None):
        with pytest.raises(Invalid):
            purchases.recent_purchase(actor=buyer, order_id=bad)
    window = purchases.SUCCESS_PAGE_WINDOW.total_seconds() / 60
    for order in (make_order(agent, buyer, created_at=ago(minutes=window + 1)),
                  make_order(agent, buyer, status=OrderStatus.REFUNDED),
                  make_order(agent, make_user("third"))):
        with pytest.raises(NotFound):
            purchases.recent_purchase(actor=buyer, order_id=order.id)
    with pytest.raises(NotFound):
        purchases.recent_purchase(actor=buyer, order_id="0" * 32)
