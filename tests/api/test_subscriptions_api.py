"""The subscription routes over HTTP: checkout of a monthly agent (`mode`, `subscriptionId`), completion, the
customer's list, cancel and resume (owner only, clear 409s), and many cancel requests at the same moment."""

from __future__ import annotations

import pytest
from sqlalchemy import func
from sqlmodel import select

from marketplace import db
from marketplace.models import Order, OrderKind, Subscription
from tests.live_api import LiveApi, fire


@pytest.fixture
def buyer(make_user):
    return make_user("buyer")


def _subscribed(client, standin, agent) -> dict:
    intent = client.post("/api/purchase/create-payment-intent", json={"agentId": agent.id})
    assert intent.status_code == 200, intent.text
    body = intent.json()
    assert standin.confirm(body["clientSecret"]).json()["status"] == "succeeded"
    done = client.post("/api/purchase/complete", json={"paymentIntentId": body["paymentIntentId"],
                                                        "agentId": agent.id})
    assert done.status_code == 200, done.text
    return body


def test_checkout_answers_the_subscription_and_the_customer_manages_it(client, login, stripe_standin, buyer,
                                                                      make_vendor, make_agent):
    agent = make_agent(make_vendor("enabled"), price_cents=1215, name="Ledger Bot")
    login(buyer)
    body = _subscribed(client, stripe_standin, agent)
    assert body["mode"] == "subscription" and body["subscriptionId"]
    assert body["clientSecret"].startswith(body["paymentIntentId"] + "_secret_")
    assert (body["displayAmount"], body["currency"], body["commissionSplitEnabled"]) == ("12.15", "usd", True)
    [order] = client.get("/api/user/orders").json()
    assert order["totalAmount"] == "12.15" and order["status"] == "completed"

    [item] = client.get("/api/user/subscriptions").json()
    assert set(item) == {"id", "agentId", "agentName", "status", "price", "currency", "currentPeriodEnd",
                         "cancelAtPeriodEnd"}
    assert (item["id"], item["agentId"], item["agentName"], item["status"], item["price"], item["currency"]) == (
        body["subscriptionId"], agent.id, "Ledger Bot", "active", "12.15", "usd")
    assert item["cancelAtPeriodEnd"] is False and item["currentPeriodEnd"]

    base = f"/api/user/subscriptions/{item['id']}"
    cancelled = client.post(f"{base}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["cancelAtPeriodEnd"] is True
    again = client.post(f"{base}/cancel")
    assert again.status_code == 409
    assert again.json() == {"message": "This subscription is already cancelled: it ends at the end of the period"}
    resumed = client.post(f"{base}/resume")
    assert resumed.status_code == 200 and resumed.json()["cancelAtPeriodEnd"] is False
    assert client.post(f"{base}/resume").json() == {"message": "This subscription is not cancelled"}

    # The one-off path answers mode 'payment' and no subscription.
    one_off = client.post("/api/purchase/create-payment-intent",
                          json={"agentId": make_agent(pricing_model="one_time").id}).json()
    assert one_off["mode"] == "payment" and one_off["subscriptionId"] is None


def test_only_the_owner_may_cancel_or_resume(client, login, stripe_standin, buyer, make_user, make_agent):
    agent = make_agent()
    login(buyer)
    sub_id = _subscribed(client, stripe_standin, agent)["subscriptionId"]
    client.post("/api/logout")
    assert client.post(f"/api/user/subscriptions/{sub_id}/cancel").status_code == 401
    assert client.get("/api/user/subscriptions").status_code == 401
    login(make_user("intruder"))
    for action in ("cancel", "resume", "card"):
        refused = client.post(f"/api/user/subscriptions/{sub_id}/{action}")
        assert refused.status_code == 403, action
        assert refused.json() == {"message": "This subscription belongs to another account"}
    assert client.get("/api/user/subscriptions").json() == []
    for bad in ("nope", "x" * 40, "%20"):
        assert client.post(f"/api/user/subscriptions/{bad}/cancel").status_code == 404
    assert client.post("/api/user/subscriptions/nope/card/complete", json={}).status_code == 422
    with db.session_scope() as session:
        assert session.get(Subscription, sub_id).cancel_at_period_end is False


def test_card_update_answers_a_setup_intent(client, login, stripe_standin, buyer, make_agent):
    login(buyer)
    sub_id = _subscribed(client, stripe_standin, make_agent())["subscriptionId"]
    started = client.post(f"/api/user/subscriptions/{sub_id}/card")
    assert started.status_code == 200 and started.json()["clientSecret"].startswith("seti_")
    secret = started.json()["clientSecret"]
    assert stripe_standin.confirm_setup(secret).json()["status"] == "succeeded"
    done = client.post(f"/api/user/subscriptions/{sub_id}/card/complete",
                       json={"setupIntentId": secret.split("_secret_")[0]})
    assert done.status_code == 200 and done.json()["status"] == "active"
    bad = client.post(f"/api/user/subscriptions/{sub_id}/card/complete", json={"setupIntentId": "pi_123"})
    assert bad.status_code == 400 and bad.json() == {"message": "Invalid setup intent id"}


def test_many_cancel_requests_at_once_cancel_once(live_api: LiveApi, stripe_standin, buyer, make_agent, mailbox):
    agent = make_agent(name="Race Bot")
    http = live_api.signed_in("buyer")
    intent = http.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    stripe_standin.confirm(intent["clientSecret"])
    assert http.post("/api/purchase/complete", json={"paymentIntentId": intent["paymentIntentId"]}).status_code == 200
    http.close()
    clients = [live_api.signed_in("buyer") for _ in range(6)]
    try:
        path = f"/api/user/subscriptions/{intent['subscriptionId']}/cancel"
        answers = fire([lambda c=c: c.post(path) for c in clients])
    finally:
        for c in clients:
            c.close()
    assert sorted(a.status_code for a in answers) == [200] + [409] * 5
    cancelled = [m for m in mailbox.messages(buyer.email) if m.subject == "Subscription cancelled: Race Bot"]
    assert len(cancelled) == 1
    with db.session_scope() as session:
        orders = session.exec(select(func.count()).select_from(Order).where(Order.kind == OrderKind.SUBSCRIPTION)).one()
    assert orders == 1
