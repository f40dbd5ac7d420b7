"""The stand-in's refunds (Connect's reverse_transfer / refund_application_fee, dashboard refunds) and disputes:
the money each side holds afterwards, and the signed webhooks Stripe sends."""

from __future__ import annotations

import httpx
import pytest
import stripe

from tests.payments_fixtures import StandIn

DISPUTED_CARD = "4000000000000259"  # succeeds, then a fraudulent chargeback
INQUIRY_CARD = "4000000000001976"  # succeeds, then an inquiry (no money moves)


def _vendor(standin: StandIn) -> str:
    account = standin.stripe.v1.accounts.create(params={"type": "express", "email": "v@example.com"})
    standin.complete(account.id)
    return account.id


def _balances(standin: StandIn, account_id: str) -> tuple[int, int]:
    """(connected account's available usd, platform's available usd)."""
    platform = {b.currency: b.amount for b in standin.stripe.v1.balance.retrieve().available}
    return standin.balance(account_id)["available"]["usd"], platform.get("usd", 0)


def _paid(standin: StandIn, card: str, amount: int = 2000) -> stripe.PaymentIntent:
    intent = standin.stripe.v1.payment_intents.create(params={"amount": amount, "currency": "usd"})
    response = standin.confirm(intent.client_secret, card)
    assert response.json()["status"] == "succeeded", response.text
    return standin.stripe.v1.payment_intents.retrieve(intent.id)


def test_split_refunds_move_the_transfer_and_the_fee_back(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    account = _vendor(stripe_standin)
    intent = stripe_standin.fund(account, 1000, fee=200)
    assert _balances(stripe_standin, account) == (800, 200)
    charge = client.v1.charges.retrieve(client.v1.payment_intents.retrieve(intent).latest_charge)
    assert (charge.application_fee_amount, charge.amount_captured) == (200, 1000)
    fee = client.v1.application_fees.retrieve(charge.application_fee)
    assert (fee.amount, fee.account, fee.charge) == (200, account, charge.id)

    partial = client.v1.refunds.create(params={
        "payment_intent": intent, "amount": 400, "reason": "requested_by_customer", "reverse_transfer": True,
        "refund_application_fee": True, "metadata": {"orderId": "o1"}})
    assert (partial.status, partial.amount, partial.payment_intent, partial.reason) == (
        "succeeded", 400, intent, "requested_by_customer")
    assert partial.transfer_reversal.startswith("trr_") and partial.metadata.to_dict() == {"orderId": "o1"}
    # 40% back: 400 of the 1000 transfer and 80 of the 200 fee.
    assert _balances(stripe_standin, account) == (480, 120)
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.refunds.create(params={"payment_intent": intent, "amount": 601})
    assert exc.value.code == "amount_too_large"
    rest = client.v1.refunds.create(params={"payment_intent": intent, "reverse_transfer": True,
                                            "refund_application_fee": True})
    assert rest.amount == 600 and _balances(stripe_standin, account) == (0, 0)
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.refunds.create(params={"payment_intent": intent})
    assert exc.value.code == "charge_already_refunded"
    assert [r.id for r in client.v1.refunds.list(params={"payment_intent": intent}).data] == [rest.id, partial.id]

    stripe_standin.drain()
    assert stripe_webhooks.rejected == 0
    refunded = [e["data"]["object"] for e in stripe_webhooks.of("charge.refunded")]
    assert [(c["amount_refunded"], c["refunded"]) for c in refunded] == [(400, False), (1000, True)]
    assert [e["data"]["object"]["id"] for e in stripe_webhooks.of("refund.created")] == [partial.id, rest.id]
    assert [e["data"]["object"]["amount_reversed"] for e in stripe_webhooks.of("transfer.reversed")] == [400, 1000]
    assert [e["data"]["object"]["amount_refunded"] for e in stripe_webhooks.of("application_fee.refunded")] == [
        80, 200]


def test_refunding_a_split_subscription_invoice(stripe_standin):
    client = stripe_standin.stripe
    account = _vendor(stripe_standin)
    customer = client.v1.customers.create(params={"email": "buyer@example.com"})
    price = client.v1.prices.create(params={"unit_amount": 2999, "currency": "usd", "recurring": {"interval": "month"},
                                            "product_data": {"name": "Agent"}})
    sub = client.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}], "payment_behavior": "default_incomplete",
        "transfer_data": {"destination": account}, "application_fee_percent": 20,
        "expand": ["latest_invoice.confirmation_secret"]})
    stripe_standin.confirm(sub.latest_invoice.confirmation_secret.client_secret)
    assert _balances(stripe_standin, account) == (2399, 600)
    intent = client.v1.invoice_payments.list(params={"invoice": sub.latest_invoice.id}).data[0].payment.payment_intent
    client.v1.refunds.create(params={"payment_intent": intent, "reverse_transfer": True,
                                     "refund_application_fee": True})
    client.v1.subscriptions.cancel(sub.id)
    assert _balances(stripe_standin, account) == (0, 0)
    assert client.v1.invoices.retrieve(sub.latest_invoice.id).status == "paid"  # a refund does not reopen it


def test_a_dashboard_refund_sends_charge_refunded(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    intent = _paid(stripe_standin, "4242424242424242", amount=1500)
    response = httpx.post(f"{stripe_standin.base}/_standin/refund", json={"payment_intent": intent.id})
    assert response.status_code == 200 and response.json()["amount"] == 1500
    stripe_standin.drain()
    [event] = stripe_webhooks.of("charge.refunded")
    charge = event["data"]["object"]
    assert (charge["id"], charge["payment_intent"], charge["amount_refunded"], charge["refunded"]) == (
        intent.latest_charge, intent.id, 1500, True)
    assert stripe_webhooks.of("refund.created")[0]["data"]["object"]["id"] == response.json()["id"]
    assert client.v1.refunds.list(params={"payment_intent": intent.id}).data[0].id == response.json()["id"]
    missing = httpx.post(f"{stripe_standin.base}/_standin/refund", json={"payment_intent": "pi_missing"})
    assert missing.status_code == 404


def test_dispute_card_opens_a_chargeback_that_can_be_won(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    intent = _paid(stripe_standin, DISPUTED_CARD, amount=2000)
    stripe_standin.drain()
    [created] = stripe_webhooks.of("charge.dispute.created")
    dispute = created["data"]["object"]
    assert (dispute["object"], dispute["charge"], dispute["payment_intent"], dispute["amount"]) == (
        "dispute", intent.latest_charge, intent.id, 2000)
    assert (dispute["reason"], dispute["status"], dispute["is_charge_refundable"]) == (
        "fraudulent", "needs_response", False)
    assert dispute["balance_transactions"][0]["net"] == -3500  # the amount and a 15.00 fee
    assert stripe_webhooks.types("charge.dispute.") == ["charge.dispute.created", "charge.dispute.funds_withdrawn"]
    assert client.v1.charges.retrieve(intent.latest_charge).disputed is True
    assert client.v1.balance.retrieve().available[0].amount == 2000 - 3500
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.refunds.create(params={"payment_intent": intent.id})
    assert exc.value.code == "charge_disputed"

    won = client.v1.disputes.update(dispute["id"], params={"evidence": {"uncategorized_text": "winning_evidence"}})
    assert won.status == "won" and won.evidence_details.submission_count == 1
    assert client.v1.balance.retrieve().available[0].amount == 2000
    stripe_standin.drain()
    assert stripe_webhooks.types("charge.dispute.")[2:] == [
        "charge.dispute.updated", "charge.dispute.funds_reinstated", "charge.dispute.closed"]
    assert [d.id for d in client.v1.disputes.list(params={"payment_intent": intent.id}).data] == [dispute["id"]]


def test_disputes_from_the_dev_route_and_the_inquiry_card(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    inquiry = _paid(stripe_standin, INQUIRY_CARD, amount=1000)
    opened = client.v1.disputes.list(params={"charge": inquiry.latest_charge}).data[0]
    assert (opened.status, opened.balance_transactions) == ("warning_needs_response", [])
    assert client.v1.balance.retrieve().available[0].amount == 1000

    intent = _paid(stripe_standin, "4242424242424242", amount=3000)
    response = httpx.post(f"{stripe_standin.base}/_standin/disputes",
                          json={"payment_intent": intent.id, "reason": "product_not_received"})
    assert response.status_code == 200
    dispute = response.json()
    assert (dispute["status"], dispute["reason"], dispute["amount"]) == ("needs_response", "product_not_received",
                                                                          3000)
    again = httpx.post(f"{stripe_standin.base}/_standin/disputes", json={"payment_intent": intent.id})
    assert again.status_code == 400
    lost = client.v1.disputes.close(dispute["id"])
    assert lost.status == "lost"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.disputes.close(dispute["id"])
    assert client.v1.balance.retrieve().available[0].amount == 1000 + 3000 - 4500
    stripe_standin.drain()
    closed = stripe_webhooks.of("charge.dispute.closed")
    assert [e["data"]["object"]["status"] for e in closed] == ["lost"]
