"""The stand-in's Stripe Billing, driven with the real SDK (its pinned API version) and checked through signed
webhooks: subscriptions, first payments, renewals on test clocks, dunning, card updates, cancellations,
price changes with prorations, and the state file."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import stripe

from tests.payments_fixtures import SECRET_KEY, StandIn, WebhookReceiver, start_standin, stop_standin

FAILING_LATER_CARD = "4000000000000341"  # attaches fine, every later charge is declined
APRIL_1 = int(datetime(2026, 4, 1, 12, tzinfo=UTC).timestamp())  # a 30-day month: prorations are round
MAY_1 = int(datetime(2026, 5, 1, 12, tzinfo=UTC).timestamp())
JUNE_1 = int(datetime(2026, 6, 1, 12, tzinfo=UTC).timestamp())
HOUR, DAY = 3600, 86400


def _price(client: stripe.StripeClient, amount: int, *, key: str | None = None, name: str = "Agent Pro") -> Any:
    params: dict[str, Any] = {"unit_amount": amount, "currency": "usd", "recurring": {"interval": "month"},
                              "product_data": {"name": name}}
    if key:
        params["lookup_key"] = key
    return client.v1.prices.create(params=params)


def _customer(client: stripe.StripeClient, clock: str | None = None) -> Any:
    params: dict[str, Any] = {"email": "buyer@example.com", "name": "Buyer", "metadata": {"userId": "u1"}}
    if clock:
        params["test_clock"] = clock
    return client.v1.customers.create(params=params)


def _subscribe(standin: StandIn, customer: str, price: str, **extra: Any) -> Any:
    """What the app's checkout does: an incomplete subscription whose first invoice the Payment Element pays."""
    return standin.stripe.v1.subscriptions.create(params={
        "customer": customer, "items": [{"price": price}], "payment_behavior": "default_incomplete",
        "payment_settings": {"save_default_payment_method": "on_subscription"},
        "expand": ["latest_invoice.confirmation_secret"], "metadata": {"agentId": "a1"}, **extra})


def _subscribed(standin: StandIn, customer: str, price: str, card: str = "4242424242424242", **extra: Any) -> Any:
    sub = _subscribe(standin, customer, price, **extra)
    paid = standin.confirm(sub.latest_invoice.confirmation_secret.client_secret, card)
    assert paid.json()["status"] == "succeeded", paid.text
    return standin.stripe.v1.subscriptions.retrieve(sub.id)


def _clock(standin: StandIn, at: int = APRIL_1) -> Any:
    return standin.stripe.v1.test_helpers.test_clocks.create(params={"frozen_time": at, "name": "billing test"})


def _during_advance(receiver: WebhookReceiver) -> list[str]:
    return [t for t in receiver.types() if t != "test_helpers.test_clock.ready"]


def _period(sub: Any) -> tuple[int, int]:
    item = sub["items"]["data"][0]
    return item["current_period_start"], item["current_period_end"]


def test_first_invoice_payment_activates_the_subscription(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    price = _price(client, 2999, key="agent-a1-usd")
    customer = _customer(client)
    sub = _subscribe(stripe_standin, customer.id, price.id)
    invoice = sub.latest_invoice
    assert (sub.status, invoice.status, invoice.billing_reason, invoice.amount_due) == (
        "incomplete", "open", "subscription_create", 2999)
    assert invoice.confirmation_secret.type == "payment_intent"
    intent_id = invoice.confirmation_secret.client_secret.split("_secret_")[0]
    assert invoice.parent.subscription_details.subscription == sub.id
    assert invoice.parent.subscription_details.metadata.to_dict() == {"agentId": "a1"}
    [line] = invoice.lines.data
    assert (line.amount, line.pricing.price_details.price, line.period.start, line.period.end) == (
        2999, price.id, *_period(sub))
    assert "payment_intent" not in invoice.to_dict() and "subscription" not in invoice.to_dict()  # basil shape

    confirmed = stripe_standin.confirm(invoice.confirmation_secret.client_secret)
    assert confirmed.json()["status"] == "succeeded"
    stripe_standin.drain()
    sub = client.v1.subscriptions.retrieve(sub.id, params={"expand": ["latest_invoice.payments"]})
    assert sub.status == "active"
    method = client.v1.payment_methods.retrieve(sub.default_payment_method)
    assert method.customer == customer.id and method.card.last4 == "4242"
    paid = sub.latest_invoice
    assert (paid.status, paid.amount_paid, paid.amount_remaining, paid.attempt_count) == ("paid", 2999, 0, 1)
    assert paid.status_transitions.paid_at is not None and paid.number.endswith("-0001")
    assert paid.payments.data[0].payment.payment_intent == intent_id and paid.payments.data[0].status == "paid"
    by_intent = client.v1.invoice_payments.list(params={
        "payment": {"type": "payment_intent", "payment_intent": intent_id}})
    assert by_intent.data[0].invoice == paid.id and by_intent.data[0].amount_paid == 2999

    assert stripe_webhooks.rejected == 0
    assert stripe_webhooks.about(sub.id) == ["customer.subscription.created", "customer.subscription.updated"]
    assert stripe_webhooks.about(paid.id) == ["invoice.created", "invoice.finalized", "invoice.paid",
                                              "invoice.payment_succeeded"]
    order = stripe_webhooks.types()
    assert order.index("payment_intent.succeeded") < order.index("invoice.paid") < order.index(
        "customer.subscription.updated")
    created = stripe_webhooks.of("customer.subscription.created")[0]["data"]["object"]
    assert (created["status"], created["latest_invoice"]) == ("incomplete", paid.id)
    updated = stripe_webhooks.of("customer.subscription.updated")[0]
    assert updated["data"]["previous_attributes"]["status"] == "incomplete"
    assert updated["data"]["object"]["status"] == "active" and updated["api_version"] == stripe.api_version
    assert updated["request"]["id"].startswith("req_")

    # A caller on an older API version reads the pre-basil fields, as Stripe would answer it.
    legacy = httpx.get(f"{stripe_standin.base}/v1/subscriptions/{sub.id}",
                       params={"expand[]": "latest_invoice.payment_intent"},
                       headers={"Authorization": f"Bearer {SECRET_KEY}", "Stripe-Version": "2024-06-20"}).json()
    assert legacy["latest_invoice"]["payment_intent"]["id"] == intent_id
    assert legacy["current_period_end"] == _period(sub)[1]
    refused = httpx.get(f"{stripe_standin.base}/v1/subscriptions/{sub.id}",
                        params={"expand[]": "latest_invoice.payment_intent"},
                        headers={"Authorization": f"Bearer {SECRET_KEY}"})
    assert refused.status_code == 400 and "cannot be expanded" in refused.json()["error"]["message"]


def test_a_declined_first_payment_leaves_it_incomplete_until_a_good_card(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    sub = _subscribe(stripe_standin, _customer(client).id, _price(client, 1500).id)
    secret = sub.latest_invoice.confirmation_secret.client_secret
    declined = stripe_standin.confirm(secret, "4000000000000002")
    assert declined.status_code == 402 and declined.json()["error"]["message"] == "Your card was declined."
    assert client.v1.subscriptions.retrieve(sub.id).status == "incomplete"
    assert client.v1.invoices.retrieve(sub.latest_invoice.id).attempt_count == 1
    assert stripe_standin.confirm(secret).json()["status"] == "succeeded"
    stripe_standin.drain()
    assert client.v1.subscriptions.retrieve(sub.id).status == "active"
    assert stripe_webhooks.about(sub.latest_invoice.id) == [
        "invoice.created", "invoice.finalized", "invoice.payment_failed", "invoice.paid", "invoice.payment_succeeded"]


def test_split_subscription_pays_the_vendor_and_the_platform_fee(stripe_standin):
    client = stripe_standin.stripe
    account = client.v1.accounts.create(params={"type": "express", "email": "v@example.com"})
    stripe_standin.complete(account.id)
    sub = _subscribed(stripe_standin, _customer(client).id, _price(client, 2999).id,
                      transfer_data={"destination": account.id}, application_fee_percent=20)
    assert (sub.application_fee_percent, sub.transfer_data.destination) == (20, account.id)
    invoice = client.v1.invoices.retrieve(sub.latest_invoice,
                                          params={"expand": ["payments.data.payment.payment_intent"]})
    intent = invoice.payments.data[0].payment.payment_intent
    assert (intent.amount, intent.application_fee_amount, intent.transfer_data.destination) == (2999, 600, account.id)
    charge = client.v1.charges.retrieve(intent.latest_charge)
    assert charge.application_fee_amount == 600 and charge.transfer
    assert stripe_standin.balance(account.id)["available"]["usd"] == 2399
    assert client.v1.balance.retrieve().available[0].amount == 600
    # The fee follows the vendor's plan from the next invoice on.
    client.v1.subscriptions.update(sub.id, params={"application_fee_percent": 10})
    assert client.v1.subscriptions.retrieve(sub.id).application_fee_percent == 10
    with pytest.raises(stripe.InvalidRequestError, match="application_fee_percent"):
        client.v1.subscriptions.create(params={"customer": _customer(client).id,
                                               "items": [{"price": _price(client, 100).id}],
                                               "application_fee_percent": 5})


def test_clock_advance_renews_and_delivers_every_webhook_before_ready(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    clock = _clock(stripe_standin)
    customer = _customer(client, clock.id)
    assert customer.test_clock == clock.id and customer.created == APRIL_1
    sub = _subscribed(stripe_standin, customer.id, _price(client, 2999).id)
    assert sub.created == APRIL_1 and _period(sub) == (APRIL_1, MAY_1)
    stripe_standin.drain()
    stripe_webhooks.clear()

    # Advancing exactly to the period end creates the renewal invoice; Stripe charges it an hour later.
    stripe_standin.advance(clock.id, MAY_1)
    # By the time the clock is `ready`, every event of the advance has been delivered and answered (no drain);
    # `test_helpers.test_clock.ready` itself follows.
    assert _during_advance(stripe_webhooks) == ["test_helpers.test_clock.advancing", "invoice.created",
                                                "customer.subscription.updated"]
    renewal = client.v1.invoices.list(params={"subscription": sub.id, "limit": 1}).data[0]
    assert (renewal.billing_reason, renewal.status, renewal.automatically_finalizes_at) == (
        "subscription_cycle", "draft", MAY_1 + HOUR)
    assert (renewal.period_start, renewal.period_end) == (APRIL_1, MAY_1)  # Stripe's "pending items" window
    assert (renewal.lines.data[0].period.start, renewal.lines.data[0].period.end) == (MAY_1, JUNE_1)
    renewed = stripe_webhooks.of("customer.subscription.updated")[0]
    assert renewed["data"]["previous_attributes"]["latest_invoice"] == sub.latest_invoice
    ready = client.v1.test_helpers.test_clocks.retrieve(clock.id)
    assert (ready.status, ready.frozen_time) == ("ready", MAY_1)

    stripe_webhooks.clear()
    stripe_standin.advance(clock.id, MAY_1 + 2 * HOUR)
    assert _during_advance(stripe_webhooks) == [
        "test_helpers.test_clock.advancing", "payment_intent.created", "invoice.finalized", "charge.succeeded",
        "payment_intent.succeeded", "invoice.paid", "invoice.payment_succeeded"]
    stripe_standin.drain()
    assert stripe_webhooks.types()[-1] == "test_helpers.test_clock.ready"
    renewal = client.v1.invoices.retrieve(renewal.id)
    assert (renewal.status, renewal.amount_paid, renewal.attempt_count) == ("paid", 2999, 1)
    assert renewal.status_transitions.paid_at == MAY_1 + HOUR
    paid_event = stripe_webhooks.of("invoice.paid")[0]
    assert paid_event["created"] == MAY_1 + HOUR and paid_event["request"]["id"] is None
    sub = client.v1.subscriptions.retrieve(sub.id)
    assert sub.status == "active" and _period(sub) == (MAY_1, JUNE_1)


def test_clock_rules_and_an_advance_waits_for_the_app(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    clock = _clock(stripe_standin)
    assert (clock.object, clock.status, clock.name) == ("test_helpers.test_clock", "ready", "billing test")
    with pytest.raises(stripe.InvalidRequestError, match="after its current frozen_time"):
        client.v1.test_helpers.test_clocks.advance(clock.id, params={"frozen_time": APRIL_1 - 1})
    customer = _customer(client, clock.id)
    _subscribed(stripe_standin, customer.id, _price(client, 500).id)
    stripe_standin.drain()
    stripe_webhooks.clear()
    # At most two intervals of the shortest subscription on the clock.
    with pytest.raises(stripe.InvalidRequestError, match="two intervals"):
        client.v1.test_helpers.test_clocks.advance(clock.id, params={"frozen_time": JUNE_1 + 31 * DAY})

    # While the app has not answered a webhook of the advance, the clock stays `advancing`.
    stripe_webhooks.hold()
    advancing = client.v1.test_helpers.test_clocks.advance(clock.id, params={"frozen_time": MAY_1 + 2 * HOUR})
    assert advancing.status == "advancing"
    assert advancing.status_details.advancing.target_frozen_time == MAY_1 + 2 * HOUR
    assert client.v1.test_helpers.test_clocks.retrieve(clock.id).status == "advancing"
    with pytest.raises(stripe.InvalidRequestError, match="advancing"):
        client.v1.test_helpers.test_clocks.advance(clock.id, params={"frozen_time": MAY_1 + 3 * HOUR})
    with pytest.raises(stripe.InvalidRequestError, match="advancing"):
        _customer(client, clock.id)
    assert client.v1.test_helpers.test_clocks.retrieve(clock.id).status == "advancing"
    stripe_webhooks.release()
    assert stripe_standin.wait_ready(clock.id).frozen_time == MAY_1 + 2 * HOUR
    assert stripe_webhooks.types("invoice.pa") == ["invoice.paid", "invoice.payment_succeeded"]

    listed = client.v1.test_helpers.test_clocks.list()
    assert [c.id for c in listed.data] == [clock.id]
    # The stand-in's helper finds a clock by name (the demo keeps one), or makes it.
    named = httpx.post(f"{stripe_standin.base}/_standin/test_clocks", json={"name": "billing test"}).json()
    assert named["id"] == clock.id
    other = httpx.post(f"{stripe_standin.base}/_standin/test_clocks", json={"name": "demo", "frozen_time": JUNE_1})
    assert other.json()["frozen_time"] == JUNE_1 and other.json()["id"] != clock.id
    # Deleting a clock deletes its customers, with their subscriptions.
    assert client.v1.test_helpers.test_clocks.delete(clock.id).deleted is True
    assert client.v1.customers.list(params={"test_clock": clock.id}).data == []
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.customers.retrieve(customer.id)


def _setup_card(standin: StandIn, customer: str, card: str) -> str:
    """What the update-card page does: a SetupIntent confirmed by Stripe.js's confirmSetup."""
    intent = standin.stripe.v1.setup_intents.create(params={
        "customer": customer, "usage": "off_session", "automatic_payment_methods": {"enabled": True}})
    confirmed = standin.confirm_setup(intent.client_secret, card)
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "succeeded", confirmed.text
    return confirmed.json()["payment_method"]


def test_failing_card_goes_past_due_then_retries_then_cancels(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    clock = _clock(stripe_standin)
    customer = _customer(client, clock.id)
    sub = _subscribed(stripe_standin, customer.id, _price(client, 2999).id)
    failing = _setup_card(stripe_standin, customer.id, FAILING_LATER_CARD)  # attaching it succeeds
    assert client.v1.payment_methods.retrieve(failing).customer == customer.id
    client.v1.subscriptions.update(sub.id, params={"default_payment_method": failing})
    stripe_standin.drain()
    stripe_webhooks.clear()

    first_try = MAY_1 + HOUR
    stripe_standin.advance(clock.id, first_try + HOUR)
    failed = stripe_webhooks.of("invoice.payment_failed")
    assert len(failed) == 1
    invoice = failed[0]["data"]["object"]
    assert (invoice["billing_reason"], invoice["status"], invoice["attempt_count"],
            invoice["next_payment_attempt"]) == ("subscription_cycle", "open", 1, first_try + DAY)
    past_due = stripe_webhooks.of("customer.subscription.updated")[-1]
    assert past_due["data"]["object"]["status"] == "past_due"
    assert past_due["data"]["previous_attributes"]["status"] == "active"
    assert client.v1.customers.retrieve(customer.id).delinquent is True
    intent = client.v1.invoice_payments.list(params={"invoice": invoice["id"]}).data[0].payment.payment_intent
    assert client.v1.payment_intents.retrieve(intent).last_payment_error.message == "Your card was declined."

    # Retries 1, 3 and 7 days after the first failure; the last one cancels and writes the invoice off.
    stripe_standin.advance(clock.id, first_try + DAY + HOUR)
    assert [e["data"]["object"]["attempt_count"] for e in stripe_webhooks.of("invoice.payment_failed")] == [1, 2]
    assert stripe_webhooks.of("invoice.payment_failed")[-1]["data"]["object"]["next_payment_attempt"] == (
        first_try + 3 * DAY)
    stripe_webhooks.clear()
    stripe_standin.advance(clock.id, first_try + 7 * DAY + HOUR)
    assert [t for t in stripe_webhooks.types() if t.startswith(("invoice.", "customer.subscription."))] == [
        "invoice.payment_failed", "invoice.payment_failed", "invoice.marked_uncollectible",
        "customer.subscription.deleted"]
    attempts = [(e["data"]["object"]["attempt_count"], e["data"]["object"]["next_payment_attempt"])
                for e in stripe_webhooks.of("invoice.payment_failed")]
    assert attempts == [(3, first_try + 7 * DAY), (4, None)]
    deleted = stripe_webhooks.of("customer.subscription.deleted")[0]
    assert deleted["created"] == first_try + 7 * DAY
    sub = client.v1.subscriptions.retrieve(sub.id)
    assert (sub.status, sub.ended_at, sub.cancellation_details.reason) == (
        "canceled", first_try + 7 * DAY, "payment_failed")
    assert client.v1.invoices.retrieve(invoice["id"]).status == "uncollectible"
    assert client.v1.subscriptions.list(params={"customer": customer.id}).data == []
    assert [s.id for s in client.v1.subscriptions.list(params={"customer": customer.id, "status": "all"}).data] == [
        sub.id]


def test_a_new_card_and_invoice_pay_recover_a_past_due_subscription(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    clock = _clock(stripe_standin)
    customer = _customer(client, clock.id)
    sub = _subscribed(stripe_standin, customer.id, _price(client, 2999).id)
    # The saved card starts declining (the stand-in's dev route), as an expired or emptied card would.
    declined = httpx.post(f"{stripe_standin.base}/_standin/payment_methods/{sub.default_payment_method}/decline_later",
                          json={"decline_code": "insufficient_funds"})
    assert declined.status_code == 200
    stripe_standin.advance(clock.id, MAY_1 + 2 * HOUR)
    sub = client.v1.subscriptions.retrieve(sub.id)
    invoice = client.v1.invoices.retrieve(sub.latest_invoice)
    assert (sub.status, invoice.status, invoice.attempt_count) == ("past_due", "open", 1)
    with pytest.raises(stripe.CardError) as exc:
        client.v1.invoices.pay(invoice.id)
    assert exc.value.code == "card_declined" and exc.value.user_message == "Your card has insufficient funds."
    assert client.v1.invoices.retrieve(invoice.id).attempt_count == 1  # a manual attempt is not a retry

    new_card = _setup_card(stripe_standin, customer.id, "4242424242424242")
    stripe_standin.drain()
    assert stripe_webhooks.types("setup_intent.")[-1] == "setup_intent.succeeded"
    assert stripe_webhooks.of("payment_method.attached")[-1]["data"]["object"]["id"] == new_card
    client.v1.customers.update(customer.id, params={"invoice_settings": {"default_payment_method": new_card}})
    client.v1.subscriptions.update(sub.id, params={"default_payment_method": new_card})
    stripe_standin.drain()
    stripe_webhooks.clear()
    paid = client.v1.invoices.pay(invoice.id)
    assert (paid.status, paid.amount_paid, paid.next_payment_attempt) == ("paid", 2999, None)
    stripe_standin.drain()
    assert client.v1.subscriptions.retrieve(sub.id).status == "active"
    assert client.v1.customers.retrieve(customer.id).delinquent is False
    assert stripe_webhooks.about(invoice.id) == ["invoice.paid", "invoice.payment_succeeded"]
    recovered = stripe_webhooks.of("customer.subscription.updated")[-1]
    assert recovered["data"]["previous_attributes"]["status"] == "past_due"
    # The retries that were due are gone: nothing more happens to that invoice.
    stripe_webhooks.clear()
    stripe_standin.advance(clock.id, MAY_1 + 8 * DAY)
    assert "invoice.payment_failed" not in stripe_webhooks.types()
    with pytest.raises(stripe.InvalidRequestError, match="does not have a payment method"):
        client.v1.customers.update(customer.id, params={"invoice_settings": {
            "default_payment_method": client.v1.payment_methods.create(params={
                "type": "card", "card": {"number": "4242424242424242", "exp_month": 12, "exp_year": 2034,
                                         "cvc": "123"}}).id}})


def test_cancel_at_period_end_resume_and_cancel_now(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    clock = _clock(stripe_standin)
    customer = _customer(client, clock.id)
    price = _price(client, 2000)
    sub = _subscribed(stripe_standin, customer.id, price.id)
    stripe_standin.drain()
    stripe_webhooks.clear()
    ending = client.v1.subscriptions.update(sub.id, params={"cancel_at_period_end": True})
    assert (ending.status, ending.cancel_at_period_end, ending.cancel_at, ending.canceled_at) == (
        "active", True, MAY_1, APRIL_1)
    assert ending.cancellation_details.reason == "cancellation_requested"
    resumed = client.v1.subscriptions.update(sub.id, params={"cancel_at_period_end": False})
    assert (resumed.cancel_at_period_end, resumed.cancel_at, resumed.canceled_at) == (False, None, None)
    stripe_standin.drain()
    changes = [e["data"]["previous_attributes"] for e in stripe_webhooks.of("customer.subscription.updated")]
    assert changes[0]["cancel_at_period_end"] is False and changes[1]["cancel_at_period_end"] is True
    client.v1.subscriptions.update(sub.id, params={"cancel_at_period_end": True})
    stripe_standin.drain()
    stripe_webhooks.clear()
    stripe_standin.advance(clock.id, MAY_1 + 2 * HOUR)
    assert _during_advance(stripe_webhooks) == ["test_helpers.test_clock.advancing", "customer.subscription.deleted"]
    sub = client.v1.subscriptions.retrieve(sub.id)
    assert (sub.status, sub.ended_at) == ("canceled", MAY_1)
    assert len(client.v1.invoices.list(params={"subscription": sub.id}).data) == 1  # no renewal

    # Cancel now, crediting the unused half of the period and invoicing it at once: the credit pays the next one.
    other = _subscribed(stripe_standin, customer.id, price.id)
    stripe_standin.advance(clock.id, MAY_1 + 2 * HOUR + 31 * DAY // 2)
    canceled = client.v1.subscriptions.cancel(other.id, params={"prorate": True, "invoice_now": True})
    assert canceled.status == "canceled"
    credit = client.v1.invoices.list(params={"customer": customer.id, "limit": 1}).data[0]
    assert (credit.total, credit.amount_due, credit.status) == (-1000, 0, "paid")
    assert client.v1.customers.retrieve(customer.id).balance == -1000
    third = _subscribe(stripe_standin, customer.id, price.id)
    assert (third.latest_invoice.starting_balance, third.latest_invoice.amount_due) == (-1000, 1000)
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.subscriptions.cancel(other.id)


def test_upgrade_prorates_at_once_and_downgrade_waits_for_the_renewal(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    clock = _clock(stripe_standin)
    customer = _customer(client, clock.id)
    basic, pro, lite = _price(client, 1000, name="Basic"), _price(client, 3000, name="Pro"), _price(client, 500,
                                                                                                    name="Lite")
    sub = _subscribed(stripe_standin, customer.id, basic.id)
    item = sub["items"]["data"][0]["id"]
    halfway = APRIL_1 + 15 * DAY
    stripe_standin.advance(clock.id, halfway)

    # Upgrade now: credit for half a month of Basic, charge for half a month of Pro, invoiced and paid at once.
    change = {"items": [{"id": item, "price": pro.id}], "proration_behavior": "always_invoice"}
    preview = client.v1.invoices.create_preview(params={"subscription": sub.id, "subscription_details": change})
    assert (preview.amount_due, [line.amount for line in preview.lines.data]) == (1000, [-500, 1500])
    stripe_standin.drain()
    stripe_webhooks.clear()
    upgraded = client.v1.subscriptions.update(sub.id, params={**change, "expand": ["latest_invoice"]})
    invoice = upgraded.latest_invoice
    assert (invoice.billing_reason, invoice.amount_due, invoice.amount_paid, invoice.status) == (
        "subscription_update", 1000, 1000, "paid")
    assert [(line.amount, line.parent.subscription_item_details.proration) for line in invoice.lines.data] == [
        (-500, True), (1500, True)]
    assert invoice.lines.data[0].description == "Unused time on 1 \u00d7 Basic after 16 Apr 2026"
    assert invoice.lines.data[1].description == "Remaining time on 1 \u00d7 Pro after 16 Apr 2026"
    assert upgraded["items"]["data"][0]["price"]["id"] == pro.id and _period(upgraded) == (APRIL_1, MAY_1)
    stripe_standin.drain()
    assert stripe_webhooks.types("invoiceitem.") == ["invoiceitem.created", "invoiceitem.created"]
    changed = stripe_webhooks.of("customer.subscription.updated")[0]["data"]["previous_attributes"]
    assert changed["items"]["data"][0]["price"]["id"] == basic.id and changed["latest_invoice"] == sub.latest_invoice
    assert stripe_webhooks.about(invoice.id) == ["invoice.created", "invoice.finalized", "invoice.paid",
                                                 "invoice.payment_succeeded"]

    # A card that cannot pay refuses an immediate upgrade with error_if_incomplete, and nothing changes.
    httpx.post(f"{stripe_standin.base}/_standin/payment_methods/{upgraded.default_payment_method}/decline_later",
               json={"decline_code": "generic_decline"}).raise_for_status()
    bigger = _price(client, 5000, name="Max")
    with pytest.raises(stripe.CardError):
        client.v1.subscriptions.update(sub.id, params={
            "items": [{"id": item, "price": bigger.id}], "proration_behavior": "always_invoice",
            "payment_behavior": "error_if_incomplete", "proration_date": halfway + DAY})
    assert client.v1.subscriptions.retrieve(sub.id)["items"]["data"][0]["price"]["id"] == pro.id
    httpx.post(f"{stripe_standin.base}/_standin/payment_methods/{upgraded.default_payment_method}/decline_later",
               json={"decline_code": None}).raise_for_status()

    # Downgrade at the period end: no prorations; the renewal charges the new price.
    downgraded = client.v1.subscriptions.update(sub.id, params={"items": [{"id": item, "price": lite.id}],
                                                                "proration_behavior": "none"})
    assert downgraded.latest_invoice == invoice.id
    assert client.v1.invoice_items.list(params={"customer": customer.id, "pending": True}).data == []
    stripe_standin.advance(clock.id, MAY_1 + 2 * HOUR)
    renewal = client.v1.invoices.retrieve(client.v1.subscriptions.retrieve(sub.id).latest_invoice)
    assert (renewal.billing_reason, renewal.amount_paid) == ("subscription_cycle", 500)

    # create_prorations: both lines wait for the next renewal (May has 31 days: halfway is 15.5 days in).
    client.v1.subscriptions.update(sub.id, params={"items": [{"id": item, "price": basic.id}],
                                                   "proration_date": MAY_1 + 31 * DAY // 2})
    pending = client.v1.invoice_items.list(params={"customer": customer.id, "pending": True}).data
    assert sorted(i.amount for i in pending) == [-250, 500] and all(i.proration for i in pending)
    stripe_standin.advance(clock.id, JUNE_1 + 2 * HOUR)
    june = client.v1.invoices.retrieve(client.v1.subscriptions.retrieve(sub.id).latest_invoice)
    assert (june.amount_paid, sorted(line.amount for line in june.lines.data)) == (1250, [-250, 500, 1000])
    with pytest.raises(stripe.InvalidRequestError, match="one billing interval"):
        yearly = client.v1.prices.create(params={"unit_amount": 9000, "currency": "usd", "product": pro.product,
                                                 "recurring": {"interval": "year"}})
        client.v1.subscriptions.update(sub.id, params={"items": [{"id": item, "price": yearly.id}]})


def test_restart_keeps_billing_state(tmp_path):
    """Prices, customers on clocks, subscriptions and invoices survive a restart, and billing carries on."""
    state = tmp_path / "standin.pickle"
    proc, base, log = start_standin("--state-file", str(state))
    try:
        standin = StandIn(base=base, stripe=stripe.StripeClient(SECRET_KEY, base_addresses={"api": base}))
        clock = _clock(standin)
        customer = _customer(standin.stripe, clock.id)
        price = _price(standin.stripe, 1200, key="agent-x-usd")
        sub = _subscribed(standin, customer.id, price.id)
    finally:
        stop_standin(proc)
        log.unlink(missing_ok=True)
    proc, base, log = start_standin("--state-file", str(state))
    try:
        standin = StandIn(base=base, stripe=stripe.StripeClient(SECRET_KEY, base_addresses={"api": base}))
        client = standin.stripe
        again = client.v1.subscriptions.retrieve(sub.id)
        assert (again.status, again.default_payment_method, _period(again)) == (
            "active", sub.default_payment_method, (APRIL_1, MAY_1))
        assert [p.id for p in client.v1.prices.list(params={"lookup_keys": ["agent-x-usd"]}).data] == [price.id]
        assert client.v1.customers.retrieve(customer.id).test_clock == clock.id
        assert client.v1.invoices.retrieve(sub.latest_invoice).status == "paid"
        standin.advance(clock.id, MAY_1 + 2 * HOUR)
        renewal = client.v1.invoices.retrieve(client.v1.subscriptions.retrieve(sub.id).latest_invoice)
        assert (renewal.billing_reason, renewal.amount_paid, renewal.number.endswith("-0002")) == (
            "subscription_cycle", 1200, True)
    finally:
        stop_standin(proc)
        log.unlink(missing_ok=True)


def test_a_renewal_to_a_disabled_vendor_account_fails_to_finalize(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    account = client.v1.accounts.create(params={"type": "express", "email": "v@example.com"})
    stripe_standin.complete(account.id)
    clock = _clock(stripe_standin)
    sub = _subscribed(stripe_standin, _customer(client, clock.id).id, _price(client, 1000).id,
                      transfer_data={"destination": account.id}, application_fee_percent=20)
    restricted = httpx.post(f"{stripe_standin.base}/_standin/connect/accounts/{account.id}/restrict").json()
    assert restricted["charges_enabled"] is False and restricted["capabilities"]["transfers"] == "inactive"
    stripe_standin.drain()
    stripe_webhooks.clear()
    clock = stripe_standin.advance(clock.id, MAY_1 + 2 * HOUR)
    assert clock.status == "ready"
    renewal = client.v1.invoices.retrieve(client.v1.subscriptions.retrieve(sub.id).latest_invoice)
    assert (renewal.status, renewal.auto_advance) == ("draft", False)
    assert "capabilities" in renewal.last_finalization_error.message
    assert _during_advance(stripe_webhooks)[-1] == "invoice.finalization_failed"
