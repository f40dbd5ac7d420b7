"""The stand-in's Products, Prices (lookup keys), Customers and SetupIntents, as Stripe answers them."""

from __future__ import annotations

import httpx
import pytest
import stripe


def test_prices_by_lookup_key_and_moving_a_key(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    product = client.v1.products.create(params={"name": "Agent A", "metadata": {"agentId": "a1"}})
    monthly = client.v1.prices.create(params={
        "product": product.id, "unit_amount": 2999, "currency": "usd", "recurring": {"interval": "month"},
        "lookup_key": "agent-a1-usd", "metadata": {"agentId": "a1"}})
    assert (monthly.type, monthly.recurring.interval, monthly.recurring.interval_count, monthly.unit_amount) == (
        "recurring", "month", 1, 2999)
    once = client.v1.prices.create(params={"product_data": {"name": "Agent B"}, "unit_amount": 4900,
                                           "currency": "eur", "lookup_key": "agent-b1-eur"})
    assert (once.type, once.recurring) == ("one_time", None)
    assert client.v1.products.retrieve(once.product).name == "Agent B"
    with pytest.raises(stripe.InvalidRequestError, match="already uses that lookup key"):
        client.v1.prices.create(params={"product": product.id, "unit_amount": 3999, "currency": "usd",
                                        "recurring": {"interval": "month"}, "lookup_key": "agent-a1-usd"})
    # A new price for a changed amount takes the key over; the old one keeps serving existing subscriptions.
    newer = client.v1.prices.create(params={"product": product.id, "unit_amount": 3999, "currency": "usd",
                                            "recurring": {"interval": "month"}, "lookup_key": "agent-a1-usd",
                                            "transfer_lookup_key": True})
    assert client.v1.prices.retrieve(monthly.id).lookup_key is None
    found = client.v1.prices.list(params={"lookup_keys": ["agent-a1-usd", "agent-b1-eur"]}).data
    assert sorted(p.id for p in found) == sorted([newer.id, once.id])
    assert [p.id for p in client.v1.prices.list(params={"product": product.id}).data] == [newer.id, monthly.id]
    assert [p.id for p in client.v1.prices.list(params={"type": "one_time"}).data] == [once.id]
    archived = client.v1.prices.update(monthly.id, params={"active": False})
    assert archived.active is False
    with pytest.raises(stripe.InvalidRequestError, match="inactive"):
        customer = client.v1.customers.create(params={"email": "x@example.com"})
        client.v1.subscriptions.create(params={"customer": customer.id, "items": [{"price": monthly.id}]})
    with pytest.raises(stripe.InvalidRequestError, match="one_time"):
        client.v1.subscriptions.create(params={"customer": customer.id, "items": [{"price": once.id}]})
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.prices.create(params={"product": product.id, "unit_amount": 100, "currency": "usd",
                                        "recurring": {"interval": "fortnight"}})
    stripe_standin.drain()
    moved = [e for e in stripe_webhooks.of("price.updated") if e["data"]["object"]["id"] == monthly.id]
    assert moved[0]["data"]["previous_attributes"] == {"lookup_key": "agent-a1-usd"}
    assert len(stripe_webhooks.of("price.created")) == 3


def test_customers_and_their_cards(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    customer = client.v1.customers.create(params={"email": "buyer@example.com", "name": "Buyer",
                                                  "metadata": {"userId": "u1"}})
    assert (customer.balance, customer.currency, customer.delinquent, customer.test_clock) == (0, None, False, None)
    assert customer.invoice_settings.default_payment_method is None
    assert [c.id for c in client.v1.customers.list(params={"email": "buyer@example.com"}).data] == [customer.id]
    with pytest.raises(stripe.InvalidRequestError, match="No such test clock"):
        client.v1.customers.create(params={"test_clock": "clock_missing"})
    card = client.v1.payment_methods.create(params={"type": "card", "card": {
        "number": "4242424242424242", "exp_month": 12, "exp_year": 2034, "cvc": "123"}})
    client.v1.payment_methods.attach(card.id, params={"customer": customer.id})
    updated = client.v1.customers.update(customer.id, params={
        "invoice_settings": {"default_payment_method": card.id}, "metadata": {"plan": "pro"}})
    assert updated.invoice_settings.default_payment_method == card.id
    assert updated.metadata.to_dict() == {"userId": "u1", "plan": "pro"}
    assert [m.id for m in client.v1.customers.payment_methods.list(customer.id).data] == [card.id]
    declining = client.v1.payment_methods.create(params={"type": "card", "card": {
        "number": "4000000000000002", "exp_month": 12, "exp_year": 2034, "cvc": "123"}})
    with pytest.raises(stripe.CardError) as exc:
        client.v1.payment_methods.attach(declining.id, params={"customer": customer.id})
    assert exc.value.code == "card_declined"
    client.v1.payment_methods.detach(card.id)
    assert client.v1.customers.retrieve(customer.id).invoice_settings.default_payment_method is None
    stripe_standin.drain()
    assert stripe_webhooks.about(customer.id) == ["customer.created", "customer.updated"]
    assert stripe_webhooks.about(card.id) == ["payment_method.attached", "payment_method.detached"]
    assert client.v1.customers.delete(customer.id).deleted is True


def test_setup_intents_from_stripe_js(stripe_standin, stripe_webhooks):
    client = stripe_standin.stripe
    customer = client.v1.customers.create(params={"email": "buyer@example.com"})
    intent = client.v1.setup_intents.create(params={"customer": customer.id, "usage": "off_session",
                                                    "automatic_payment_methods": {"enabled": True}})
    assert (intent.status, intent.usage, intent.payment_method_types) == ("requires_payment_method", "off_session",
                                                                          ["card"])
    # Stripe.js reads it with the publishable key and its client secret, and nothing else.
    seen = httpx.get(f"{stripe_standin.base}/v1/setup_intents/{intent.id}",
                     params={"key": "pk_test_x", "client_secret": intent.client_secret})
    assert seen.json()["status"] == "requires_payment_method"
    wrong = httpx.get(f"{stripe_standin.base}/v1/setup_intents/{intent.id}",
                      params={"key": "pk_test_x", "client_secret": intent.id + "_secret_wrong"})
    assert wrong.status_code == 400
    assert httpx.get(f"{stripe_standin.base}/v1/setup_intents/{intent.id}").status_code == 401

    declined = stripe_standin.confirm_setup(intent.client_secret, "4000000000000002")
    assert declined.status_code == 402 and declined.json()["error"]["message"] == "Your card was declined."
    failed = client.v1.setup_intents.retrieve(intent.id)
    assert (failed.status, failed.last_setup_error.code) == ("requires_payment_method", "card_declined")
    done = stripe_standin.confirm_setup(intent.client_secret, "4242424242424242").json()
    assert done["status"] == "succeeded" and done["last_setup_error"] is None
    assert client.v1.payment_methods.retrieve(done["payment_method"]).customer == customer.id

    secure = client.v1.setup_intents.create(params={"customer": customer.id})
    asked = stripe_standin.confirm_setup(secure.client_secret, "4000002500003155").json()
    assert asked["status"] == "requires_action" and asked["next_action"]["type"] == "use_stripe_sdk"
    answered = httpx.post(f"{stripe_standin.base}/v1/setup_intents/{secure.id}/_authenticate?success=true",
                          data={"key": "pk_test_x", "client_secret": secure.client_secret})
    assert answered.json()["status"] == "succeeded"
    stripe_standin.drain()
    assert stripe_webhooks.about(intent.id) == ["setup_intent.created", "setup_intent.setup_failed",
                                                "setup_intent.succeeded"]


def test_stripe_js_reports_the_release_stripe_js_expects(stripe_standin):
    for path in ("/js.stripe.com/v3/", "/js.stripe.com/endive/stripe.js"):
        script = httpx.get(f"{stripe_standin.base}{path}")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        # @stripe/stripe-js 10.2.1 warns unless Stripe.version is its RELEASE_TRAIN, "endive".
        assert "Stripe.version = 'endive';" in script.text
        assert "confirmSetup" in script.text and "confirmPayment" in script.text


def test_setup_intents_refuse_payment_method_types_as_the_pinned_api_version_does(stripe_standin):
    """Stripe's API version the SDK pins has no `payment_method_types` on SetupIntents (400 parameter_unknown);
    `automatic_payment_methods` is the current name, on by default, and `allowed_payment_method_types` narrows it."""
    client = stripe_standin.stripe
    customer = client.v1.customers.create(params={"email": "buyer@example.com"})
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.setup_intents.create(params={"customer": customer.id, "payment_method_types": ["card"]})
    assert (exc.value.http_status, exc.value.code, exc.value.param) == (400, "parameter_unknown",
                                                                        "payment_method_types")
    assert exc.value.user_message == "Received unknown parameter: payment_method_types"
    plain = client.v1.setup_intents.create(params={"customer": customer.id})
    assert plain.automatic_payment_methods.enabled is True and plain.payment_method_types == ["card"]
    allowed = client.v1.setup_intents.create(params={"customer": customer.id,
                                                     "allowed_payment_method_types": ["card"]})
    assert allowed.status == "requires_payment_method"
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.setup_intents.create(params={"customer": customer.id,
                                               "automatic_payment_methods": {"allow_redirects": "never"}})


def test_the_apps_setup_intent_is_accepted(stripe_standin):
    from marketplace.integrations import billing

    customer = stripe_standin.stripe.v1.customers.create(params={"email": "buyer@example.com"})
    intent = billing.create_setup_intent(customer=customer.id, metadata={"userId": "u1"})
    assert intent.client_secret.startswith(intent.id + "_secret_") and intent.customer == customer.id
    assert stripe_standin.confirm_setup(intent.client_secret).json()["status"] == "succeeded"


def test_a_customers_cards_are_listed_newest_first_also_on_a_frozen_clock(stripe_standin):
    client = stripe_standin.stripe
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": 1_767_225_600})
    customer = client.v1.customers.create(params={"email": "buyer@example.com", "test_clock": clock.id})
    made = []
    for number in ("4242424242424242", "5555555555554444", "4000056655665556"):
        card = client.v1.payment_methods.create(params={"type": "card", "card": {
            "number": number, "exp_month": 12, "exp_year": 2034, "cvc": "123"}})
        client.v1.payment_methods.attach(card.id, params={"customer": customer.id})
        made.append(card.id)
    listed = client.v1.customers.payment_methods.list(customer.id, params={"type": "card"}).data
    assert [m.id for m in listed] == made[::-1]


def test_payment_intents_refuse_payment_method_types_too(stripe_standin):
    """The pinned API version has no `payment_method_types` on PaymentIntents either."""
    client = stripe_standin.stripe
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.payment_intents.create(params={"amount": 500, "currency": "usd",
                                                 "payment_method_types": ["card"]})
    assert (exc.value.code, exc.value.param) == ("parameter_unknown", "payment_method_types")
    made = client.v1.payment_intents.create(params={"amount": 500, "currency": "usd",
                                                    "allowed_payment_method_types": ["card"]})
    assert made.payment_method_types == ["card"]
