"""The subscription routes over HTTP: checkout of a monthly agent (`mode`, `subscriptionId`), completion, the
customer's list, cancel and resume (owner only, clear 409s), and many cancel requests at the same moment."""

from __future__ import annotations

from datetime import datetime, timedelta

import httpx
import pytest
from sqlalchemy import func
from sqlmodel import select

from marketplace import db
from marketplace.config import settings
from marketplace.models import Order, OrderKind, PlatformSetting, Receipt, Subscription
from marketplace.services.billing import demo_clock
from marketplace.services.errors import Invalid
from tests import factories
from tests.live_api import LiveApi, fire
from tests.payments_fixtures import WEBHOOK_SECRET


def _count(model, *where) -> int:
    with db.session_scope() as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


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
                         "cancelAtPeriodEnd", "trialEnd"}
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


# --- demo mode's test clock ----------------------------------------------------------------------------------


def test_advance_clock_is_for_admins_in_demo_mode(client, login, stripe_standin, make_user, demo_mode,
                                                  monkeypatch):
    assert client.post("/api/dev/advance-clock", json={"days": 1}).status_code == 401
    login(make_user("customer"))
    assert client.post("/api/dev/advance-clock", json={"days": 1}).status_code == 403
    client.post("/api/logout")
    login(factories.make_admin("clockadmin"))
    for bad in ({"days": 0}, {"days": 61}, {"days": "x"}, {"days": 1.5}, {}, {"days": True}):
        answer = client.post("/api/dev/advance-clock", json=bad)
        assert answer.status_code == 422, (bad, answer.text)
    with pytest.raises(Invalid, match="whole number"):
        demo_clock.advance_clock(actor=factories.make_admin(), days=0)
    assert _count(PlatformSetting, PlatformSetting.key == demo_clock.CLOCK_SETTING) == 0
    moved = client.post("/api/dev/advance-clock", json={"days": 2})
    assert moved.status_code == 200, moved.text
    assert moved.json()["status"] == "ready"
    first = datetime.fromisoformat(moved.json()["frozenTime"])
    again = client.post("/api/dev/advance-clock", json={"days": 1}).json()
    assert again["id"] == moved.json()["id"] and datetime.fromisoformat(again["frozenTime"]) == first + timedelta(
        days=1)
    assert "demo.advance_clock" in [action for action, _, _ in factories.audit_actions()]
    monkeypatch.setattr(settings, "demo_mode", False)
    assert client.post("/api/dev/advance-clock", json={"days": 1}).status_code == 404


def test_a_renewal_appears_when_the_demo_clock_advances(live_api: LiveApi, stripe_standin, buyer, make_vendor,
                                                       make_agent, demo_mode, mailbox):
    """Demo mode puts new customers on its clock; an admin's advance renews their subscriptions, and the answer
    comes once the renewal's webhooks were handled: the renewal order is there at once."""
    httpx.post(f"{stripe_standin.base}/_config/webhooks/app", data={
        "url": f"{live_api.url}/api/stripe/webhook", "secret": WEBHOOK_SECRET}).raise_for_status()
    agent = make_agent(make_vendor("enabled"), price_cents=2000, name="Clock Bot")
    http = live_api.signed_in("buyer")
    intent = http.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    stripe_standin.confirm(intent["clientSecret"])
    assert http.post("/api/purchase/complete", json={"paymentIntentId": intent["paymentIntentId"]}).status_code == 200
    http.close()
    with db.session_scope() as session:
        clock_id = session.get(PlatformSetting, demo_clock.CLOCK_SETTING).value
    customer = stripe_standin.stripe.v1.customers.list(params={"limit": 1}).data[0]
    assert customer.test_clock == clock_id
    factories.make_admin("clockkeeper")
    admin = live_api.signed_in("clockkeeper")
    moved = admin.post("/api/dev/advance-clock", json={"days": 32})  # past a 31-day month's renewal and its hour
    admin.close()
    assert moved.status_code == 200, moved.text
    with db.session_scope() as session:
        kinds = session.exec(select(Order.kind).where(Order.agent_id == agent.id).order_by(Order.created_at)).all()
    assert kinds == [OrderKind.SUBSCRIPTION, OrderKind.RENEWAL]
    assert mailbox.last(buyer.email, "Your subscription renewed: Clock Bot")
    # Each payment's receipt was numbered when it was recorded (nobody has read one), with the card it charged.
    with db.session_scope() as session:
        receipts = session.exec(select(Receipt).order_by(Receipt.number)).all()
    assert [(r.number, r.card_brand, r.card_last4, r.total_cents) for r in receipts] == [
        (1, "visa", "4242", 2000), (2, "visa", "4242", 2000)]
    assert "monthly subscription" in receipts[1].line
    stripe_standin.drain()  # every delivery answered before the tables are emptied for the next test


def test_a_trial_over_http_saves_the_card_and_lists_trialing_with_its_end(client, login, stripe_standin, buyer,
                                                                          make_agent, make_user):
    agent = make_agent(price_cents=2999, name="Trial Http Bot", trial_days=7)
    assert client.get(f"/api/agents/{agent.id}").json()["trialDays"] == 7
    login(buyer)
    intent = client.post("/api/purchase/create-payment-intent", json={"agentId": agent.id})
    assert intent.status_code == 200, intent.text
    body = intent.json()
    assert (body["mode"], body["intentType"], body["trialDays"], body["trialUsed"]) == ("subscription", "setup", 7,
                                                                                        False)
    assert body["clientSecret"].startswith("seti_") and body["trialEnd"]
    early = client.post("/api/purchase/complete", json={"subscriptionId": body["subscriptionId"]})
    assert early.status_code == 400 and "card was not saved" in early.json()["message"]
    assert stripe_standin.confirm_setup(body["clientSecret"]).json()["status"] == "succeeded"
    login(make_user("stranger"))
    assert client.post("/api/purchase/complete", json={"subscriptionId": body["subscriptionId"]}).status_code == 403
    login(buyer)
    done = client.post("/api/purchase/complete", json={"subscriptionId": body["subscriptionId"],
                                                        "agentId": agent.id})
    assert done.status_code == 200, done.text
    assert done.json()["orderId"] is None and done.json()["trialEnd"]
    [item] = client.get("/api/user/subscriptions").json()
    assert (item["status"], item["trialEnd"][:19]) == ("trialing", body["trialEnd"][:19])
    assert client.get("/api/user/orders").json() == []
    [bought] = client.get("/api/user/purchases").json()
    assert bought["agent"]["id"] == agent.id and bought["licenseKey"]


def test_trial_days_in_the_vendor_draft_api(client, login):
    from tests.factories import make_category

    category = make_category("Trials")
    vendor = factories.make_vendor()
    login(vendor)
    base = {"name": "Trial Draft", "shortDescription": "Short", "description": "Long", "price": "29.99",
            "categoryId": category.id}
    refused = client.post("/api/vendor/agents", json={**base, "trialDays": 45})
    assert refused.status_code == 400
    assert refused.json()["message"] == "Free trial must be a whole number of days from 0 (no trial) to 30"
    created = client.post("/api/vendor/agents", json={**base, "trialDays": 7})
    assert created.status_code == 201, created.text
    assert created.json()["trialDays"] == 7
    agent_id = created.json()["id"]
    changed = client.put(f"/api/vendor/agents/{agent_id}", json={**base, "trialDays": "0"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["trialDays"] == 0
    assert [a["trialDays"] for a in client.get("/api/vendor/agents").json()] == [0]
