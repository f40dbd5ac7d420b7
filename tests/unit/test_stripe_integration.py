"""The Stripe integration module against the stand-in: configuration, Connect helpers, stand-in fidelity."""

from __future__ import annotations

import httpx
import pytest
import stripe

from marketplace.config import settings
from marketplace.integrations import payments
from marketplace.services.errors import BadGateway, DomainError, Invalid, ServiceUnavailable
from marketplace.services.payment_errors import provider_errors
from tests.payments_fixtures import GOOD_CARD


def test_not_configured_is_a_clear_503(monkeypatch, make_user, make_agent):
    from marketplace.services import purchases

    monkeypatch.setattr(settings, "stripe_secret_key", "")
    monkeypatch.setattr(settings, "stripe_publishable_key", "")
    with pytest.raises(payments.PaymentsNotConfigured):
        payments.browser_config()
    with pytest.raises(ServiceUnavailable, match="Payments are not configured") as exc:
        purchases.browser_config()
    assert exc.value.status == 503
    with pytest.raises(ServiceUnavailable):
        purchases.create_payment_intent(actor=make_user(), agent_id=make_agent().id)


@pytest.mark.parametrize(("raised", "translated", "status", "message"), [
    (payments.PaymentsNotConfigured("Payments are not configured"), ServiceUnavailable, 503,
     "Payments are not configured"),
    (payments.PaymentProviderError("The payment provider could not process the request."), BadGateway, 502,
     "Could not load your payouts."),
    (payments.InvalidWebhook("Invalid webhook signature"), Invalid, 400, "Invalid webhook signature"),
])
def test_the_services_translate_the_integrations_errors(raised, translated, status, message):
    """The integration raises its own errors (it imports no service); `provider_errors` makes them domain errors,
    a failed call saying what could not be done when the service names it."""
    assert not isinstance(raised, DomainError)
    with pytest.raises(translated) as exc, provider_errors("Could not load your payouts."):
        raise raised
    assert (exc.value.status, exc.value.message) == (status, message)
    assert exc.value.__cause__ is raised


def test_real_stripe_js_without_api_base(monkeypatch):
    monkeypatch.setattr(settings, "stripe_publishable_key", "pk_test_123")
    monkeypatch.setattr(settings, "stripe_api_base", "")
    assert payments.browser_config().stripe_js_url == "https://js.stripe.com/endive/stripe.js"


def test_provider_outage_is_a_provider_error(stripe_standin, monkeypatch):
    monkeypatch.setattr(settings, "stripe_api_base", "http://127.0.0.1:9")  # nothing listens on the discard port
    with pytest.raises(payments.PaymentProviderError) as exc:
        payments.retrieve_payment_intent("pi_123")
    assert exc.value.message == "The payment provider could not process the request. Please try again."


def test_connect_onboarding_helpers(stripe_standin):
    account = payments.create_connected_account(email="vendor@example.com")
    assert account.id.startswith("acct_")
    assert (account.charges_enabled, account.payouts_enabled, account.details_submitted) == (False, False, False)
    assert "external_account" in account.currently_due and account.disabled_reason == "requirements.past_due"
    url = payments.create_onboarding_link(account_id=account.id, refresh_url="http://localhost:3000/vendor/retry",
                                          return_url="http://localhost:3000/vendor/done")
    page = httpx.get(url)
    assert page.status_code == 200 and account.id in page.text
    back = httpx.post(url, data={"action": "payouts_pending"})
    assert back.headers["location"] == "http://localhost:3000/vendor/done"
    pending = payments.retrieve_account(account.id)
    assert pending.charges_enabled and not pending.payouts_enabled
    # A used link sends the vendor to refresh_url for a new one, as Stripe does.
    assert httpx.get(url).headers["location"] == "http://localhost:3000/vendor/retry"


def test_standin_refuses_fee_without_destination_and_unready_destinations(stripe_standin):
    client = stripe_standin.stripe
    with pytest.raises(stripe.InvalidRequestError, match="application_fee_amount"):
        client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd", "application_fee_amount": 1})
    restricted = payments.create_connected_account(email="v@example.com")
    with pytest.raises(stripe.InvalidRequestError, match="capabilities"):
        client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd", "application_fee_amount": 1,
                                                 "transfer_data": {"destination": restricted.id}})
    with pytest.raises(stripe.InvalidRequestError, match="No such destination"):
        client.v1.payment_intents.create(params={"amount": 1000, "currency": "usd",
                                                 "transfer_data": {"destination": "acct_missing"}})


def test_standin_idempotency_and_browser_auth(stripe_standin):
    intent = payments.create_payment_intent(amount=1000, currency="usd", metadata={"a": "1"}, idempotency_key="k-1",
                                            description="x")
    again = payments.create_payment_intent(amount=1000, currency="usd", metadata={"a": "1"}, idempotency_key="k-1",
                                           description="x")
    assert again.id == intent.id
    with pytest.raises(payments.PaymentProviderError):
        payments.create_payment_intent(amount=2000, currency="usd", metadata={"a": "1"}, idempotency_key="k-1",
                                       description="x")
    base = stripe_standin.base
    wrong = httpx.post(f"{base}/v1/payment_intents/{intent.id}/confirm",
                       data={"key": "pk_test_x", "client_secret": intent.id + "_secret_wrong"})
    assert wrong.status_code == 400
    assert httpx.post(f"{base}/v1/payment_intents/{intent.id}/confirm", data={}).status_code == 401
    assert httpx.get(f"{base}/v1/payment_intents/{intent.id}").status_code == 401
    seen = httpx.get(f"{base}/v1/payment_intents/{intent.id}",
                     params={"key": "pk_test_x", "client_secret": intent.client_secret})
    assert seen.json()["status"] == "requires_payment_method"
    assert stripe_standin.confirm(intent.client_secret, GOOD_CARD).json()["status"] == "succeeded"
    assert payments.retrieve_payment_intent(intent.id).status == "succeeded"
    assert payments.retrieve_payment_intent("pi_unknown") is None


@pytest.mark.parametrize(("card", "code"), [("4242 4242", "incomplete_number"), ("4242424242424241", "invalid_number")])
def test_standin_validates_typed_cards(stripe_standin, card, code):
    intent = payments.create_payment_intent(amount=1000, currency="usd", metadata={}, idempotency_key=f"v-{code}",
                                            description="x")
    response = stripe_standin.confirm(intent.client_secret, card)
    assert response.status_code == 402 and response.json()["error"]["code"] == code


def test_standin_serves_the_stripe_js_shim(stripe_standin):
    response = httpx.get(f"{stripe_standin.base}/js.stripe.com/v3/")
    assert response.status_code == 200 and "javascript" in response.headers["content-type"]
    assert "confirmPayment" in response.text and "window.Stripe = Stripe" in response.text


def test_connect_payouts_helper_and_standin_balance(stripe_standin):
    account = payments.create_connected_account(email="vendor@example.com", country="FR")
    assert (account.country, account.default_currency) == ("FR", "eur")
    assert "external_account" in account.past_due and "external_account" in account.eventually_due
    stripe_standin.complete(account.id)
    stripe_standin.fund(account.id, 5000, fee=1000)
    payout = stripe_standin.pay_out(account.id).json()
    stripe_standin.set_payout_status(payout["id"], "failed")
    balance = stripe_standin.balance(account.id)
    assert balance["available"] == {"usd": 4000, "eur": 0} and balance["pending"]["usd"] == 0
    [listed] = payments.list_payouts(account_id=account.id, limit=10)
    assert (listed.id, listed.amount, listed.currency, listed.status, listed.method, listed.type) == (
        payout["id"], 4000, "usd", "failed", "standard", "bank_account")
    assert listed.automatic and listed.failure_code == "account_closed"
    assert listed.failure_message == "The bank account has been closed."
    assert listed.created.tzinfo is not None and listed.arrival_date > listed.created
    with pytest.raises(payments.PaymentProviderError):
        payments.list_payouts(account_id="acct_unknown", limit=10)


def test_webhooks_are_read_as_the_sdk_reads_them_and_refused_when_not_signed_or_not_json(monkeypatch):
    from tests.payments_fixtures import WEBHOOK_SECRET, event_body, sign

    monkeypatch.setattr(settings, "stripe_webhook_secret", WEBHOOK_SECRET)
    body = event_body({"id": "evt_1", "object": "event", "type": "payment_intent.succeeded",
                       "data": {"object": {"id": "pi_1", "object": "payment_intent", "amount": 2999,
                                           "metadata": {"agentId": "a1", "userId": "u1"},
                                           "charges": {"object": "list", "data": [{"id": "ch_1"}]}}}})
    event = payments.parse_webhook(body, sign(body))
    sdk = stripe.Webhook.construct_event(body, sign(body), WEBHOOK_SECRET).to_dict()
    assert (event.id, event.type, event.object_id, event.data) == (
        sdk["id"], sdk["type"], "pi_1", sdk["data"]["object"])
    with pytest.raises(payments.InvalidWebhook, match="signature"):
        payments.parse_webhook(body, sign(body, secret="whsec_other"))
    with pytest.raises(payments.InvalidWebhook, match="signature"):
        payments.parse_webhook(body, sign(body, timestamp=1))  # replayed long after
    for bad in (b"not json", b"[1, 2]"):
        with pytest.raises(payments.InvalidWebhook, match="payload"):
            payments.parse_webhook(bad, sign(bad))
