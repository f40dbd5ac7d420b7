"""The /api routes of checkout, completion, webhook, history, downloads and vendor applications."""

from __future__ import annotations

import io
import zipfile

import pytest

from marketplace import db
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentFile, PricingModel, Role
from tests.payments_fixtures import DECLINED_CARD, event_body, set_platform, sign


@pytest.fixture
def buyer(make_user):
    return make_user("buyer")


def _checkout(client, agent):
    return client.post("/api/purchase/create-payment-intent", json={
        "agentId": agent.id, "customerEmail": "buyer@example.com", "customerName": "Customer",
        "isGuestCheckout": False})


def _complete(client, intent_id, agent, user):
    return client.post("/api/purchase/complete", json={
        "paymentIntentId": intent_id, "agentId": agent.id, "agentName": agent.name, "userId": user.id,
        "customerEmail": user.email, "customerName": "Customer", "isGuestCheckout": False})


def test_stripe_config_names_the_standin_script(client, stripe_standin):
    body = client.get("/api/stripe/config").json()
    assert body == {"publishableKey": "pk_test_standin",
                    "stripeJsUrl": f"{stripe_standin.base}/js.stripe.com/v3/"}


def test_checkout_flow_over_http(client, login, stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=2999, name="Sales Agent")
    login(buyer)
    response = _checkout(client, agent)
    assert response.status_code == 200, response.text
    intent = response.json()
    assert intent["currency"] == "usd" and intent["displayAmount"] == "29.99"
    assert intent["exchangeRate"] == "1.0000" and intent["supportedPaymentMethods"] == ["card"]
    assert intent["clientSecret"].startswith(intent["paymentIntentId"] + "_secret_")
    assert intent["commissionSplitEnabled"] is True and intent["splitBlockReason"] is None

    assert stripe_standin.confirm(intent["clientSecret"]).json()["status"] == "succeeded"
    done = _complete(client, intent["paymentIntentId"], agent, buyer)
    assert done.status_code == 200, done.text
    assert done.json()["success"] is True and done.json()["alreadyRecorded"] is False
    again = _complete(client, intent["paymentIntentId"], agent, buyer)
    assert again.json()["alreadyRecorded"] is True and again.json()["orderId"] == done.json()["orderId"]

    purchases = client.get("/api/user/purchases").json()
    assert len(purchases) == 1
    purchase = purchases[0]
    assert purchase["purchasePrice"] == "29.99" and purchase["currency"] == "usd"
    assert purchase["agent"] == {"id": agent.id, "name": "Sales Agent", "shortDescription": "Short",
                                 "description": "Long text", "imageUrl": None, "fileUrl": None,
                                 "demoUrl": "https://demo.example.com"}
    order = purchase["order"]
    assert order["totalAmount"] == "29.99" and order["status"] == "completed"
    assert order["commissionSplitEnabled"] is True and order["commissionRate"] == "20.00"
    assert (order["vendorAmount"], order["platformFeeAmount"], order["commissionCurrency"]) == ("23.99", "6.00",
                                                                                              "USD")
    assert order["originalPriceUSD"] == "29.99" and order["exchangeRate"] == "1.0000"
    assert order["splitBlockReason"] is None and order["agentName"] == "Sales Agent"

    assert _checkout(client, agent).status_code == 409
    assert _checkout(client, agent).json() == {"message": "You already own this agent"}


def test_orders_newest_first_and_eur_direct(client, login, stripe_standin, buyer, make_agent, eur_checkout):
    first, second = make_agent(price_cents=1000), make_agent(price_cents=2999)
    login(buyer)
    for agent in (first, second):
        intent = _checkout(client, agent).json()
        assert intent["currency"] == "eur" and intent["exchangeRate"] == "0.9200"
        stripe_standin.confirm(intent["clientSecret"])
        assert _complete(client, intent["paymentIntentId"], agent, buyer).status_code == 200
    orders = client.get("/api/user/orders").json()
    assert [o["agentName"] for o in orders] == [second.name, first.name]
    newest = orders[0]
    assert (newest["totalAmount"], newest["currency"], newest["commissionCurrency"]) == ("27.59", "eur", "EUR")
    assert (newest["originalPriceUSD"], newest["exchangeRate"]) == ("29.99", "0.9200")
    assert newest["commissionSplitEnabled"] is False and newest["splitBlockReason"] == "Agent has no vendor account"
    assert (newest["vendorAmount"], newest["platformFeeAmount"]) == ("22.07", "5.52")
    assert [p["agent"]["id"] for p in client.get("/api/user/purchases").json()] == [second.id, first.id]


def test_a_second_payment_is_refunded_over_http(client, login, stripe_standin, buyer, make_agent):
    agent = make_agent(price_cents=2999, pricing_model=PricingModel.ONE_TIME)  # the one-off path
    login(buyer)
    first = _checkout(client, agent).json()
    set_platform(commission="25")  # other terms: the second tab gets its own PaymentIntent
    second = _checkout(client, agent).json()
    for intent in (first, second):
        stripe_standin.confirm(intent["clientSecret"])
    assert _complete(client, first["paymentIntentId"], agent, buyer).status_code == 200
    refused = _complete(client, second["paymentIntentId"], agent, buyer)
    assert refused.status_code == 409
    assert refused.json() == {"message": "You already own this agent. This payment has been refunded."}
    assert [o["status"] for o in client.get("/api/user/orders").json()] == ["refunded", "completed"]
    assert len(client.get("/api/user/purchases").json()) == 1


def test_a_payment_at_a_changed_price_is_refunded_over_http(client, login, stripe_standin, buyer, make_agent):
    agent = make_agent(price_cents=2999, pricing_model=PricingModel.ONE_TIME)  # the one-off path
    login(buyer)
    intent = _checkout(client, agent).json()
    stripe_standin.confirm(intent["clientSecret"])
    with db.session_scope() as session:
        session.get(Agent, agent.id).price_cents = 1999
    refused = _complete(client, intent["paymentIntentId"], agent, buyer)
    assert refused.status_code == 400
    assert refused.json() == {"message": "The agent's price changed during checkout. This payment has been "
                                         "refunded: please check out again."}
    assert client.get("/api/user/purchases").json() == []
    again = _checkout(client, agent).json()  # checking out again quotes the new price
    assert again["paymentIntentId"] != intent["paymentIntentId"] and again["displayAmount"] == "19.99"


def test_checkout_refusals_over_http(client, login, stripe_standin, buyer, make_vendor, make_agent):
    vendor = make_vendor()
    agent = make_agent(vendor)
    response = _checkout(client, agent)
    assert response.status_code == 401 and response.json()["message"] == "Unauthorized"
    login(buyer)
    assert client.post("/api/purchase/create-payment-intent", json={"agentId": "nope"}).status_code == 404
    assert client.post("/api/purchase/create-payment-intent", json={}).status_code == 422
    assert _checkout(client, make_agent(vendor, status="pending")).status_code == 404
    client.post("/api/logout")
    login(vendor)
    assert _checkout(client, agent).status_code == 403


def test_complete_refusals_over_http(client, login, stripe_standin, buyer, make_user, make_agent):
    agent = make_agent()
    login(buyer)
    intent = _checkout(client, agent).json()
    not_paid = _complete(client, intent["paymentIntentId"], agent, buyer)
    assert not_paid.status_code == 400 and not_paid.json() == {"message": "Payment was not successful"}
    declined = stripe_standin.confirm(intent["clientSecret"], DECLINED_CARD)
    assert declined.json()["error"]["message"] == "Your card was declined."
    assert _complete(client, intent["paymentIntentId"], agent, buyer).status_code == 400
    stripe_standin.confirm(intent["clientSecret"])
    client.post("/api/logout")
    assert _complete(client, intent["paymentIntentId"], agent, buyer).status_code == 401
    thief = make_user("thief")
    login(thief)
    assert _complete(client, intent["paymentIntentId"], agent, thief).status_code == 403
    assert client.get("/api/user/purchases").json() == []


def test_webhook_route(client, stripe_standin, buyer, make_agent):
    from marketplace.services import purchases

    agent = make_agent(pricing_model=PricingModel.ONE_TIME)  # payment_intent.succeeded: the one-off path
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    stripe_standin.confirm(intent.client_secret)
    body = event_body(stripe_standin.event_for(intent.payment_intent_id, "payment_intent.succeeded"))
    bad = client.post("/api/stripe/webhook", content=body, headers={"Stripe-Signature": sign(body, "whsec_x")})
    assert bad.status_code == 400 and bad.json() == {"message": "Invalid webhook signature"}
    assert client.post("/api/stripe/webhook", content=body).status_code == 400
    headers = {"Stripe-Signature": sign(body), "Content-Type": "application/json", "Origin": "https://stripe.com"}
    ok = client.post("/api/stripe/webhook", content=body, headers=headers)
    assert ok.status_code == 200 and ok.json() == {"received": True, "result": "recorded"}
    again = client.post("/api/stripe/webhook", content=body, headers=headers)
    assert again.json()["result"] == "duplicate"


def test_claim_free_route(client, login, stripe_standin, buyer, make_agent):
    agent = make_agent(price_cents=0)
    assert client.post("/api/purchase/claim-free", json={"agentId": agent.id}).status_code == 401
    login(buyer)
    free_checkout = _checkout(client, agent)
    assert free_checkout.status_code == 400 and "free" in free_checkout.json()["message"]
    claimed = client.post("/api/purchase/claim-free", json={"agentId": agent.id})
    assert claimed.status_code == 201 and claimed.json()["purchaseId"]
    assert client.post("/api/purchase/claim-free", json={"agentId": agent.id}).status_code == 409
    [purchase] = client.get("/api/user/purchases").json()
    assert purchase["purchasePrice"] == "0.00" and purchase["order"]["totalAmount"] == "0.00"


def test_download_route(client, login, make_user, make_agent):
    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    agent = make_agent(vendor, name="My Agent!")
    get_storage().put("agents/x/readme.txt", b"hello")
    with db.session_scope() as session:
        session.add(AgentFile(agent_id=agent.id, storage_key="agents/x/readme.txt", filename="readme.txt"))
    url = f"/api/agents/{agent.id}/download"
    assert client.get(url).status_code == 401
    login(make_user("stranger"))
    denied = client.get(url)
    assert denied.status_code == 403 and denied.json() == {"message": "You don't have access to download this file."}
    client.post("/api/logout")
    login(vendor)
    response = client.get(url)
    assert response.status_code == 200 and response.headers["content-type"] == "application/zip"
    assert response.headers["content-disposition"] == 'attachment; filename="My_Agent__files.zip"'
    with zipfile.ZipFile(io.BytesIO(response.content)) as z:
        assert z.read("readme.txt") == b"hello"
    missing = client.get(f"/api/agents/{make_agent(vendor).id}/download")
    assert missing.status_code == 404 and missing.json() == {"message": "File not found."}


def test_purchase_lists_the_download_url_when_files_exist(client, login, stripe_standin, buyer, make_agent):
    agent = make_agent(price_cents=0)
    with db.session_scope() as session:
        session.add(AgentFile(agent_id=agent.id, storage_key="agents/y/a.txt", filename="a.txt"))
    login(buyer)
    client.post("/api/purchase/claim-free", json={"agentId": agent.id})
    [purchase] = client.get("/api/user/purchases").json()
    assert purchase["agent"]["fileUrl"] == f"/api/agents/{agent.id}/download"


def test_history_needs_sign_in(client):
    assert client.get("/api/user/purchases").status_code == 401
    assert client.get("/api/user/orders").status_code == 401


def test_vendor_apply_route(client, login, make_user):
    assert client.post("/api/vendor/apply", json={"businessName": "Acme"}).status_code == 401
    user = make_user("hopeful")
    login(user)
    missing = client.post("/api/vendor/apply", json={"businessDescription": "x"})
    assert missing.status_code == 400 and missing.json()["message"] == "Business name is required"
    bad_site = client.post("/api/vendor/apply", json={"businessName": "Acme", "website": "acme.com"})
    assert bad_site.status_code == 400 and bad_site.json()["field"] == "website"
    created = client.post("/api/vendor/apply", json={"businessName": "Acme", "businessDescription": "Agents"})
    assert created.status_code == 201
    assert created.json()["businessName"] == "Acme" and created.json()["status"] == "pending"
    second = client.post("/api/vendor/apply", json={"businessName": "Acme"})
    assert second.status_code == 409 and second.json() == {"message": "You already have a pending vendor application"}
    assert client.get("/api/vendor/application").json()["id"] == created.json()["id"]
